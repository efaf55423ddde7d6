"""One conformance suite for every storage backend (memory, sqlite, DynamoDB under moto)."""

from __future__ import annotations

from typing import Any

import pytest

from storage.errors import ConflictError, InvalidCursorError, NotFoundError
from storage.interface import CHUNK_CHARS
from storage.records import (
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    MessageRecord,
    SessionRecord,
    StepWrite,
    UnitRecord,
)

SID = "s_" + "1" * 32
FID = "f_" + "2" * 32


def session(
    version: int = 1, *, owner: str = "alice", sid: str = SID, count: int = 0, at: str = "2026-01-01T00:00:00.000+00:00"
) -> SessionRecord:
    return SessionRecord(
        session_id=sid,
        owner=owner,
        created_at="2026-01-01T00:00:00.000+00:00",
        updated_at=at,
        version=version,
        message_count=count,
        user_inputs=("translate",),
    )


def create(storage: Any, **kw: Any) -> SessionRecord:
    record = session(**kw)
    storage.commit(StepWrite(session=record, expected_version=0))
    return record


def messages(start: int, n: int) -> list[MessageRecord]:
    return [MessageRecord(index=start + i, data=f'{{"n": {start + i}}}') for i in range(n)]


def unit(start: int, end: int, call: str = "c1") -> UnitRecord:
    return UnitRecord(
        file_id=FID, start=start, end=end, cover_end=end + 1, text=f"t{start}", call_id=call, status="approve"
    )


def add_file(storage: Any, content: str = "Hello world.\n") -> FileRecord:
    record = FileRecord(
        file_id=FID, name="doc.md", chars=len(content), covered=(), created_at="2026-01-01T00:00:00+00:00"
    )
    storage.add_file(SID, record, content)
    return record


def test_create_and_get(storage: Any) -> None:
    record = create(storage)
    assert storage.get_session(SID) == record


def test_unknown_session_is_not_found(storage: Any) -> None:
    with pytest.raises(NotFoundError):
        storage.get_session(SID)


def test_creating_twice_conflicts(storage: Any) -> None:
    create(storage)
    with pytest.raises(ConflictError):
        create(storage)


def test_commit_checks_the_version_and_changes_nothing_on_conflict(storage: Any) -> None:
    create(storage)
    storage.commit(StepWrite(session=session(2, count=2), expected_version=1, messages=messages(0, 2)))
    with pytest.raises(ConflictError):
        storage.commit(StepWrite(session=session(3, count=3), expected_version=1, messages=messages(2, 1)))
    assert storage.get_session(SID).version == 2
    assert [m.index for m in storage.latest_messages(SID, limit=10)] == [0, 1]


def test_messages_window_and_paging(storage: Any) -> None:
    create(storage)
    storage.commit(StepWrite(session=session(2, count=25), expected_version=1, messages=messages(0, 25)))
    assert [m.index for m in storage.latest_messages(SID, limit=4)] == [21, 22, 23, 24]
    seen: list[int] = []
    cursor = None
    while True:
        page = storage.list_messages(SID, cursor=cursor, limit=10)
        seen += [m.index for m in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == list(range(25))
    assert storage.list_messages(SID, cursor=None, limit=5).items[0].data == '{"n": 0}'


def test_invalid_cursor(storage: Any) -> None:
    create(storage)
    with pytest.raises(InvalidCursorError):
        storage.list_messages(SID, cursor="not-a-cursor!", limit=10)


def test_copilot_responses_by_response_and_replaced(storage: Any) -> None:
    create(storage)

    def cr(index: int, call: str, data: str) -> CopilotResponseRecord:
        return CopilotResponseRecord(
            response_index=index, call_id=call, data=data, created_at="2026-01-01T00:00:00+00:00"
        )

    storage.commit(
        StepWrite(
            session=session(2),
            expected_version=1,
            copilot_responses=[cr(3, "a", "1"), cr(3, "b", "2"), cr(1, "a", "0")],
        )
    )
    storage.commit(StepWrite(session=session(3), expected_version=2, copilot_responses=[cr(3, "a", "9")]))
    assert sorted((r.call_id, r.data) for r in storage.copilot_responses(SID, response_index=3)) == [
        ("a", "9"),
        ("b", "2"),
    ]
    assert [r.data for r in storage.copilot_responses(SID, response_index=1)] == ["0"]
    everything = storage.list_copilot_responses(SID, cursor=None, limit=10)
    assert len(everything.items) == 3 and everything.next_cursor is None


def test_files_chunks_and_ranges(storage: Any) -> None:
    create(storage)
    content = ("ÄÖ中文 text 🙂\n" * (CHUNK_CHARS // 5))[: CHUNK_CHARS * 2 + 123]
    record = add_file(storage, content)
    assert storage.get_file(SID, FID) == record
    assert storage.list_files(SID) == [record]
    for start, end in [
        (0, 10),
        (CHUNK_CHARS - 5, CHUNK_CHARS + 5),
        (0, len(content)),
        (len(content) - 3, len(content) + 50),
    ]:
        assert storage.read_file(SID, FID, start, end) == content[start:end]
    with pytest.raises(NotFoundError):
        storage.get_file(SID, "f_" + "9" * 32)


def test_file_needs_a_session(storage: Any) -> None:
    with pytest.raises(NotFoundError):
        add_file(storage)


def test_units_coverage_and_idempotency(storage: Any) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    storage.commit(
        StepWrite(
            session=session(2, count=1),
            expected_version=1,
            messages=messages(0, 1),
            units=[unit(5, 9, "b"), unit(0, 4, "a")],
            coverage={FID: ((0, 10),)},
        )
    )
    assert [u.start for u in storage.list_units(SID, FID)] == [0, 5]
    assert storage.get_file(SID, FID).covered == ((0, 10),)
    # The same unit written again (a replayed step) fails whole: no message, no version change.
    with pytest.raises(ConflictError):
        storage.commit(
            StepWrite(session=session(3, count=2), expected_version=2, messages=messages(1, 1), units=[unit(0, 4, "a")])
        )
    assert storage.get_session(SID).version == 2
    assert len(storage.latest_messages(SID, limit=10)) == 1


def test_corrections_per_owner_newest_first(storage: Any) -> None:
    create(storage)

    def corr(i: int, owner: str) -> CorrectionRecord:
        return CorrectionRecord(
            correction_id=f"c{i}",
            owner=owner,
            session_id=SID,
            file_id=FID,
            status="refined",
            source="s",
            proposal="p",
            final="f",
            reason=None,
            created_at=f"2026-01-01T00:00:0{i}.000+00:00",
        )

    storage.commit(
        StepWrite(
            session=session(2), expected_version=1, corrections=[corr(1, "alice"), corr(2, "alice"), corr(3, "bob")]
        )
    )
    assert [c.correction_id for c in storage.recent_corrections("alice", limit=5)] == ["c2", "c1"]
    assert [c.correction_id for c in storage.recent_corrections("bob", limit=5)] == ["c3"]
    assert storage.recent_corrections("carol", limit=5) == []


def test_list_sessions_per_owner_newest_first(storage: Any) -> None:
    for i in range(5):
        create(storage, sid=f"s_{i:032d}", at=f"2026-01-01T00:00:0{i}.000+00:00")
    create(storage, sid="s_" + "f" * 32, owner="bob")
    page = storage.list_sessions("alice", cursor=None, limit=3)
    assert [r.session_id for r in page.items] == [f"s_{i:032d}" for i in (4, 3, 2)]
    rest = storage.list_sessions("alice", cursor=page.next_cursor, limit=3)
    assert [r.session_id for r in rest.items] == [f"s_{i:032d}" for i in (1, 0)] and rest.next_cursor is None
    assert [r.owner for r in storage.list_sessions("bob", cursor=None, limit=10).items] == ["bob"]


def test_delete_removes_everything(storage: Any) -> None:
    create(storage)
    add_file(storage)
    storage.commit(
        StepWrite(session=session(2, count=3), expected_version=1, messages=messages(0, 3), units=[unit(0, 4)])
    )
    storage.delete_session(SID)
    with pytest.raises(NotFoundError):
        storage.get_session(SID)
    assert storage.list_sessions("alice", cursor=None, limit=10).items == []
    storage.delete_session(SID)  # deleting again is fine
    create(storage)  # and the id is free again, with nothing left behind
    assert storage.latest_messages(SID, limit=10) == []
    assert storage.list_files(SID) == []


def idem(key: str = "k1", *, owner: str = "alice", expires: int = 2_000, body: str = "{}") -> Any:
    from storage.records import IdempotencyRecord

    return IdempotencyRecord(
        owner=owner,
        key=key,
        request_hash="h",
        status=200,
        body=body,
        created_at="2026-01-01T00:00:00+00:00",
        expires_at=expires,
    )


def test_idempotency_records_are_per_owner_and_expire(storage: Any) -> None:
    storage.put_idempotency(idem(), now=1_000)
    assert storage.get_idempotency("alice", "k1", now=1_000) == idem()
    assert storage.get_idempotency("bob", "k1", now=1_000) is None
    with pytest.raises(ConflictError):
        storage.put_idempotency(idem(body='{"x": 1}'), now=1_000)
    assert storage.get_idempotency("alice", "k1", now=2_000) is None, "expired"
    storage.put_idempotency(idem(expires=3_000, body="new"), now=2_500)
    assert storage.get_idempotency("alice", "k1", now=2_500).body == "new"


def test_idempotency_commits_with_the_step(storage: Any) -> None:
    import time

    create(storage)
    far = int(time.time()) + 3_600
    storage.commit(
        StepWrite(
            session=session(2, count=1), expected_version=1, messages=messages(0, 1), idempotency=idem(expires=far)
        )
    )
    assert storage.get_idempotency("alice", "k1", now=int(time.time())) is not None
    with pytest.raises(ConflictError):  # the same key again fails the whole step
        storage.commit(
            StepWrite(
                session=session(3, count=2), expected_version=2, messages=messages(1, 1), idempotency=idem(expires=far)
            )
        )
    assert storage.get_session(SID).version == 2


def test_telemetry_round_trips(storage: Any) -> None:
    from dataclasses import replace

    record = replace(session(), steps=3, model_requests=2, input_tokens=1_000, output_tokens=50, model_ms=420)
    storage.commit(StepWrite(session=record, expected_version=0))
    assert storage.get_session(SID) == record


def test_long_histories_page_across_partitions(storage: Any) -> None:
    create(storage)
    for version, start in enumerate(range(0, 250, 50), start=1):  # a transaction writes at most 100 items
        storage.commit(
            StepWrite(
                session=session(version + 1, count=start + 50), expected_version=version, messages=messages(start, 50)
            )
        )

    def cr(index: int) -> CopilotResponseRecord:
        return CopilotResponseRecord(response_index=index, call_id="c", data=str(index), created_at="2026-01-01")

    storage.commit(
        StepWrite(
            session=session(7, count=250), expected_version=6, copilot_responses=[cr(5), cr(150), cr(240), cr(241)]
        )
    )
    assert [m.index for m in storage.latest_messages(SID, limit=30)] == list(range(220, 250))
    assert [m.index for m in storage.latest_messages(SID, limit=30, count=250)] == list(range(220, 250))
    seen: list[int] = []
    cursor = None
    while True:
        page = storage.list_messages(SID, cursor=cursor, limit=70)
        seen += [m.index for m in page.items]
        if (cursor := page.next_cursor) is None:
            break
    assert seen == list(range(250))
    assert [r.data for r in storage.copilot_responses(SID, response_index=150)] == ["150"]
    found: list[str] = []
    cursor = None
    while True:
        responses = storage.list_copilot_responses(SID, cursor=cursor, limit=1)
        found += [r.data for r in responses.items]
        if (cursor := responses.next_cursor) is None:
            break
    assert found == ["5", "150", "240", "241"]


def entry(
    entry_id: str, *, owner: str = "alice", kind: str = "glossary", at: str = "2026-01-01T00:00:01.000+00:00"
) -> Any:
    from storage.records import MemoryEntryRecord

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


def test_memory_entries_per_owner_oldest_first(storage: Any) -> None:
    from dataclasses import replace

    storage.put_memory_entry(entry("m_b", at="2026-01-01T00:00:02.000+00:00"))
    storage.put_memory_entry(entry("m_a", kind="style", at="2026-01-01T00:00:03.000+00:00"))
    storage.put_memory_entry(entry("m_c", at="2026-01-01T00:00:01.000+00:00"))
    storage.put_memory_entry(entry("m_d", owner="bob"))
    assert [e.entry_id for e in storage.list_memory("alice")] == ["m_c", "m_b", "m_a"]
    assert storage.list_memory("alice")[2] == entry("m_a", kind="style", at="2026-01-01T00:00:03.000+00:00")
    assert [e.entry_id for e in storage.list_memory("bob")] == ["m_d"]
    assert storage.list_memory("carol") == []
    updated = replace(entry("m_b", at="2026-01-01T00:00:02.000+00:00"), text="instrument", origin="user")
    storage.put_memory_entry(updated)  # the same id replaces the entry in place
    assert storage.list_memory("alice")[1] == updated and len(storage.list_memory("alice")) == 3


def test_memory_entries_are_deleted_only_by_their_owner(storage: Any) -> None:
    storage.put_memory_entry(entry("m_a"))
    storage.put_memory_entry(entry("m_b", owner="bob"))
    with pytest.raises(NotFoundError):
        storage.delete_memory_entry("alice", "m_b")
    storage.delete_memory_entry("alice", "m_a")
    with pytest.raises(NotFoundError):
        storage.delete_memory_entry("alice", "m_a")
    assert storage.list_memory("alice") == []
    assert [e.entry_id for e in storage.list_memory("bob")] == ["m_b"]


def test_memory_outlives_sessions_and_is_not_a_session(storage: Any) -> None:
    create(storage)
    storage.put_memory_entry(entry("m_a"))
    assert [s.session_id for s in storage.list_sessions("alice", cursor=None, limit=10).items] == [SID]
    storage.delete_session(SID)
    assert storage.list_sessions("alice", cursor=None, limit=10).items == []
    assert [e.entry_id for e in storage.list_memory("alice")] == ["m_a"]
