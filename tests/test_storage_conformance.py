"""One conformance suite for every storage backend (SQLite, DynamoDB under moto): the contract of
storage/interface.py, asserted through the interface only. Builders are in tests/storage_cases.py."""

from __future__ import annotations

import base64
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from agent_core.effects import Budget, Correction, StepEffects, Telemetry
from agent_core.errors import InvalidRequestError, TooLargeError
from agent_core.segmentation import segment_text
from agent_core.tm import TmEntry
from storage.errors import ConflictError, InvalidCursorError, NotFoundError
from storage.interface import CHUNK_CHARS, Storage, TmRecord, tm_record
from storage.records import TmChanges
from tests.storage_cases import (
    CREATED,
    FID,
    SID,
    add_file,
    answer,
    answer_text,
    approve,
    atomic_requests,
    calls,
    covering,
    create,
    entry,
    file,
    history_with_responses,
    refine,
    reject,
    returns,
    revision,
    same_store,
    second,
    step,
    texts,
    tm,
    unit,
    user,
    users,
)

# -- sessions and steps ------------------------------------------------------------------------


def test_create_then_load(storage: Storage) -> None:
    create(storage, messages=[user("hello")], user_inputs=["hello"])
    snapshot = storage.load_step(SID, window=10)
    token = snapshot.token
    assert (token.owner, token.version, token.created_at, token.message_count) == ("alice", 1, CREATED, 1)
    assert (token.response_index, token.verdict_ids) == (-1, frozenset())
    assert texts(snapshot.window) == ["hello"] and snapshot.window_complete
    assert list(snapshot.user_inputs) == ["hello"] and list(snapshot.files) == []
    record = storage.get_session(SID)
    assert (record.owner, record.version, record.message_count, record.created_at) == ("alice", 1, 1, CREATED)
    assert record.user_inputs == ("hello",) and record.updated_at


def test_unknown_session_is_not_found(storage: Storage) -> None:
    with pytest.raises(NotFoundError):
        storage.get_session(SID)
    with pytest.raises(NotFoundError):
        storage.load_step(SID, window=10)


def test_creating_twice_conflicts(storage: Storage) -> None:
    create(storage)
    with pytest.raises(ConflictError):
        create(storage, messages=[user("again")])
    assert storage.get_session(SID).message_count == 0


def test_commit_checks_the_version_and_changes_nothing_on_conflict(storage: Storage) -> None:
    create(storage)
    stale = storage.load_step(SID, window=10).token
    step(storage, messages=users(0, 2), user_inputs=["first"])
    with pytest.raises(ConflictError):
        storage.commit(stale, StepEffects(messages=users(0, 1), user_inputs=["lost"]))
    record = storage.get_session(SID)
    assert (record.version, record.message_count, record.user_inputs) == (2, 2, ("first",))
    assert texts(storage.load_step(SID, window=10).window) == ["m0", "m1"]


def test_the_session_languages_are_set_at_creation_and_updated_alone(storage: Storage) -> None:
    create(storage, messages=[user("go")], source_language="en", target_language="fr")
    record = storage.get_session(SID)
    assert (record.source_language, record.target_language) == ("en", "fr")
    loaded = storage.load_step(SID, window=10)
    updated = storage.update_session(SID, target_language="de-CH")
    assert (updated.source_language, updated.target_language) == ("en", "de-CH")
    assert updated.version == record.version + 1 and storage.get_session(SID) == updated
    with pytest.raises(ConflictError):
        storage.commit(loaded.token, StepEffects(messages=[user("stale")]))
    step(storage, messages=[user("next")], source_language="xx", target_language="yy")
    after = storage.get_session(SID)
    assert (after.source_language, after.target_language) == ("en", "de-CH"), "a step leaves the languages"
    assert after.message_count == 2
    cleared = storage.update_session(SID, source_language=None)
    assert (cleared.source_language, cleared.target_language) == (None, "de-CH")
    assert same_store(storage).get_session(SID) == cleared
    with pytest.raises(NotFoundError):
        storage.update_session("s_" + "9" * 32, source_language="en")


def test_the_budget_is_kept_from_creation_shown_to_a_step_changed_and_cleared(storage: Storage) -> None:
    create(storage, messages=[user("go")], budget=Budget(tokens=5000))
    assert storage.get_session(SID).budget == Budget(tokens=5000)
    step(storage, messages=[user("next")], telemetry=Telemetry(model_requests=1, input_tokens=70, output_tokens=30))
    loaded = storage.load_step(SID, window=10)
    assert loaded.budget == Budget(tokens=5000)
    assert (loaded.telemetry.input_tokens, loaded.telemetry.output_tokens) == (70, 30)
    changed = storage.update_session(SID, budget=Budget(usd=2.5))
    assert changed.budget == Budget(usd=2.5) and same_store(storage).get_session(SID).budget == Budget(usd=2.5)
    assert storage.update_session(SID, target_language="fr").budget == Budget(usd=2.5), "left as it is"
    assert storage.update_session(SID, budget=None).budget is None
    assert storage.load_step(SID, window=10).budget is None


def test_the_model_is_kept_from_creation_shown_to_a_step_changed_and_cleared(storage: Storage) -> None:
    create(storage, messages=[user("go")], model="openai:gpt-4.1")
    assert storage.get_session(SID).model == "openai:gpt-4.1"
    spent = Telemetry(model_requests=1, input_tokens=70, output_tokens=30, cost_micro_usd=380)
    step(storage, messages=[user("next")], model="ignored", telemetry=spent)
    loaded = storage.load_step(SID, window=10)
    assert loaded.model == "openai:gpt-4.1", "a step leaves the model"
    changed = storage.update_session(SID, model="openai:gpt-4.1-mini")
    assert changed.model == "openai:gpt-4.1-mini" and same_store(storage).get_session(SID) == changed
    step(storage, messages=[user("more")], telemetry=spent)
    assert storage.load_step(SID, window=10).telemetry.cost_micro_usd == 760, "what was spent adds up"
    assert storage.update_session(SID, budget=Budget(tokens=9)).model == "openai:gpt-4.1-mini", "left as it is"
    assert storage.update_session(SID, model=None).model is None


def test_a_session_update_is_not_lost_by_a_concurrent_step(storage: Storage) -> None:
    atomic_requests(storage)
    create(storage, messages=[user("go")])

    def steps() -> None:
        for k in range(4):
            while True:
                try:
                    step(storage, messages=[user(f"s{k}")])
                    break
                except ConflictError:
                    continue

    def updates() -> None:
        for k in range(4):
            storage.update_session(SID, source_language=f"l{k}", target_language="fr")

    with ThreadPoolExecutor(2) as pool:
        for future in [pool.submit(steps), pool.submit(updates)]:
            future.result()
    record = storage.get_session(SID)
    assert (record.source_language, record.target_language, record.message_count) == ("l3", "fr", 5)


def test_user_inputs_unchanged_unless_given(storage: Storage) -> None:
    create(storage, user_inputs=["translate"])
    step(storage, messages=users(0, 1))
    assert storage.get_session(SID).user_inputs == ("translate",)
    step(storage, user_inputs=["translate", "more formal"])
    assert list(storage.load_step(SID, window=1).user_inputs) == ["translate", "more formal"]


def test_telemetry_adds_up(storage: Storage) -> None:
    create(storage, telemetry=Telemetry(steps=1, model_requests=1, input_tokens=900, output_tokens=40, model_ms=400))
    step(storage, telemetry=Telemetry(steps=1, model_requests=2, input_tokens=100, output_tokens=10, model_ms=20))
    expected = Telemetry(steps=2, model_requests=3, input_tokens=1_000, output_tokens=50, model_ms=420)
    assert storage.get_session(SID).telemetry == expected


def test_hidden_messages_add_up_with_the_session(storage: Storage) -> None:
    create(storage, messages=users(0, 3), hidden_messages=2)
    step(storage, messages=users(3, 2))
    step(storage, messages=users(5, 2), hidden_messages=1)
    snapshot = storage.load_step(SID, window=2)
    assert (snapshot.token.message_count, snapshot.token.hidden_messages) == (7, 3)
    assert storage.get_session(SID).hidden_messages == 3


def test_list_sessions_per_owner_newest_first(storage: Storage) -> None:
    for i in range(5):
        create(storage, sid=f"s_{i:032d}")
        time.sleep(0.002)  # distinct times: the order of equal times is the backend's
    create(storage, sid="s_" + "f" * 32, owner="bob")
    step(storage, f"s_{2:032d}", messages=users(0, 1))  # updated last: listed first
    page = storage.list_sessions("alice", cursor=None, limit=3)
    assert [r.session_id for r in page.items] == [f"s_{i:032d}" for i in (2, 4, 3)]
    rest = storage.list_sessions("alice", cursor=page.next_cursor, limit=3)
    assert [r.session_id for r in rest.items] == [f"s_{i:032d}" for i in (1, 0)] and rest.next_cursor is None
    assert [r.owner for r in storage.list_sessions("bob", cursor=None, limit=10).items] == ["bob"]
    exact = storage.list_sessions("alice", cursor=None, limit=5)
    assert len(exact.items) == 5 and exact.next_cursor is None


# -- history: the window, paging, verdicts -----------------------------------------------------------


def test_window_and_paging_across_buckets(storage: Storage) -> None:
    create(storage)
    for start in range(0, 250, 50):  # a transaction writes at most 100 items
        step(storage, messages=users(start, 50))
    snapshot = storage.load_step(SID, window=30)
    assert texts(snapshot.window) == [f"m{i}" for i in range(220, 250)] and not snapshot.window_complete
    assert snapshot.token.message_count == 250
    assert texts(storage.load_step(SID, window=160).window) == [f"m{i}" for i in range(90, 250)]
    assert storage.load_step(SID, window=250).window_complete
    seen: list[str] = []
    cursor = None
    while True:
        page = storage.list_messages(SID, cursor=cursor, limit=70)
        seen += texts(page.items)
        if (cursor := page.next_cursor) is None:
            break
    assert seen == [f"m{i}" for i in range(250)]


def test_verdicts_belong_to_the_latest_response_and_are_replaced(storage: Storage) -> None:
    create(storage, messages=[user("go"), calls("a", "b")])
    token = storage.load_step(SID, window=10).token
    assert token.response_index == 1
    step(storage, verdicts=[approve("a"), reject("b")])
    snapshot = step(storage, verdicts=[refine("a", "better")])
    assert snapshot.token.verdict_ids == frozenset({"a", "b"})
    after = storage.load_step(SID, window=10)
    assert sorted((v.tool.call_id, v.status) for v in after.copilot_responses) == [("a", "refined"), ("b", "reject")]
    assert storage.get_session(SID).copilot_response_count == 2, "a replaced verdict is counted once"
    step(storage, messages=[returns("a", "b"), answer_text("done")])
    later = storage.load_step(SID, window=10)
    assert (later.token.response_index, list(later.copilot_responses), later.token.verdict_ids) == (3, [], frozenset())


def test_the_verdict_listing_holds_the_latest_verdict_on_each_call(storage: Storage) -> None:
    create(storage, messages=[user("go"), calls("a", "b")])
    step(storage, verdicts=[reject("a"), approve("b")])
    step(storage, verdicts=[refine("a", "better")])
    step(storage, verdicts=[approve("a")])
    step(storage, messages=[returns("a", "b"), calls("c")], verdicts=[])
    step(storage, verdicts=[reject("c")])
    step(storage, verdicts=[refine("c", "right")])
    expected = [("a", "approve"), ("b", "approve"), ("c", "refined")]
    listed = storage.list_verdicts(SID, cursor=None, limit=10)
    assert [(v.tool.call_id, v.status) for v in listed.items] == expected and listed.next_cursor is None
    paged, cursor = [], None
    for _ in range(3):
        page = storage.list_verdicts(SID, cursor=cursor, limit=1)
        paged += [(v.tool.call_id, v.status) for v in page.items]
        cursor = page.next_cursor
    assert paged == expected and cursor is None
    assert storage.get_session(SID).copilot_response_count == 3


def test_verdicts_of_a_response_in_the_previous_bucket(storage: Storage) -> None:
    history_with_responses(storage, at=[99], total=100)
    step(storage, messages=[returns("a99", "b99")])
    snapshot = storage.load_step(SID, window=2)
    assert snapshot.token.response_index == 99 and snapshot.token.message_count == 101
    assert sorted(v.tool.call_id for v in snapshot.copilot_responses) == ["a99", "b99"]


@pytest.mark.slow
def test_list_verdicts_pages_across_buckets(storage: Storage) -> None:
    history_with_responses(storage, at=[5, 150, 240], total=250)
    found: list[str] = []
    cursor = None
    while True:
        page = storage.list_verdicts(SID, cursor=cursor, limit=1)
        found += [v.tool.call_id for v in page.items]
        if (cursor := page.next_cursor) is None:
            break
    assert found == ["a5", "b5", "a150", "b150", "a240", "b240"]
    everything = storage.list_verdicts(SID, cursor=None, limit=6)
    assert len(everything.items) == 6 and everything.next_cursor is None
    assert storage.get_session(SID).copilot_response_count == 6


def forged(position: object) -> str:
    """A well-encoded cursor naming a position no listing issued."""
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


FORGED = [
    {"pk": {"N": "1"}, "sk": {"S": "META"}, "gsi1pk": {"S": "O#alice"}, "gsi1sk": {"N": "1"}},
    {"pk": {"S": "S#x"}, "sk": {"S": "META"}, "gsi1pk": {"S": "O#alice"}, "gsi1sk": {"S": ""}},
    {"k": 5},
    {"k": "#"},
    {"k": ["a#b"]},
    {"k": "x" * 5_000 + "#s"},
    {"i": "3"},
    {"r": "0", "c": "a"},
    {"r": 0, "c": 7},
    {"r": 0, "c": ""},
    {"b": 0, "k": "R#", "o": "x"},
    [1, 2],
    "text",
    None,
]


@pytest.mark.parametrize("position", FORGED, ids=range(len(FORGED)))
def test_forged_or_wrongly_typed_cursors_are_invalid_on_every_listing(storage: Storage, position: object) -> None:
    create(storage, messages=[user("go"), calls("a")], verdicts=[])
    step(storage, verdicts=[approve("a")])
    for listing in (storage.list_messages, storage.list_verdicts):
        with pytest.raises(InvalidCursorError):
            listing(SID, cursor=forged(position), limit=10)
    with pytest.raises(InvalidCursorError):
        storage.list_sessions("alice", cursor=forged(position), limit=10)


@pytest.mark.parametrize(
    "cursor",
    [
        "not-a-cursor!",
        "9" * 5_000,
        str(2**64),
        "-1",
        base64.urlsafe_b64encode(json.dumps({"i": 2**70, "b": 2**70}).encode()).decode(),
        base64.urlsafe_b64encode(json.dumps({"i": -1, "b": -1}).encode()).decode(),
        base64.urlsafe_b64encode(b'{"i": 1e999, "b": 1e999}').decode(),
    ],
)
def test_invalid_or_huge_cursors(storage: Storage, cursor: str) -> None:
    create(storage, messages=users(0, 3))
    with pytest.raises(InvalidCursorError):
        storage.list_messages(SID, cursor=cursor, limit=10)
    with pytest.raises(InvalidCursorError):
        storage.list_verdicts(SID, cursor=cursor, limit=10)
    with pytest.raises(InvalidCursorError):
        storage.list_sessions("alice", cursor=cursor, limit=10)


# -- sizes ---------------------------------------------------------------------------------------


def test_non_ascii_text_near_the_item_limit_is_stored(storage: Storage) -> None:
    text = "中文" * 63_000  # 378 KB of UTF-8 (it would be 756 KB as JSON escapes)
    create(storage, messages=[user(text)], user_inputs=[text[:1_000]])
    assert texts(storage.load_step(SID, window=1).window) == [text]
    assert texts(storage.list_messages(SID, cursor=None, limit=1).items) == [text]


def test_too_large_is_refused_and_commits_nothing(storage: Storage) -> None:
    create(storage)
    with pytest.raises(TooLargeError):
        step(storage, messages=[user("x" * 1_000_000)])
    with pytest.raises(TooLargeError):
        step(storage, messages=[user("中" * 200_000)])
    record = storage.get_session(SID)
    assert (record.version, record.message_count) == (1, 0)


def test_a_revision_over_the_item_limit_is_refused_and_commits_nothing(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two.")
    step(storage, units=[unit(0, 4, "a")], coverage=covering(unit(0, 4)))
    for text in ("x" * 410_000, "中" * 140_000):  # 410 KB and 420 KB of UTF-8
        with pytest.raises(TooLargeError, match="A unit"):
            step(storage, messages=users(0, 1), revisions=[revision(0, 4, text)])
    record = storage.get_session(SID)
    assert (record.version, record.message_count) == (2, 0)
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)] == [(0, "t0")]


def test_text_that_cannot_be_stored_is_invalid(storage: Storage) -> None:
    create(storage)
    with pytest.raises(InvalidRequestError):
        step(storage, messages=[user("half a pair \ud800")])
    assert storage.get_session(SID).version == 1


def test_an_answer_too_large_to_keep_does_not_fail_its_step(storage: Storage) -> None:
    create(storage)
    far = int(time.time()) + 3_600
    snapshot = storage.load_step(SID, window=10)
    storage.commit(snapshot.token, StepEffects(messages=users(0, 1)), answer=answer(body="x" * 1_000_000, expires=far))
    assert storage.get_session(SID).message_count == 1
    assert storage.get_answer("alice", "k1", now=int(time.time())) is None
    storage.keep_answer(SID, answer("k2", body="x" * 1_000_000, expires=far), now=int(time.time()))
    assert storage.get_answer("alice", "k2", now=int(time.time())) is None


# -- files and units -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_file_s_segments_are_kept_with_the_chunk_each_begins_in(storage: Storage) -> None:
    create(storage)
    sentence = "A short sentence here. "
    content = (sentence * (2 * CHUNK_CHARS // len(sentence) + 3)).strip() + "\n\n```\ncode\n```\n"
    segments = segment_text(content)
    storage.add_file(SID, file(FID, content), content, segments=segments, max_files=20)
    chunks = storage.read_chunks(SID, FID, 0, 3)
    assert [storage.read_chunks(SID, FID, n, n)[0] for n in range(4)] == chunks
    assert "".join(c.text for c in chunks) == content
    assert [s for c in chunks for s in c.segments] == list(segments)
    assert all(n * CHUNK_CHARS <= s.start < (n + 1) * CHUNK_CHARS for n, c in enumerate(chunks) for s in c.segments)
    assert chunks[2].segments[-1].locked and chunks[3] == type(chunks[3])("", ())
    assert chunks[1].segments[0].id == f"s{len(chunks[0].segments) + 1}"


def test_files_in_upload_order_and_chunked_reads(storage: Storage) -> None:
    create(storage)
    content = ("ÄÖ中文 text 🙂\n" * (CHUNK_CHARS // 5))[: CHUNK_CHARS * 2 + 123]
    ids = [f"f_{i}{'0' * 31}" for i in (3, 1, 2)]
    for file_id in ids:
        add_file(storage, content, file_id)
    files = storage.load_step(SID, window=1).files
    assert [f.file_id for f in files] == ids
    assert all(f.created_at for f in files) and [f.created_at for f in files] == sorted(f.created_at for f in files)
    assert replace(files[0], created_at="") == file(ids[0], content)
    for start, end in [
        (0, 10),
        (CHUNK_CHARS - 5, CHUNK_CHARS + 5),
        (CHUNK_CHARS, 2 * CHUNK_CHARS),
        (0, len(content)),
        (len(content) - 3, len(content) + 50),
        (len(content) + 10, len(content) + 20),
        (5, 5),
    ]:
        assert storage.read_file(SID, ids[1], start, end) == content[start:end], (start, end)
    with pytest.raises(NotFoundError):
        storage.read_file(SID, "f_" + "9" * 32, 0, 10)
    with pytest.raises(NotFoundError):
        storage.read_chunks(SID, "f_" + "9" * 32, 0, 0)
    with pytest.raises(NotFoundError):
        storage.list_units(SID, "f_" + "9" * 32)


def test_a_file_needs_a_session(storage: Storage) -> None:
    with pytest.raises(NotFoundError):
        add_file(storage)


def test_the_file_cap(storage: Storage) -> None:
    create(storage)
    for i in range(2):
        add_file(storage, file_id=f"f_{i:032d}", max_files=2)
    with pytest.raises(InvalidRequestError, match="2 files"):
        add_file(storage, file_id=f"f_{9:032d}", max_files=2)
    assert len(storage.load_step(SID, window=1).files) == 2


def test_the_file_cap_holds_under_concurrent_uploads(storage: Storage) -> None:
    atomic_requests(storage)
    create(storage)

    def upload(i: int) -> str:
        try:
            add_file(storage, f"File {i}.", f"f_{i:032d}", max_files=20)
        except InvalidRequestError:
            return "refused"
        return "added"

    with ThreadPoolExecutor(max_workers=30) as pool:
        outcomes = list(pool.map(upload, range(30)))
    assert outcomes.count("added") == 20 and outcomes.count("refused") == 10
    assert len(storage.load_step(SID, window=1).files) == 20


def test_units_are_never_overwritten(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    step(storage, messages=users(0, 1), units=[unit(5, 9, "b"), unit(0, 4, "a")], coverage={FID: ((0, 10),)})
    assert [(u.start, u.call_id, u.text) for u in storage.list_units(SID, FID)] == [(0, "a", "t0"), (5, "b", "t5")]
    assert storage.load_step(SID, window=1).files[0].covered == ((0, 10),)
    # The same unit written again (a replayed step) fails whole: no message, no version change.
    with pytest.raises(ConflictError):
        step(storage, messages=users(1, 1), units=[unit(0, 4, "a")], coverage={FID: ((0, 16),)})
    record = storage.get_session(SID)
    assert (record.version, record.message_count) == (2, 1)
    assert storage.load_step(SID, window=1).files[0].covered == ((0, 10),)


def test_a_unit_inside_written_text_or_outside_the_steps_coverage_commits_nothing(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    step(storage, units=[unit(0, 9, "a")], coverage={FID: ((0, 10),)})
    with pytest.raises(ConflictError):  # another start, inside text already translated
        step(storage, messages=users(0, 1), units=[unit(5, 9, "b")], coverage={FID: ((0, 10),)})
    with pytest.raises(InvalidRequestError):  # a unit its step's coverage does not hold
        step(storage, messages=users(0, 1), units=[unit(10, 14, "c")], coverage={FID: ((0, 10),)})
    record = storage.get_session(SID)
    assert (record.version, record.message_count) == (2, 0)
    assert [u.start for u in storage.list_units(SID, FID)] == [0]
    step(storage, units=[unit(10, 14, "c")], coverage={FID: ((0, 15),)})
    assert [u.start for u in storage.list_units(SID, FID)] == [0, 10]


def test_units_far_into_a_long_file(storage: Storage) -> None:
    create(storage)
    content = "word " * 30_000  # 150,000 characters
    add_file(storage, content)
    units = [unit(149_990, 149_994, "z"), unit(0, 4, "a"), unit(70_000, 70_004, "m")]
    step(storage, units=units, coverage=covering(*units))
    assert [u.start for u in storage.list_units(SID, FID)] == [0, 70_000, 149_990]


def test_units_carry_their_origin_and_the_time_they_were_written(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    kept = replace(unit(5, 9, "b"), status="verbatim", origin="verbatim", updated_at="ignored")
    written = [replace(unit(0, 4, "a"), origin="memory"), kept]
    step(storage, units=written, coverage=covering(*written))
    units = storage.list_units(SID, FID)
    assert [(u.start, u.status, u.origin) for u in units] == [(0, "approve", "memory"), (5, "verbatim", "verbatim")]
    assert all(u.updated_at and u.updated_at != "ignored" for u in units), "storage sets the time"
    assert units[0].updated_at == units[1].updated_at, "one commit, one time"
    assert replace(units[0], updated_at="") == replace(unit(0, 4, "a"), origin="memory")


def test_a_revision_replaces_the_written_unit(storage: Storage) -> None:
    create(storage, messages=[user("go"), calls("a")])
    add_file(storage, "One. Two. Three.")
    step(storage, verdicts=[approve("a")], units=[unit(0, 4, "a"), unit(5, 9, "a")], coverage={FID: ((0, 10),)})
    before = storage.list_units(SID, FID)
    time.sleep(0.002)
    step(storage, messages=users(2, 1), revisions=[revision(0, 4, "Un.", "r1")])
    step(storage, revisions=[revision(0, 4, "Un !", "r2", origin="memory")])  # revised again: still one unit
    units = storage.list_units(SID, FID)
    assert [(u.start, u.text, u.call_id, u.status, u.origin) for u in units] == [
        (0, "Un !", "r2", "revised", "memory"),
        (5, "t5", "a", "approve", "model"),
    ]
    assert (units[0].end, units[0].cover_end) == (4, 5), "a revision keeps the unit's span"
    assert units[0].updated_at > before[0].updated_at and units[1] == before[1]
    record = storage.get_session(SID)
    assert (record.version, record.message_count, record.copilot_response_count) == (4, 3, 1), "counted once"
    assert storage.load_step(SID, window=1).files[0].covered == ((0, 10),)


def test_units_written_together_are_revised_together(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    written = [unit(0, 4, "a"), unit(5, 9, "a"), unit(10, 16, "a")]
    step(storage, units=written, coverage=covering(*written))
    step(storage, revisions=[revision(10, 16, "Trois."), revision(0, 4, "Un.")])
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)] == [(0, "Un."), (5, "t5"), (10, "Trois.")]


def test_a_unit_written_and_revised_in_one_step(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two.")
    step(storage, units=[unit(0, 4, "a")], revisions=[revision(0, 4, "Un.")], coverage=covering(unit(0, 4)))
    assert [(u.text, u.status, u.origin) for u in storage.list_units(SID, FID)] == [("Un.", "revised", "human")]


def test_a_revision_of_an_unwritten_unit_commits_nothing(storage: Storage) -> None:
    create(storage)
    add_file(storage, "One. Two. Three.")
    step(storage, units=[unit(0, 4, "a")], coverage=covering(unit(0, 4)))
    with pytest.raises(NotFoundError):
        step(
            storage,
            messages=users(0, 1),
            units=[unit(5, 9, "b")],
            coverage=covering(unit(0, 4), unit(5, 9)),
            revisions=[revision(0, 4, "Un."), revision(10, 16, "Trois.")],
            queued_inputs=["lost"],
        )
    record = storage.get_session(SID)
    assert (record.version, record.message_count, record.queued_inputs) == (2, 0, ())
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)] == [(0, "t0")]


def test_queued_inputs_set_cleared_and_unchanged(storage: Storage) -> None:
    create(storage, queued_inputs=["plus formel"])
    assert storage.get_session(SID).queued_inputs == ("plus formel",)
    step(storage, messages=users(0, 1))
    assert list(storage.load_step(SID, window=1).queued_inputs) == ["plus formel"], "None leaves them"
    step(storage, queued_inputs=["plus formel", "中文 ✓"])  # a step of queued inputs only still commits
    record = storage.get_session(SID)
    assert (record.version, record.queued_inputs) == (3, ("plus formel", "中文 ✓"))
    step(storage, queued_inputs=[])
    assert list(storage.load_step(SID, window=1).queued_inputs) == [] and storage.get_session(SID).queued_inputs == ()


def test_the_original_document_is_kept_beside_the_file(storage: Storage) -> None:
    create(storage)
    content = "Hello world.\n"
    original = ('<?xml version="1.0"?><xliff><source>Grüße 中文</source></xliff>\n' * 1_500)[: CHUNK_CHARS * 2 + 7]
    storage.add_file(SID, file(FID, content), content, segments=segment_text(content), max_files=20, original=original)
    add_file(storage, file_id="f_" + "3" * 32)
    assert storage.read_original(SID, FID) == original
    assert storage.read_original(SID, "f_" + "3" * 32) is None
    assert storage.read_file(SID, FID, 0, 1_000) == content, "the content is apart from its original"
    assert [f.chars for f in storage.load_step(SID, window=1).files] == [len(content)] * 2
    with pytest.raises(NotFoundError):
        storage.read_original(SID, "f_" + "9" * 32)
    storage.delete_session(SID)
    with pytest.raises(NotFoundError):
        storage.read_original(SID, FID)
    create(storage)
    add_file(storage)  # the same file id again, without an original: nothing of the old one is left
    assert storage.read_original(SID, FID) is None


# -- answers -------------------------------------------------------------------------------------


def test_answers_are_per_owner_and_expire(storage: Storage) -> None:
    storage.keep_answer(None, answer(), now=1_000)
    assert storage.get_answer("alice", "k1", now=1_000) == answer()
    assert storage.get_answer("bob", "k1", now=1_000) is None
    with pytest.raises(ConflictError):
        storage.keep_answer(None, answer(body='{"x": 1}'), now=1_000)
    assert storage.get_answer("alice", "k1", now=2_000) is None, "expired"
    storage.keep_answer(None, answer(expires=3_000, body="new"), now=2_500)
    kept = storage.get_answer("alice", "k1", now=2_500)
    assert kept is not None and kept.body == "new"


def test_an_answer_commits_with_its_step(storage: Storage) -> None:
    create(storage)
    far = int(time.time()) + 3_600
    token = storage.load_step(SID, window=10).token
    storage.commit(token, StepEffects(messages=users(0, 1)), answer=answer(expires=far, body="中文 ✓"))
    kept = storage.get_answer("alice", "k1", now=int(time.time()))
    assert kept == answer(expires=far, body="中文 ✓")
    token = storage.load_step(SID, window=10).token
    with pytest.raises(ConflictError):  # the same key again fails the whole step
        storage.commit(token, StepEffects(messages=users(1, 1)), answer=answer(expires=far))
    assert storage.get_session(SID).version == 2


def test_delete_removes_everything_answers_included(storage: Storage) -> None:
    far = int(time.time()) + 3_600
    create(storage, messages=[user("go"), calls("a")])
    add_file(storage)
    token = storage.load_step(SID, window=10).token
    effects = StepEffects(
        verdicts=[approve("a")], units=[unit(0, 4, "a")], messages=[returns("a")], coverage=covering(unit(0, 4))
    )
    storage.commit(token, effects, answer=answer(expires=far))
    storage.keep_answer(SID, answer("k2", expires=far), now=int(time.time()))
    storage.put_memory_entry(entry("m_a"), max_entries=10)
    storage.delete_session(SID)
    with pytest.raises(NotFoundError):
        storage.get_session(SID)
    assert storage.list_sessions("alice", cursor=None, limit=10).items == []
    assert storage.get_answer("alice", "k1", now=int(time.time())) is None
    assert storage.get_answer("alice", "k2", now=int(time.time())) is None
    storage.delete_session(SID)  # deleting again is fine
    create(storage)  # and the id is free again, with nothing left behind
    snapshot = storage.load_step(SID, window=10)
    assert list(snapshot.window) == [] and list(snapshot.files) == [] and list(snapshot.copilot_responses) == []
    assert storage.list_verdicts(SID, cursor=None, limit=10).items == []
    with pytest.raises(NotFoundError):
        storage.list_units(SID, FID)
    assert [e.entry_id for e in storage.list_memory("alice")] == ["m_a"], "memory outlives the session"


# -- the owner's memory --------------------------------------------------------------------------


def correction(text: str) -> Correction:
    return Correction(file_id=FID, status="refined", source="s", proposal="p", final=text, reason=None)


def test_corrections_per_owner_newest_first(storage: Storage) -> None:
    create(storage)
    create(storage, sid="s_" + "b" * 32, owner="bob")
    step(storage, corrections=[correction("c1"), correction("c2")])
    time.sleep(0.002)
    step(storage, corrections=[correction("c3")])
    step(storage, "s_" + "b" * 32, corrections=[correction("b1")])
    recent = storage.recent_corrections("alice", limit=5)
    assert [c.final for c in recent] == ["c3", "c2", "c1"]
    assert all(c.created_at for c in recent) and {c.session_id for c in recent} == {SID}
    assert replace(recent[0], created_at="", session_id="") == correction("c3")
    assert [c.final for c in storage.recent_corrections("alice", limit=1)] == ["c3"]
    assert [c.final for c in storage.recent_corrections("bob", limit=5)] == ["b1"]
    assert storage.recent_corrections("carol", limit=5) == []


def test_memory_entries_per_owner_oldest_first(storage: Storage) -> None:
    storage.put_memory_entry(entry("m_b", at="2026-01-01T00:00:02.000+00:00"), max_entries=10)
    storage.put_memory_entry(entry("m_a", kind="style", at="2026-01-01T00:00:03.000+00:00"), max_entries=10)
    storage.put_memory_entry(entry("m_c", at="2026-01-01T00:00:01.000+00:00"), max_entries=10)
    storage.put_memory_entry(entry("m_d", owner="bob"), max_entries=10)
    assert [e.entry_id for e in storage.list_memory("alice")] == ["m_c", "m_b", "m_a"]
    assert storage.list_memory("alice")[2] == entry("m_a", kind="style", at="2026-01-01T00:00:03.000+00:00")
    assert [e.entry_id for e in storage.list_memory("bob")] == ["m_d"]
    assert storage.list_memory("carol") == []
    updated = replace(entry("m_b", at="2026-01-01T00:00:02.000+00:00"), text="instrument", origin="user")
    storage.put_memory_entry(updated, max_entries=10)  # the same id replaces the entry in place
    assert storage.list_memory("alice")[1] == updated and len(storage.list_memory("alice")) == 3


@pytest.mark.parametrize(
    ("entries", "corrections", "wanted"), [(0, 0, 5), (3, 7, 5), (40, 12, 5), (25, 2, 0), (12, 9, 9)]
)
def test_the_memory_snapshot_is_the_entries_and_the_latest_corrections(
    storage: Storage, entries: int, corrections: int, wanted: int
) -> None:
    create(storage)
    for k in range(entries):
        storage.put_memory_entry(entry(f"m_{k:02d}", kind=("glossary", "style")[k % 2]), max_entries=100)
    for k in range(corrections):
        step(storage, corrections=[correction(f"c{k}")])
    storage.put_memory_entry(entry("m_z", owner="bob"), max_entries=100)
    for _ in range(2):  # the second read is sized by the first
        read = storage.memory_snapshot("alice", corrections=wanted)
        found, latest = read.entries, read.corrections
        assert found == storage.list_memory("alice") and len(found) == entries
        assert latest == storage.recent_corrections("alice", limit=wanted)
        assert len(latest) == min(wanted, corrections)
    empty = storage.memory_snapshot("carol", corrections=3)
    assert (empty.entries, empty.corrections, empty.tm_seq) == ([], [], 0)


def test_memory_entries_are_deleted_only_by_their_owner(storage: Storage) -> None:
    storage.put_memory_entry(entry("m_a"), max_entries=10)
    storage.put_memory_entry(entry("m_b", owner="bob"), max_entries=10)
    with pytest.raises(NotFoundError):
        storage.delete_memory_entry("alice", "m_b")
    storage.delete_memory_entry("alice", "m_a")
    with pytest.raises(NotFoundError):
        storage.delete_memory_entry("alice", "m_a")
    assert storage.list_memory("alice") == []
    assert [e.entry_id for e in storage.list_memory("bob")] == ["m_b"]


def test_the_memory_cap_per_owner_and_kind(storage: Storage) -> None:
    for i in range(3):
        storage.put_memory_entry(entry(f"m_{i}"), max_entries=3)
    with pytest.raises(InvalidRequestError):
        storage.put_memory_entry(entry("m_9"), max_entries=3)
    storage.put_memory_entry(replace(entry("m_1"), text="instrument"), max_entries=3)  # a replace needs no room
    storage.put_memory_entry(entry("s_1", kind="style"), max_entries=3)  # another kind has its own room
    storage.put_memory_entry(entry("m_0", owner="bob"), max_entries=3)  # and another owner
    storage.delete_memory_entry("alice", "m_0")
    storage.put_memory_entry(entry("m_9"), max_entries=3)  # a deleted entry frees its room
    kinds = sorted((e.kind, e.entry_id) for e in storage.list_memory("alice"))
    assert kinds == [("glossary", "m_1"), ("glossary", "m_2"), ("glossary", "m_9"), ("style", "s_1")]


def test_the_memory_cap_holds_under_concurrent_writes(storage: Storage) -> None:
    atomic_requests(storage)

    def put(i: int) -> str:
        try:
            storage.put_memory_entry(entry(f"m_{i:02d}"), max_entries=20)
        except InvalidRequestError:
            return "refused"
        return "added"

    with ThreadPoolExecutor(max_workers=30) as pool:
        outcomes = list(pool.map(put, range(30)))
    assert outcomes.count("added") == 20 and outcomes.count("refused") == 10
    assert len(storage.list_memory("alice")) == 20


def test_memory_outlives_sessions_and_is_not_a_session(storage: Storage) -> None:
    create(storage)
    storage.put_memory_entry(entry("m_a"), max_entries=10)
    assert [s.session_id for s in storage.list_sessions("alice", cursor=None, limit=10).items] == [SID]
    storage.delete_session(SID)
    assert storage.list_sessions("alice", cursor=None, limit=10).items == []
    assert [e.entry_id for e in storage.list_memory("alice")] == ["m_a"]


# -- the owner's translation memory --------------------------------------------------------------------


def keyed(source: str, target: str = "", *, at: int = 1) -> TmRecord:
    """A record under the hash a step's entry of the same source is stored by (tests.storage_cases.tm's
    are named instead), of the pair FR."""
    return tm_record(tm(source, target, at=at).entry)


def sources(found: TmChanges) -> list[tuple[str, str, int]]:
    """What a read of the changes found: (source, target, its write's number), by source."""
    return sorted((e.source, e.target, e.written) for e in found.entries)


FR = "*>fr"


def test_tm_changes_are_read_by_write_number(storage: Storage) -> None:
    assert storage.tm_changes("alice", FR, since=None) == TmChanges([], 0)
    records = [
        keyed("Hello."),
        keyed("Bye."),
        tm_record(TmEntry(source="Thanks.", target="Merci.", languages="*>fr")),
    ]
    assert storage.put_tm("alice", records, max_entries=10) == (3, 0, 0)
    everything = storage.tm_changes("alice", FR, since=None)
    assert sources(everything) == [("Bye.", "BYE.", 1), ("Hello.", "HELLO.", 1), ("Thanks.", "Merci.", 1)]
    assert everything.seq == 1
    (thanks,) = [e for e in everything.entries if e.source == "Thanks."]
    assert (thanks.origin, bool(thanks.updated_at)) == ("approved", True), "storage sets a missing date"
    assert storage.tm_changes("alice", FR, since=1) == TmChanges([], 1)
    create(storage)  # a step's entries are the next write, in its commit
    step(storage, memory=[tm("Later.", at=1).entry, tm("Hello.", "Salut.", at=2).entry], memory_added=1)
    storage.put_tm("alice", [keyed("Bye.", "Au revoir.", at=3)], max_entries=10)
    # Another instance over the same store (another process) reads the same numbers; so does the writer.
    for reader in (storage, same_store(storage)):
        assert sources(reader.tm_changes("alice", FR, since=1)) == [
            ("Bye.", "Au revoir.", 3),
            ("Hello.", "Salut.", 2),
            ("Later.", "LATER.", 2),
        ]
        assert reader.tm_changes("alice", FR, since=2) == TmChanges([tm("Bye.", "Au revoir.", at=3).entry], 3)
        assert reader.tm_changes("alice", FR, since=3) == TmChanges([], 3)
        assert sources(reader.tm_changes("alice", FR, since=0)) == sources(reader.tm_changes("alice", FR, since=None))
        assert reader.tm_changes("bob", FR, since=None) == TmChanges([], 0) == reader.tm_changes("bob", FR, since=2)


def test_the_memory_snapshot_numbers_the_translation_memorys_writes(storage: Storage) -> None:
    def seq() -> int:
        return storage.memory_snapshot("alice", corrections=0, tm_pair=FR).tm_seq

    assert seq() == 0
    assert storage.put_tm("alice", [keyed("a"), keyed("b"), keyed("c")], max_entries=2) == (2, 0, 1)
    assert seq() == 1, "a put of three entries is one write"
    assert storage.put_tm("alice", [keyed("a", "A2")], max_entries=2) == (0, 1, 0)
    create(storage, messages=users(0, 1))  # a step without entries writes nothing of the memory
    loaded = step(storage, memory=[tm("a", "A3").entry, tm("b", "B3").entry], memory_added=0)
    with pytest.raises(ConflictError):  # a step that fails writes nothing, and numbers nothing
        storage.commit(loaded.token, StepEffects(memory=[tm("e").entry], memory_added=1))
    assert seq() == 3 == storage.tm_changes("alice", FR, since=None).seq
    assert {e.source: e.written for e in storage.tm_changes("alice", FR, since=None).entries} == {"a": 3, "b": 3}
    assert storage.memory_snapshot("bob", corrections=0, tm_pair=FR).tm_seq == 0, "each owner numbers its own writes"


def test_an_older_dated_import_replaces_a_steps_approval_of_the_same_source(storage: Storage) -> None:
    create(storage, memory=[tm("Save.", "Enregistrez.", at=50).entry], memory_added=1)
    # A TMX from long before the approval: its date is data, the write's number decides.
    assert same_store(storage).put_tm("alice", [keyed("Save.", "Sauvegardez.", at=1)], max_entries=10) == (0, 1, 0)
    found = storage.tm_changes("alice", FR, since=None)
    assert [(e.target, e.updated_at, e.written) for e in found.entries] == [("Sauvegardez.", second(1), 2)]
    # And a step after the import replaces it in turn, whatever its date.
    step(storage, memory=[tm("Save.", "Enregistre.", at=0).entry], memory_added=0)
    assert [e.target for e in storage.tm_changes("alice", FR, since=2).entries] == ["Enregistre."]


def test_tm_updates_in_place(storage: Storage) -> None:
    storage.put_tm("alice", [tm("old", at=1), tm("s2", at=2), tm("s3", at=3)], max_entries=10)
    assert storage.put_tm("alice", [tm("old", "NEW", at=9)], max_entries=10) == (0, 1, 0)
    found = storage.tm_changes("alice", FR, since=None).entries
    assert sorted((e.source, e.target) for e in found) == [("old", "NEW"), ("s2", "S2"), ("s3", "S3")]
    entries = storage.tm_changes("alice", FR, since=None).entries
    assert sorted((e.source, e.target, e.updated_at) for e in entries) == [
        ("old", "NEW", second(9)),
        ("s2", "S2", second(2)),
        ("s3", "S3", second(3)),
    ]
    # One hash twice in a put: the later record wins, and updates the earlier.
    assert storage.put_tm("alice", [tm("x", "X1"), tm("x", "X2")], max_entries=10) == (1, 1, 0)
    assert [e.target for e in storage.tm_changes("alice", FR, since=None).entries if e.source == "x"] == ["X2"]


def test_tm_cap_per_owner_and_pair(storage: Storage) -> None:
    assert storage.put_tm("alice", [tm(f"s{i}") for i in range(5)], max_entries=3) == (3, 0, 2)
    assert storage.put_tm("alice", [tm("s0", "again"), tm("new")], max_entries=3) == (0, 1, 1), "updates need no room"
    assert storage.put_tm("bob", [tm("s0")], max_entries=3) == (1, 0, 0), "each owner has its own room"
    assert sorted(e.source for e in storage.tm_changes("alice", FR, since=None).entries) == ["s0", "s1", "s2"]
    assert storage.put_tm("alice", [tm("s9")], max_entries=4) == (1, 0, 0)
    german = [tm_record(TmEntry(source=f"s{i}", target="S", languages="*>de")) for i in range(4)]
    assert storage.put_tm("alice", german, max_entries=4) == (4, 0, 0), "each pair has its own room"


def test_tm_cap_holds_under_concurrent_puts(storage: Storage) -> None:
    atomic_requests(storage)

    def put(i: int) -> tuple[int, int, int]:
        return storage.put_tm("alice", [tm(f"s{i:02d}"), tm("shared", f"T{i}")], max_entries=10)

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = list(pool.map(put, range(20)))
    added, updated, skipped = (sum(o[k] for o in outcomes) for k in range(3))
    assert added == 10 and added + updated + skipped == 40
    entries = storage.tm_changes("alice", FR, since=None).entries
    assert len(entries) == 10 and len({e.source for e in entries}) == 10, "each entry once"
    # Each put is one numbered write, in the order they committed: the last one's "shared" stands.
    assert storage.memory_snapshot("alice", corrections=0, tm_pair=FR).tm_seq == 20
    (shared,) = [e for e in entries if e.source == "shared"]
    assert shared.written == 20 and {e.written for e in entries} <= set(range(1, 21))


@pytest.mark.slow
def test_tm_puts_larger_than_one_transaction(storage: Storage) -> None:
    # 110 records: more than one read (98 entries) and one transaction (100 actions) hold.
    records = [tm(f"s{i:03d}", at=i % 60) for i in range(110)]
    assert storage.put_tm("alice", records, max_entries=100) == (100, 0, 10)
    updated = [tm(f"s{i:03d}", "new", at=59) for i in range(110)]
    assert storage.put_tm("alice", updated, max_entries=100) == (0, 100, 10)
    found = storage.tm_changes("alice", FR, since=None).entries
    assert len(found) == 100 and {e.target for e in found} == {"new"}


def test_each_language_pair_is_its_own_write_log(storage: Storage) -> None:
    """A project's memory by pair: a put of two pairs numbers each pair's write apart, a step writes its
    pair's next number, the pairs list names them, and the export reads every pair; nothing of one
    pair is read for another."""

    def rec(source: str, pair: str, target: str = "T") -> TmRecord:
        return tm_record(TmEntry(source=source, target=target, languages=pair))

    assert storage.tm_pairs("alice") == [] and storage.tm_entries("alice") == []
    mixed = [rec("Open.", "*>fr"), rec("Open.", "*>de"), rec("Save.", "*>de"), rec("Open.", "*>ja", " ")]
    assert storage.put_tm("alice", mixed, max_entries=10) == (3, 0, 1)
    assert storage.tm_pairs("alice") == ["*>de", "*>fr"], "a pair with nothing stored is not listed"
    assert storage.tm_changes("alice", "*>de", since=None).seq == 1 == storage.tm_changes("alice", FR, since=None).seq
    create(storage)
    step(storage, memory=[rec("Close.", "*>de").entry], memory_added=1)
    assert [e.source for e in storage.tm_changes("alice", "*>de", since=1).entries] == ["Close."]
    assert storage.tm_changes("alice", FR, since=1) == TmChanges([], 1), "the French log did not move"
    assert storage.memory_snapshot("alice", corrections=0, tm_pair="*>de").tm_seq == 2
    assert storage.memory_snapshot("alice", corrections=0, tm_pair=FR).tm_seq == 1
    assert storage.memory_snapshot("alice", corrections=0).tm_seq == 0, "no pair asked"
    assert sorted((e.languages, e.source) for e in same_store(storage).tm_entries("alice")) == [
        ("*>de", "Close."),
        ("*>de", "Open."),
        ("*>de", "Save."),
        ("*>fr", "Open."),
    ]
    assert storage.tm_pairs("bob") == [] and storage.tm_changes("bob", "*>de", since=None) == TmChanges([], 0)


def test_a_steps_entries_are_of_one_pair(storage: Storage) -> None:
    create(storage)
    two = [
        TmEntry(source="Open.", target="Ouvrir", languages="*>fr"),
        TmEntry(source="Open.", target="Öffnen", languages="*>de"),
    ]
    loaded = storage.load_step(SID, window=10)
    with pytest.raises(InvalidRequestError, match="one language pair"):
        storage.commit(loaded.token, StepEffects(memory=two, memory_added=2))
    assert storage.tm_pairs("alice") == [] and storage.load_step(SID, window=10).token == loaded.token


# -- DynamoDB's own limits (what the other backends need not share) -----------------------------------


def test_a_transaction_over_the_action_limit_is_too_large(storage: Storage) -> None:
    from storage.dynamodb import DynamoDBSessionStorage

    if not isinstance(storage, DynamoDBSessionStorage):
        pytest.skip("DynamoDB's transaction limit")
    create(storage)
    with pytest.raises(TooLargeError, match="100"):
        step(storage, messages=users(0, 101))
    assert storage.get_session(SID).message_count == 0
    # META, 98 messages, the owner's corrections and the file's review log make 101 actions.
    correction = Correction(file_id=FID, status="reject", source="s", proposal="p", final=None, reason="no")
    with pytest.raises(TooLargeError, match="101"):
        step(storage, messages=users(0, 98), corrections=[correction])
    assert storage.get_session(SID).message_count == 0
    assert storage.recent_corrections("alice", limit=5) == []


@pytest.mark.parametrize(
    "response",
    [
        {"Error": {"Code": "ValidationException", "Message": "Item size has exceeded the maximum allowed size"}},
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [
                {"Code": "None"},
                {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"},
            ],
        },
    ],
)
def test_the_stores_size_errors_are_too_large(response: dict[str, object]) -> None:
    from botocore.exceptions import ClientError

    from storage.dynamodb_table import errors as _errors

    with pytest.raises(TooLargeError), _errors():
        raise ClientError(response, "TransactWriteItems")


def test_a_units_estimate_and_auto_mark_are_kept_and_a_revision_replaces_them(storage: Storage) -> None:
    create(storage, messages=[user("go"), calls("a")])
    add_file(storage, "One. Two. Three.")
    written = [
        replace(unit(0, 4, "a"), estimate=90, auto=True),
        replace(unit(5, 9, "a"), estimate=40),
        unit(10, 16, "a"),
    ]
    step(storage, verdicts=[approve("a")], units=written, coverage={FID: ((0, 17),)})
    units = storage.list_units(SID, FID)
    assert [(u.estimate, u.auto) for u in units] == [(90, True), (40, False), (None, False)]
    step(storage, revisions=[replace(revision(0, 4, "Un.", "r1"), estimate=90, auto=False)])
    assert [(u.estimate, u.auto) for u in storage.list_units(SID, FID)] == [(90, False), (40, False), (None, False)]


def test_the_auto_approval_threshold_is_kept_from_creation_changed_and_cleared(storage: Storage) -> None:
    create(storage, messages=[user("go")], auto_approve=85)
    assert storage.get_session(SID).auto_approve == 85
    assert storage.load_step(SID, window=1).auto_approve == 85, "a step is shown it"
    changed = storage.update_session(SID, auto_approve=95)
    assert changed.auto_approve == 95 and same_store(storage).get_session(SID) == changed
    assert storage.update_session(SID, model="x").auto_approve == 95, "left as it is"
    assert storage.update_session(SID, auto_approve=None).auto_approve is None
