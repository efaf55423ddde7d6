"""Storage behaviour through HTTP, on both backends: listings' cursors, the session view's verdicts."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from agent_core.models import resolve_model
from storage.interface import Storage
from tests.conftest import make_backend
from tests.helpers import AsyncApi, assert_error, services_for, stored

DOC = "One sentence here.\n\nA second one there.\n\nAnd a third to finish.\n"


def backend(name: str, request: pytest.FixtureRequest, tmp_path: Any) -> Storage:
    """A fresh SQLite file, or a DynamoDB table under moto."""
    if name == "dynamodb":
        request.getfixturevalue("moto_table")
    made = make_backend(name, tmp_path)
    assert isinstance(made, Storage)
    return made


def forged(position: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


@pytest.mark.parametrize("name", ["sqlite", "dynamodb"])
async def test_a_forged_listing_cursor_is_422_and_changes_nothing(
    name: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    storage = backend(name, request, tmp_path)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start(DOC)
    before = stored(storage, sid)
    positions = [
        {"pk": {"S": f"S#{sid}"}, "sk": {"S": "META"}, "gsi1pk": {"S": "O#local"}, "gsi1sk": {"N": "1"}},
        {"k": 12},
        {"k": "#"},
        {"i": "0"},
        "not a position",
    ]
    for position in positions:
        for path in ("/api/sessions", f"/api/sessions/{sid}/messages"):
            response = await api.client.get(path, params={"cursor": forged(position)})
            assert_error(response, 422, "cursor")
    assert stored(storage, sid) == before


@pytest.mark.parametrize("name", ["sqlite", "dynamodb"])
async def test_the_session_view_shows_only_the_latest_verdict_on_a_call(
    name: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    storage = backend(name, request, tmp_path)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start(DOC)
    agent = await api.next(sid, userInput="Translate the file into French.")
    while not agent["copilotRequests"]:
        agent = await api.next(sid)
    requests = agent["copilotRequests"]
    assert len(requests) >= 2, "the batch stays pending while its first call is reviewed again and again"
    tool = requests[0]["tool"]
    for verdict in (
        {"tool": tool, "status": "reject", "reason": "Too literal."},
        {"tool": tool, "status": "refined", "translated_string": "Une phrase ici."},
        {"tool": tool, "status": "approve"},
    ):
        await api.next(sid, copilotResponses=[verdict])
    view = await api.ok("GET", f"/api/sessions/{sid}")
    on_call = [v for v in view["copilotResponses"] if v["tool"]["callId"] == tool["callId"]]
    assert [v["status"] for v in on_call] == ["approve"], view["copilotResponses"]
    assert storage.get_session(sid).copilot_response_count == len(view["copilotResponses"])


@pytest.mark.parametrize("name", ["sqlite", "dynamodb"])
async def test_queued_inputs_stop_at_one_cap_and_the_verdicts_are_always_accepted(
    name: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    from agent_core.effects import MAX_QUEUED_CHARS

    storage = backend(name, request, tmp_path)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start(DOC)
    agent = await api.next(sid, userInput="Translate the file into French.")
    while not agent["copilotRequests"]:
        agent = await api.next(sid)
    requests = agent["copilotRequests"]
    big = "é" * 20_000  # the largest input a request may send
    for _ in range(MAX_QUEUED_CHARS // len(big)):
        response = await api.client.post("/api/next", json={"sessionId": sid, "userInput": big})
        assert response.status_code == 200 and response.json()["queued"], response.text
    before = stored(storage, sid)
    refused = await api.client.post("/api/next", json={"sessionId": sid, "userInput": "one more"})
    assert_error(refused, 422, f"{MAX_QUEUED_CHARS:,} characters")
    assert stored(storage, sid) == before, "a refused input changes nothing"
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
    answered = await api.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    assert answered["agentResponse"]["messages"], "the verdicts commit, the queue with them"
    assert (await api.ok("GET", f"/api/sessions/{sid}"))["queuedInputs"] == []


@pytest.mark.parametrize("name", ["sqlite", "dynamodb"])
async def test_the_queue_counts_its_inputs_too(name: str, request: pytest.FixtureRequest, tmp_path: Any) -> None:
    from agent_core.effects import MAX_QUEUED_INPUTS

    storage = backend(name, request, tmp_path)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start(DOC)
    agent = await api.next(sid, userInput="Translate the file into French.")
    while not agent["copilotRequests"]:
        agent = await api.next(sid)
    for n in range(MAX_QUEUED_INPUTS):
        assert (await api.ok("POST", "/api/next", {"sessionId": sid, "userInput": f"note {n}"}))["queued"]
    before = stored(storage, sid)
    assert_error(await api.client.post("/api/next", json={"sessionId": sid, "userInput": "x"}), 422, "at most")
    assert stored(storage, sid) == before
