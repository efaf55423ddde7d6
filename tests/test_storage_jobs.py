"""The storage contract's session holds and job records, on every backend (SQLite, DynamoDB under moto)."""

from __future__ import annotations

import pytest

from agent_core.effects import StepEffects
from storage.errors import ConflictError, NotFoundError
from storage.interface import Storage
from storage.records import JobRecord, SessionHold
from tests.storage_cases import SID, create, step, user

WAITING = SessionHold(
    state="waiting", error="rate limited", at="2026-12-05T01:00:00+00:00", retry_at="2026-12-05T01:01:00+00:00"
)


def test_a_hold_leaves_the_version_and_a_commit_clears_it(storage: Storage) -> None:
    create(storage, messages=[user("hello")])
    loaded = storage.load_step(SID, window=10)
    storage.hold_session(SID, WAITING)
    record = storage.get_session(SID)
    assert record.hold == WAITING and record.version == loaded.token.version
    storage.commit(loaded.token, StepEffects(messages=[user("again")]))
    after = storage.get_session(SID)
    assert after.hold is None and after.version == loaded.token.version + 1 and after.message_count == 2


def test_a_hold_is_replaced_and_cleared_by_the_next_step(storage: Storage) -> None:
    create(storage)
    storage.hold_session(SID, WAITING)
    failed = SessionHold(state="failed", error="invalid key", at="2026-12-05T01:02:00+00:00")
    storage.hold_session(SID, failed)
    assert storage.get_session(SID).hold == failed
    step(storage, messages=[user("go on")])
    assert storage.get_session(SID).hold is None


def test_a_hold_needs_a_session(storage: Storage) -> None:
    with pytest.raises(NotFoundError):
        storage.hold_session(SID, WAITING)
    with pytest.raises(NotFoundError):
        storage.get_session(SID)


def test_jobs_are_written_once_and_read_back(storage: Storage) -> None:
    job = JobRecord(
        job_id="j_1",
        owner="alice",
        created_at="2026-12-05T01:00:00+00:00",
        sessions={"de": "s_a", "fr": "s_b", "pl": "s_c"},
        estimates={"de": {"modelRequests": 2, "usd": 0.01}, "fr": {}, "pl": {"usd": 0.5}},
    )
    storage.put_job(job)
    read = storage.get_job("j_1")
    assert read == job and list(read.sessions) == ["de", "fr", "pl"]
    with pytest.raises(ConflictError):
        storage.put_job(JobRecord(job_id="j_1", owner="bob", created_at="x", sessions={}, estimates={}))
    assert storage.get_job("j_1").owner == "alice"
    with pytest.raises(NotFoundError):
        storage.get_job("j_2")


def test_a_change_of_settings_ends_the_hold(storage: Storage) -> None:
    create(storage)
    storage.hold_session(SID, SessionHold(state="failed", error="budget reached", at="2026-12-05T01:00:00+00:00"))
    record = storage.update_session(SID, model="beta")
    assert record.hold is None and storage.get_session(SID).hold is None and record.model == "beta"
