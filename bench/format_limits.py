"""What a user waits for on heavy or oversized files: a 5 MB Markdown upload's refusal, and the Rails
YAML upload and export at n and 4n (plural entries; an anchor merged by every mapping) and at the cap
(`--cap`: the most plural entries a file takes, padded to just under the upload's 5 MB).

Runs the app in process (FastAPI's TestClient, SQLite in memory, the pseudo model): uploads each
file, writes every segment as approved (Polish forms for plural entries) in one commit, then times
`GET …/export?format=original`. Prints wall seconds and the process's CPU seconds (every thread) for
each request, the CPU seconds of the format's own read and export (read and write) of the same file,
and the 4n/n ratio (linear work is about 4). A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/format_limits.py
    .venv/bin/python bench/format_limits.py --plurals 3000 12000 --merges 500 2000
    .venv/bin/python bench/format_limits.py --markdown-bytes --merges --plurals 3000 12000 --cap
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

from fastapi.testclient import TestClient  # noqa: E402

from agent_core.document import add_span  # noqa: E402
from agent_core.effects import StepEffects, UnitWrite  # noqa: E402
from agent_core.models import resolve_model  # noqa: E402
from agent_core.plural import forms_text  # noqa: E402
from handlers.app import create_app  # noqa: E402
from interchange.formats import format_named  # noqa: E402
from interchange.formats.base import Resource, Target  # noqa: E402
from interchange.limits import MAX_SEGMENTS  # noqa: E402
from service.container import Services  # noqa: E402
from service.uploads import MAX_FILE_BYTES  # noqa: E402
from storage.interface import CHUNK_CHARS  # noqa: E402
from storage.sqlite import SQLiteStorage  # noqa: E402

POLISH = forms_text({"one": "plik", "few": "pliki", "many": "plików", "other": "pliku"})


def plurals(n: int, pad: int = 0) -> str:
    """`n` plural entries (`one`/`other`), each form's text `pad` characters longer."""
    more = " file" * (pad // 5)
    body = "".join(
        f"    k{i}:\n      one: one file{more} {i}\n      other: '%{{count}} files{more} {i}'\n" for i in range(n)
    )
    return f"en:\n  files:\n{body}"


def at_the_cap() -> str:
    """The largest plural file an upload takes: MAX_SEGMENTS entries padded to just under MAX_FILE_BYTES."""
    n = MAX_SEGMENTS - 1
    base = len(plurals(n).encode())
    return plurals(n, pad=5 * ((MAX_FILE_BYTES - 20_000 - base) // (2 * n * 5)))


def merges(n: int) -> str:
    body = "".join(f"  page{i}:\n    <<: *base\n    title: Page {i}\n" for i in range(n))
    return f"en:\n  base: &base\n    one: one item\n    other: '%{{count}} items'\n{body}"


def markdown(size: int) -> str:
    paragraph = "A sentence of ordinary words that goes on for a while. " * 20 + "\n\n"
    return (paragraph * (size // len(paragraph) + 1))[:size]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(call: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, used = time.perf_counter(), cpu()
    result = call()
    return result, time.perf_counter() - wall, cpu() - used


def approve_all(services: Services, sid: str, fid: str) -> int:
    """Every segment of the file written as approved, in one commit; how many."""
    storage = services.storage
    snapshot = storage.load_step(sid, window=0)
    state = next(f for f in snapshot.files if f.file_id == fid)
    chunks = storage.read_chunks(sid, fid, 0, max(state.chars - 1, 0) // CHUNK_CHARS)
    segments = [s for chunk in chunks for s in chunk.segments]
    writes = []
    for number, segment in enumerate(segments):
        text = POLISH if segment.context and segment.context.plural else "tekst"
        writes.append(
            UnitWrite(
                file_id=fid,
                start=segment.start,
                end=segment.end,
                cover_end=segment.end,
                text=text,
                call_id=f"c{number}",
                status="approve",
            )
        )
    spans = (*state.covered, *((s.start, s.end) for s in segments[1:]))
    covered = add_span(spans, segments[0].start, segments[0].end)  # one merge: a span at a time is quadratic
    storage.commit(snapshot.token, StepEffects(units=writes, coverage={fid: covered}))
    return len(segments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown-bytes", type=int, nargs="*", default=(4_900_000, 5_200_000))
    parser.add_argument("--plurals", type=int, nargs="*", default=(3_000, 12_000))
    parser.add_argument("--merges", type=int, nargs="*", default=(500, 2_000))
    parser.add_argument("--cap", action="store_true", help="also a plural file at the upload's limits")
    args = parser.parse_args()
    from tests.helpers import services_for

    services = services_for(SQLiteStorage(":memory:"), model=resolve_model("pseudo"))
    with TestClient(create_app(services)) as client:
        sid = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
        for size in args.markdown_bytes:
            body = {"name": "big.md", "content": markdown(size)}
            answer, wall, used = timed(partial(client.post, f"/api/sessions/{sid}/files", json=body))
            print(f"markdown upload of {size:,} bytes: {answer.status_code} in {wall:.2f} s ({used:.2f} s CPU)")
            print(f"  {answer.text[:160]}")
        warm = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
        client.post(f"/api/sessions/{warm}/files", json={"name": "en.yml", "content": plurals(10)})  # imports, profiles
        cases = [("plural entries", plurals, args.plurals), ("merged anchors", merges, args.merges)]
        for label, make, sizes in cases:
            figures = [rails(client, services, f"{label} n={n:,}", make(n)) for n in sizes]
            if len(figures) == 2:
                (up_n, ex_n), (up_4n, ex_4n) = figures
                print(f"  CPU at 4n / n: upload {up_4n / up_n:.1f}, export {ex_4n / ex_n:.1f}")
        if args.cap:
            rails(client, services, f"plural entries at the cap n={MAX_SEGMENTS - 1:,}", at_the_cap())


def rails(client: TestClient, services: Services, label: str, content: str) -> tuple[float, float]:
    """A Rails YAML file uploaded, every segment approved, and exported: the CPU seconds of the upload
    and the export (printed with their wall seconds)."""
    sid = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
    body = {"name": "en.yml", "content": content}
    upload, up_wall, up_cpu = timed(partial(client.post, f"/api/sessions/{sid}/files", json=body))
    if upload.status_code != 201:
        print(f"rails {label}: upload {upload.status_code} in {up_wall:.2f} s ({up_cpu:.2f} s CPU)")
        print(f"  {upload.text[:160]}")
        return up_cpu, 0.0
    fid = upload.json()["fileId"]
    count = approve_all(services, sid, fid)
    path = f"/api/sessions/{sid}/files/{fid}/export"
    export, wall, used = timed(partial(client.get, path, params={"format": "original"}))
    print(
        f"rails {label} ({len(content.encode()):,} bytes, {count:,} segments): upload {up_wall:.2f} s "
        f"({up_cpu:.2f} s CPU), export {export.status_code} {len(export.content):,} bytes in {wall:.2f} s "
        f"({used:.2f} s CPU)"
    )
    data = content.encode()
    fmt = format_named("rails_yaml")
    read_cpu = timed(partial(fmt.read, data))[2]
    polish = {"one": "plik", "few": "pliki", "many": "plików", "other": "pliku"}

    def fill(resource: Resource) -> tuple[dict[str, Target], str]:
        return {e.key: polish if e.plural else "tekst" for e in resource.entries}, "pl"

    write_cpu = timed(partial(fmt.export, data, fill))[2]
    print(f"  the format alone: read {read_cpu:.2f} s CPU, export (read and write) {write_cpu:.2f} s CPU")
    return up_cpu, used


if __name__ == "__main__":
    main()
