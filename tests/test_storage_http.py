"""Storage behaviour through HTTP, on both backends: listings' cursors, the session view's verdicts."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from typing import Any

import pytest

from agent_core.models import resolve_model
from storage.interface import Storage
from tests.helpers import AsyncApi, assert_error, services_for, stored
from tests.storage_cases import atomic_requests, backend

DOC = "One sentence here.\n\nA second one there.\n\nAnd a third to finish.\n"


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


def orphan_chunks(storage: Storage) -> list[str]:
    """The stored chunks (of a file's text or of its original) of files no session holds, read behind
    the contract's back: the whole table (DynamoDB) or the chunks' table (SQLite)."""
    from storage.dynamodb import DynamoDBSessionStorage
    from storage.sqlite import SQLiteStorage

    if isinstance(storage, SQLiteStorage):
        sql = "SELECT c.file_id FROM file_chunks c LEFT JOIN files f USING (session_id, file_id) "
        sql += "WHERE f.file_id IS NULL"
        with storage._transaction(write=False) as db:
            return [r["file_id"] for r in db.execute(sql)]
    assert isinstance(storage, DynamoDBSessionStorage)
    pages = storage.client.get_paginator("scan").paginate(TableName=storage.table, ConsistentRead=True)
    items = [i for page in pages for i in page["Items"]]
    held = {(i["pk"]["S"], f) for i in items if i["sk"]["S"] == "META" for f in i.get("files", {}).get("M", {})}
    return [
        i["sk"]["S"]
        for i in items
        if i["sk"]["S"][:2] in ("C#", "D#") and (i["pk"]["S"], i["sk"]["S"].split("#")[1]) not in held
    ]


@pytest.mark.parametrize("name", ["sqlite", "dynamodb"])
async def test_uploads_that_lose_the_race_for_the_last_file_slot_leave_nothing_stored(
    name: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    storage = backend(name, request, tmp_path)
    atomic_requests(storage)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid = (await api.ok("POST", "/api/sessions"))["id"]
    for i in range(18):
        await api.ok("POST", f"/api/sessions/{sid}/files", {"name": f"a{i}.md", "content": f"Text {i}.\n"})
    xliff = (
        '<xliff version="1.2"><file original="x" source-language="en" datatype="plaintext"><body>'
        '<trans-unit id="1"><source>One.</source></trans-unit></body></file></xliff>'
    )
    uploads = [
        api.client.post(f"/api/sessions/{sid}/files", json={"name": f"b{i}.md", "content": f"Text b{i}.\n"})
        for i in range(4)
    ] + [api.client.post(f"/api/sessions/{sid}/files", json={"name": f"c{i}.xlf", "content": xliff}) for i in range(2)]
    client = getattr(storage, "client", None)
    if client is not None:  # every upload has read the count and written its chunks before one takes a slot
        barrier, met = threading.Barrier(len(uploads), timeout=20), list[bool]()

        def together(**_: Any) -> None:
            if not met:
                barrier.wait()
                met.append(True)

        client.meta.events.register("before-parameter-build.dynamodb.UpdateItem", together)
    statuses = sorted(r.status_code for r in await asyncio.gather(*uploads))
    assert statuses == [201] * 2 + [422] * 4, statuses
    assert len((await api.ok("GET", f"/api/sessions/{sid}"))["files"]) == 20
    assert orphan_chunks(storage) == []


async def test_the_session_view_reads_the_session_once(request: pytest.FixtureRequest, tmp_path: Any) -> None:
    from storage.dynamodb import DynamoDBSessionStorage
    from tests.aws import DynamoRequests

    storage = backend("dynamodb", request, tmp_path)
    assert isinstance(storage, DynamoDBSessionStorage)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start(DOC)
    agent = await api.next(sid, userInput="Translate the file into French.")
    while not agent["copilotRequests"]:
        agent = await api.next(sid)
    counted = DynamoRequests(storage.client)
    for verdicts in ([], [{"tool": agent["copilotRequests"][0]["tool"], "status": "approve"}]):
        if verdicts:
            await api.next(sid, copilotResponses=verdicts)
        counted.take()
        view = await api.ok("GET", f"/api/sessions/{sid}")
        assert len(view["copilotResponses"]) == len(verdicts) and view["pendingCopilotRequests"]
        # META with the latest messages beside the latest verdicts, the verdict listing, the owner's memory
        # with the head of its translation memory's pair (this process's replica is warm), all at once
        assert counted.take() == {"Query": 4, "GetItem": 1}
    missing = await api.client.get(f"/api/sessions/s_{'0' * 32}")
    assert missing.status_code == 404
