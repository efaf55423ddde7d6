"""Storage's review log of a file, on every backend: every write of its units and its corrections."""

from __future__ import annotations

import time

import pytest

from agent_core.effects import Correction
from agent_core.mqm import MqmIssue
from storage.errors import NotFoundError
from storage.interface import Storage
from tests.storage_cases import FID, SID, add_file, approve, calls, create, revision, step, unit, user


def test_the_log_keeps_each_first_write_and_every_revision_in_order(storage: Storage) -> None:
    create(storage, messages=[user("go"), calls("a", "b")])
    add_file(storage, "One. Two. Three.")
    issue = MqmIssue(category="Accuracy/Omission", severity="major")
    refined = Correction(
        file_id=FID, status="refined", source="Two.", proposal="p", final="t5", reason=None, start=5, issue=issue
    )
    rejected = Correction(
        file_id=FID, status="reject", source="Three.", proposal="x", final=None, reason="no", start=10
    )
    step(
        storage,
        verdicts=[approve("a"), approve("b")],
        units=[unit(0, 4, "a"), unit(5, 9, "b")],
        coverage={FID: ((0, 10),)},
        corrections=[refined, rejected],
    )
    time.sleep(0.002)
    revised = Correction(
        file_id=FID,
        status="revised",
        source="One.",
        proposal="t0",
        final="Un.",
        reason="better",
        start=0,
        issue=MqmIssue(category="Style", severity="minor"),
    )
    step(storage, revisions=[revision(0, 4, "Un.", "r1")], corrections=[revised])
    step(storage, revisions=[revision(0, 4, "Un !", "r2", origin="model")])
    log = storage.review_log(SID, FID)
    assert [(w.start, w.text, w.status, w.origin) for w in log.writes] == [
        (0, "t0", "approve", "model"),
        (5, "t5", "approve", "model"),
        (0, "Un.", "revised", "human"),
        (0, "Un !", "revised", "model"),
    ], "the first writes stay as written; the revisions follow in commit order"
    # Timestamps have millisecond resolution: two writes in one millisecond share one; the order is the log's.
    assert log.writes[0].updated_at == log.writes[1].updated_at <= log.writes[2].updated_at <= log.writes[3].updated_at
    assert [(c.status, c.start, c.issue) for c in log.corrections] == [
        ("refined", 5, issue),
        ("reject", 10, None),
        ("revised", 0, MqmIssue(category="Style", severity="minor")),
    ]
    assert log.corrections[0].created_at == log.writes[0].updated_at, "a correction has its commit's time"
    assert log.corrections[2].created_at == log.writes[2].updated_at
    assert [u.text for u in storage.list_units(SID, FID)] == ["Un !", "t5"], "the unit's text is its latest"
    assert storage.recent_corrections("alice", limit=1)[0].issue == MqmIssue(category="Style", severity="minor")
    with pytest.raises(NotFoundError):
        storage.review_log(SID, "f_" + "9" * 32)
