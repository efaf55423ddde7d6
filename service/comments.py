"""Comments on segments (docs/api.md "Comments on segments"): a thread per segment of a session's file.

The route has already decided who the caller acts as (service.owners: the caller, or the project whose
member may read or comment in the session's language); here the session is checked to be that owner's
(another's is 404, like a missing one), the segment to be one of the file's (404), and a comment is
signed by the caller's own identity, never by the owner key the caller acts as. Every method is
blocking (storage is); the routes run them in a worker thread.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from datetime import UTC, datetime

from agent_core.errors import NotFoundError
from storage.comments import CommentRecord
from storage.interface import Storage

from .comment_schemas import (
    CommentBody,
    CommentView,
    FileThreads,
    ResolveBody,
    SessionThreads,
    ThreadSummary,
    comment_view,
)
from .sessions import SessionService

_SEGMENT_ID = re.compile(r"^s[1-9][0-9]{0,8}$")
_COMMENT_ID = re.compile(r"^c_[0-9a-f]{32}$")
KNOWN_FILES = 256
"""How many files' segment counts a process remembers (a file's segments never change)."""


def new_comment_id() -> str:
    """A fresh comment id, `c_` and 32 hex digits: the time in microseconds, then 72 random bits, so ids
    sort in the order comments were posted (what a thread's order is on every backend)."""
    return f"c_{time.time_ns() // 1000:014x}{secrets.token_hex(9)}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def segment_number(segment_id: str) -> int:
    """The number of a segment id (`s12`: 12), or NotFoundError for anything that cannot be one."""
    if not _SEGMENT_ID.match(segment_id):
        raise NotFoundError(f"No segment {segment_id[:40]} in this file.")
    return int(segment_id[1:])


class _SegmentCounts:
    """How many segments each file has, remembered per process (bounded): ids are `s1`…`sN`."""

    def __init__(self) -> None:
        self._counts: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> int | None:
        with self._lock:
            found = self._counts.get(key)
            if found is not None:
                self._counts.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], count: int) -> None:
        with self._lock:
            self._counts[key] = count
            while len(self._counts) > KNOWN_FILES:
                self._counts.popitem(last=False)


_KNOWN = _SegmentCounts()


class Comments:
    """The threads of the segments of the sessions an owner may act on."""

    def __init__(self, sessions: SessionService) -> None:
        self.sessions = sessions
        self.storage: Storage = sessions.storage

    def thread(self, owner: str, sid: str, fid: str, segment_id: str) -> list[CommentView]:
        """The segment's comments, oldest first (404: no such session of the owner, file or segment)."""
        self._segment(owner, sid, fid, segment_id)
        return [comment_view(c) for c in self.storage.thread(sid, fid, segment_id)]

    def post(self, owner: str, caller: str, sid: str, fid: str, segment_id: str, body: CommentBody) -> CommentView:
        """A new comment on the segment's thread, written by `caller` (422 past a cap, nothing stored)."""
        self._segment(owner, sid, fid, segment_id)
        record = CommentRecord(
            comment_id=new_comment_id(),
            session_id=sid,
            file_id=fid,
            segment_id=segment_id,
            by=caller,
            at=_now(),
            text=body.text,
        )
        self.storage.add_comment(record)
        return comment_view(record)

    def resolve(
        self, owner: str, caller: str, sid: str, fid: str, segment_id: str, comment_id: str, body: ResolveBody
    ) -> CommentView:
        """Set or clear the comment's resolved mark as `caller` (a mark already as asked changes nothing)."""
        self._segment(owner, sid, fid, segment_id)
        if not _COMMENT_ID.match(comment_id):
            raise NotFoundError(f"No comment {comment_id[:80]} on this segment.")
        found = self.storage.resolve_comment(
            sid, fid, segment_id, comment_id, resolved=body.resolved, by=caller, at=_now()
        )
        return comment_view(found)

    def session_threads(self, owner: str, sid: str, *, open_only: bool) -> SessionThreads:
        """The session's threads by file (upload order) and segment (document order); `open_only`: only
        threads with a comment not resolved."""
        files = self.sessions.files(owner, sid)
        threads: dict[tuple[str, str], list[CommentRecord]] = {}
        for c in self.storage.session_comments(sid):
            threads.setdefault((c.file_id, c.segment_id), []).append(c)
        out: list[FileThreads] = []
        for state in files:
            shown = [
                ThreadSummary(
                    segmentId=segment,
                    comments=len(found),
                    open=sum(not c.resolved for c in found),
                    thread=[comment_view(c) for c in sorted(found, key=lambda c: c.comment_id)],
                )
                for (file_id, segment), found in threads.items()
                if file_id == state.file_id and (not open_only or any(not c.resolved for c in found))
            ]
            if shown:
                shown.sort(key=lambda t: segment_number(t.segmentId))
                out.append(FileThreads(fileId=state.file_id, name=state.name, threads=shown))
        return SessionThreads(files=out)

    def _segment(self, owner: str, sid: str, fid: str, segment_id: str) -> None:
        """NotFoundError unless the owner's session has the file and the file the segment."""
        number = segment_number(segment_id)
        state = self.sessions.file(owner, sid, fid)
        count = _KNOWN.get((sid, state.file_id))
        if count is None:
            _, segments = self.sessions.document(sid, state)
            count = len(segments)
            _KNOWN.put((sid, state.file_id), count)
        if number > count:
            raise NotFoundError(f"No segment {segment_id} in this file.")
