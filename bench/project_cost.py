"""What a session in a project costs in DynamoDB against a personal one: requests by operation and the
bytes DynamoDB returns, for a step (in a process that has met the session, and in a new one) and for
the session view.

    .venv/bin/python bench/project_cost.py

The app runs in process over httpx's ASGI transport against moto (a table built from template.yaml),
with the pseudo model. A project of alice's has bob as its French translator; bob drives a personal
session and a session of the project, each with the same document, and the same requests are counted
for each: `POST /api/next` going on after the first step (warm: the process has served the session;
cold: a new process's services over the same table) and `GET /api/sessions/{id}`. Counts are exact;
moto's milliseconds are not measured (they say nothing of DynamoDB's).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

import boto3  # noqa: E402
import httpx  # noqa: E402
from moto import mock_aws  # noqa: E402

from agent_core.models import resolve_model  # noqa: E402
from handlers.app import create_app  # noqa: E402
from storage.dynamodb import DynamoDBSessionStorage  # noqa: E402
from tests.aws import create_sessions_table  # noqa: E402
from tests.helpers import services_for  # noqa: E402

DOC = "".join(f"Paragraph {i} of the guide says what to do next, and why it matters.\n\n" for i in range(40))
TABLE = "bench-projects"


class Meter:
    """DynamoDB requests by operation and the bytes of their answers, at one boto3 client."""

    def __init__(self, client: Any) -> None:
        self.requests: Counter[str] = Counter()
        self.bytes = 0
        client.meta.events.register("before-call.dynamodb.*", self._call)
        client.meta.events.register("after-call.dynamodb.*", self._answer)

    def _call(self, event_name: str = "", **_: Any) -> None:
        self.requests[event_name.rsplit(".", 1)[-1]] += 1

    def _answer(self, parsed: dict[str, Any], **_: Any) -> None:
        self.bytes += len(json.dumps(parsed, default=str).encode())

    def take(self) -> tuple[dict[str, int], int]:
        taken = (dict(self.requests), self.bytes)
        self.requests.clear()
        self.bytes = 0
        return taken


def app_over(client: Any) -> httpx.AsyncClient:
    """A new process's app (its own caches) over the table."""
    storage = DynamoDBSessionStorage(client, table_name=TABLE)
    app = create_app(services_for(storage, model=resolve_model("pseudo")))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench")


async def ok(http: httpx.AsyncClient, method: str, path: str, body: Any = None, who: str = "bob") -> Any:
    answer = await http.request(method, path, json=body, headers={"X-Act-As": who})
    assert answer.status_code < 300, answer.text
    return answer.json() if answer.content else None


async def measure() -> dict[str, dict[str, tuple[dict[str, int], int]]]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    create_sessions_table(client, TABLE)
    meter = Meter(client)
    http = app_over(client)
    project = (await ok(http, "POST", "/api/projects", {"name": "Guide"}, "alice"))["id"]
    member = {"role": "translator", "languages": ["fr"]}
    await ok(http, "PUT", f"/api/projects/{project}/members/bob", member, "alice")
    figures: dict[str, dict[str, tuple[dict[str, int], int]]] = {}
    for kind in ("personal", "project"):
        body = {"targetLanguage": "fr", **({"project": project} if kind == "project" else {})}
        sid = (await ok(http, "POST", "/api/sessions", body, "alice" if kind == "project" else "bob"))["id"]
        upload = {"name": "guide.md", "content": DOC}
        await ok(http, "POST", f"/api/sessions/{sid}/files", upload, "alice" if kind == "project" else "bob")
        await ok(http, "POST", "/api/next", {"sessionId": sid, "userInput": "Translate guide.md into French."})
        meter.take()
        row: dict[str, tuple[dict[str, int], int]] = {}
        await ok(http, "POST", "/api/next", {"sessionId": sid})
        row["step, warm process"] = meter.take()
        await ok(app_over(client), "POST", "/api/next", {"sessionId": sid})
        row["step, new process"] = meter.take()
        await ok(http, "GET", f"/api/sessions/{sid}")
        row["session view"] = meter.take()
        figures[kind] = row
    return figures


def main() -> None:
    with mock_aws(), contextlib.redirect_stdout(io.StringIO()):  # the handler's EMF metric lines
        figures = asyncio.run(measure())
    print("| request | personal: requests | project: requests | personal: bytes | project: bytes |")
    print("| --- | --- | --- | --- | --- |")
    for name in figures["personal"]:
        (mine, mine_bytes), (team, team_bytes) = figures["personal"][name], figures["project"][name]

        def shown(ops: dict[str, int]) -> str:
            return f"{sum(ops.values())} ({', '.join(f'{k} {v}' for k, v in sorted(ops.items()))})"

        print(f"| {name} | {shown(mine)} | {shown(team)} | {mine_bytes:,} | {team_bytes:,} |")


if __name__ == "__main__":
    main()
