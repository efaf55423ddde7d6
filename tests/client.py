"""A scripted client: the seeds' doNext loop and a deterministic reviewer, over any transport."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.events import FakeLambdaContext, http_event

Transport = Callable[[str, str, Any], tuple[int, Any]]


def lambda_transport(handler: Callable[[dict[str, Any], Any], dict[str, Any]], *, sub: str = "user-alice") -> Transport:
    """Calls go through the Lambda handler as API Gateway HTTP API events."""

    def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
        path, _, query = path.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if p) if query else None
        result = handler(http_event(method, path, body, sub=sub, query=params), FakeLambdaContext())
        text = result.get("body") or ""
        ctype = (result.get("headers") or {}).get("content-type", "")
        return result["statusCode"], json.loads(text) if "json" in ctype and text else text

    return call


def asgi_transport(client: Any) -> Transport:
    """Calls go straight into the ASGI app, in process (a `fastapi.testclient.TestClient`), as the local user."""

    def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
        response = client.request(method, path, json=body)
        ctype = response.headers.get("content-type", "")
        return response.status_code, response.json() if "json" in ctype and response.content else response.text

    return call


@dataclass
class Reviewer:
    """Approves most units, edits every 4th, rejects every 5th once; answers batches partly."""

    accepted: dict[int, tuple[str, str]] = field(default_factory=dict)
    """start → (source, final text) of every written unit."""
    seen: int = 0
    rejected: set[int] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=lambda: {"approve": 0, "refined": 0, "reject": 0})

    def verdict(self, request: dict[str, Any]) -> dict[str, Any]:
        """The verdict on one copilot request, recording what will be written."""
        self.seen += 1
        start, src, proposal = request["start"], request["src_string"], request["translate_string"]
        if self.seen % 5 == 0 and start not in self.rejected:
            self.rejected.add(start)
            self.counts["reject"] += 1
            return {"tool": request["tool"], "status": "reject", "reason": "Too literal; try again."}
        if self.seen % 4 == 0:
            final = f"«{self.seen}» " + proposal
            self.accepted[start] = (src, final)
            self.counts["refined"] += 1
            return {"tool": request["tool"], "status": "refined", "translated_string": final}
        self.accepted[start] = (src, proposal)
        self.counts["approve"] += 1
        return {"tool": request["tool"], "status": "approve"}

    def expected(self, source: str) -> str:
        """The source with every accepted unit replaced by its final text (spliced by position)."""
        out = source
        for start in sorted(self.accepted, reverse=True):
            src, final = self.accepted[start]
            assert out[start : start + len(src)] == src
            out = out[:start] + final + out[start + len(src) :]
        return out


@dataclass
class ScriptedClient:
    """Drives a session to the end like the web UI's doNext loop."""

    call: Transport
    session_id: str | None = None
    steps: int = 0
    statuses: list[int] = field(default_factory=list)
    partial_rounds: int = 0
    """Review rounds that left part of their batch pending."""

    def do_next(self, first: dict[str, Any]) -> dict[str, Any]:
        """The first round carries the input; later rounds only the sessionId; stop for the user."""
        body = dict(first)
        while True:
            if self.session_id:
                body["sessionId"] = self.session_id
            status, data = self.call("POST", "/api/next", body)
            self.statuses.append(status)
            assert status == 200, (status, data)
            self.steps += 1
            self.session_id = data["sessionId"]
            agent = data["agentResponse"]
            if agent["copilotRequests"] or agent["actor"] == "user":
                return agent
            body = {}

    def translate(
        self, user_input: str, reviewer: Reviewer, *, partial_every: int = 1, max_rounds: int = 5_000
    ) -> dict[str, Any]:
        """Run the task to the end, reviewing every unit.

        Every `partial_every`-th review round answers part of the batch (its first request only, the
        rest stays pending for the next rounds); the other rounds answer the whole batch at once. The
        default, 1, answers every batch one verdict at a time.
        """
        agent = self.do_next({"userInput": user_input})
        for round_ in range(max_rounds):
            requests = agent["copilotRequests"]
            if not requests:
                return agent
            answered = requests[:1] if round_ % partial_every == 0 else requests
            self.partial_rounds += len(answered) < len(requests)
            agent = self.do_next({"copilotResponses": [reviewer.verdict(r) for r in answered]})
        raise AssertionError("the translation did not finish")
