"""The MCP server's way to the service: the terminal client's `ApiClient`, with the few routes it adds.

Everything goes through the HTTP API (docs/api.md), so the server works the same against the local
service (`translation-agent serve`) and a deployed API (`--api URL --token …`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, Field

from terminal.api import ApiClient, ApiError, new_key
from terminal.local import TOKEN_ENV
from terminal.models import CopilotRequest, SessionView, Step, Verdict

API_ENV = "TRANSLATION_AGENT_API"
LOCAL_SERVICE = "http://127.0.0.1:8000"
"""Where `translation-agent serve` (and `scripts/serve`) listens by default."""
TIMEOUT = 120.0
"""Seconds one request may take: a step makes at most one model request."""


class _Answer(BaseModel):
    # The server may add fields at any time: read what is known, keep values frozen.
    model_config = ConfigDict(extra="ignore", frozen=True)


class Pending(CopilotRequest):
    """A proposal awaiting a person's verdict, with what the service says about it."""

    segments: tuple[str, ...] = ()
    estimate: int | None = None
    estimateReasons: tuple[str, ...] = ()


class Telemetry(_Answer):
    """What a session's model requests cost so far."""

    modelRequests: int = 0
    inputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = None


class Session(SessionView):
    """`GET /api/sessions/{id}` with the fields the MCP tools show."""

    pendingCopilotRequests: tuple[Pending, ...] = ()
    targetLanguage: str | None = None
    sourceLanguage: str | None = None
    model: str | None = None
    telemetry: Telemetry = Field(default_factory=Telemetry)
    budget: dict[str, Any] | None = None
    spent: dict[str, Any] | None = None


class GlossaryEntry(_Answer):
    """A glossary entry of `GET /api/memory`."""

    source: str
    target: str
    kind: str = "preferred"
    languages: str = ""
    origin: str = ""


class Memory(_Answer):
    """`GET /api/memory` (or a project's): the glossary; the rest is not read here."""

    glossary: tuple[GlossaryEntry, ...] = ()


class AgentApi(ApiClient):
    """`ApiClient` and the routes the MCP tools need besides its own."""

    async def session_status(self, session_id: str) -> Session:
        """The session as `GET /api/sessions/{id}` shows it, pending proposals in full."""
        return Session.model_validate((await self._request("GET", f"/api/sessions/{quote(session_id)}")).json())

    async def new_session(
        self, target_language: str, *, model: str | None, project: str | None, budget_tokens: int | None
    ) -> str:
        """A new empty session's id (`POST /api/sessions`), with a token budget when given."""
        body: dict[str, Any] = {"targetLanguage": target_language}
        body |= {"model": model} if model else {}
        body |= {"project": project} if project else {}
        body |= {"budget": {"tokens": budget_tokens}} if budget_tokens is not None else {}
        return str((await self._request("POST", "/api/sessions", json=body)).json()["id"])

    async def memory(self, project: str | None) -> Memory:
        """The caller's memory, or the project's."""
        return Memory.model_validate((await self._request("GET", _memory(project))).json())

    async def similar(self, project: str | None, text: str, target_language: str) -> tuple[str, list[Similar]]:
        """The translation memory's best matches (at most 5) for `text` in one language, as the service
        finds them (`…/memory/concordance`: through its index, never the whole memory), and the
        language's tag."""
        params = {"q": text, "language": target_language, "limit": "1"}
        answer = (await self._request("GET", f"{_memory(project)}/concordance", params=params)).json()
        return str(answer["language"]), [Similar.model_validate(h) for h in answer["similar"]]

    async def memory_tmx(self, project: str | None) -> str:
        """The translation memory as TMX (`…/memory/export?format=tmx`)."""
        response = await self._request("GET", f"{_memory(project)}/export", params={"format": "tmx"})
        return response.text

    async def verdicts(self, session_id: str, verdicts: Sequence[Verdict]) -> Step:
        """One `POST /api/next` carrying the verdicts (with its own Idempotency-Key)."""
        body = {"sessionId": session_id, "copilotResponses": [v.body() for v in verdicts]}
        return await self.once(body)

    async def once(self, body: dict[str, Any]) -> Step:
        """One step; an answer lost on the way is asked again with the same key (the server replays it)."""
        key = new_key()
        try:
            return await self.step(body, key)
        except ApiError as exc:
            if exc.status != 0:
                raise
            return await self.step(body, key)

    async def until_review(self, body: dict[str, Any], *, max_steps: int) -> tuple[Step | None, int]:
        """Steps from `body` while the agent has the turn, at most `max_steps`: the last step and how many ran."""
        last: Step | None = None
        for count in range(1, max_steps + 1):
            last = await self.once(body)
            answer = last.agentResponse
            if answer.copilotRequests or answer.actor != "agent":
                return last, count
            body = {"sessionId": last.sessionId}
        return last, max_steps


class Similar(BaseModel):
    """A translation-memory match the concordance route answers."""

    score: float
    source: str
    target: str


def _memory(project: str | None) -> str:
    return f"/api/projects/{quote(project)}/memory" if project else "/api/memory"


def connect_api(api_url: str | None = None, token: str | None = None) -> AgentApi:
    """A client of the API at `api_url` (else `$TRANSLATION_AGENT_API`, else the local service), with a
    bearer token when one is given (else `$TRANSLATION_AGENT_TOKEN`)."""
    url = (api_url or os.environ.get(API_ENV) or LOCAL_SERVICE).rstrip("/")
    token = token or os.environ.get(TOKEN_ENV)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return AgentApi(httpx.AsyncClient(base_url=url, headers=headers, timeout=httpx.Timeout(TIMEOUT)))


__all__ = ["AgentApi", "ApiError", "GlossaryEntry", "Memory", "Pending", "Session", "connect_api"]
