"""The routes sync needs beyond the terminal's own: sessions with a source language, segment lists,
`format=original` exports, a project's settings and memory import. Over the same httpx client."""

from __future__ import annotations

from typing import Any, Self
from urllib.parse import quote

from .api import ApiClient, ApiError
from .models import ImportResult

DECIDED = frozenset({"approved", "refined", "revised", "verbatim", "reviewed"})
"""The statuses of a decided unit: written, and in a session that reviews twice passed by the reviewer
(`translated` waits for the reviewer)."""


class SyncApi(ApiClient):
    """The API client with the calls `translation-agent sync` makes."""

    @classmethod
    def over(cls, client: ApiClient) -> Self:
        """A SyncApi sharing `client`'s connection (the in-process app or a deployed URL)."""
        return cls(client._http)

    async def new_session(
        self, *, target: str, source: str, project: str | None = None, model: str | None = None
    ) -> str:
        """A new session translating `source` into `target` (in `project`, with `model`, when given)."""
        body: dict[str, Any] = {"targetLanguage": target, "sourceLanguage": source}
        if project:
            body["project"] = project
        if model:
            body["model"] = model
        return str((await self._request("POST", "/api/sessions", json=body)).json()["id"])

    async def every_segment(self, session_id: str, file_id: str) -> list[dict[str, Any]]:
        """Every segment of a file in source order (all pages), with status, context and history."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/segments"
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": 1000} | ({"cursor": cursor} if cursor else {})
            page = (await self._request("GET", path, params=params)).json()
            found += page["segments"]
            cursor = page.get("nextCursor")
            if not cursor:
                return found

    async def original(self, session_id: str, file_id: str) -> bytes:
        """`export?format=original&reviewed=true`: the file in its own format with the decided targets
        filled (in a session that reviews twice, what waits for the reviewer is left out)."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/export"
        params = {"format": "original", "reviewed": "true"}
        return (await self._request("GET", path, params=params, headers={"Accept": "*/*"})).content

    async def source_text(self, session_id: str, file_id: str) -> str:
        """The text the file was uploaded with (what segment offsets count in)."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/source"
        return (await self._request("GET", path, headers={"Accept": "*/*"})).text

    async def release(self, session_id: str) -> None:
        """Let go of the session's claim (a project's session: its members drive it at once)."""
        try:
            await self._request("DELETE", f"/api/sessions/{quote(session_id)}/claim")
        except ApiError as exc:
            if exc.status not in (404, 405):  # a server without claims has nothing to let go
                raise

    async def import_tmx(self, content: str, *, project: str | None) -> ImportResult:
        """Add a TMX document to the project's memory, or the caller's own outside a project."""
        if project is None:
            return await self.import_memory("tmx", content)
        path = f"/api/projects/{quote(project)}/memory/import"
        response = await self._request("POST", path, json={"format": "tmx", "content": content})
        return ImportResult.model_validate(response.json())


__all__ = ["DECIDED", "ApiError", "SyncApi"]
