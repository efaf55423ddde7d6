"""Fault injection against DynamoDB (moto): a failed step answers 503 and changes nothing; retries recover.

A step's writes are one TransactWriteItems; everything else it sends DynamoDB is a read. Faults are
injected with botocore event hooks on the storage's own client: `before-call` (the request never
reaches DynamoDB) and `after-call` (DynamoDB committed, but the client sees an error, like a crash or a
lost answer).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

import handlers.api as api
from agent_core.distill_model import distiller_for
from agent_core.models import resolve_model
from agent_core.runtime import AgentRuntime
from handlers.services import LazyServices, Services
from storage import SessionManager
from storage.dynamodb import DynamoDBSessionStorage
from tests.client import Reviewer
from tests.events import FakeLambdaContext, http_event

DATA = Path(__file__).parent / "data"
SOURCE = (DATA / "guide.md").read_text(encoding="utf-8")
TASK = "Translate guide.md into French."


def _client_error(code: str, operation: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "injected fault"}}, operation)


ERRORS: dict[str, Callable[[str], Exception]] = {
    "InternalServerError": lambda op: _client_error("InternalServerError", op),
    "Throttled": lambda op: _client_error("ProvisionedThroughputExceededException", op),
    "ServiceUnavailable": lambda op: _client_error("ServiceUnavailable", op),
    "EndpointConnectionError": lambda op: EndpointConnectionError(
        endpoint_url="https://dynamodb.us-east-1.amazonaws.com"
    ),
}


@dataclass
class Faults:
    """One-shot faults on a boto3 client: the `skip`+1-th call of an operation fails."""

    client: Any
    armed: dict[str, Any] = field(default_factory=dict)
    fired: list[str] = field(default_factory=list)
    transactions: int = 0
    """Successful TransactWriteItems (to know whether a fault struck after a commit)."""

    def __post_init__(self) -> None:
        events = self.client.meta.events
        events.register("before-call.dynamodb", self._before)
        events.register("after-call.dynamodb", self._after)

    def arm(self, operation: str, kind: str, *, skip: int = 0, when: str = "before") -> None:
        self.armed = {"op": operation, "kind": kind, "skip": skip, "when": when}
        self.fired = []

    def disarm(self) -> None:
        self.armed = {}

    def _strike(self, operation: str, when: str) -> None:
        armed = self.armed
        if not armed or armed["op"] != operation or armed["when"] != when:
            return
        if armed["skip"] > 0:
            armed["skip"] -= 1
            return
        self.armed = {}
        self.fired.append(operation)
        raise ERRORS[armed["kind"]](operation)

    def _before(self, model: Any, **_: Any) -> None:
        self._strike(model.name, "before")

    def _after(self, model: Any, http_response: Any = None, parsed: Any = None, **_: Any) -> None:
        if model.name == "TransactWriteItems" and "Error" not in (parsed or {}):
            self.transactions += 1
        self._strike(model.name, "after")


@dataclass
class App:
    storage: DynamoDBSessionStorage
    faults: Faults


def _services(storage: DynamoDBSessionStorage) -> Services:
    """Wired like production (services_from_env): the pseudo model, corrections distilled into memory."""
    manager = SessionManager(storage)
    model = resolve_model("pseudo")
    runtime = AgentRuntime(manager, model=model, memory=manager.memory, distiller=distiller_for(model))
    return Services(manager=manager, runtime=runtime)


@pytest.fixture
def app(moto_table: str) -> Iterator[App]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    storage = DynamoDBSessionStorage(client, table_name=moto_table)
    previous = api.app.state.services
    api.app.state.services = LazyServices(_services(storage))
    yield App(storage=storage, faults=Faults(client))
    api.app.state.services = previous


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


def call(method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None) -> Reply:
    """One request through the Lambda handler, with headers (tests.client's transport sends none)."""
    path, _, query = path.partition("?")
    params = dict(p.split("=", 1) for p in query.split("&") if p) if query else None
    result = api.handler(http_event(method, path, body, query=params, headers=headers), FakeLambdaContext())
    text = result.get("body") or ""
    out_headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
    data = json.loads(text) if "json" in out_headers.get("content-type", "") and text else text
    return Reply(result["statusCode"], data, out_headers)


def state(storage: DynamoDBSessionStorage, sid: str) -> dict[str, Any]:
    """Everything a step may change, read straight from the storage."""
    record = storage.get_session(sid)
    messages = storage.list_messages(sid, cursor=None, limit=10_000)
    verdicts = storage.list_copilot_responses(sid, cursor=None, limit=10_000)
    files = storage.list_files(sid)
    return {
        "record": record,
        "messages": [(m.index, m.data) for m in messages.items],
        "verdicts": [(v.response_index, v.call_id, v.data) for v in verdicts.items],
        "files": files,
        "units": {f.file_id: storage.list_units(sid, f.file_id) for f in files},
    }


def assert_failed_cleanly(reply: Reply) -> None:
    assert reply.status == 503, (reply.status, reply.body)
    assert isinstance(reply.body, dict) and set(reply.body) == {"error"}, reply.body
    assert reply.body["error"] and "Traceback" not in reply.body["error"]
    assert int(reply.headers["retry-after"]) >= 1


def start_session() -> tuple[str, str]:
    created = call("POST", "/api/sessions")
    assert created.status == 201, created.body
    sid = created.body["id"]
    uploaded = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE})
    assert uploaded.status == 201, uploaded.body
    return sid, uploaded.body["fileId"]


def next_body(sid: str, agent: dict[str, Any], reviewer: Reviewer) -> dict[str, Any] | None:
    """The client's next request after an answer; None when the task is over."""
    if agent["copilotRequests"]:
        return {"sessionId": sid, "copilotResponses": [reviewer.verdict(agent["copilotRequests"][0])]}
    if agent["actor"] == "user":
        return None
    return {"sessionId": sid}


def tool_ids(sid: str) -> tuple[list[str], list[str]]:
    calls: list[str] = []
    returns: list[str] = []
    cursor = None
    while True:
        reply = call("GET", f"/api/sessions/{sid}/messages?limit=500" + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200, reply.body
        for message in reply.body["messages"]:
            for part in message["parts"]:
                if part["part_kind"] == "tool-call":
                    calls.append(part["tool_call_id"])
                elif part["part_kind"] == "tool-return":
                    returns.append(part["tool_call_id"])
        cursor = reply.body["nextCursor"]
        if cursor is None:
            return calls, returns


def assert_finished_as_reviewed(sid: str, fid: str, reviewer: Reviewer) -> None:
    view = call("GET", f"/api/sessions/{sid}/files/{fid}")
    assert view.status == 200, view.body
    assert view.body["progress"]["complete"] is True
    assert view.body["translation"] == reviewer.expected(SOURCE)
    units = call("GET", f"/api/sessions/{sid}/files/{fid}/units").body["units"]
    starts = [u["start"] for u in units]
    assert starts == sorted(set(starts)), "a unit was written twice"
    assert all(a["end"] <= b["start"] for a, b in pairwise(units)), "units overlap"
    assert len({u["callId"] for u in units}) == len(units)
    calls, returns = tool_ids(sid)
    assert len(set(calls)) == len(calls), "a tool call id repeats"
    assert sorted(calls) == sorted(returns), "every tool call has exactly one return"


# Where a step is made to fail: (operation, error, calls of that operation to let through first).
STEP_FAULTS = [
    ("TransactWriteItems", "InternalServerError", 0),
    ("GetItem", "Throttled", 0),
    ("TransactWriteItems", "EndpointConnectionError", 0),
    ("Query", "InternalServerError", 0),
    ("TransactWriteItems", "Throttled", 0),
    ("GetItem", "EndpointConnectionError", 1),
    ("Query", "ServiceUnavailable", 2),
    ("TransactWriteItems", "ServiceUnavailable", 0),
    ("GetItem", "InternalServerError", 2),
    ("Query", "EndpointConnectionError", 1),
]


def test_a_failure_at_any_point_of_a_step_changes_nothing_and_the_retry_goes_on(app: App) -> None:
    sid, fid = start_session()
    reviewer = Reviewer()
    body: dict[str, Any] | None = {"sessionId": sid, "userInput": TASK}
    injected: list[tuple[str, str, int]] = []
    rounds = 0
    while body is not None:
        rounds += 1
        assert rounds < 2_000, "the translation did not finish"
        if rounds % 3 == 0:  # guide.md takes ~40 steps: a fault every 3rd step covers them all
            op, kind, skip = STEP_FAULTS[len(injected) % len(STEP_FAULTS)]
            before = state(app.storage, sid)
            committed = app.faults.transactions
            app.faults.arm(op, kind, skip=skip)
            reply = call("POST", "/api/next", body)
            app.faults.disarm()
            if app.faults.fired and app.faults.transactions == committed:
                injected.append((op, kind, skip))
                assert_failed_cleanly(reply)
                assert state(app.storage, sid) == before, f"{op} {kind} left a partial step"
                reply = call("POST", "/api/next", body)  # the client retries the same request
        else:
            reply = call("POST", "/api/next", body)
        assert reply.status == 200, (reply.status, reply.body)
        body = next_body(sid, reply.body["agentResponse"], reviewer)

    assert len(injected) >= 8, injected
    assert {op for op, _, _ in injected} == {"TransactWriteItems", "GetItem", "Query"}
    assert all(reviewer.counts[k] > 0 for k in ("approve", "refined", "reject"))
    assert_finished_as_reviewed(sid, fid, reviewer)


@pytest.mark.parametrize(
    ("target", "op", "kind"),
    [
        ("create", "TransactWriteItems", "InternalServerError"),  # the session's record
        ("upload", "BatchWriteItem", "Throttled"),  # the upload's chunks
        ("upload", "BatchWriteItem", "EndpointConnectionError"),
        ("upload", "TransactWriteItems", "ServiceUnavailable"),  # the file item, after its chunks
        ("upload", "GetItem", "InternalServerError"),  # the upload's session check
        ("upload", "Query", "Throttled"),  # the upload's file count
    ],
)
def test_a_failed_creation_or_upload_leaves_nothing_half_made(app: App, target: str, op: str, kind: str) -> None:
    skip = 0
    app.faults.arm(op, kind, skip=skip)
    if target == "create":
        reply = call("POST", "/api/sessions")
        assert app.faults.fired == [op]
        assert_failed_cleanly(reply)
        assert call("GET", "/api/sessions").body["sessions"] == []
        app.faults.disarm()
        sid, fid = start_session()
    else:
        app.faults.disarm()
        sid = call("POST", "/api/sessions").body["id"]
        app.faults.arm(op, kind, skip=skip)
        reply = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE})
        app.faults.disarm()
        assert app.faults.fired == [op]
        assert_failed_cleanly(reply)
        assert app.storage.list_files(sid) == [], "a failed upload left a file"
        assert call("GET", f"/api/sessions/{sid}").body["files"] == []
        retried = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE})
        assert retried.status == 201, retried.body
        fid = retried.body["fileId"]
    assert [f.file_id for f in app.storage.list_files(sid)] == [fid]
    source = call("GET", f"/api/sessions/{sid}/files/{fid}/source")
    assert source.status == 200 and source.body == SOURCE


def test_a_failed_remember_of_a_quiet_step_is_503_and_the_retry_replays_nothing_wrong(app: App) -> None:
    """A step that commits nothing keeps its Idempotency-Key answer with one PutItem."""
    first = call("POST", "/api/next", {"userInput": "hello"})  # no files: the model answers and waits
    sid = first.body["sessionId"]
    before = state(app.storage, sid)
    headers = {"Idempotency-Key": "quiet-1"}
    app.faults.arm("PutItem", "InternalServerError")
    reply = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    app.faults.disarm()
    assert app.faults.fired == ["PutItem"]
    assert_failed_cleanly(reply)
    assert state(app.storage, sid) == before
    again = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    assert again.status == 200 and again.body["agentResponse"]["actor"] == "user"
    replay = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    assert replay.headers.get("idempotent-replayed") == "true" and replay.body == again.body
    assert state(app.storage, sid) == before


@pytest.mark.parametrize("with_key", [True, False], ids=["idempotency-key", "no-key"])
def test_a_crash_after_the_commit_is_retried_without_duplicates(app: App, with_key: bool) -> None:
    """DynamoDB commits the step but the answer is lost: the retry must not step twice nor write twice."""
    sid, fid = start_session()
    reviewer = Reviewer()
    body: dict[str, Any] | None = {"sessionId": sid, "userInput": TASK}
    crashes = replayed = 0
    rounds = 0
    while body is not None:
        rounds += 1
        assert rounds < 2_000, "the translation did not finish"
        headers = {"Idempotency-Key": uuid.uuid4().hex} if with_key else None
        # Never crash the first request: resending a userInput without a key is a new input by design.
        if rounds % 5 == 0:
            version = app.storage.get_session(sid).version
            committed = app.faults.transactions
            app.faults.arm(
                "TransactWriteItems", "EndpointConnectionError" if crashes % 2 else "Throttled", when="after"
            )
            reply = call("POST", "/api/next", body, headers=headers)
            app.faults.disarm()
            if app.faults.fired:
                crashes += 1
                assert app.faults.transactions == committed + 1, "DynamoDB committed"
                assert_failed_cleanly(reply)  # the client cannot know the step committed
                assert app.storage.get_session(sid).version == version + 1
                reply = call("POST", "/api/next", body, headers=headers)
                assert reply.status == 200, (reply.status, reply.body)
                if with_key:
                    assert reply.headers.get("idempotent-replayed") == "true"
                    assert app.storage.get_session(sid).version == version + 1, "the retry stepped again"
                    replayed += 1
        else:
            reply = call("POST", "/api/next", body, headers=headers)
        assert reply.status == 200, (reply.status, reply.body)
        body = next_body(sid, reply.body["agentResponse"], reviewer)

    assert crashes >= 5
    assert replayed == (crashes if with_key else 0)
    assert_finished_as_reviewed(sid, fid, reviewer)


def test_dangling_tool_calls_resume_with_a_continue_after_a_cold_start(app: App) -> None:
    """The client stops right after the model proposed units; a fresh process resumes the session."""
    sid, fid = start_session()
    reviewer = Reviewer()
    reply = call("POST", "/api/next", {"sessionId": sid, "userInput": TASK})
    for _ in range(20):
        agent = reply.body["agentResponse"]
        if any(c["tool_name"] == "Translate" for c in agent["unprocessedToolCalls"]) and not agent["copilotRequests"]:
            break
        body = next_body(sid, agent, reviewer)
        assert body is not None
        reply = call("POST", "/api/next", body)
        assert reply.status == 200, reply.body
    else:
        pytest.fail("the model never proposed units")
    dangling = {c["tool_call_id"] for c in reply.body["agentResponse"]["unprocessedToolCalls"]}
    calls, returns = tool_ids(sid)
    assert dangling and dangling <= set(calls) and not dangling & set(returns)

    # A cold start: new services over the same table, nothing cached.
    api.app.state.services = LazyServices(_services(app.storage))
    view = call("GET", f"/api/sessions/{sid}")
    assert view.status == 200, view.body
    pending = {r["tool"]["callId"] for r in view.body["pendingCopilotRequests"]}
    assert pending and pending <= dangling and view.body["actor"] == "user"
    resumed = call("POST", "/api/next", {"sessionId": sid})
    assert resumed.status == 200, resumed.body
    requests = resumed.body["agentResponse"]["copilotRequests"]
    assert requests and {r["tool"]["callId"] for r in requests} <= dangling
    body = next_body(sid, resumed.body["agentResponse"], reviewer)
    while body is not None:
        reply = call("POST", "/api/next", body)
        assert reply.status == 200, reply.body
        body = next_body(sid, reply.body["agentResponse"], reviewer)
    assert_finished_as_reviewed(sid, fid, reviewer)
