"""Sessions (API.md "Sessions"): create, list, view, history, delete."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response

from service.blocking import blocking
from service.schemas import (
    ConfiguredModel,
    CreatedSession,
    MessagesPage,
    ModelList,
    ModelPrice,
    SessionList,
    SessionSettings,
    SessionView,
)

from ..deps import OwnerDep, ServicesDep

router = APIRouter()


@router.post("/api/sessions", status_code=201)
def create_session(owner: OwnerDep, services: ServicesDep, body: SessionSettings | None = None) -> CreatedSession:
    """Create an empty session for the caller, in the languages the body gives (optional)."""
    record = services.sessions.create(owner, body)
    return CreatedSession(id=record.session_id, createdAt=record.created_at, updatedAt=record.updated_at)


@router.get("/api/models")
def list_models(owner: OwnerDep, services: ServicesDep) -> ModelList:
    """The models a session may name (`model` on POST and PATCH /api/sessions), the default first."""
    models = services.runtime.models
    listed = []
    for name in models.names:
        price = models.price(name)
        shown = None if price is None else ModelPrice(input=price.input, output=price.output)
        listed.append(ConfiguredModel(name=name, default=name == models.default, price=shown))
    return ModelList(models=listed)


@router.get("/api/sessions")
def list_sessions(
    owner: OwnerDep,
    services: ServicesDep,
    cursor: str | None = Query(default=None, max_length=2048),
    limit: int = Query(default=20, ge=1, le=100),
) -> SessionList:
    """The caller's sessions, newest first."""
    from service.views import session_item

    page = services.sessions.page(owner, cursor=cursor, limit=limit)
    return SessionList(sessions=[session_item(r) for r in page.items], nextCursor=page.next_cursor)


@router.patch("/api/sessions/{session_id}")
async def patch_session(session_id: str, body: SessionSettings, owner: OwnerDep, services: ServicesDep) -> SessionView:
    """Change the session's languages, budget or model; the answer is the Session, as GET gives it."""
    await blocking(services.sessions.configure, owner, session_id, body)
    return await services.steps.view(owner, session_id)


@router.get("/api/sessions/{session_id}")
async def get_session(session_id: str, owner: OwnerDep, services: ServicesDep) -> SessionView:
    """Everything a client needs to restore its view."""
    return await services.steps.view(owner, session_id)


@router.get("/api/sessions/{session_id}/messages")
def get_messages(
    session_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    cursor: str | None = Query(default=None, max_length=2048),
    limit: int = Query(default=100, ge=1, le=500),
) -> MessagesPage:
    """The whole history, oldest first, a page at a time."""
    from service.views import messages_json

    services.sessions.owned(owner, session_id)
    page = services.storage.list_messages(session_id, cursor=cursor, limit=limit)
    return MessagesPage(messages=messages_json(page.items), nextCursor=page.next_cursor)


@router.delete("/api/sessions/{session_id}", status_code=204, response_class=Response)
def delete_session(session_id: str, owner: OwnerDep, services: ServicesDep) -> Response:
    """Delete the session and everything stored with it, its idempotency answers included."""
    services.sessions.delete(owner, session_id)
    return Response(status_code=204)
