"""The HTTP API (API.md): FastAPI routes, the ASGI `app`, and the Lambda entry `handler` (Mangum)."""

# ruff: noqa: E402  (the imports follow the collector pause below on purpose)
from __future__ import annotations

import gc

# Cold start: importing the app builds a large heap of long-lived objects (pydantic-ai, FastAPI,
# validators). Collecting while it grows only rescans those objects again and again, so collection
# pauses until the app is built; then `gc.freeze()` moves them out of the collector's sight, which
# also keeps full collections during requests short. See docs/benchmarks.md (cold start).
gc.disable()

import hashlib
import json
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from fastapi import FastAPI, Header, Query, Request, Response
from mangum import Mangum

from agent_core.errors import ConflictError, InvalidRequestError, NotFoundError
from agent_core.ids import is_id

from . import errors
from .identity import caller
from .limits import BodyLimitMiddleware
from .logging import logger
from .memory_routes import router as memory_router
from .metrics import metrics, record_step
from .schemas import (
    FileUpload,
    NextRequest,
    copilot_requests_json,
    file_json,
    messages_json,
    progress_json,
    session_item_json,
    state_of,
    step_json,
)
from .security import install_security
from .services import LazyServices, Services
from .tracing import annotate, traced
from .web import mount_web, sign_in_config

if TYPE_CHECKING:  # the agent loop and storage are imported with the services, on first use
    from collections.abc import Sequence

    from pydantic_ai.messages import ModelMessage

    from agent_core.runtime import Idempotency
    from storage.records import MessageRecord

SESSION_VIEW_MESSAGES = 200
"""A session view carries at most this many of the latest messages; the messages route pages all."""


def _session_id(value: str) -> str:
    if not is_id(value, "s"):
        raise NotFoundError(f"No session {value[:80]}.")
    return value


def _file_id(value: str) -> str:
    if not is_id(value, "f"):
        raise NotFoundError(f"No file {value[:80]}.")
    return value


def _services(request: Request) -> Services:
    lazy: LazyServices = request.app.state.services
    return lazy.get()


def create_app(services: Services | None = None) -> FastAPI:
    """The API app; services are built from the environment on first use unless given."""
    app = FastAPI(
        title="Translation agent",
        version="1.0.0",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.services = LazyServices(services)
    sign_in = sign_in_config()  # read once; a partial or unsafe one stops the app here
    errors.install(app)
    install_security(app, connect_sources=sign_in.connect_sources)
    app.add_middleware(BodyLimitMiddleware)

    @app.post("/api/next", response_model=None)
    async def next_step(
        body: NextRequest,
        request: Request,
        idempotency_key: str | None = Header(default=None, alias="Idempotency-Key"),
    ) -> dict[str, Any] | Response:
        """Perform exactly one AgentLoop step and return what it added."""
        from agent_core.runtime import Idempotency, StepInput  # with the services, on first use

        owner = caller(request)
        session_id = _session_id(body.sessionId) if body.sessionId is not None else None
        services = _services(request)
        key = None
        if idempotency_key is not None:
            key = Idempotency(
                key=_idempotency_key(idempotency_key),
                request_hash=_digest(body),
                render=lambda outcome: json.dumps(step_json(outcome)),
            )
            if (replay := _replay(services, owner, key)) is not None:
                return replay
        step = StepInput(
            user_input=body.userInput,
            copilot_responses=body.copilotResponses or (),
            time_left=_time_left(request),
            idempotency=key,
        )
        try:
            outcome = await services.runtime.step(owner, session_id, step)
        except ConflictError:
            # A concurrent retry of the same request may have committed first: answer as it did.
            if key is not None and (replay := _replay(services, owner, key)) is not None:
                return replay
            raise
        result = outcome.result
        record_step(outcome, body.copilotResponses or ())
        logger.append_keys(session_id=outcome.session_id)
        annotate(session_id=outcome.session_id, actor=result.actor)
        logger.info(
            "step",
            extra={
                "actor": result.actor,
                "messages": len(result.messages),
                "copilot_requests": len(result.copilot_requests),
            },
        )
        return step_json(outcome)

    @app.post("/api/sessions", status_code=201)
    async def create_session(request: Request) -> dict[str, Any]:
        """Create an empty session for the caller."""
        record = _services(request).manager.create_session(caller(request))
        return {"id": record.session_id, "createdAt": record.created_at, "updatedAt": record.updated_at}

    @app.get("/api/sessions")
    async def list_sessions(
        request: Request,
        cursor: str | None = Query(default=None, max_length=2048),
        limit: int = Query(default=20, ge=1, le=100),
    ) -> dict[str, Any]:
        """The caller's sessions, newest first."""
        page = _services(request).manager.list_sessions(caller(request), cursor=cursor, limit=limit)
        return {"sessions": [session_item_json(r) for r in page.items], "nextCursor": page.next_cursor}

    @app.get("/api/sessions/{session_id}")
    async def get_session(session_id: str, request: Request) -> dict[str, Any]:
        """Everything a client needs to restore its view."""
        owner, sid = caller(request), _session_id(session_id)
        services = _services(request)
        record = services.manager.session(owner, sid)
        latest = services.manager.latest_messages(sid, limit=SESSION_VIEW_MESSAGES)
        responses = services.manager.copilot_responses(sid, limit=1000)
        actor, pending = await services.runtime.pending_reviews(owner, sid)
        return {
            "id": sid,
            "messages": messages_json(_load_messages(latest)),
            "messagesComplete": record.message_count <= len(latest),
            "messageCount": record.message_count,
            "copilotResponses": [_json(r.data) for r in responses.items],
            "copilotResponsesComplete": responses.next_cursor is None,
            "createdAt": record.created_at,
            "updatedAt": record.updated_at,
            "pendingCopilotRequests": copilot_requests_json(pending),
            "actor": actor,
            "files": [file_json(f) for f in services.manager.file_states(sid)],
            "telemetry": {
                "steps": record.steps,
                "modelRequests": record.model_requests,
                "inputTokens": record.input_tokens,
                "outputTokens": record.output_tokens,
                "modelMs": record.model_ms,
            },
        }

    @app.get("/api/sessions/{session_id}/messages")
    async def get_messages(
        session_id: str,
        request: Request,
        cursor: str | None = Query(default=None, max_length=2048),
        limit: int = Query(default=100, ge=1, le=500),
    ) -> dict[str, Any]:
        """The whole history, oldest first, a page at a time."""
        page = _services(request).manager.messages(caller(request), _session_id(session_id), cursor=cursor, limit=limit)
        return {"messages": messages_json(_load_messages(page.items)), "nextCursor": page.next_cursor}

    @app.delete("/api/sessions/{session_id}", status_code=204)
    async def delete_session(session_id: str, request: Request) -> Response:
        """Delete the session and everything stored with it."""
        _services(request).manager.delete_session(caller(request), _session_id(session_id))
        return Response(status_code=204)

    @app.post("/api/sessions/{session_id}/files", status_code=201)
    async def upload_file(session_id: str, body: FileUpload, request: Request) -> dict[str, Any]:
        """Add a document to translate."""
        record = _services(request).manager.add_file(
            caller(request), _session_id(session_id), name=body.name, content=body.content
        )
        return {"fileId": record.file_id, "name": record.name, "chars": record.chars}

    @app.get("/api/sessions/{session_id}/files/{file_id}")
    async def get_file(session_id: str, file_id: str, request: Request) -> dict[str, Any]:
        """A file, its progress and its translation so far."""
        sid = _session_id(session_id)
        manager = _services(request).manager
        record = manager.file(caller(request), sid, _file_id(file_id))
        state = state_of(record)
        return {
            "fileId": record.file_id,
            "name": record.name,
            "chars": record.chars,
            "progress": progress_json(state),
            "translation": manager.translation(sid, record),
        }

    @app.get("/api/sessions/{session_id}/files/{file_id}/translation")
    async def download_translation(session_id: str, file_id: str, request: Request) -> Response:
        """The assembled translation as a download."""
        sid = _session_id(session_id)
        manager = _services(request).manager
        record = manager.file(caller(request), sid, _file_id(file_id))
        stem, dot, ext = record.name.rpartition(".")
        filename = f"{stem}.translated.{ext}" if dot and stem else f"{record.name}.translated"
        safe = "".join(ch if ch.isalnum() or ch in "._- " else "_" for ch in filename)
        return Response(
            manager.translation(sid, record),
            media_type=_media_type(record.name),
            headers={"Content-Disposition": f'attachment; filename="{safe}"'},
        )

    @app.get("/api/sessions/{session_id}/files/{file_id}/source")
    async def download_source(session_id: str, file_id: str, request: Request) -> Response:
        """The file's source text as it was uploaded."""
        sid = _session_id(session_id)
        manager = _services(request).manager
        record = manager.file(caller(request), sid, _file_id(file_id))
        return Response(manager.source(sid, record), media_type=_media_type(record.name))

    @app.get("/api/sessions/{session_id}/files/{file_id}/units")
    async def list_units(session_id: str, file_id: str, request: Request) -> dict[str, Any]:
        """The written units in source order: where each lies in the source, and its final text."""
        sid = _session_id(session_id)
        manager = _services(request).manager
        record = manager.file(caller(request), sid, _file_id(file_id))
        return {
            "units": [
                {"start": u.start, "end": u.end, "text": u.text, "status": u.status, "callId": u.call_id}
                for u in manager.units(sid, record)
            ]
        }

    @app.get("/api/health")
    async def health() -> dict[str, str]:
        """Liveness: the process answers (touches no storage)."""
        return {"status": "ok"}

    app.include_router(memory_router)
    mount_web(app, sign_in)
    return app


def _idempotency_key(value: str) -> str:
    if not 1 <= len(value) <= 255:
        raise InvalidRequestError("Idempotency-Key must be 1 to 255 characters.")
    return value


def _digest(body: NextRequest) -> str:
    canonical = json.dumps(body.model_dump(mode="json", exclude_none=True), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replay(services: Services, owner: str, key: Idempotency) -> Response | None:
    """The kept answer to this key; the same key with another body is refused."""
    kept = services.manager.recall(owner, key.key)
    if kept is None:
        return None
    if kept.request_hash != key.request_hash:
        raise InvalidRequestError("This Idempotency-Key was already used with a different body; use a new key.")
    return Response(
        kept.body, status_code=kept.status, media_type="application/json", headers={"Idempotent-Replayed": "true"}
    )


def _load_messages(records: Sequence[MessageRecord]) -> list[ModelMessage]:
    from storage.manager import load_messages  # with the services, on first use

    return load_messages(records)


def _media_type(name: str) -> str:
    markdown = name.lower().endswith((".md", ".markdown"))
    return "text/markdown; charset=utf-8" if markdown else "text/plain; charset=utf-8"


def _json(data: str) -> Any:
    return json.loads(data)


def _time_left(request: Request) -> Any:
    context = request.scope.get("aws.context")
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return (lambda: remaining() / 1000.0) if callable(remaining) else None


app = create_app()
_mangum = Mangum(app, lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
@metrics.log_metrics
@traced
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """The Lambda entry: API Gateway HTTP API events through Mangum to the app."""
    response: dict[str, Any] = _mangum(event, context)  # type: ignore[arg-type]
    annotate(status=int(response.get("statusCode", 0)))
    return response


from . import snapstart  # noqa: F401  (registers the SnapStart runtime hooks)

gc.freeze()
gc.enable()
