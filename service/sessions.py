"""Sessions for the API: ownership, limits, files and the views the routes return.

Another caller's session is not found, like a missing one. Every method is blocking (storage is);
the routes run them in a worker thread, never on the event loop.
"""

from __future__ import annotations

from datetime import UTC, datetime

from agent_core.document import FileState, assemble, initial_coverage
from agent_core.effects import StepEffects, StepToken, UnitWrite
from agent_core.errors import InvalidRequestError, NotFoundError
from agent_core.ids import is_id, new_id
from interchange import InterchangeError, parse_xliff, translatable_text
from storage.interface import SessionStorageInterface
from storage.records import Page, SessionRecord

from .schemas import FileUpload
from .store import TextCache
from .verbatim import write_verbatim

MAX_FILES = 20
"""A session holds at most this many files (checked atomically by the backend)."""
MAX_FILE_CHARS = 2_000_000
"""The longest file a session accepts, in characters."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def is_xliff(name: str) -> bool:
    """True for a file name that makes an upload an XLIFF document (`.xlf`, `.xliff`, any case)."""
    return name.lower().endswith((".xlf", ".xliff"))


def xliff_content(document: str) -> str:
    """The text to translate of an XLIFF document: its translatable segments' sources, a blank line between.

    InvalidRequestError (422) when it is not XLIFF 1.2/2.0 or has nothing to translate.
    """
    try:
        parsed = parse_xliff(document)
    except InterchangeError as exc:
        raise InvalidRequestError(f"The XLIFF document cannot be read: {exc}") from exc
    if not parsed.translatable_segments():
        raise InvalidRequestError('The XLIFF document has no segment to translate (all are empty or translate="no").')
    return translatable_text(parsed).text


def session_id(value: str) -> str:
    """`value` if it can be a session id, else NotFoundError (nothing is looked up)."""
    if not is_id(value, "s"):
        raise NotFoundError(f"No session {value[:80]}.")
    return value


def file_id(value: str) -> str:
    """`value` if it can be a file id, else NotFoundError."""
    if not is_id(value, "f"):
        raise NotFoundError(f"No file {value[:80]}.")
    return value


class SessionService:
    """The caller's sessions and files."""

    def __init__(self, storage: SessionStorageInterface, cache: TextCache) -> None:
        self.storage = storage
        self.cache = cache

    def owned(self, owner: str, sid: str) -> SessionRecord:
        """The caller's session; another caller's is NotFound, like a missing one."""
        record = self.storage.get_session(session_id(sid))
        if record.owner != owner:
            raise NotFoundError(f"No session {sid}.")
        return record

    def create(self, owner: str) -> SessionRecord:
        """A new, empty session."""
        token = StepToken(session_id=new_id("s"), owner=owner, version=0, created_at=_now(), message_count=0)
        self.storage.commit(token, StepEffects())
        return self.storage.get_session(token.session_id)

    def page(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The caller's sessions, newest first."""
        return self.storage.list_sessions(owner, cursor=cursor, limit=limit)

    def delete(self, owner: str, sid: str) -> None:
        """Delete the caller's session and all stored with it."""
        self.owned(owner, sid)
        self.storage.delete_session(sid)
        self.cache.forget(sid)

    def add_file(self, owner: str, sid: str, upload: FileUpload) -> FileState:
        """Add a document to the caller's session."""
        self.owned(owner, sid)
        content, original = upload.content, None
        if is_xliff(upload.name):
            content, original = xliff_content(upload.content), upload.content
        if len(content) > MAX_FILE_CHARS:
            raise InvalidRequestError(f"The file has {len(content)} characters; the limit is {MAX_FILE_CHARS}.")
        state = FileState(
            file_id=new_id("f"),
            name=upload.name,
            chars=len(content),
            covered=initial_coverage(content),
            created_at=_now(),
        )
        self.storage.add_file(sid, state, content, max_files=MAX_FILES, original=original)
        # Not for XLIFF: a verbatim block (a fence with a blank line in it) could cross a segment's end.
        keep = upload.keepVerbatim and original is None
        return write_verbatim(self.storage, sid, state, content) if keep else state

    def files(self, owner: str, sid: str) -> list[FileState]:
        """The session's files with their progress."""
        self.owned(owner, sid)
        return list(self.storage.load_step(sid, window=0).files)

    def file(self, owner: str, sid: str, fid: str) -> FileState:
        """One of the caller's files."""
        fid = file_id(fid)
        found = next((f for f in self.files(owner, sid) if f.file_id == fid), None)
        if found is None:
            raise NotFoundError(f"No file {fid} in this session.")
        return found

    def source(self, sid: str, state: FileState) -> str:
        """The file's whole source text."""
        return self.storage.read_file(sid, state.file_id, 0, state.chars)

    def units(self, sid: str, state: FileState) -> list[UnitWrite]:
        """The file's written units in source order."""
        return self.storage.list_units(sid, state.file_id)

    def translation(self, sid: str, state: FileState) -> str:
        """The assembled translation: written units in source order, the source's whitespace between."""
        return assemble(self.source(sid, state), self.units(sid, state))
