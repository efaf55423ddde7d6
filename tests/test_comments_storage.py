"""The comments' storage contract (storage/comments.py) on every backend: threads appended in order and
counted, the resolved mark set once per change, the caps (under concurrent posts too), comments going
with their session and never read by a step's load or a listing of the session."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from agent_core.effects import StepEffects
from storage import comments
from storage.comments import CommentRecord, ThreadCount
from storage.errors import ConflictError, InvalidRequestError, NotFoundError
from storage.interface import Storage
from tests.storage_cases import FID, SID, add_file, atomic_requests, create, same_store, user

OTHER_FILE = "f_" + "3" * 32
T0 = "2026-01-01T00:00:00.000+00:00"


def comment(k: int, segment: str = "s1", *, file_id: str = FID, by: str = "bob", text: str = "") -> CommentRecord:
    return CommentRecord(
        comment_id=f"c_{k:032x}",
        session_id=SID,
        file_id=file_id,
        segment_id=segment,
        by=by,
        at=T0,
        text=text or f"Question {k}?",
    )


@pytest.fixture
def session(storage: Storage) -> Storage:
    create(storage, messages=[user("hello")])
    add_file(storage, "Hello world. Second one.\n\nThird.\n")
    add_file(storage, "Other file.\n", OTHER_FILE)
    return storage


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comments, "MAX_COMMENTS_PER_SEGMENT", 3)
    monkeypatch.setattr(comments, "MAX_COMMENTS_PER_SESSION", 5)


def test_a_thread_is_appended_in_id_order_and_read_back_whole(session: Storage) -> None:
    for k in (2, 1, 3):
        session.add_comment(comment(k, by=f"user-{k}", text=f"Ça va {k} ✓"))
    session.add_comment(comment(4, "s2"))
    session.add_comment(comment(5, file_id=OTHER_FILE))
    thread = session.thread(SID, FID, "s1")
    assert [c.comment_id for c in thread] == [f"c_{k:032x}" for k in (1, 2, 3)]
    assert thread[0] == comment(1, by="user-1", text="Ça va 1 ✓")
    assert [c.segment_id for c in session.thread(SID, FID, "s2")] == ["s2"]
    assert session.thread(SID, FID, "s3") == [] and session.thread(SID, FID, "s11") == []


def test_counts_by_segment_of_one_file(session: Storage) -> None:
    for k in range(1, 4):
        session.add_comment(comment(k))
    session.add_comment(comment(4, "s2"))
    session.add_comment(comment(5, file_id=OTHER_FILE))
    session.resolve_comment(SID, FID, "s1", comment(2).comment_id, resolved=True, by="rita", at=T0)
    assert session.comment_counts(SID, FID) == {"s1": ThreadCount(3, 2), "s2": ThreadCount(1, 1)}
    assert session.comment_counts(SID, OTHER_FILE) == {"s1": ThreadCount(1, 1)}


def test_the_resolved_mark_is_set_cleared_and_a_repeat_changes_nothing(session: Storage) -> None:
    session.add_comment(comment(1))
    cid = comment(1).comment_id
    done = session.resolve_comment(SID, FID, "s1", cid, resolved=True, by="rita", at="2026-01-02T00:00:00.000+00:00")
    assert (done.resolved, done.resolved_by, done.resolved_at) == (True, "rita", "2026-01-02T00:00:00.000+00:00")
    again = session.resolve_comment(SID, FID, "s1", cid, resolved=True, by="bob", at="2026-01-03T00:00:00.000+00:00")
    assert again == done, "a mark already as asked changes nothing"
    assert session.comment_counts(SID, FID) == {"s1": ThreadCount(1, 0)}
    reopened = session.resolve_comment(SID, FID, "s1", cid, resolved=False, by="bob", at=T0)
    assert (reopened.resolved, reopened.resolved_by, reopened.text) == (False, "bob", done.text)
    assert session.comment_counts(SID, FID) == {"s1": ThreadCount(1, 1)}
    assert session.thread(SID, FID, "s1") == [reopened]


def test_an_unknown_comment_or_one_of_another_segment_is_not_found(session: Storage) -> None:
    session.add_comment(comment(1))
    for segment, cid in (("s1", comment(9).comment_id), ("s2", comment(1).comment_id)):
        with pytest.raises(NotFoundError):
            session.resolve_comment(SID, FID, segment, cid, resolved=True, by="rita", at=T0)
    assert session.comment_counts(SID, FID) == {"s1": ThreadCount(1, 1)}


def test_a_comment_needs_a_session_and_a_new_id(storage: Storage) -> None:
    with pytest.raises(NotFoundError):
        storage.add_comment(comment(1))
    create(storage)
    add_file(storage)
    storage.add_comment(comment(1))
    with pytest.raises(ConflictError):
        storage.add_comment(comment(1, text="Again"))
    assert [c.text for c in storage.thread(SID, FID, "s1")] == ["Question 1?"]
    with pytest.raises(InvalidRequestError):
        storage.add_comment(comment(2, text=" "))
    with pytest.raises(InvalidRequestError):
        storage.add_comment(replace(comment(3), resolved=True))
    assert storage.comment_counts(SID, FID) == {"s1": ThreadCount(1, 1)}


@pytest.mark.usefixtures("small_caps")
def test_the_caps_per_segment_and_per_session(session: Storage) -> None:
    for k in range(1, 4):
        session.add_comment(comment(k))
    with pytest.raises(InvalidRequestError, match="segment"):
        session.add_comment(comment(4))
    session.add_comment(comment(5, "s2"))
    session.add_comment(comment(6, "s3"))
    with pytest.raises(InvalidRequestError, match="session"):
        session.add_comment(comment(7, "s4"))
    assert session.comment_counts(SID, FID) == {
        "s1": ThreadCount(3, 3),
        "s2": ThreadCount(1, 1),
        "s3": ThreadCount(1, 1),
    }
    assert len(session.session_comments(SID)) == 5


@pytest.mark.usefixtures("small_caps")
def test_the_segment_cap_holds_under_concurrent_posts(session: Storage) -> None:
    atomic_requests(session)
    stores = [same_store(session) for _ in range(6)]  # as separate processes open the store

    def post(k: int) -> bool:
        for _ in range(20):  # a transaction that met another's is tried again, as a client would
            try:
                stores[k - 1].add_comment(comment(k))
                return True
            except InvalidRequestError:
                return False
            except ConflictError:
                continue
        return False

    with ThreadPoolExecutor(max_workers=6) as pool:
        posted = list(pool.map(post, range(1, 7)))
    assert sum(posted) == 3 and len(session.thread(SID, FID, "s1")) == 3
    assert session.comment_counts(SID, FID) == {"s1": ThreadCount(3, 3)}


def test_the_session_s_comments_are_listed_by_file_and_segment(session: Storage) -> None:
    session.add_comment(comment(1, "s2"))
    session.add_comment(comment(2, file_id=OTHER_FILE))
    session.add_comment(comment(3))
    assert [(c.file_id, c.segment_id) for c in session.session_comments(SID)] == [
        (FID, "s1"),
        (FID, "s2"),
        (OTHER_FILE, "s1"),
    ]


def test_comments_do_not_touch_the_session_and_go_with_it(session: Storage) -> None:
    before = session.load_step(SID, window=10)
    record = session.get_session(SID)
    session.add_comment(comment(1))
    session.resolve_comment(SID, FID, "s1", comment(1).comment_id, resolved=True, by="rita", at=T0)
    after = session.load_step(SID, window=10)
    assert after.token == before.token and after.window == before.window
    assert session.get_session(SID).version == record.version
    assert session.list_verdicts(SID, cursor=None, limit=10).items == []
    session.commit(after.token, StepEffects(messages=[user("on")]))
    assert session.thread(SID, FID, "s1")[0].resolved, "a step after them keeps them"
    session.delete_session(SID)
    create(session)
    assert session.thread(SID, FID, "s1") == [] and session.comment_counts(SID, FID) == {}
    assert session.session_comments(SID) == []
