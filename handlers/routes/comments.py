"""Comments on segments (docs/api.md "Comments on segments"): a segment's thread, a new comment, its
resolved mark, and a session's threads. Who may act is decided before the route (handlers.deps.get_owner,
service.access: reading is `read`, writing `comment`); a comment is signed by the caller themselves."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from service.comment_schemas import CommentBody, CommentView, ResolveBody, SessionThreads

from ..deps import CallerDep, OwnerDep, ServicesDep

router = APIRouter()

_THREAD = "/api/sessions/{session_id}/files/{file_id}/segments/{segment_id}/comments"


@router.get(_THREAD)
def get_thread(
    session_id: str, file_id: str, segment_id: str, owner: OwnerDep, services: ServicesDep
) -> list[CommentView]:
    """The segment's thread, oldest first."""
    from service.comments import Comments

    return Comments(services.sessions).thread(owner, session_id, file_id, segment_id)


@router.post(_THREAD, status_code=201)
def post_comment(
    session_id: str,
    file_id: str,
    segment_id: str,
    body: CommentBody,
    owner: OwnerDep,
    caller: CallerDep,
    services: ServicesDep,
) -> CommentView:
    """A new comment on the segment's thread, by the caller."""
    from service.comments import Comments

    return Comments(services.sessions).post(owner, caller, session_id, file_id, segment_id, body)


@router.patch(_THREAD + "/{comment_id}")
def resolve_comment(
    session_id: str,
    file_id: str,
    segment_id: str,
    comment_id: str,
    body: ResolveBody,
    owner: OwnerDep,
    caller: CallerDep,
    services: ServicesDep,
) -> CommentView:
    """Set or clear the comment's resolved mark."""
    from service.comments import Comments

    return Comments(services.sessions).resolve(owner, caller, session_id, file_id, segment_id, comment_id, body)


@router.get("/api/sessions/{session_id}/comments")
def session_threads(
    session_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    open: Annotated[bool, Query(description="true: only threads with a comment not resolved")] = False,
) -> SessionThreads:
    """The session's threads by file and segment."""
    from service.comments import Comments

    return Comments(services.sessions).session_threads(owner, session_id, open_only=open)
