"""Builders for the storage conformance suite: sessions, steps, messages, verdicts, files, entries."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent_core.copilot import Approve, Refined, Reject, ToolRef
from agent_core.document import FileState, add_span
from agent_core.effects import (
    SessionSnapshot,
    StepEffects,
    StepToken,
    StoredAnswer,
    UnitOrigin,
    UnitStatus,
    UnitWrite,
    Verdict,
)
from agent_core.segmentation import segment_text
from agent_core.tm import TmEntry
from storage.interface import Storage, TmRecord
from storage.records import MemoryEntryRecord

SID = "s_" + "1" * 32
FID = "f_" + "2" * 32
CREATED = "2026-01-01T00:00:00.000+00:00"


def new_token(sid: str = SID, owner: str = "alice") -> StepToken:
    """The token of a session that does not exist yet."""
    return StepToken(session_id=sid, owner=owner, version=0, created_at=CREATED, message_count=0)


def create(storage: Storage, sid: str = SID, owner: str = "alice", **effects: Any) -> None:
    """Create the session with one commit of these effects."""
    storage.commit(new_token(sid, owner), StepEffects(**effects))


def step(storage: Storage, sid: str = SID, *, window: int = 1_000, **effects: Any) -> SessionSnapshot:
    """Load the session, commit the effects over what was loaded, and return what was loaded."""
    snapshot = storage.load_step(sid, window=window)
    storage.commit(snapshot.token, StepEffects(**effects))
    return snapshot


def user(text: str) -> ModelRequest:
    """A user message."""
    return ModelRequest(parts=[UserPromptPart(content=text)])


def users(start: int, count: int) -> list[ModelMessage]:
    """User messages `m<start>`… (their text names their history index when appended in order)."""
    return [user(f"m{start + i}") for i in range(count)]


def calls(*call_ids: str) -> ModelResponse:
    """A model response that calls Translate once per id."""
    return ModelResponse(
        parts=[ToolCallPart(tool_name="Translate", args={"n": c}, tool_call_id=c) for c in call_ids],
        model_name="scripted",
    )


def returns(*call_ids: str) -> ModelRequest:
    """The tool returns of those calls."""
    return ModelRequest(parts=[ToolReturnPart(tool_name="Translate", content="ok", tool_call_id=c) for c in call_ids])


def answer_text(text: str) -> ModelResponse:
    """A model response with text only."""
    return ModelResponse(parts=[TextPart(content=text)], model_name="scripted")


def texts(messages: Sequence[ModelMessage]) -> list[str]:
    """Each message's first part's text (user text, or a response's text or first call id)."""
    out: list[str] = []
    for m in messages:
        part = m.parts[0]
        if isinstance(part, UserPromptPart | TextPart):
            out.append(str(part.content))
        elif isinstance(part, ToolCallPart | ToolReturnPart):
            out.append(part.tool_call_id)
    return out


def approve(call_id: str, text: str | None = None) -> Verdict:
    """An approval of the call's proposal."""
    return Approve(tool=ToolRef(name="Translate", call_id=call_id), status="approve", translated_string=text)


def refine(call_id: str, text: str) -> Verdict:
    """An edit of the call's proposal."""
    return Refined(tool=ToolRef(name="Translate", call_id=call_id), status="refined", translated_string=text)


def reject(call_id: str, reason: str = "wrong") -> Verdict:
    """A rejection of the call's proposal."""
    return Reject(tool=ToolRef(name="Translate", call_id=call_id), status="reject", reason=reason)


def file(file_id: str = FID, content: str = "Hello world.\n", name: str = "doc.md") -> FileState:
    """A new file's state (storage sets `created_at`)."""
    return FileState(file_id=file_id, name=name, chars=len(content), covered=())


def add_file(storage: Storage, content: str = "Hello world.\n", file_id: str = FID, *, max_files: int = 20) -> None:
    """Add a file to the session SID."""
    storage.add_file(SID, file(file_id, content), content, segments=segment_text(content), max_files=max_files)


def unit(start: int, end: int, call: str = "c1", file_id: str = FID) -> UnitWrite:
    """A written unit."""
    return UnitWrite(
        file_id=file_id, start=start, end=end, cover_end=end + 1, text=f"t{start}", call_id=call, status="approve"
    )


def covering(*units: UnitWrite) -> dict[str, tuple[tuple[int, int], ...]]:
    """The coverage of each file the units are in, as a step that writes only them leaves it."""
    spans: dict[str, tuple[tuple[int, int], ...]] = {}
    for u in units:
        spans[u.file_id] = add_span(spans.get(u.file_id, ()), u.start, u.cover_end)
    return spans


def revision(
    start: int, end: int, text: str, call: str = "c2", *, status: UnitStatus = "revised", origin: UnitOrigin = "human"
) -> UnitWrite:
    """A new text for the unit written at `start` of the file FID."""
    return UnitWrite(
        file_id=FID, start=start, end=end, cover_end=end + 1, text=text, call_id=call, status=status, origin=origin
    )


def second(n: int) -> str:
    """A time `n` seconds into 2026 (n < 60), as translation-memory entries carry it."""
    return f"2026-01-01T00:00:{n:02d}.000+00:00"


def tm(source: str, target: str = "", *, at: int = 1) -> TmRecord:
    """A translation-memory record whose hash is `h_<source>`."""
    entry = TmEntry(source=source, target=target or source.upper(), languages="*>fr", updated_at=second(at))
    return TmRecord(entry=entry, source_hash=f"h_{source}")


def answer(key: str = "k1", *, owner: str = "alice", expires: int = 2_000, body: str = "{}") -> StoredAnswer:
    """A kept answer."""
    return StoredAnswer(owner=owner, key=key, request_hash="h", body=body, expires_at=expires)


def entry(
    entry_id: str, *, owner: str = "alice", kind: str = "glossary", at: str = "2026-01-01T00:00:01.000+00:00"
) -> MemoryEntryRecord:
    """A glossary entry or style note."""
    return MemoryEntryRecord(
        entry_id=entry_id,
        owner=owner,
        kind=kind,
        source="tool" if kind == "glossary" else "",
        text="outil" if kind == "glossary" else "Use vous.",
        languages="auto>french",
        origin="learned",
        created_at=at,
        updated_at=at,
    )


def history_with_responses(storage: Storage, at: Sequence[int], total: int) -> None:
    """A session of `total` messages with a model response at each index of `at` and verdicts on it.

    Each response calls `a<i>` and `b<i>`; both are approved before the history goes on. Commits
    stay under 50 messages (a transaction holds at most 100 items).
    """
    create(storage)
    count = 0
    for index in [*at, total]:
        while count < index:
            n = min(50, index - count)
            step(storage, messages=users(count, n))
            count += n
        if index < total:
            step(storage, messages=[calls(f"a{index}", f"b{index}")])
            step(storage, verdicts=[approve(f"a{index}"), approve(f"b{index}")])
            count += 1


def same_store(storage: Storage) -> Storage:
    """Another instance over the same store (as another process opens it): a file's SQLite, the table."""
    from storage.dynamodb import DynamoDBSessionStorage
    from storage.sqlite import SQLiteStorage

    if isinstance(storage, SQLiteStorage):
        (path,) = [row["file"] for row in storage._conn.execute("PRAGMA database_list") if row["name"] == "main"]
        assert path, "an in-memory database has no other instance"
        return SQLiteStorage(path)
    assert isinstance(storage, DynamoDBSessionStorage)
    return DynamoDBSessionStorage(storage.client, table_name=storage.table)


def atomic_requests(storage: Storage) -> None:
    """Make moto apply each DynamoDB request atomically, as DynamoDB does (a no-op for other backends).

    moto applies a transaction step by step in the caller's thread (and deep-copies tables meanwhile),
    so requests from concurrent threads interleave in ways DynamoDB never allows; holding one lock
    from `before-call` to `after-call` (which botocore emits for errors too) serializes them.
    """
    client = getattr(storage, "client", None)
    events = getattr(getattr(client, "meta", None), "events", None)
    if events is None:
        return
    lock = threading.Lock()

    def acquire(**_: Any) -> None:
        lock.acquire(timeout=30)  # never hang a test: a request that leaked the lock times out instead

    def release(**_: Any) -> None:
        if lock.locked():
            lock.release()

    events.register("before-call.dynamodb", acquire)
    events.register("after-call.dynamodb", release)


def backend(name: str, request: Any, tmp_path: Any) -> Any:
    """A fresh SQLite file, or a DynamoDB table under moto (`request`: the test's, for the moto fixture)."""
    from storage.interface import Storage
    from tests.conftest import make_backend

    if name == "dynamodb":
        request.getfixturevalue("moto_table")
    made = make_backend(name, tmp_path)
    assert isinstance(made, Storage)
    return made
