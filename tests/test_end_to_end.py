"""A whole document translated through the Lambda handler against DynamoDB (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

import handlers.api as api
from agent_core.models import resolve_model
from agent_core.runtime import AgentRuntime
from handlers.services import LazyServices, Services
from storage import SessionManager
from storage.dynamodb import DynamoDBSessionStorage
from tests.client import Reviewer, ScriptedClient, lambda_transport

DATA = Path(__file__).parent / "data"


@pytest.fixture
def dynamo_app(moto_table: str) -> Iterator[Services]:
    """The module-level Lambda app wired to the moto table and the pseudo model."""
    manager = SessionManager(DynamoDBSessionStorage(boto3.client("dynamodb"), table_name=moto_table))
    services = Services(manager=manager, runtime=AgentRuntime(manager, model=resolve_model("pseudo")))
    previous = api.app.state.services
    api.app.state.services = LazyServices(services)
    yield services
    api.app.state.services = previous


def start(call: Any, name: str, content: str) -> tuple[str, str]:
    status, created = call("POST", "/api/sessions", None)
    assert status == 201
    status, uploaded = call("POST", f"/api/sessions/{created['id']}/files", {"name": name, "content": content})
    assert status == 201 and uploaded["chars"] == len(content)
    return created["id"], uploaded["fileId"]


@pytest.mark.parametrize("document", ["guide.md", "httpx-CHANGELOG.md"])
def test_translate_a_document_to_the_end(dynamo_app: Services, document: str) -> None:
    call = lambda_transport(api.handler)
    source = (DATA / document).read_text(encoding="utf-8")
    session_id, file_id = start(call, document, source)
    reviewer = Reviewer()
    client = ScriptedClient(call, session_id=session_id)
    final = client.translate(f"Translate {document} into French.", reviewer)

    assert final["actor"] == "user" and final["messages"], "the model ends with a summary"
    assert all(reviewer.counts[k] > 0 for k in ("approve", "refined", "reject"))
    status, view = call("GET", f"/api/sessions/{session_id}/files/{file_id}", None)
    assert status == 200
    assert view["progress"] == {"translatedChars": len(source), "totalChars": len(source), "complete": True}
    assert view["translation"] == reviewer.expected(source)
    status, download = call("GET", f"/api/sessions/{session_id}/files/{file_id}/translation", None)
    assert status == 200 and download == view["translation"]
    # The history is valid: every tool call has exactly one return.
    calls, returns = _tool_ids(call, session_id)
    assert sorted(calls) == sorted(returns) and len(set(returns)) == len(returns)


def _tool_ids(call: Any, session_id: str) -> tuple[list[str], list[str]]:
    calls: list[str] = []
    returns: list[str] = []
    cursor = None
    while True:
        path = f"/api/sessions/{session_id}/messages?limit=200" + (f"&cursor={cursor}" if cursor else "")
        status, page = call("GET", path, None)
        assert status == 200
        for message in page["messages"]:
            for part in message["parts"]:
                if part["part_kind"] == "tool-call":
                    calls.append(part["tool_call_id"])
                if part["part_kind"] == "tool-return":
                    returns.append(part["tool_call_id"])
        cursor = page["nextCursor"]
        if cursor is None:
            return calls, returns
