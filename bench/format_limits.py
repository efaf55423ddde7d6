"""What a user waits for on heavy or oversized files: a 5 MB Markdown upload's refusal, and the Rails
YAML export at n and 4n (plural entries; an anchor merged by every mapping).

Runs the app in process (FastAPI's TestClient, SQLite in memory, the pseudo model): uploads each
file, writes every segment as approved (Polish forms for plural entries) in one commit, then times
`GET …/export?format=original`. Prints wall seconds and the process's CPU seconds (every thread) for
each request, and the 4n/n ratio (linear work is about 4). A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/format_limits.py
    .venv/bin/python bench/format_limits.py --plurals 3000 12000 --merges 500 2000
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
from service.container import Services  # noqa: E402
from storage.interface import CHUNK_CHARS  # noqa: E402
from storage.sqlite import SQLiteStorage  # noqa: E402

POLISH = forms_text({"one": "plik", "few": "pliki", "many": "plików", "other": "pliku"})


def plurals(n: int) -> str:
    body = "".join(f"    k{i}:\n      one: one file {i}\n      other: '%{{count}} files {i}'\n" for i in range(n))
    return f"en:\n  files:\n{body}"


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
    covered, writes = state.covered, []
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
        covered = add_span(covered, segment.start, segment.end)
    storage.commit(snapshot.token, StepEffects(units=writes, coverage={fid: covered}))
    return len(segments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown-bytes", type=int, nargs="+", default=(4_900_000, 5_200_000))
    parser.add_argument("--plurals", type=int, nargs=2, default=(3_000, 12_000))
    parser.add_argument("--merges", type=int, nargs=2, default=(500, 2_000))
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
        for label, make, sizes in (("plural entries", plurals, args.plurals), ("merged anchors", merges, args.merges)):
            seconds: list[float] = []
            for n in sizes:
                sid = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
                body = {"name": "en.yml", "content": make(n)}
                upload, up_wall, up_cpu = timed(partial(client.post, f"/api/sessions/{sid}/files", json=body))
                fid = upload.json()["fileId"]
                count = approve_all(services, sid, fid)
                path = f"/api/sessions/{sid}/files/{fid}/export"
                export, wall, used = timed(partial(client.get, path, params={"format": "original"}))
                seconds.append(used)
                print(
                    f"rails {label} n={n:,} ({count:,} segments): upload {up_wall:.2f} s ({up_cpu:.2f} s CPU), "
                    f"export {export.status_code} {len(export.content):,} bytes in {wall:.2f} s ({used:.2f} s CPU)"
                )
            print(f"  export CPU at 4n / n: {seconds[1] / seconds[0]:.1f}")


if __name__ == "__main__":
    main()
