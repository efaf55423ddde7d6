"""Several Lambda-like processes advance ONE session at once; optimistic concurrency keeps it valid.

Workers (tests/race_worker.py, separate processes built from the environment like the deployed
function) share one store: DynamoDB (moto in server mode, the table from template.yaml) or one SQLite
file. Each races the others with "continue"s and approvals. Every answer must be 200 or 409 (a
conflict, `{"error"}`), conflicts must really occur, and the history must stay valid: contiguous
message indexes, one return per tool call, no unit written twice, the translation exactly the units.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import boto3
import pytest

import handlers.api as api
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from storage.interface import Storage
from tests.aws import create_sessions_table
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SOURCE = (ROOT / "tests" / "data" / "guide.md").read_text(encoding="utf-8")
WORKERS = 4
ROUNDS = {"dynamodb": 15, "sqlite": 40}
"""Rounds per worker: moto's server is slow, and 15 rounds of 4 workers already collide dozens of times."""
WORKER_SECONDS = 60
TABLE = "sessions-race"


def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    path, _, query = path.partition("?")
    params = dict(p.split("=", 1) for p in query.split("&") if p) if query else None
    result = api.handler(http_event(method, path, body, query=params), FakeLambdaContext())
    text = result.get("body") or ""
    return result["statusCode"], json.loads(text) if text else None


WRITES = ("transact_write_items", "put_item", "update_item", "delete_item", "batch_write_item")
"""moto's DynamoDB writes. Its TransactWriteItems copies the table first and puts the copy back when
a condition fails, with nothing between its server's threads: a losing racer would undo a winner's
commit applied meanwhile (a lost write, or a META whose items are gone for good). DynamoDB's writes
are serializable, so the server's are made so here; its reads stay unlocked (read-committed per
item, as DynamoDB's Query is, which is what storage.dynamodb's torn-read handling is for)."""


@pytest.fixture
def moto_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.server import ThreadedMotoServer

    lock = threading.RLock()
    for name in WRITES:
        monkeypatch.setattr(DynamoDBBackend, name, serialized(getattr(DynamoDBBackend, name), lock))
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{server._server.server_port}"  # type: ignore[union-attr]
    finally:
        server.stop()


def serialized(method: Callable[..., Any], lock: threading.RLock) -> Callable[..., Any]:
    @functools.wraps(method)
    def under_lock(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return method(*args, **kwargs)

    return under_lock


@pytest.fixture(params=["dynamodb", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Storage, dict[str, str]]]:
    """The shared store, in this process, and the environment that points a worker at it."""
    env = {"AGENT_MODEL": "pseudo", "STORAGE_BACKEND": request.param}
    storage: Storage
    if request.param == "dynamodb":
        from storage.dynamodb import DynamoDBSessionStorage

        url = request.getfixturevalue("moto_server")
        client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1")
        create_sessions_table(client, TABLE)
        storage = DynamoDBSessionStorage(client, table_name=TABLE)
        env |= {"SESSIONS_TABLE": TABLE, "AWS_ENDPOINT_URL_DYNAMODB": url}
    else:
        from storage.sqlite import SQLiteStorage

        path = str(tmp_path / "shared.sqlite3")
        storage = SQLiteStorage(path)
        env |= {"SQLITE_PATH": path}
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage, model=resolve_model("pseudo")))
    yield storage, env
    api.app.state.services = previous


def worker_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "STORAGE_", "SQLITE_", "SESSIONS_"))}
    env.pop("REQUIRE_AUTH", None)
    env |= {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    return env


def run_workers(session_id: str, env: dict[str, str], start: Path) -> list[dict[str, Any]]:
    """Start the workers, let them all go at once when every one is ready, and collect their reports."""
    rounds = ROUNDS[env["STORAGE_BACKEND"]]
    args = [sys.executable, "-m", "tests.race_worker", session_id, str(rounds), str(WORKER_SECONDS - 20), str(start)]
    procs = [
        subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(WORKERS)
    ]
    reports = []
    try:
        deadline = time.monotonic() + WORKER_SECONDS / 2
        while len(list(start.glob("ready-*"))) < WORKERS and time.monotonic() < deadline:
            if any(proc.poll() is not None for proc in procs):
                break  # one failed to start: its report below says why
            time.sleep(0.01)
        (start / "go").touch()
        for proc in procs:
            out, err = proc.communicate(timeout=WORKER_SECONDS)
            assert proc.returncode == 0, err[-3000:]
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return reports


def test_workers_racing_on_one_session_keep_it_valid(backend: tuple[Storage, dict[str, str]], tmp_path: Path) -> None:
    storage, env = backend
    status, created = call("POST", "/api/sessions")
    assert status == 201
    sid = created["id"]
    status, uploaded = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE})
    assert status == 201
    fid = uploaded["fileId"]
    status, first = call("POST", "/api/next", {"sessionId": sid, "userInput": "Translate guide.md into French."})
    assert status == 200, first

    start = tmp_path / "start"
    start.mkdir()
    reports = run_workers(sid, worker_env(env), start)

    statuses = [s for r in reports for s in r["statuses"]]
    unexpected = [u for r in reports for u in r["unexpected"]]
    conflicts = [c for r in reports for c in r["conflicts"]]
    assert not unexpected, unexpected[:5]
    assert set(statuses) <= {200, 409}, sorted(set(statuses))
    assert statuses.count(409) >= 1, "no race happened: raise WORKERS or ROUNDS"
    assert statuses.count(200) >= len(reports), "every worker advanced the session at least once"
    assert all(isinstance(c, dict) and set(c) == {"error"} and c["error"] for c in conflicts), conflicts[:5]

    # What the racers left is a valid session: check it, then finish it here and check again.
    assert_valid(storage, sid, fid, finished=False)
    finish(sid)
    assert_valid(storage, sid, fid, finished=True)


def finish(sid: str) -> None:
    """Drive the session to its end, approving everything."""
    body: dict[str, Any] = {"sessionId": sid}
    for _ in range(500):
        status, data = call("POST", "/api/next", body)
        assert status == 200, data
        agent = data["agentResponse"]
        if agent["copilotRequests"]:
            body = {
                "sessionId": sid,
                "copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]],
            }
        elif agent["actor"] == "user":
            return
        else:
            body = {"sessionId": sid}
    raise AssertionError("the translation did not finish")


def stored_message_indexes(storage: Storage, sid: str, count: int) -> list[int]:
    """The history indexes the backend holds for the session, read from its own tables or items."""
    from storage.sqlite import SQLiteStorage

    if isinstance(storage, SQLiteStorage):
        sql = 'SELECT "index" FROM messages WHERE session_id = ? ORDER BY "index"'
        return [row["index"] for row in storage._conn.execute(sql, (sid,))]
    from storage.dynamodb import DynamoDBSessionStorage

    assert isinstance(storage, DynamoDBSessionStorage)
    pages = storage.client.get_paginator("query").paginate(
        TableName=storage.table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :m)",
        ExpressionAttributeValues={":p": {"S": f"S#{sid}"}, ":m": {"S": "M#"}},
        ConsistentRead=True,
    )
    return [int(item["sk"]["S"][2:]) for page in pages for item in page["Items"]]


def assert_valid(storage: Storage, sid: str, fid: str, *, finished: bool) -> None:
    record = storage.get_session(sid)
    messages = storage.list_messages(sid, cursor=None, limit=100_000)
    assert messages.next_cursor is None and len(messages.items) == record.message_count
    indexes = stored_message_indexes(storage, sid, record.message_count)
    assert indexes == list(range(record.message_count)), "message indexes not contiguous"

    calls: list[str] = []
    returns: list[str] = []
    cursor = None
    while True:
        status, page = call("GET", f"/api/sessions/{sid}/messages?limit=500" + (f"&cursor={cursor}" if cursor else ""))
        assert status == 200
        for message in page["messages"]:
            for part in message["parts"]:
                if part["part_kind"] == "tool-call":
                    calls.append(part["tool_call_id"])
                elif part["part_kind"] == "tool-return":
                    returns.append(part["tool_call_id"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(set(calls)) == len(calls), "a tool call was committed twice"
    assert len(set(returns)) == len(returns), "a tool call got two returns"
    assert set(returns) <= set(calls), "a return without its call"
    status, view = call("GET", f"/api/sessions/{sid}")
    assert status == 200
    if finished:
        assert sorted(calls) == sorted(returns), "every tool call has exactly one return"
    else:
        # Only the latest model response may still wait for its returns.
        last = next(m for m in reversed(view["messages"]) if m["kind"] == "response")
        open_calls = set(calls) - set(returns)
        assert open_calls <= {p["tool_call_id"] for p in last["parts"] if p["part_kind"] == "tool-call"}

    status, units = call("GET", f"/api/sessions/{sid}/files/{fid}/units")
    assert status == 200
    units = units["units"]
    starts = [u["start"] for u in units]
    assert starts == sorted(set(starts)), "a unit was written twice"
    assert all(a["end"] <= b["start"] for a, b in pairwise(units)), "units overlap"
    assert len({u["callId"] for u in units}) == len(units), "one call wrote two units"
    reviewed = [u for u in units if u["status"] != "verbatim"]
    assert {u["callId"] for u in reviewed} <= set(returns), "a unit without its tool return"
    # Text kept verbatim (code blocks) is written at upload, as it is, without a tool call.
    assert all(u["text"] == SOURCE[u["start"] : u["end"]] for u in units if u["status"] == "verbatim")

    status, file = call("GET", f"/api/sessions/{sid}/files/{fid}")
    assert status == 200
    assert file["translation"] == spliced(units), "the translation is not the units in order"
    if finished:
        assert file["progress"]["complete"] is True
        assert file["translation"] == splice_whole(units)


def spliced(units: list[dict[str, Any]]) -> str:
    """The source up to the end of the last unit (and the whitespace after it), units spliced in."""
    if not units:
        return ""
    end = units[-1]["end"]
    end += len(SOURCE[end:]) - len(SOURCE[end:].lstrip())
    out = SOURCE[:end]
    for u in reversed(units):
        out = out[: u["start"]] + u["text"] + out[u["end"] :]
    return out


def splice_whole(units: list[dict[str, Any]]) -> str:
    out = SOURCE
    for u in reversed(units):
        out = out[: u["start"]] + u["text"] + out[u["end"] :]
    return out
