"""Where a session's translation stands: complete, running, or held by its provider (waiting, failed).

A session is complete only when every segment of every file is written (approved, edited, revised or
kept verbatim); `segments_left` counts the ones that are not, from the stored segments (read through
the process's cache of file chunks, which never change) and the files' coverage, and reads nothing
for a file that is complete. A provider's throttle or quota leaves the session `waiting` with the
provider's time to retry; a refusal for good, or a budget reached, `failed` (storage's `SessionHold`,
set by the step that failed and cleared by the next one that commits).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.document import FileState, unwritten
from agent_core.ports import SessionStore
from storage.records import SessionRecord

from .schemas import SessionState


async def segments_left(store: SessionStore, session_id: str, files: Sequence[FileState]) -> int:
    """How many segments of `files` are not written yet."""
    reader = store.reader(session_id)
    left = 0
    for state in files:
        if not state.complete:
            left += unwritten(await reader.segments(state.file_id, 0, state.chars), state.covered)
    return left


def standing(
    record: SessionRecord, files: Sequence[FileState], left: int
) -> tuple[SessionState, str | None, str | None]:
    """The session's state, the time its provider said to retry, and what stopped it, if anything."""
    if files and left == 0 and all(f.complete for f in files):
        return "complete", None, None
    hold = record.hold
    if hold is None:
        return "running", None, None
    return hold.state, hold.retry_at, hold.error
