"""Comments on segments in storage: a thread per segment of a session's file, kept under the session.

A comment is written once (author, time, text) and never rewritten; only its resolved mark (with who
set it and when) changes, a bounded update of that one record. The counts the caps are checked against
are kept by the same write that adds a comment, so the caps hold under concurrent posts on every
backend, and a file's per-segment counts are one bounded read (what the segment list shows).
Comments go with their session when it is deleted.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from .errors import InvalidRequestError

MAX_COMMENT_CHARS = 2_000
"""The longest comment text, in characters."""
MAX_COMMENTS_PER_SEGMENT = 100
"""The most comments one segment's thread holds."""
MAX_COMMENTS_PER_SESSION = 2_000
"""The most comments one session holds, over all its files (bounds what a listing of them reads)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommentRecord:
    """One comment of a segment's thread."""

    comment_id: str
    """Unique in its session; ids sort in the order comments were posted (service.comments)."""
    session_id: str
    file_id: str
    segment_id: str
    by: str
    """The identity (`sub`) that wrote it."""
    at: str
    """When it was written (ISO 8601, UTC)."""
    text: str
    resolved: bool = False
    resolved_by: str | None = None
    """Who last set or cleared the resolved mark (None: nobody yet)."""
    resolved_at: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadCount:
    """How many comments a segment's thread has, and how many of them are not resolved."""

    comments: int
    open: int


class CommentStore(ABC):
    """Comments: appended to a segment's thread, their resolved mark set, counted and listed."""

    def add_comment(self, comment: CommentRecord) -> None:
        """Append the comment to its segment's thread in one atomic write that checks the caps
        (InvalidRequestError past MAX_COMMENTS_PER_SEGMENT or MAX_COMMENTS_PER_SESSION, nothing written);
        NotFoundError when the session does not exist. A comment with an id the session holds already
        is ConflictError."""
        if comment.resolved or not comment.text.strip():
            raise InvalidRequestError("A new comment has text and is not resolved.")
        self._add_comment(comment)

    @abstractmethod
    def _add_comment(self, comment: CommentRecord) -> None:
        """`add_comment`'s write, the record checked already."""

    @abstractmethod
    def thread(self, session_id: str, file_id: str, segment_id: str) -> list[CommentRecord]:
        """The segment's comments in the order of their ids (posting order); empty when there are none.
        One bounded read (at most MAX_COMMENTS_PER_SEGMENT records)."""

    @abstractmethod
    def resolve_comment(
        self, session_id: str, file_id: str, segment_id: str, comment_id: str, *, resolved: bool, by: str, at: str
    ) -> CommentRecord:
        """Set the comment's resolved mark (with who and when) and keep the counts true, atomically; a
        mark already as asked changes nothing. The comment as stored afterwards; NotFoundError when the
        segment's thread holds no such comment."""

    @abstractmethod
    def comment_counts(self, session_id: str, file_id: str) -> dict[str, ThreadCount]:
        """The file's threads by segment id, each with its counts (segments without comments are
        absent), in one read that does not grow with the file or the threads' text."""

    @abstractmethod
    def session_comments(self, session_id: str) -> list[CommentRecord]:
        """All the session's comments, by file, segment and id (at most MAX_COMMENTS_PER_SESSION)."""


def cap_error(what: str) -> InvalidRequestError:
    """The error for a post past a cap: `what` is `segment` or `session`."""
    if what == "segment":
        return InvalidRequestError(
            f"This segment's thread holds {MAX_COMMENTS_PER_SEGMENT} comments, the most one may hold."
        )
    return InvalidRequestError(f"This session holds {MAX_COMMENTS_PER_SESSION} comments, the most one may hold.")
