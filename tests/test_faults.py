"""Fault injection against DynamoDB (moto): a failed step answers 503 and changes nothing; retries recover.

A step's writes are one TransactWriteItems; everything else it sends DynamoDB is a read. Faults are
injected with botocore event hooks on the storage's own client: `before-call` (the request never
reaches DynamoDB) and `after-call` (DynamoDB committed, but the client sees an error, like a crash or a
lost answer). Which calls a step makes is not written down here: the test watches the steps that run
without a fault, and fails each kind of call they make (the operation and the shape of its key) in turn.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError
from pydantic_ai.messages import ModelMessagesTypeAdapter

import handlers.api as api
from agent_core.distill import distiller_for
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from service.container import Services
from storage.dynamodb import DynamoDBSessionStorage
from tests.client import Reviewer
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

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


_ID = re.compile(r"(?<=#TK#)[^\s#]+|[0-9a-f]{8,}|\d+")
"""Ids, hashes, numbers and translation-memory keys: what differs between calls of one kind."""


def call_kind(operation: str, params: dict[str, Any]) -> str:
    """What a DynamoDB call is for: its operation and the shape of its key (ids and numbers elided)."""
    if operation == "Query":
        values = params.get("ExpressionAttributeValues") or {}
        shown = " ".join(f"{k}={v['S']}" for k, v in sorted(values.items()) if "S" in v)
        return _ID.sub("…", f"Query {params.get('KeyConditionExpression')} {shown}")
    if operation == "GetItem":
        key = params.get("Key") or {}
        return _ID.sub("…", f"GetItem {key.get('pk', {}).get('S')} {key.get('sk', {}).get('S')}")
    if operation == "TransactWriteItems":
        actions = [body for item in params.get("TransactItems", []) for body in item.values()]
        sks = {(a.get("Key") or a.get("Item") or {}).get("sk", {}).get("S", "") for a in actions}
        # A step moves the session's META; a quiet step's kept answer is written alone; the rest is memory.
        return f"TransactWriteItems {'step' if 'META' in sks else 'answer' if 'IDEMPOTENCY' in sks else 'other'}"
    return operation


@dataclass
class Faults:
    """One-shot faults on a boto3 client: the `skip`+1-th call of an operation (or of a kind of call) fails."""

    client: Any
    armed: dict[str, Any] = field(default_factory=dict)
    fired: list[str] = field(default_factory=list)
    transactions: int = 0
    """Successful TransactWriteItems (to know whether a fault struck after a commit)."""
    log: list[tuple[str, str]] = field(default_factory=list)
    """(operation, kind of call) of every call since `watch()`."""

    def __post_init__(self) -> None:
        events = self.client.meta.events
        events.register("before-parameter-build.dynamodb", self._params)
        events.register("before-call.dynamodb", self._before)
        events.register("after-call.dynamodb", self._after)

    def arm(self, operation: str, kind: str, *, skip: int = 0, when: str = "before", call: str | None = None) -> None:
        """Fail the `skip`+1-th `operation` (only calls of kind `call`, if given) with the error `kind`."""
        self.armed = {"op": operation, "kind": kind, "skip": skip, "when": when, "call": call}
        self.fired = []

    def disarm(self) -> None:
        self.armed = {}

    def watch(self) -> None:
        """Start a new log of calls."""
        self.log = []

    def _strike(self, operation: str, what: str, when: str) -> None:
        armed = self.armed
        if not armed or armed["op"] != operation or armed["when"] != when:
            return
        if armed["call"] is not None and armed["call"] != what:
            return
        if armed["skip"] > 0:
            armed["skip"] -= 1
            return
        self.armed = {}
        self.fired.append(operation)
        raise ERRORS[armed["kind"]](operation)

    def _params(self, model: Any, params: Any, context: Any, **_: Any) -> None:
        # Only this event sees the call's own parameters; the later ones share its context.
        context["fault-call-kind"] = call_kind(model.name, params)

    def _before(self, model: Any, context: Any, **_: Any) -> None:
        what = context.get("fault-call-kind", model.name)
        self.log.append((model.name, what))
        self._strike(model.name, what, "before")

    def _after(self, model: Any, context: Any, parsed: Any = None, **_: Any) -> None:
        if model.name == "TransactWriteItems" and "Error" not in (parsed or {}):
            self.transactions += 1
        self._strike(model.name, context.get("fault-call-kind", model.name), "after")


@dataclass
class App:
    storage: DynamoDBSessionStorage
    faults: Faults


def _services(storage: DynamoDBSessionStorage) -> Services:
    """Wired like production (build_services): the pseudo model, corrections distilled into memory."""
    model = resolve_model("pseudo")
    return services_for(storage, model=model, distiller=distiller_for(model))


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
    """Everything a step may change, read straight from the storage (the owner's memory included)."""
    record = storage.get_session(sid)
    messages = storage.list_messages(sid, cursor=None, limit=10_000)
    verdicts = storage.list_verdicts(sid, cursor=None, limit=10_000)
    snapshot = storage.load_step(sid, window=10_000)
    files = list(snapshot.files)
    return {
        "record": record,
        "messages": ModelMessagesTypeAdapter.dump_json(messages.items),
        "verdicts": [v.model_dump_json() for v in verdicts.items],
        "latest verdicts": [v.model_dump_json() for v in snapshot.copilot_responses],
        "files": files,
        "units": {f.file_id: storage.list_units(sid, f.file_id) for f in files},
        "corrections": storage.recent_corrections(record.owner, limit=10_000),
        "memory": storage.list_memory(record.owner),
    }


def assert_failed_cleanly(reply: Reply) -> None:
    assert reply.status == 503, (reply.status, reply.body)
    assert isinstance(reply.body, dict) and set(reply.body) == {"error"}, reply.body
    assert reply.body["error"] and "Traceback" not in reply.body["error"]
    assert int(reply.headers["retry-after"]) >= 1


def start_session(content: str = SOURCE) -> tuple[str, str]:
    created = call("POST", "/api/sessions")
    assert created.status == 201, created.body
    sid = created.body["id"]
    uploaded = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": content})
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


def assert_finished_as_reviewed(sid: str, fid: str, reviewer: Reviewer, source: str = SOURCE) -> None:
    view = call("GET", f"/api/sessions/{sid}/files/{fid}")
    assert view.status == 200, view.body
    assert view.body["progress"]["complete"] is True
    assert view.body["translation"] == reviewer.expected(source)
    units = call("GET", f"/api/sessions/{sid}/files/{fid}/units").body["units"]
    starts = [u["start"] for u in units]
    assert starts == sorted(set(starts)), "a unit was written twice"
    assert all(a["end"] <= b["start"] for a, b in pairwise(units)), "units overlap"
    assert len({u["callId"] for u in units}) == len(units)
    calls, returns = tool_ids(sid)
    assert len(set(calls)) == len(calls), "a tool call id repeats"
    assert sorted(calls) == sorted(returns), "every tool call has exactly one return"


KINDS = list(ERRORS)
"""The errors a faulted step gets, in turn."""


def calls_before_commit(log: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A step's calls up to its commit (what comes after is learning, which never fails a step)."""
    commit = next((i for i, (op, _) in enumerate(log) if op == "TransactWriteItems"), len(log) - 1)
    return log[: commit + 1]


@dataclass
class Plan:
    """Which kind of call the next faulted step fails: those not failed yet first, the others again."""

    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    """Every kind of call an unfaulted step made before its commit, and the most times one step made it."""
    failed: dict[tuple[str, str], int] = field(default_factory=dict)
    tried: dict[tuple[str, str], int] = field(default_factory=dict)
    """How often a fault was armed for the kind of call (a step may not make it: the fault does not fire)."""

    def watched(self, log: list[tuple[str, str]]) -> None:
        for call in set(calls_before_commit(log)):
            self.seen[call] = max(self.seen.get(call, 0), calls_before_commit(log).count(call))

    def gone(self) -> set[tuple[str, str]]:
        """Calls armed three times that never fired: later steps no longer make them (file text, once
        read, is served from the process's cache)."""
        return {c for c in self.seen if self.tried.get(c, 0) - self.failed.get(c, 0) >= 3}

    def next(self) -> tuple[str, str, int]:
        """(operation, kind of call, how many such calls to let through first: none, or all but the last)."""
        live = [c for c in self.seen if c not in self.gone()]
        call = min(live, key=lambda c: (self.failed.get(c, 0), self.tried.get(c, 0), c))
        self.tried[call] = self.tried.get(call, 0) + 1
        return call[0], call[1], 0 if self.failed.get(call, 0) % 2 == 0 else self.seen[call] - 1


@pytest.mark.slow
def test_a_failure_at_any_point_of_a_step_changes_nothing_and_the_retry_goes_on(app: App) -> None:
    # Long enough that every kind of call a step makes is failed at least once (a batch is a step).
    content = "\n\n".join([SOURCE, SOURCE.upper()])
    sid, fid = start_session(content)
    reviewer = Reviewer()
    plan = Plan()
    body: dict[str, Any] | None = {"sessionId": sid, "userInput": TASK}
    injected: list[tuple[str, str, str, int]] = []
    rounds = 0
    while body is not None:
        rounds += 1
        assert rounds < 2_000, "the translation did not finish"
        if plan.seen:  # every step but the first gets a fault (the first shows what a step calls)
            op, what, skip = plan.next()
            kind = KINDS[len(injected) % len(KINDS)]
            before = state(app.storage, sid)
            committed = app.faults.transactions
            app.faults.watch()
            app.faults.arm(op, kind, skip=skip, call=what)
            reply = call("POST", "/api/next", body)
            app.faults.disarm()
            if not app.faults.fired:
                plan.watched(app.faults.log)
            elif app.faults.transactions == committed:
                injected.append((op, what, kind, skip))
                plan.failed[(op, what)] = plan.failed.get((op, what), 0) + 1
                assert_failed_cleanly(reply)
                assert state(app.storage, sid) == before, f"{what} {kind} left a partial step"
                app.faults.watch()
                reply = call("POST", "/api/next", body)  # the client retries the same request
                plan.watched(app.faults.log)
        else:
            app.faults.watch()
            reply = call("POST", "/api/next", body)
            plan.watched(app.faults.log)
        assert reply.status == 200, (reply.status, reply.body)
        body = next_body(sid, reply.body["agentResponse"], reviewer)

    assert len(injected) >= 8, injected
    assert {op for op, _ in plan.seen} >= {"TransactWriteItems", "Query"}, plan.seen
    never = set(plan.seen) - set(plan.failed)
    assert never <= plan.gone(), f"calls never failed: {never}"
    # What only a process's first step reads: a file's text (one BatchGetItem of META's entry and the
    # chunks; cached after), and a cold replica's read of its pair of the translation memory (its head,
    # then its entries; the changes only after).
    once = ("BatchGetItem", "GetItem T#user-alice#*>fr HEAD", "Query pk = :p AND begins_with(sk, :e) :e=E#")
    assert all(what.startswith(once) for _, what in never), never
    assert len({kind for _, _, kind, _ in injected}) == len(KINDS), injected
    assert all(reviewer.counts[k] > 0 for k in ("approve", "refined", "reject"))
    assert_finished_as_reviewed(sid, fid, reviewer, content)


UPLOAD_FAULTS = [
    ("upload", "GetItem", "InternalServerError", 0),  # the upload's session check
    ("upload", "GetItem", "Throttled", 1),  # the session's META, before the chunks
    ("upload", "BatchWriteItem", "Throttled", 0),  # the upload's chunks (unseen until META names the file)
    ("upload", "BatchWriteItem", "EndpointConnectionError", 0),
    ("upload", "UpdateItem", "ServiceUnavailable", 0),  # META's entry of the file, after the chunks
    # Writing the verbatim units (code blocks) after the file: best effort, the upload still succeeds.
    ("upload", "Query", "Throttled", 0),  # the session read before its verbatim text is written
    ("upload", "Query", "InternalServerError", 1),  # the same read's verdict records, beside it
    ("upload", "TransactWriteItems", "InternalServerError", 0),  # the verbatim units
    # Recording the source language detected from the file's text, last: best effort too.
    ("upload", "UpdateItem", "InternalServerError", 1),  # META with the language
]


VERBATIM_WRITES = {("Query", 0), ("Query", 1), ("TransactWriteItems", 0)}
"""The upload's calls that write its verbatim units (best effort, after the file)."""
LANGUAGE_WRITES = {("UpdateItem", 1)}
"""The upload's calls that record the detected source language (best effort, after everything)."""


def test_the_upload_faults_cover_every_call_of_an_upload(app: App) -> None:
    sid = call("POST", "/api/sessions").body["id"]
    app.faults.watch()
    assert call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE}).status == 201
    made = [op for op, _ in app.faults.log]
    covered = {(op, skip) for _, op, _, skip in UPLOAD_FAULTS}
    assert {(op, made[:k].count(op)) for k, op in enumerate(made)} == covered, str(made)


@pytest.mark.parametrize(
    ("target", "op", "kind", "skip"),
    [("create", "TransactWriteItems", "InternalServerError", 0), *UPLOAD_FAULTS],  # create: the session's record
)
def test_a_failed_creation_or_upload_leaves_nothing_half_made(
    app: App, target: str, op: str, kind: str, skip: int
) -> None:
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
        if (op, skip) in VERBATIM_WRITES:  # the file is whole; only its code is left for the model
            assert reply.status == 201, reply.body
            assert [f.file_id for f in app.storage.load_step(sid, window=0).files] == [reply.body["fileId"]]
            assert app.storage.list_units(sid, reply.body["fileId"]) == []
            return
        if (op, skip) in LANGUAGE_WRITES:  # the file and its code are whole; only the language is not set
            assert reply.status == 201, reply.body
            assert app.storage.list_units(sid, reply.body["fileId"]) != []
            assert call("GET", f"/api/sessions/{sid}").body["sourceLanguage"] is None
            return
        assert_failed_cleanly(reply)
        assert list(app.storage.load_step(sid, window=0).files) == [], "a failed upload left a file"
        assert call("GET", f"/api/sessions/{sid}").body["files"] == []
        retried = call("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": SOURCE})
        assert retried.status == 201, retried.body
        fid = retried.body["fileId"]
    assert [f.file_id for f in app.storage.load_step(sid, window=0).files] == [fid]
    source = call("GET", f"/api/sessions/{sid}/files/{fid}/source")
    assert source.status == 200 and source.body == SOURCE


@pytest.mark.parametrize("when", ["before", "after"], ids=["lost-request", "lost-answer"])
def test_a_failed_remember_of_a_quiet_step_is_503_and_the_retry_replays_nothing_wrong(app: App, when: str) -> None:
    """A step that commits nothing keeps its Idempotency-Key answer (with its marker in the session) alone."""
    first = call("POST", "/api/next", {"userInput": "hello"})  # no files: the model answers and waits
    sid = first.body["sessionId"]
    before = state(app.storage, sid)
    headers = {"Idempotency-Key": "quiet-1"}
    app.faults.arm("TransactWriteItems", "InternalServerError", when=when, call="TransactWriteItems answer")
    reply = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    app.faults.disarm()
    assert app.faults.fired == ["TransactWriteItems"]
    assert_failed_cleanly(reply)
    assert state(app.storage, sid) == before
    again = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    assert again.status == 200 and again.body["agentResponse"]["actor"] == "user"
    # An answer DynamoDB kept before the client lost it is what the retry gets.
    assert (again.headers.get("idempotent-replayed") == "true") is (when == "after"), again.headers
    replay = call("POST", "/api/next", {"sessionId": sid}, headers=headers)
    assert replay.headers.get("idempotent-replayed") == "true" and replay.body == again.body
    assert state(app.storage, sid) == before


@pytest.mark.slow
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
        if rounds % 3 == 0:  # guide.md takes ~25 steps: a crash every 3rd step makes 5 and more
            version = app.storage.get_session(sid).version
            committed = app.faults.transactions
            kind = "EndpointConnectionError" if crashes % 2 else "Throttled"
            # The step's own commit (a quiet step's kept answer is the quiet-step test's).
            app.faults.arm("TransactWriteItems", kind, when="after", call="TransactWriteItems step")
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


@pytest.mark.slow
def test_dangling_tool_calls_resume_with_a_continue_after_a_cold_start(app: App) -> None:
    """The client stops right after the model proposed units; a fresh process resumes the session.

    The proposals' reviews come with the answer that proposed them, so the calls the client saw
    are still without returns in the history when it goes away.
    """
    sid, fid = start_session()
    reviewer = Reviewer()
    reply = call("POST", "/api/next", {"sessionId": sid, "userInput": TASK})
    for _ in range(20):
        agent = reply.body["agentResponse"]
        if any(c["tool_name"] == "Translate" for c in agent["unprocessedToolCalls"]):
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
