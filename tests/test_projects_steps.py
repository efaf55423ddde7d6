"""What a step of a project's session costs on DynamoDB (under moto): a personal step's reads plus the
project's record. A process that met the session reads its record and the project's memory beside the
session (one round trip); one that did not reads the session alone, then the project's record beside
its memory (two). Neither writes the driver's claim while more than half of
it is left (service.claims)."""

from __future__ import annotations

from typing import Any

import boto3
import httpx

from agent_core.models import resolve_model
from handlers.app import create_app
from storage.dynamodb import DynamoDBSessionStorage
from tests.aws import DynamoRequests
from tests.helpers import services_for

DOC = "Hello world.\n\nA second sentence.\n"


class Process:
    """An app over the table, as one process holds it (its own memory of sessions' owners)."""

    def __init__(self, client: Any, table: str) -> None:
        storage = DynamoDBSessionStorage(client, table_name=table)
        app = create_app(services_for(storage, model=resolve_model("pseudo")))
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")

    async def ok(self, method: str, path: str, body: Any, who: str) -> Any:
        response = await self.http.request(method, path, json=body, headers={"X-Act-As": who})
        assert response.status_code < 300, response.text
        return response.json()


async def test_a_project_step_reads_the_project_once_and_its_memory_instead_of_the_caller_s(moto_table: str) -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    counted = DynamoRequests(client)
    first = Process(client, moto_table)
    pid = (await first.ok("POST", "/api/projects", {"name": "P"}, "alice"))["id"]
    await first.ok("PUT", f"/api/projects/{pid}/members/bob", {"role": "translator", "languages": ["fr"]}, "alice")
    sids = {}
    for kind, body, creator in (
        ("own", {"targetLanguage": "fr"}, "bob"),
        ("project", {"targetLanguage": "fr", "project": pid}, "alice"),
    ):
        sid = (await first.ok("POST", "/api/sessions", body, creator))["id"]
        await first.ok("POST", f"/api/sessions/{sid}/files", {"name": "d.md", "content": DOC}, creator)
        await first.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate."}, "bob")
        sids[kind] = sid
    warm, cold = {}, {}
    for kind, sid in sids.items():
        counted.take()
        await first.ok("POST", "/api/next", {"sessionId": sid}, "bob")
        warm[kind] = counted.take()
        await Process(client, moto_table).ok("POST", "/api/next", {"sessionId": sid}, "bob")
        cold[kind] = counted.take()
    assert warm["own"].get("GetItem") == 1, "the head of the session's pair of the translation memory, beside its Query"
    assert warm["project"] == {**warm["own"], "GetItem": 2}, (
        "the session's and the project memory's reads beside the record; the driver's claim, fresh, as it was"
    )
    # A process that never met the session reads it alone (its id says it may be a project's: the
    # caller's own memory would be read for nothing), then the project's record beside its memory.
    extra = {k: cold["project"].get(k, 0) - cold["own"].get(k, 0) for k in cold["project"]}
    assert {k: v for k, v in extra.items() if v} == {"GetItem": 1}, (cold, warm)
