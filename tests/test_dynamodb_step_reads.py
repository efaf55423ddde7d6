"""What a step reads on DynamoDB in the process that committed the session's latest step: one
BatchGetItem of META, the file count and the owner's memory version, and nothing more while the
owner's memory is unchanged; any write to that memory, from any process, is read by the next step,
and a memory read without the version its step's read brought always reads."""

from __future__ import annotations

import boto3
import pytest

from agent_core.effects import Correction, StepEffects, StepToken
from storage.dynamodb import DynamoDBSessionStorage
from storage.records import OwnerSnapshot
from tests.aws import DynamoRequests
from tests.aws import another_process as fresh
from tests.storage_cases import SID, approve, calls, create, entry, refine, reject, step, texts, user, users

WINDOW = 16
CORRECTIONS = 8
"""What a step shows of the owner's latest corrections (service.memory)."""


@pytest.fixture
def storage(moto_table: str) -> DynamoDBSessionStorage:
    return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)


def step_reads(storage: DynamoDBSessionStorage) -> OwnerSnapshot:
    """A step's reads in this process, in the runtime's order: the session, then the owner's memory
    (with what the session's read brought of its version)."""
    storage.load_step(SID, window=WINDOW)
    return storage.memory_snapshot("alice", corrections=CORRECTIONS)


def as_read(storage: DynamoDBSessionStorage) -> OwnerSnapshot:
    """The owner's memory as a process that holds nothing reads it."""
    return fresh(storage).memory_snapshot("alice", corrections=CORRECTIONS)


def correction(call_id: str, final: str | None, reason: str | None = None) -> Correction:
    status = "refined" if final is not None else "reject"
    return Correction(file_id="f", status=status, source=f"src {call_id}", proposal="p", final=final, reason=reason)


def test_a_held_step_reads_the_owners_memory_in_one_query_every_time(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a", "b")])
    counted = DynamoRequests(storage.client)
    first = step_reads(storage)
    assert counted.take() == {"BatchGetItem": 1, "Query": 1}, "the session, then the owner's memory"
    again = step_reads(storage)
    assert counted.take() == {"BatchGetItem": 1, "Query": 1}, "the memory read stands alone: nothing kept"
    assert again == first == as_read(storage)


def test_every_write_to_the_owners_memory_is_read_by_the_next_step(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a", "b", "c")])
    step_reads(storage)
    other = fresh(storage)
    writes = [
        lambda: other.put_memory_entry(entry("e1"), max_entries=10),  # an entry added
        lambda: other.put_memory_entry(entry("e1", at="2026-01-01T00:00:09.000+00:00"), max_entries=10),  # replaced
        lambda: other.put_memory_entry(entry("e2", kind="style"), max_entries=10),
        lambda: other.delete_memory_entry("alice", "e2"),
        # another session of the owner's commits corrections (in another process)
        lambda: create(other, "s_" + "9" * 32, corrections=[correction("x", "fixed")]),
    ]
    for write in writes:
        step_reads(storage)  # kept
        write()
        assert step_reads(storage) == as_read(storage)


def test_after_a_steps_corrections_the_next_step_reads_the_memory(storage: DynamoDBSessionStorage) -> None:
    """A commit with corrections changes the owner's memory: the next step reads it (and keeps it)."""
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls(*(f"c{k}" for k in range(12)))])
    step_reads(storage)
    counted = DynamoRequests(storage.client)
    for k in range(0, 12, 3):
        corrections = [correction(f"c{k}", "edit"), correction(f"c{k + 1}", None, "no")]
        verdicts = [refine(f"c{k}", "edit"), reject(f"c{k + 1}"), approve(f"c{k + 2}")]
        step(storage, verdicts=verdicts, corrections=corrections)
        counted.take()
        read = step_reads(storage)
        assert counted.take() == {"BatchGetItem": 1, "Query": 1}, "changed: read again"
        assert read == as_read(storage)
        counted.take()
        assert step_reads(storage) == read and counted.take() == {"BatchGetItem": 1, "Query": 1}, "read again"
    assert [c.final for c in as_read(storage).corrections[:2]] == [None, "edit"]


def test_a_read_that_meets_a_write_is_kept_as_of_before_it(storage: DynamoDBSessionStorage) -> None:
    """The owner's memory written between the session's read (which brought its version) and the
    read of the memory: that read is kept as of the version brought before it, so the next step,
    bringing the write's, reads again."""
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a")])
    step_reads(storage)
    fresh(storage).put_memory_entry(entry("early"), max_entries=10)
    storage.load_step(SID, window=WINDOW)  # brings the version after it: no read kept of that one
    fresh(storage).put_memory_entry(entry("late", at="2026-01-01T00:00:02.000+00:00"), max_entries=10)
    seen = storage.memory_snapshot("alice", corrections=CORRECTIONS)
    assert [e.entry_id for e in seen.entries] == ["early", "late"], "the read itself sees the later write"
    counted = DynamoRequests(storage.client)
    read = step_reads(storage)
    assert counted.take() == {"BatchGetItem": 1, "Query": 1}
    assert read == as_read(storage)


def test_a_read_without_the_sessions_version_reads(storage: DynamoDBSessionStorage) -> None:
    """Only the memory read of a step whose session's read brought the version is served from what
    was read before: any other (a new session's step, the workbench's checks, a step whose read went
    to the Query) reads, even right after a held step of this process."""
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a")])
    step_reads(storage)
    storage.load_step(SID, window=WINDOW)
    fresh(storage).put_memory_entry(entry("elsewhere"), max_entries=10)
    counted = DynamoRequests(storage.client)
    read = storage.memory_snapshot("alice", corrections=CORRECTIONS)
    assert counted.take() == {"Query": 1} and [e.entry_id for e in read.entries] == ["elsewhere"]
    assert fresh(storage).load_step(SID, window=WINDOW).owner_memory is None, "the Query brings no version"


def test_this_processs_own_entry_writes_are_read_at_once(storage: DynamoDBSessionStorage) -> None:
    """An entry this process puts or deletes between a step's read of its session and its read of the
    owner's memory: that read reads it."""
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a")])
    step_reads(storage)
    storage.load_step(SID, window=WINDOW)  # brings the version: the kept read would stand
    storage.put_memory_entry(entry("mine"), max_entries=10)
    read = storage.memory_snapshot("alice", corrections=CORRECTIONS)
    assert [e.entry_id for e in read.entries] == ["mine"]
    storage.load_step(SID, window=WINDOW)
    storage.delete_memory_entry("alice", "mine")
    assert storage.memory_snapshot("alice", corrections=CORRECTIONS).entries == []


def test_a_session_created_again_elsewhere_at_the_same_version_is_read_afresh(
    storage: DynamoDBSessionStorage,
) -> None:
    """Another process deletes the session and creates it again under its id, to the version this
    process holds: the creation time tells them apart, and the step reads the new one."""
    create(storage, messages=users(0, 2))
    assert texts(storage.load_step(SID, window=WINDOW).window) == ["m0", "m1"]
    other = fresh(storage)
    other.delete_session(SID)
    again = StepToken(
        session_id=SID, owner="alice", version=0, created_at="2026-02-02T00:00:00.000+00:00", message_count=0
    )
    other.commit(again, StepEffects(messages=[user("new"), user("session")]))
    counted = DynamoRequests(storage.client)
    assert texts(storage.load_step(SID, window=WINDOW).window) == ["new", "session"]
    assert counted.take()["BatchGetItem"] == 1, "the held version's number matched; its creation time did not"
