"""What comments cost the segment list on DynamoDB (under moto): one GetItem of the session's counts,
beside the file's reads, whatever the number of comments or the length of their text."""

from __future__ import annotations

from typing import Any

import boto3
import httpx

from agent_core.models import resolve_model
from handlers.app import create_app
from storage.dynamodb import DynamoDBSessionStorage
from tests.aws import DynamoRequests
from tests.helpers import services_for

DOC = " ".join(f"Sentence number {k} is here." for k in range(1, 31)) + "\n"


async def test_the_segment_list_reads_the_same_with_no_comment_or_many(moto_table: str) -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    counted = DynamoRequests(client)
    app = create_app(services_for(DynamoDBSessionStorage(client, table_name=moto_table), model=resolve_model("pseudo")))
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")

    async def ok(method: str, path: str, body: Any = None) -> Any:
        response = await http.request(method, path, json=body)
        assert response.status_code < 300, response.text
        return response.json()

    sid = (await ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    fid = (await ok("POST", f"/api/sessions/{sid}/files", {"name": "d.md", "content": DOC}))["fileId"]
    segments = f"/api/sessions/{sid}/files/{fid}/segments"
    assert len((await ok("GET", segments))["segments"]) == 30
    counted.take()
    await ok("GET", segments)
    bare = counted.take()
    assert bare.get("GetItem", 0) >= 1, bare
    for k in range(1, 31):
        for _ in range(2):
            await ok("POST", f"{segments}/s{k}/comments", {"text": "A long remark. " * 130})
    counted.take()
    listed = (await ok("GET", segments))["segments"]
    assert counted.take() == bare, "the same requests: the counts are one item, not the comments"
    assert all((s["comments"], s["openComments"]) == (2, 2) for s in listed)
    assert [c["by"] for c in await ok("GET", f"{segments}/s7/comments")] == ["local", "local"]
