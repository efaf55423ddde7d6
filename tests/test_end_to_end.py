"""Whole documents translated to the end by the scripted reviewer: through the Lambda handler against
DynamoDB (moto), and in process through the ASGI app against SQLite.

Three runs share one set of checks: guide.md through Lambda and DynamoDB, every batch answered one
verdict at a time; httpx-CHANGELOG.md (a session of more than a hundred messages) the same way but in
process, over SQLite, where its ~300 steps take seconds; and httpx-CHANGELOG.md again through Lambda
and DynamoDB, most batches answered whole and every 4th round partly, so its long history crosses
DynamoDB's message buckets in a quarter of the steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient

import handlers.api as api
from agent_core.models import resolve_model
from handlers.api import create_app
from handlers.deps import LazyServices
from service.container import Services
from storage.dynamodb import DynamoDBSessionStorage
from storage.sqlite import SQLiteStorage
from tests.client import Reviewer, ScriptedClient, Transport, asgi_transport, lambda_transport
from tests.helpers import services_for

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Run:
    """One way of translating a document to the end."""

    document: str
    path: str
    """`lambda`: the Lambda handler against moto DynamoDB; `asgi`: the ASGI app in process, over SQLite."""
    partial_every: int
    """Every how many review rounds the reviewer answers only part of the batch (1: always)."""


RUNS = [
    Run("guide.md", "lambda", partial_every=1),
    Run("httpx-CHANGELOG.md", "asgi", partial_every=1),
    Run("httpx-CHANGELOG.md", "lambda", partial_every=4),
]


@pytest.fixture
def dynamo_app(moto_table: str) -> Iterator[Services]:
    """The module-level Lambda app wired to the moto table and the pseudo model."""
    storage = DynamoDBSessionStorage(boto3.client("dynamodb"), table_name=moto_table)
    services = services_for(storage, model=resolve_model("pseudo"))
    previous = api.app.state.services
    api.app.state.services = LazyServices(services)
    yield services
    api.app.state.services = previous


@pytest.fixture
def transport(request: pytest.FixtureRequest) -> Iterator[tuple[Transport, Services]]:
    """The run's way in, and the services behind it."""
    run: Run = request.param
    if run.path == "lambda":
        services = request.getfixturevalue("dynamo_app")
        yield lambda_transport(api.handler), services
        return
    services = services_for(SQLiteStorage(":memory:"), model=resolve_model("pseudo"))
    with TestClient(create_app(services)) as client:
        yield asgi_transport(client), services


def start(call: Any, name: str, content: str) -> tuple[str, str]:
    status, created = call("POST", "/api/sessions", None)
    assert status == 201
    status, uploaded = call("POST", f"/api/sessions/{created['id']}/files", {"name": name, "content": content})
    assert status == 201 and uploaded["chars"] == len(content)
    return created["id"], uploaded["fileId"]


@pytest.mark.parametrize(
    ("run", "transport"), [(r, r) for r in RUNS], ids=[f"{r.document}-{r.path}" for r in RUNS], indirect=["transport"]
)
def test_translate_a_document_to_the_end(run: Run, transport: tuple[Transport, Services]) -> None:
    call, services = transport
    source = (DATA / run.document).read_text(encoding="utf-8")
    session_id, file_id = start(call, run.document, source)
    reviewer = Reviewer()
    client = ScriptedClient(call, session_id=session_id)
    final = client.translate(f"Translate {run.document} into French.", reviewer, partial_every=run.partial_every)

    assert final["actor"] == "user" and final["messages"], "the model ends with a summary"
    assert all(reviewer.counts[k] > 0 for k in ("approve", "refined", "reject"))
    assert client.partial_rounds > 0, "some batches were answered in part"
    status, view = call("GET", f"/api/sessions/{session_id}/files/{file_id}", None)
    assert status == 200
    assert view["progress"] == {"translatedChars": len(source), "totalChars": len(source), "complete": True}
    assert view["translation"] == reviewer.expected(source)
    status, download = call("GET", f"/api/sessions/{session_id}/files/{file_id}/translation", None)
    assert status == 200 and download == view["translation"]
    # The history is valid: every tool call has exactly one return.
    calls, returns = _tool_ids(call, session_id)
    assert sorted(calls) == sorted(returns) and len(set(returns)) == len(returns)
    if run.document == "httpx-CHANGELOG.md":
        count = services.storage.get_session(session_id).message_count
        loaded = services.runtime.window + services.runtime.chunk + 2  # the most a step loads
        assert count > 2 * loaded, f"the long history ({count} messages) is far longer than any step's window"


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
