"""A project's translation memory at the scale of a real project (issue 43): 30 languages × 10,000 UI
strings of 5 to 7 words, one project's memory, 30 sessions of it stepping at once.

Two parts, one run each:

- `lookups`: one owner's memory filled with `--entries` entries in each of 1 and then `--pairs`
  language pairs (the same source strings into each language, as a project's), then a process that
  never met it takes French steps: each step reads the owner's memory (service.memory), refreshes the
  translation memory (service.tm) and looks up `--sources` sources exactly and fuzzily, as a step's
  memory proposals do. Three steps: cold (the replica reads), warm with nothing new, warm after every
  other language's session wrote 10 entries (another process). Per step on DynamoDB (moto in this
  process, the table of template.yaml): requests, sequential round trips, items read, read units
  (from item sizes, bench/dynamo_capacity.py) and bytes received; on SQLite: the entries read and the
  time. moto copies a table per transaction, so filling it is slow: its `--entries` default is 500.
- `contention`: `--pairs` processes against moto's server (its writes serialized, as DynamoDB's are
  atomic: tests/test_races.py), one session each of one project, each in its own language, commit
  `--steps` steps of 5 translation-memory entries at once (they start together). Printed: commits
  refused (ConflictError), TransactWriteItems sent per commit (a retry is one more), GetItems, time,
  and whether every entry is in the memory after.

    .venv/bin/python bench/project_scale.py lookups --backend sqlite --entries 10000
    .venv/bin/python bench/project_scale.py lookups --backend dynamodb --entries 500
    .venv/bin/python bench/project_scale.py contention --pairs 30 --steps 5

A benchmark: it asserts nothing. It uses only what the service and storage offered before the memory
was kept by language pair too, so the same file measures both.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import random
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for key, value in {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_EC2_METADATA_DISABLED": "true",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}.items():
    os.environ.setdefault(key, value)

from agent_core.effects import StepEffects, StepToken  # noqa: E402
from agent_core.tm import TmEntry  # noqa: E402
from service.memory import OwnerMemory  # noqa: E402
from service.tm import TranslationMemory, record_of  # noqa: E402
from storage.errors import ConflictError  # noqa: E402
from storage.interface import Storage  # noqa: E402

LANGUAGES = [
    "fr",
    "de",
    "es",
    "it",
    "pt",
    "nl",
    "sv",
    "da",
    "fi",
    "nb",
    "pl",
    "cs",
    "sk",
    "hu",
    "ro",
    "bg",
    "el",
    "tr",
    "ru",
    "uk",
    "ja",
    "zh",
    "ko",
    "ar",
    "he",
    "hi",
    "th",
    "vi",
    "id",
    "ms",
]
OWNER = "project:p_bench"
TABLE = "sessions-bench"
WORDS = [
    "save",
    "open",
    "close",
    "file",
    "folder",
    "project",
    "settings",
    "account",
    "user",
    "password",
    "change",
    "delete",
    "remove",
    "add",
    "new",
    "edit",
    "view",
    "show",
    "hide",
    "export",
    "import",
    "download",
    "upload",
    "select",
    "all",
    "none",
    "search",
    "filter",
    "sort",
    "name",
    "date",
    "size",
    "type",
    "list",
    "item",
    "entry",
    "page",
    "next",
    "previous",
    "back",
    "cancel",
    "confirm",
    "apply",
    "reset",
    "default",
    "language",
    "theme",
    "dark",
    "light",
    "color",
    "font",
    "text",
    "image",
    "link",
    "copy",
    "paste",
    "undo",
    "redo",
    "help",
    "about",
    "version",
    "update",
    "install",
    "error",
    "warning",
    "message",
    "notification",
    "email",
    "address",
    "phone",
    "number",
    "share",
    "invite",
    "member",
    "role",
]


VOCABULARY = [
    w + end for w in WORDS for end in ("", "s", "ed", "ing", "er", "ers", "able", "ation", "ly", "ment", "ness", "al")
]
"""About 900 words, each in about 70 of 10,000 strings: a product's UI vocabulary, not a handful."""


def strings(count: int, seed: int = 7) -> list[str]:
    """`count` distinct UI strings of 5 to 7 words, the same for a seed."""
    rng, found = random.Random(seed), dict[str, None]()
    while len(found) < count:
        words = rng.sample(VOCABULARY, rng.randint(5, 7))
        found[" ".join(words).capitalize() + "."] = None
    return list(found)


# -- backends --------------------------------------------------------------------------------------


def dynamodb(client: Any) -> Storage:
    from storage.dynamodb import DynamoDBSessionStorage

    return DynamoDBSessionStorage(client, table_name=TABLE)


def fill(storage: Storage, pairs: int, entries: int) -> float:
    """Put `entries` strings into each of `pairs` languages (a put per language); seconds taken."""
    started = time.perf_counter()
    tm = TranslationMemory(storage)
    for language in LANGUAGES[:pairs]:
        tm.record(OWNER, [record_of(s, f"[{language}] {s}", f"auto>{language}", "imported") for s in strings(entries)])
    return time.perf_counter() - started


def step(memory: OwnerMemory, tm: TranslationMemory, sources: list[str], near: list[str]) -> tuple[int, int]:
    """A French step's memory reads and lookups: (exact matches, sources with a fuzzy match)."""

    async def run() -> tuple[int, int]:
        await asyncio.to_thread(memory.snapshot, OWNER)
        await tm.refresh(OWNER)
        exact = await tm.exact(OWNER, "auto>fr", sources)
        similar = await tm.similar_many(OWNER, "auto>fr", near)
        return len(exact), sum(bool(m) for m in similar.values())

    return asyncio.run(run())


def others_write(storage: Storage, pairs: int, k: int) -> None:
    """Every language's session but French's commits 10 entries (another process: its own storage)."""
    tm = TranslationMemory(storage)
    for language in LANGUAGES[1:pairs]:
        news = [f"New string {k} number {n} for the {language} team." for n in range(10)]
        tm.record(OWNER, [record_of(s, f"[{language}] {s}", f"auto>{language}", "approved") for s in news])


def lookups(backend: str, pairs_list: list[int], entries: int, count: int) -> dict[str, Any]:
    held = strings(entries)
    sources = held[: count // 2] + [f"Unknown string {k} of nobody." for k in range(count - count // 2)]
    near = [s[:-1] + " now." for s in held[count : 2 * count]]
    out: dict[str, Any] = {}
    for pairs in pairs_list:
        if backend == "dynamodb":
            out[str(pairs)] = _dynamodb_lookups(pairs, entries, sources, near)
        else:
            out[str(pairs)] = _sqlite_lookups(pairs, entries, sources, near)
    return out


def _sqlite_lookups(pairs: int, entries: int, sources: list[str], near: list[str]) -> dict[str, Any]:
    from storage.sqlite import SQLiteStorage

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/bench.sqlite3"
        filled = fill(SQLiteStorage(path), pairs, entries)
        storage = SQLiteStorage(path)
        read: list[int] = []
        changes = storage.tm_changes

        def counted(*args: Any, **kwargs: Any) -> Any:
            found = changes(*args, **kwargs)
            read.append(len(found.entries))
            return found

        storage.tm_changes = counted  # type: ignore[method-assign]
        tm = TranslationMemory(storage)
        memory = OwnerMemory(storage, tm=tm)
        figures: dict[str, Any] = {"fill_s": round(filled, 1), "held": len(tm.entries(OWNER))}
        read.clear()
        for name in ("cold", "warm", "after_others"):
            if name == "after_others":
                others_write(SQLiteStorage(path), pairs, 1)
            started = time.perf_counter()
            found = step(memory, tm, sources, near)
            figures[name] = {"entries_read": sum(read), "ms": round(1000 * (time.perf_counter() - started), 1)}
            figures[name]["matches"] = found
            read.clear()
        return figures


def _dynamodb_lookups(pairs: int, entries: int, sources: list[str], near: list[str]) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    from bench.dynamo_meter import DynamoMeter
    from tests.aws import create_sessions_table

    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, TABLE)
        with _no_table_copies():
            filled = fill(dynamodb(client), pairs, entries)
        metered = boto3.client("dynamodb", region_name="us-east-1")
        meter, items = DynamoMeter(), Counter[str]()
        meter.attach(metered)
        metered.meta.events.register("after-call.dynamodb.*", lambda parsed, **_: items.update(_items(parsed)))
        storage = dynamodb(metered)
        tm = TranslationMemory(storage)
        memory = OwnerMemory(storage, tm=tm)
        figures: dict[str, Any] = {
            "fill_s": round(filled, 1),
            "held": len(TranslationMemory(dynamodb(client)).entries(OWNER)),
        }
        meter.reset()
        items.clear()
        for name in ("cold", "warm", "after_others"):
            if name == "after_others":
                others_write(dynamodb(client), pairs, 1)
            before = Counter(meter.operations)
            found = step(memory, tm, sources, near)
            meter.mark()
            s = meter.steps[-1]
            figures[name] = {
                "requests": s.requests,
                "round_trips": s.round_trips,
                "items_read": items["read"],
                "read_units": round(s.read_units, 1),
                "bytes": s.bytes,
                "operations": dict(meter.operations - before),
                "matches": found,
            }
            items.clear()
        return figures


@contextlib.contextmanager
def _no_table_copies() -> Iterator[None]:
    """moto without the copy of the whole table it makes for each action of a transaction (to restore
    it if a condition fails): a fill, one writer whose conditions hold, then takes time linear in its
    entries instead of quadratic. Only for the fill; what is measured runs on moto as it is."""
    import moto.dynamodb.models as models

    module: Any = models
    real = module.copy
    module.copy = types.SimpleNamespace(
        deepcopy=lambda x, *a: x if isinstance(x, module.Table) else real.deepcopy(x, *a), copy=real.copy
    )
    try:
        yield
    finally:
        module.copy = real


def _items(parsed: dict[str, Any]) -> dict[str, int]:
    """The items a reply returned."""
    if "Items" in parsed:
        return {"read": len(parsed["Items"])}
    if "Item" in parsed:
        return {"read": 1}
    if "Responses" in parsed and isinstance(parsed["Responses"], dict):
        return {"read": sum(len(v) for v in parsed["Responses"].values())}
    return {}


# -- contention ------------------------------------------------------------------------------------


def _worker(url: str, index: int, steps: int, barrier: Any, results: Any) -> None:
    """One session of the project in language `index`: `steps` commits of 5 entries each, at once."""
    import boto3

    client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1")
    counts: Counter[str] = Counter()
    client.meta.events.register(
        "before-call.dynamodb.*", lambda event_name, **_: counts.update([event_name.rsplit(".", 1)[-1]])
    )
    storage = dynamodb(client)
    language, sid = LANGUAGES[index], f"s_{index:032d}"
    token = StepToken(
        session_id=sid, owner=OWNER, version=0, created_at="2026-12-06T00:00:00.000+00:00", message_count=0
    )
    storage.commit(token, StepEffects())
    barrier.wait()
    counts.clear()
    refused, started = 0, time.perf_counter()
    for k in range(steps):
        entries = [
            TmEntry(
                source=f"String {k}.{n} of session {index}.", target=f"[{language}] {k}.{n}", languages=f"*>{language}"
            )
            for n in range(5)
        ]
        loaded = storage.load_step(sid, window=4)
        try:
            storage.commit(loaded.token, StepEffects(memory=entries, memory_added=len(entries)))
        except ConflictError:
            refused += 1
    results.put({"index": index, "refused": refused, "seconds": time.perf_counter() - started, **counts})


def contention(pairs: int, steps: int) -> dict[str, Any]:
    import functools
    import threading

    import boto3
    from moto.dynamodb.models import DynamoDBBackend
    from moto.server import ThreadedMotoServer

    from tests.aws import create_sessions_table

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    lock = threading.RLock()
    for name in ("get_item", "query", "scan", "put_item", "update_item", "delete_item", "transact_write_items"):
        operation = getattr(DynamoDBBackend, name)
        setattr(DynamoDBBackend, name, functools.wraps(operation)(_serialized(operation, lock)))
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        url = f"http://127.0.0.1:{server._server.server_port}"  # type: ignore[union-attr]
        client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1")
        create_sessions_table(client, TABLE)
        context = multiprocessing.get_context("spawn")
        barrier, results = context.Barrier(pairs), context.Queue()
        workers = [context.Process(target=_worker, args=(url, i, steps, barrier, results)) for i in range(pairs)]
        started = time.perf_counter()
        for w in workers:
            w.start()
        reports = [results.get(timeout=900) for _ in workers]
        for w in workers:
            w.join()
        elapsed = time.perf_counter() - started
        kept = {e.source for e in TranslationMemory(dynamodb(client)).entries(OWNER)}
    finally:
        server.stop()
    commits = pairs * steps
    refused = sum(r["refused"] for r in reports)
    wanted = {
        f"String {k}.{n} of session {i}." for r in reports for i in [r["index"]] for k in range(steps) for n in range(5)
    }
    transacts = sum(r.get("TransactWriteItems", 0) for r in reports)
    return {
        "sessions": pairs,
        "commits": commits,
        "refused": refused,
        "transact_write_items": transacts,
        "retries": transacts - commits,
        "get_item": sum(r.get("GetItem", 0) for r in reports),
        "seconds": round(elapsed, 1),
        "slowest_session_s": round(max(r["seconds"] for r in reports), 1),
        "entries_lost": len(wanted - kept) - 5 * refused,
    }


def _serialized(operation: Any, lock: Any) -> Any:
    def under_lock(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return operation(*args, **kwargs)

    return under_lock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["lookups", "contention"])
    parser.add_argument("--backend", choices=["sqlite", "dynamodb"], default="dynamodb")
    parser.add_argument("--pairs", type=int, default=30, help="languages of the project (at most 30)")
    parser.add_argument("--entries", type=int, help="entries per language (10,000 on SQLite, 500 on moto)")
    parser.add_argument("--sources", type=int, default=20, help="sources a step looks up, exactly and fuzzily")
    parser.add_argument("--steps", type=int, default=5, help="commits per session (contention)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pairs = min(max(args.pairs, 1), len(LANGUAGES))
    if args.part == "lookups":
        entries = args.entries or (10_000 if args.backend == "sqlite" else 500)
        out = {
            "backend": args.backend,
            "entries_per_pair": entries,
            "pairs": lookups(args.backend, sorted({1, pairs}), entries, args.sources),
        }
    else:
        out = contention(pairs, args.steps)
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
