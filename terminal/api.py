"""The terminal client's one way to the API (API.md) over httpx: the doNext loop and the other routes."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import httpx

from .models import (
    Analysis,
    CopilotRequest,
    Download,
    FileInfo,
    ImportResult,
    JobView,
    ProjectItem,
    ProjectSession,
    SessionPage,
    SessionView,
    Step,
    Unit,
    Verdict,
)
from .second_review_models import ReviewApproval, RevisedSegment, SegmentPage
from .stream import EVENT_STREAM, Delta, SseParser

ACT_AS = "X-Act-As"
"""The header naming the identity a local request acts as (docs/api.md "Identity")."""
MAX_RETRIES = 5
"""How often one call is retried after a 409, 503, 504 or a lost answer before the error is shown."""
MAX_WAIT = 3600.0
"""The longest pause before a retry, whatever Retry-After says (a provider's quota window)."""

PLAIN = {
    400: "The server could not read the request.",
    401: "Authentication is required: pass --token or set TRANSLATION_AGENT_TOKEN.",
    404: "This session or file does not exist (for this caller).",
    409: "The session changed in the meantime (another client or a lost answer).",
    413: "The document is too large to upload.",
    422: "The server rejected the request.",
    502: "The model provider refused the request; retrying will not help.",
    503: "The translation model or the store is busy or unavailable.",
    504: "The step took too long and was cancelled; nothing was changed.",
}


class ApiError(Exception):
    """An API or network failure, in words a person can act on."""

    def __init__(self, message: str, *, status: int = 0, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """A lost answer, a conflict, a busy provider or a timeout may succeed when tried again."""
        return self.status in (0, 409, 503, 504)


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a doNext loop stopped: the human's turn, with copilot requests to review or not."""

    session_id: str
    actor: str
    copilot_requests: tuple[CopilotRequest, ...]
    files: tuple[FileInfo, ...]


StepHook = Callable[[Step], Awaitable[None] | None]
RetryHook = Callable[[ApiError, float], Awaitable[None] | None]
DeltaHook = Callable[[Delta], Awaitable[None] | None]


def new_key() -> str:
    """A fresh Idempotency-Key."""
    return uuid.uuid4().hex


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def _error(response: httpx.Response) -> ApiError:
    detail = ""
    try:
        data = response.json()
        detail = data.get("error", "") if isinstance(data, dict) else ""
    except ValueError:
        pass
    general = PLAIN.get(response.status_code, f"The server answered with an error (HTTP {response.status_code}).")
    message = f"{general} {detail}" if detail and detail != general else general
    return ApiError(message, status=response.status_code, retry_after=_retry_after(response))


def _filename(response: httpx.Response, fallback: str) -> str:
    header = response.headers.get("Content-Disposition", "")
    if match := re.search(r"filename\*=UTF-8''([^;]+)", header, re.IGNORECASE):
        return unquote(match.group(1))
    if match := re.search(r'filename="([^"]+)"', header):
        return match.group(1)
    return fallback


async def _call(hook: Callable[..., Awaitable[None] | None] | None, *args: object) -> None:
    if hook is not None and (pending := hook(*args)) is not None:
        await pending


class ApiClient:
    """The API over an httpx client (in-process ASGI or a deployed URL)."""

    def __init__(self, http: httpx.AsyncClient, *, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._http = http
        self._sleep = sleep

    async def aclose(self) -> None:
        """Close the underlying HTTP client."""
        await self._http.aclose()

    async def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            name = exc.__class__.__name__
            raise ApiError(f"Could not reach the server ({name}). Check the URL, then retry.") from exc
        if response.is_error:
            raise _error(response)
        return response

    async def create_session(
        self, *, target_language: str | None = None, model: str | None = None, project: str | None = None
    ) -> str:
        """A new empty session's id (translating into `target_language` with `model`, in `project`, each
        when given)."""
        body = {"targetLanguage": target_language} if target_language else {}
        if model:
            body["model"] = model
        if project:
            body["project"] = project
        data = (await self._request("POST", "/api/sessions", json=body)).json()
        return str(data["id"])

    async def create_job(
        self,
        files: Sequence[tuple[str, str]],
        languages: Sequence[str],
        *,
        model: str | None = None,
        project: str | None = None,
    ) -> tuple[str, dict[str, str]]:
        """A job translating the files (name, text) into each language (in `project` when given): its id
        and each language's session."""
        body: dict[str, Any] = {
            "files": [{"name": name, "content": content} for name, content in files],
            "targetLanguages": list(languages),
        }
        if model:
            body["model"] = model
        if project:
            body["project"] = project
        data = (await self._request("POST", "/api/jobs", json=body)).json()
        return str(data["id"]), {str(k): str(v) for k, v in data["sessions"].items()}

    async def job(self, job_id: str) -> JobView:
        """Each of the job's languages: its session, progress, state, spending and estimate."""
        return JobView.model_validate((await self._request("GET", f"/api/jobs/{quote(job_id)}")).json())

    async def delete_session(self, session_id: str) -> None:
        """Delete a session and everything stored with it."""
        await self._request("DELETE", f"/api/sessions/{quote(session_id)}")

    async def analysis(self, session_id: str, file_id: str) -> Analysis:
        """A file's segments, words, translation-memory match bands and the cost estimate."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/analysis"
        return Analysis.model_validate((await self._request("GET", path)).json())

    async def session(self, session_id: str) -> SessionView:
        """Everything needed to restore the view of a session."""
        return SessionView.model_validate((await self._request("GET", f"/api/sessions/{quote(session_id)}")).json())

    async def sessions(self, *, limit: int = 50, cursor: str | None = None) -> SessionPage:
        """A page of the caller's sessions, newest first."""
        params: dict[str, str | int] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        return SessionPage.model_validate((await self._request("GET", "/api/sessions", params=params)).json())

    async def create_project(self, name: str) -> str:
        """A new project's id; the caller is its first manager."""
        return str((await self._request("POST", "/api/projects", json={"name": name})).json()["id"])

    async def projects(self) -> list[ProjectItem]:
        """The caller's projects, with the caller's role and languages in each."""
        data = (await self._request("GET", "/api/projects")).json()
        return [ProjectItem.model_validate(p) for p in data["projects"]]

    async def project_sessions(self, project_id: str, *, limit: int = 50) -> list[ProjectSession]:
        """The first page of a project's sessions the caller may read, newest first."""
        data = (await self._request("GET", f"/api/projects/{project_id}/sessions", params={"limit": limit})).json()
        return [ProjectSession.model_validate(s) for s in data["sessions"]]

    async def upload(self, session_id: str, name: str, content: str | bytes) -> FileInfo:
        """Add a document to the session: text as `content`, bytes (`.docx`, UTF-16) as `contentBase64`."""
        body = (
            {"name": name, "content": content}
            if isinstance(content, str)
            else {"name": name, "contentBase64": base64.b64encode(content).decode("ascii")}
        )
        data = (await self._request("POST", f"/api/sessions/{quote(session_id)}/files", json=body)).json()
        return FileInfo.model_validate(data)

    async def file(self, session_id: str, file_id: str) -> FileInfo:
        """A file and its progress."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}"
        return FileInfo.model_validate((await self._request("GET", path)).json())

    async def units(self, session_id: str, file_id: str) -> list[Unit]:
        """The written units of a file, in source order."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/units"
        return [Unit.model_validate(u) for u in (await self._request("GET", path)).json()["units"]]

    async def download(self, session_id: str, file_id: str, fmt: str = "md") -> Download:
        """The translation (`md`) or an export format, with the name the server suggests."""
        base = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}"
        path, params = (f"{base}/translation", None) if fmt == "md" else (f"{base}/export", {"format": fmt})
        try:
            response = await self._request("GET", path, params=params, headers={"Accept": "*/*"})
        except ApiError as exc:
            if exc.status == 404 and fmt != "md":
                await self.file(session_id, file_id)  # a missing session or file says so itself
                message = f"This server cannot export the format {fmt!r} (yet); try --format md."
                raise ApiError(message, status=404) from exc
            raise
        return Download(
            filename=_filename(response, f"translation.{fmt}"), content=response.text, data=response.content
        )

    async def add_glossary(self, source: str, target: str, languages: str | None = None) -> None:
        """Add a glossary entry to the caller's memory."""
        body = {"source": source, "target": target} | ({"languages": languages} if languages else {})
        await self._request("POST", "/api/memory/glossary", json=body)

    async def import_memory(self, fmt: str, content: str) -> ImportResult:
        """Add a TMX, CSV or TBX file to the caller's memory."""
        try:
            response = await self._request("POST", "/api/memory/import", json={"format": fmt, "content": content})
        except ApiError as exc:
            if exc.status in (404, 405):
                raise ApiError("This server has no memory import (POST /api/memory/import) yet.", status=404) from exc
            raise
        return ImportResult.model_validate(response.json())

    async def step(self, body: dict[str, Any], key: str, *, on_delta: DeltaHook | None = None) -> Step:
        """One `POST /api/next` with its Idempotency-Key; with `on_delta`, streamed (the model's answer as it forms)."""
        if on_delta is None:
            response = await self._request("POST", "/api/next", json=body, headers={"Idempotency-Key": key})
            return Step.model_validate(response.json())
        headers = {"Idempotency-Key": key, "Accept": f"{EVENT_STREAM}, application/json;q=0.9"}
        try:
            async with self._http.stream("POST", "/api/next", json=body, headers=headers) as response:
                if response.is_error:
                    await response.aread()
                    raise _error(response)
                if EVENT_STREAM not in response.headers.get("content-type", ""):
                    await response.aread()  # a server that cannot stream (behind API Gateway) answers plain JSON
                    return Step.model_validate(response.json())
                return await _streamed_step(response, on_delta)
        except httpx.TransportError as exc:
            name = exc.__class__.__name__
            raise ApiError(f"The connection broke before the step's answer arrived ({name}); retrying.") from exc

    async def do_next(
        self,
        body: dict[str, Any],
        *,
        on_step: StepHook | None = None,
        on_retry: RetryHook | None = None,
        on_delta: DeltaHook | None = None,
    ) -> Turn:
        """Send `body`, then continue while the agent has the turn; stop at the human's turn.

        With `on_delta`, each step is streamed and `on_delta` hears the model's answer as it forms.
        """
        key = new_key()
        attempts = 0
        while True:
            try:
                step = await self.step(body, key, on_delta=on_delta)
            except ApiError as exc:
                # A provider's throttle or quota (503 with its Retry-After) is waited out as often as it
                # lasts, so a long job goes on by itself; other failures get MAX_RETRIES attempts.
                throttled = exc.status == 503 and exc.retry_after is not None
                attempts += 0 if throttled else 1
                if not exc.retryable or attempts > MAX_RETRIES:
                    raise
                wait = min(exc.retry_after if exc.retry_after is not None else float(max(attempts, 1)), MAX_WAIT)
                await _call(on_retry, exc, wait)
                await self._sleep(wait)
                if exc.status == 409:
                    # Another step committed first: look at the server and go on from what it holds.
                    restored = await self._after_conflict(body)
                    if restored is not None:
                        return restored
                    body, key = {"sessionId": body["sessionId"]}, new_key()
                elif exc.status != 0:
                    key = new_key()  # 503/504 left the session unchanged: the same call, as a new attempt
                # A lost answer (status 0) is resent with the same key: the server replays it if it ran.
                continue
            attempts = 0
            await _call(on_step, step)
            answer = step.agentResponse
            if answer.copilotRequests or answer.actor != "agent":
                return Turn(step.sessionId, answer.actor, answer.copilotRequests, step.progress)
            body, key = {"sessionId": step.sessionId}, new_key()

    async def _after_conflict(self, body: dict[str, Any]) -> Turn | None:
        """The session's turn after a 409, or None when the agent has it and the loop goes on."""
        session_id = body.get("sessionId")
        if not isinstance(session_id, str):
            raise ApiError(PLAIN[409], status=409)
        view = await self.session(session_id)
        if view.pendingCopilotRequests or view.actor != "agent":
            return Turn(view.id, view.actor, view.pendingCopilotRequests, view.files)
        return None

    # ---------- the second review: segments, revisions, bulk approval (docs/api.md "The second review") ----------

    def act_as(self, sub: str) -> None:
        """Every later request acts as the project member `sub` (`X-Act-As`; honoured in local mode only)."""
        self._http.headers[ACT_AS] = sub

    async def segments(
        self,
        session_id: str,
        file_id: str,
        *,
        status: str | None = None,
        q: str | None = None,
        cursor: str | None = None,
        limit: int = 200,
    ) -> SegmentPage:
        """A page of the file's segments in source order, as the filter shows them."""
        params: dict[str, str | int] = {"limit": limit}
        params |= {k: v for k, v in (("status", status), ("q", q), ("cursor", cursor)) if v}
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/segments"
        return SegmentPage.model_validate((await self._request("GET", path, params=params)).json())

    async def string_context(self, session_id: str, file_id: str, segment_id: str) -> dict[str, Any] | None:
        """A segment's context for strings (API.md "Context for strings") as JSON, or None where the
        server has no such segment (404)."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/segments/{quote(segment_id)}/context"
        try:
            found: dict[str, Any] = (await self._request("GET", path)).json()
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        return found

    async def revise(self, session_id: str, file_id: str, start: int, text: str) -> RevisedSegment:
        """Give the written unit at `start` this text (a reviewer's PUT of the text as it is approves it)."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/segments/{start}"
        response = await self._request("PUT", path, json={"translated_string": text})
        return RevisedSegment.model_validate(response.json())

    async def approve_review(self, session_id: str, file_id: str, *, q: str | None = None) -> ReviewApproval:
        """The bulk review step: approve the `translated` units the filter shows (at most 500 a request)."""
        path = f"/api/sessions/{quote(session_id)}/files/{quote(file_id)}/approve"
        body = {"step": "review", "filter": {"q": q} if q else {}}
        return ReviewApproval.model_validate((await self._request("POST", path, json=body)).json())


async def _streamed_step(response: httpx.Response, on_delta: DeltaHook) -> Step:
    """The `step` event of a streamed answer, each `delta` to `on_delta` on the way; `error` raised as ApiError."""
    parser = SseParser()
    async for text in response.aiter_text():
        for event in parser.push(text):
            if event.event == "delta":
                await _call(on_delta, Delta.model_validate_json(event.data))
            elif event.event == "step":
                return Step.model_validate_json(event.data)
            elif event.event == "error":
                data = json.loads(event.data)
                status = int(data.get("status") or 500)
                detail = str(data.get("error") or "")
                general = PLAIN.get(status, f"The server answered with an error (HTTP {status}).")
                message = f"{general} {detail}" if detail and detail != general else general
                # The stream's headers are gone by then: a 503/504 waits the server's usual 2 s.
                raise ApiError(message, status=status, retry_after=2.0 if status in (503, 504) else None)
    # Cut off before its last event: a lost answer, sent again with the same key (replayed if it ran).
    raise ApiError("The step's answer was cut off before it ended; retrying.")


def verdicts_body(session_id: str, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The `POST /api/next` body that sends a batch of verdicts."""
    return {"sessionId": session_id, "copilotResponses": [v.body() for v in verdicts]}
