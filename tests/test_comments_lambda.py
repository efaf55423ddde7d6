"""Comments through the Lambda handler (DynamoDB under moto) with JWT `sub`s in a project: a French
translator asks, a French reviewer answers and resolves, each signing as themselves; a member of other
languages and an outsider are refused; a bad comment stores nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from mangum import Mangum

from agent_core.models import resolve_model
from handlers.app import create_app
from storage.dynamodb import DynamoDBSessionStorage
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

DOC = "Hello world.\n\nA second sentence.\n"
Call = Callable[..., tuple[int, Any]]


@pytest.fixture
def call(moto_table: str) -> Iterator[Call]:
    """A request through Mangum as a JWT `sub`: `(status, body)`."""
    storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)
    handler = Mangum(create_app(services_for(storage, model=resolve_model("pseudo"))), lifespan="off")

    def send(sub: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        path, _, query = path.partition("?")
        asked = dict(part.split("=", 1) for part in query.split("&")) if query else None
        result = handler(http_event(method, path, body, sub=sub, query=asked), FakeLambdaContext())  # type: ignore[arg-type]
        text = result.get("body") or ""
        return result["statusCode"], json.loads(text) if text else None

    yield send


def ok(call: Call, sub: str, method: str, path: str, body: Any = None) -> Any:
    status, answer = call(sub, method, path, body)
    assert status < 300, (sub, method, path, status, answer)
    return answer


def test_two_members_discuss_a_segment_and_others_are_refused(call: Call) -> None:
    pid = ok(call, "user-alice", "POST", "/api/projects", {"name": "Site"})["id"]
    for sub, role, languages in (("user-bob", "translator", ["fr"]), ("user-rita", "reviewer", ["fr"])):
        ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/{sub}", {"role": role, "languages": languages})
    ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/user-gus", {"role": "translator", "languages": ["de"]})
    sid = ok(call, "user-alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"})["id"]
    fid = ok(call, "user-alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})["fileId"]
    path = f"/api/sessions/{sid}/files/{fid}/segments/s2/comments"

    status, asked = call("user-bob", "POST", path, {"text": "Is this a full sentence?"})
    assert status == 201 and asked["by"] == "user-bob", asked
    status, answered = call("user-rita", "POST", path, {"text": "Yes: end it with a period."})
    assert status == 201 and answered["by"] == "user-rita", answered
    resolved = ok(call, "user-rita", "PATCH", f"{path}/{asked['id']}", {"resolved": True})
    assert (resolved["resolved"], resolved["resolvedBy"]) == (True, "user-rita")
    thread = ok(call, "user-bob", "GET", path)
    assert [(c["by"], c["text"], c["resolved"]) for c in thread] == [
        ("user-bob", "Is this a full sentence?", True),
        ("user-rita", "Yes: end it with a period.", False),
    ]
    open_threads = ok(call, "user-bob", "GET", f"/api/sessions/{sid}/comments?open=true")
    assert [(t["segmentId"], t["comments"], t["open"]) for t in open_threads["files"][0]["threads"]] == [("s2", 2, 1)]

    for sub, status_wanted in (("user-gus", 403), ("user-mallory", 404)):
        for method, route, body in (
            ("GET", path, None),
            ("POST", path, {"text": "Me too"}),
            ("PATCH", f"{path}/{answered['id']}", {"resolved": True}),
            ("GET", f"/api/sessions/{sid}/comments", None),
        ):
            got, answer = call(sub, method, route, body)
            assert got == status_wanted and set(answer) == {"error"}, (sub, method, got, answer)
    status, answer = call("user-bob", "POST", path, {"text": "\x00"})
    assert status == 422 and set(answer) == {"error"}, answer
    status, answer = call("user-bob", "POST", f"/api/sessions/{sid}/files/{fid}/segments/s9/comments", {"text": "?"})
    assert status == 404, answer
    assert ok(call, "user-alice", "GET", path) == thread, "the refusals stored nothing"
