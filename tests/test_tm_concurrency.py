"""Several processes approving into one project's translation memory at once, across languages and
within one, against moto's server (DynamoDB) and one SQLite file: nothing is lost, each language pair
numbers its own writes 1, 2, … with no gap, and writers of different pairs never retry for each other."""

from __future__ import annotations

import functools
import multiprocessing
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from agent_core.effects import StepEffects, StepToken
from agent_core.tm import TmEntry
from storage.interface import Storage
from tests.aws import create_sessions_table

OWNER = "project:p_concurrent"
TABLE = "sessions-tm-concurrency"
WRITERS = [("fr", 0), ("fr", 1), ("de", 2), ("ja", 3), ("es", 4)]
"""(language, session) of each process: two French writers share a pair, the others have their own."""
STEPS = 4
ENTRIES = 3


def _storage(where: dict[str, str]) -> Storage:
    if "url" in where:
        from storage.dynamodb import DynamoDBSessionStorage

        client = boto3.client(
            "dynamodb",
            endpoint_url=where["url"],
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        return DynamoDBSessionStorage(client, table_name=TABLE)
    from storage.sqlite import SQLiteStorage

    return SQLiteStorage(where["path"])


def _source(session: int, step: int, n: int) -> str:
    return f"Approved string {n} of step {step} in session {session}."


def _writer(where: dict[str, str], language: str, session: int, barrier: Any, results: Any) -> None:
    """One member's session: STEPS approvals of ENTRIES units each, all processes starting together;
    reports the TransactWriteItems it sent (a retry is one more) and the commits refused."""
    storage = _storage(where)
    sent: Counter[str] = Counter()
    if "url" in where:
        storage.client.meta.events.register(  # type: ignore[attr-defined]
            "before-call.dynamodb.TransactWriteItems", lambda **_: sent.update(["transacts"])
        )
    sid = f"s_{session:032d}"
    token = StepToken(
        session_id=sid, owner=OWNER, version=0, created_at="2026-12-06T00:00:00.000+00:00", message_count=0
    )
    storage.commit(token, StepEffects())
    barrier.wait()
    sent.clear()
    refused = 0
    for k in range(STEPS):
        entries = [
            TmEntry(source=_source(session, k, n), target=f"[{language}] {k}.{n}", languages=f"*>{language}")
            for n in range(ENTRIES)
        ]
        loaded = storage.load_step(sid, window=4)
        try:
            storage.commit(loaded.token, StepEffects(memory=entries, memory_added=len(entries)))
        except Exception:  # reported: the test fails on it
            refused += 1
    results.put({"session": session, "refused": refused, "transacts": sent["transacts"]})


def _serialized(operation: Callable[..., Any], lock: threading.RLock) -> Callable[..., Any]:
    @functools.wraps(operation)
    def under_lock(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return operation(*args, **kwargs)

    return under_lock


@pytest.fixture
def moto_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """moto's server with its writes serialized, as DynamoDB's are atomic (tests/test_races.py)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.server import ThreadedMotoServer

    lock = threading.RLock()
    for name in ("get_item", "query", "put_item", "update_item", "delete_item", "transact_write_items"):
        monkeypatch.setattr(DynamoDBBackend, name, _serialized(getattr(DynamoDBBackend, name), lock))
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{server._server.server_port}"  # type: ignore[union-attr]
    finally:
        server.stop()


@pytest.fixture(params=["dynamodb", "sqlite"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """Where the processes meet: moto's server (its table made here) or a SQLite file."""
    if request.param == "dynamodb":
        url = request.getfixturevalue("moto_server")
        where = {"url": url}
        create_sessions_table(_storage(where).client, TABLE)  # type: ignore[attr-defined]
        return where
    return {"path": str(tmp_path / "shared.sqlite3")}


@pytest.mark.slow
def test_processes_approving_across_languages_into_one_project_memory_lose_nothing(shared: dict[str, str]) -> None:
    if "path" in shared:
        _storage(shared)  # the file's tables, before the processes open it
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(len(WRITERS)), context.Queue()
    workers = [
        context.Process(target=_writer, args=(shared, language, session, barrier, results))
        for language, session in WRITERS
    ]
    for w in workers:
        w.start()
    reports = {r["session"]: r for r in (results.get(timeout=240) for _ in workers)}
    for w in workers:
        w.join(timeout=60)
    assert all(r["refused"] == 0 for r in reports.values()), reports
    storage = _storage(shared)
    found = {(e.languages, e.source): e for e in storage.tm_entries(OWNER)}
    wanted = {
        (f"*>{language}", _source(session, k, n))
        for language, session in WRITERS
        for k in range(STEPS)
        for n in range(ENTRIES)
    }
    assert set(found) == wanted, "every approval of every process, in its language, and nothing else"
    assert storage.tm_pairs(OWNER) == ["*>de", "*>es", "*>fr", "*>ja"]
    for language in ("fr", "de", "ja", "es"):
        writes = STEPS * sum(lang == language for lang, _ in WRITERS)
        changes = storage.tm_changes(OWNER, f"*>{language}", since=None)
        assert changes.seq == writes, language
        numbers = Counter(e.written for e in changes.entries)
        assert numbers == dict.fromkeys(range(1, writes + 1), ENTRIES), "one numbered write a commit, no gap"
    if "url" in shared:  # a writer alone on its pair commits at its first try: other pairs never stop it
        alone = [s for lang, s in WRITERS if lang != "fr"]
        assert all(reports[s]["transacts"] == STEPS for s in alone), reports
