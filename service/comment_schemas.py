"""The bodies of the comment routes (API.md "Projects and teams", docs/api.md "Comments on segments")."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from agent_core.text import check_filled
from storage.comments import MAX_COMMENT_CHARS, CommentRecord


class CommentBody(BaseModel):
    """`POST …/segments/{segmentId}/comments`: a new comment on the segment's thread."""

    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1, max_length=MAX_COMMENT_CHARS), AfterValidator(check_filled)]
    """Not blank; no control character but tab, line feed and carriage return."""


class ResolveBody(BaseModel):
    """`PATCH …/comments/{commentId}`: set or clear the comment's resolved mark."""

    model_config = ConfigDict(extra="forbid")

    resolved: bool


class CommentView(BaseModel):
    """A comment as the API shows it."""

    id: str
    by: str
    """The identity (`sub`) of the person who wrote it."""
    at: str
    text: str
    resolved: bool
    resolvedBy: str | None = None
    """Who last set or cleared the resolved mark (null: nobody yet)."""
    resolvedAt: str | None = None


class ThreadSummary(BaseModel):
    """A segment's thread in a session's listing: its counts and its comments."""

    segmentId: str
    comments: int
    open: int
    thread: list[CommentView]


class FileThreads(BaseModel):
    """A file's threads, in segment order."""

    fileId: str
    name: str
    threads: list[ThreadSummary]


class SessionThreads(BaseModel):
    """`GET /api/sessions/{id}/comments`: the session's threads by file (`?open=true`: those with an open comment)."""

    files: list[FileThreads]


def comment_view(record: CommentRecord) -> CommentView:
    """The API's view of a stored comment."""
    return CommentView(
        id=record.comment_id,
        by=record.by,
        at=record.at,
        text=record.text,
        resolved=record.resolved,
        resolvedBy=record.resolved_by,
        resolvedAt=record.resolved_at,
    )
