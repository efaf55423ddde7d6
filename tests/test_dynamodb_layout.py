"""The DynamoDB layout's promises beyond the contract: a step loads in one Query with the session's
hot window (storage.dynamodb_hot), or in one BatchGetItem of META and the file count in the process
that committed the session's latest step, and falls back to the buckets, with the same snapshot,
whenever the hot window lacks something: a session from before the layout, a message or verdict too
large for it, a window longer than it keeps, a response older than it."""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import boto3
import pytest

from agent_core.effects import SessionSnapshot, StepEffects, StepToken, Telemetry
from storage import dynamodb_meta
from storage.dynamodb import DynamoDBSessionStorage
from storage.dynamodb_hot import HOT, HOT_VERDICTS, SLOT_BYTES, Held
from storage.dynamodb_items import item_size
from storage.dynamodb_units import unit_item
from storage.errors import ConflictError, InvalidRequestError, NotFoundError
from tests.aws import DynamoRequests
from tests.storage_cases import (
    FID,
    SID,
    add_file,
    approve,
    calls,
    covering,
    create,
    file,
    refine,
    returns,
    revision,
    step,
    texts,
    unit,
    user,
    users,
)

WINDOW = 16
"""What agent_core's runtime asks a step to load."""


@pytest.fixture
def storage(moto_table: str) -> DynamoDBSessionStorage:
    return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)


@pytest.fixture
def counted(storage: DynamoDBSessionStorage) -> Iterator[DynamoRequests]:
    yield DynamoRequests(storage.client)


def meta(storage: DynamoDBSessionStorage, sid: str = SID) -> dict[str, Any]:
    key = {"pk": {"S": f"S#{sid}"}, "sk": {"S": "META"}}
    item: dict[str, Any] = storage.client.get_item(TableName=storage.table, Key=key, ConsistentRead=True)["Item"]
    return item


def partition(storage: DynamoDBSessionStorage, pk: str, sk_prefix: str = "") -> list[dict[str, Any]]:
    """The items of one partition (those whose sort key begins with `sk_prefix`), in key order."""
    values = {":p": {"S": pk}} | ({":k": {"S": sk_prefix}} if sk_prefix else {})
    condition = "pk = :p" + (" AND begins_with(sk, :k)" if sk_prefix else "")
    found: list[dict[str, Any]] = storage.client.query(
        TableName=storage.table, KeyConditionExpression=condition, ExpressionAttributeValues=values, ConsistentRead=True
    )["Items"]
    return found


def hot_items(storage: DynamoDBSessionStorage) -> list[str]:
    """The sort keys of the session's hot-window items."""
    return [i["sk"]["S"] for i in partition(storage, f"S#{SID}") if i["sk"]["S"].startswith(("W#", "V#"))]


def fresh(storage: DynamoDBSessionStorage) -> DynamoDBSessionStorage:
    """Another process's storage on the same table: it holds no messages yet (`hot.Held`)."""
    return DynamoDBSessionStorage(storage.client, table_name=storage.table)


def without_hot(item: dict[str, Any]) -> dict[str, Any]:
    """A META item with no `hot` mark (as a session from before the hot window has it)."""
    return dynamodb_meta.item(replace(dynamodb_meta.read(item), hot=None))


def from_buckets(storage: DynamoDBSessionStorage, window: int = WINDOW) -> SessionSnapshot:
    """The snapshot as the buckets alone give it (META's `hot` mark removed from a copy), read by a
    process that holds no messages."""
    saved = meta(storage)
    storage.client.put_item(TableName=storage.table, Item=without_hot(saved))
    try:
        return fresh(storage).load_step(SID, window=window)
    finally:
        storage.client.put_item(TableName=storage.table, Item=saved)


def same(a: SessionSnapshot, b: SessionSnapshot) -> None:
    assert a.token == b.token
    assert list(a.window) == list(b.window) and a.window_complete == b.window_complete
    assert list(a.copilot_responses) == list(b.copilot_responses)
    assert list(a.previous_verdicts) == list(b.previous_verdicts)


def review_rounds(storage: DynamoDBSessionStorage, rounds: int, *, calls_each: int = 2) -> None:
    """Rounds of: a response with calls, the verdicts on them, their returns (as a session runs)."""
    for r in range(rounds):
        ids = [f"c{r}_{k}" for k in range(calls_each)]
        step(storage, messages=[calls(*ids)])
        step(storage, verdicts=[approve(i) if k % 2 else refine(i, f"edit {i}") for k, i in enumerate(ids)])
        step(storage, messages=[returns(*ids), *users(100 + r, 1)])


def test_a_step_loads_in_one_query_and_matches_the_buckets(
    storage: DynamoDBSessionStorage, counted: DynamoRequests
) -> None:
    create(storage, messages=users(0, 3))
    review_rounds(storage, 9)
    step(storage, messages=[calls("x1", "x2")])
    step(storage, verdicts=[approve("x1")])
    counted.take()
    loaded = fresh(storage).load_step(SID, window=WINDOW)  # another process: it holds nothing of the session
    assert counted.take() == {"Query": 1}
    assert [v.tool.call_id for v in loaded.copilot_responses] == ["x1"]
    assert {v.tool.call_id for v in loaded.previous_verdicts} == {"c8_0", "c8_1"}
    same(loaded, from_buckets(storage))
    counted.take()
    same(storage.load_step(SID, window=WINDOW), loaded)
    assert counted.take() == {"BatchGetItem": 1}, "the process that committed it: META and the file count"


def test_a_held_version_is_used_only_while_it_is_the_sessions(
    storage: DynamoDBSessionStorage, counted: DynamoRequests
) -> None:
    """The process that committed the latest step reads META and the file count only; a commit
    elsewhere, a new file, a session deleted or created again under its id each send it to the Query."""
    create(storage, messages=users(0, 2))
    add_file(storage)
    step(storage, messages=[calls("a", "b")])
    other = fresh(storage)
    step(other, verdicts=[approve("a")], units=[unit(0, 5, "a")], coverage=covering(unit(0, 5, "a")))
    counted.take()
    loaded = storage.load_step(SID, window=WINDOW)  # committed elsewhere since: read again
    assert counted.take() == {"BatchGetItem": 1, "Query": 1}
    same(loaded, fresh(storage).load_step(SID, window=WINDOW))
    step(other, messages=[returns("a"), calls("c")])
    counted.take()
    loaded = storage.load_step(SID, window=WINDOW)  # stepped elsewhere lately: the Query at once
    assert counted.take() == {"Query": 2}, "the Query, then the slots of the messages committed elsewhere"
    step(storage, verdicts=[approve("b")])  # its load (the Query) finds the version held is the session's
    counted.take()
    same(storage.load_step(SID, window=WINDOW), fresh(storage).load_step(SID, window=WINDOW))
    assert counted.take()["BatchGetItem"] == 1, "its own commit's version: META and the file count again"
    add_file(storage, "Second file.", "f_" + "1" * 32)
    counted.take()
    loaded = storage.load_step(SID, window=WINDOW)  # uploaded since: no new version, one more file
    assert counted.take() == {"BatchGetItem": 1, "Query": 1}
    assert [f.file_id for f in loaded.files] == [FID, "f_" + "1" * 32]
    storage.delete_session(SID)
    create(fresh(storage), messages=users(0, 2))  # another session under the same id
    assert texts(storage.load_step(SID, window=WINDOW).window) == ["m0", "m1"]
    storage.delete_session(SID)
    with pytest.raises(NotFoundError):
        storage.load_step(SID, window=WINDOW)


def test_the_hot_window_keeps_the_verdicts_of_the_latest_two_responses_only(
    storage: DynamoDBSessionStorage,
) -> None:
    create(storage, messages=users(0, 1))
    review_rounds(storage, 6, calls_each=20)  # responses at 1, 4, … 16
    kept = hot_items(storage)
    assert [k for k in kept if k.startswith("V#")] == ["V#0000000013", "V#0000000016"]
    assert len([k for k in kept if k.startswith("W#")]) == HOT
    assert item_size(meta(storage)) < 4_000, "META stays small: each step's write of it is cheap"


def test_a_session_from_before_the_hot_window_loads_from_the_buckets(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    review_rounds(storage, 2)
    storage.client.put_item(TableName=storage.table, Item=without_hot(meta(storage)))  # as the previous layout left it
    expected = from_buckets(storage)
    same(fresh(storage).load_step(SID, window=WINDOW), expected)
    step(fresh(storage), messages=[calls("y1")])  # the first commit since: slots from here on
    assert dynamodb_meta.read(meta(storage)).hot == expected.token.message_count
    step(storage, verdicts=[approve("y1")])
    review_rounds(storage, 5)
    same(fresh(storage).load_step(SID, window=WINDOW), from_buckets(storage))


def test_what_meta_cannot_hold_comes_from_the_buckets(storage: DynamoDBSessionStorage, counted: DynamoRequests) -> None:
    noise = os.urandom(SLOT_BYTES).hex()  # incompressible enough: larger than a slot
    create(storage, messages=[*users(0, 2)])
    step(storage, messages=[calls("big")])
    step(storage, verdicts=[refine("big", os.urandom(2_500).hex())])  # too large for the verdicts' item
    step(storage, messages=[returns("big"), *users(50, 1)])
    step(storage, messages=[calls(*(f"v{k}" for k in range(HOT_VERDICTS + 5)))])
    step(storage, verdicts=[approve(f"v{k}") for k in range(HOT_VERDICTS + 5)])
    same(fresh(storage).load_step(SID, window=WINDOW), from_buckets(storage))
    step(storage, messages=[returns(*(f"v{k}" for k in range(HOT_VERDICTS + 5))), users(60, 1)[0]])
    step(storage, messages=[*users(61, 1)])
    step(storage, messages=[user(noise)])
    other = fresh(storage)
    counted.take()
    loaded = other.load_step(SID, window=WINDOW)
    assert counted.take()["Query"] >= 2  # the large message's slot is empty: the bucket has it
    same(loaded, from_buckets(storage))
    assert texts(loaded.window)[-1] == noise


def test_a_message_is_stored_compressed_and_an_older_releases_read_the_same(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 3))
    bucket = partition(storage, f"S#{SID}#B#000000")
    assert [sorted(i) for i in bucket] == [["pk", "sk", "z"]] * 3
    expected = storage.list_messages(SID, cursor=None, limit=10).items
    for item in bucket[:2]:  # as a release before this one wrote them: the JSON as it is
        old = {"pk": item["pk"], "sk": item["sk"], "data": {"S": zlib.decompress(item["z"]["B"]).decode()}}
        storage.client.put_item(TableName=storage.table, Item=old)
    assert storage.list_messages(SID, cursor=None, limit=10).items == expected
    assert list(from_buckets(storage).window) == expected


def test_a_window_longer_than_meta_keeps_comes_from_the_buckets(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 40))
    step(storage, messages=users(40, 30))
    long = fresh(storage).load_step(SID, window=HOT + 10)
    assert texts(long.window) == [f"m{i}" for i in range(70 - HOT - 10, 70)]
    assert texts(storage.load_step(SID, window=HOT).window) == [f"m{i}" for i in range(70 - HOT, 70)]


class Returned:
    """The sort keys each Query returned, seen at the boto3 client."""

    def __init__(self, client: Any) -> None:
        self.queries: list[list[str]] = []
        client.meta.events.register("after-call.dynamodb.Query", self._seen)

    def _seen(self, parsed: dict[str, Any], **_: Any) -> None:
        self.queries.append([i["sk"]["S"] for i in parsed.get("Items", [])])


def test_a_process_reads_no_slot_of_the_messages_it_holds(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 3))
    review_rounds(storage, 3)
    returned = Returned(storage.client)
    held = storage.load_step(SID, window=WINDOW)
    assert returned.queries == [], "its own commit's version: META and the file count (BatchGetItem) only"
    same(held, fresh(storage).load_step(SID, window=WINDOW))
    other = fresh(storage)  # another process steps the session on: its new slots reach this one
    step(other, messages=[calls("z1", "z2")])
    returned.queries.clear()
    after = storage.load_step(SID, window=WINDOW)
    assert [k for q in returned.queries for k in q if k.startswith("W#")] == [f"W#{held.token.message_count % HOT:02d}"]
    same(after, fresh(storage).load_step(SID, window=WINDOW))
    assert texts(after.window)[-1] == "z1"


def test_a_failed_commit_leaves_nothing_held(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 3))
    stale = storage.load_step(SID, window=WINDOW)
    step(fresh(storage), messages=users(3, 2))
    with pytest.raises(ConflictError):
        storage.commit(stale.token, StepEffects(messages=[user("never stored")]))
    loaded = storage.load_step(SID, window=WINDOW)
    assert texts(loaded.window) == ["m0", "m1", "m2", "m3", "m4"]
    same(loaded, fresh(storage).load_step(SID, window=WINDOW))


def test_a_session_created_again_under_its_id_is_not_served_what_was_held(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 3))
    assert texts(storage.load_step(SID, window=WINDOW).window) == ["m0", "m1", "m2"]
    other = fresh(storage)
    other.delete_session(SID)
    again = StepToken(
        session_id=SID, owner="alice", version=0, created_at="2026-02-02T00:00:00.000+00:00", message_count=0
    )
    other.commit(again, StepEffects(messages=[user("new"), user("session")]))
    assert texts(storage.load_step(SID, window=WINDOW).window) == ["new", "session"]


def test_an_items_size_counts_its_binary_values_by_their_bytes() -> None:
    assert item_size({"pk": {"S": "S#x"}, "z": {"B": b"\x00" * 1_000}}) == 2 + 3 + 1 + 1_000


def test_what_a_process_holds_is_bounded_by_sessions_and_characters() -> None:
    held = Held(sessions=2, chars=100)

    def span(session_id: str) -> tuple[int, int] | None:
        found = held.get(session_id)
        return None if found is None else (found.first, found.end)

    held.keep("s1", "t", 0, ["a" * 10, "b" * 10])
    held.keep("s1", "t", 2, ["c" * 10])  # follows on: joined
    assert span("s1") == (0, 3)
    held.keep("s1", "t", 7, ["h"])  # a gap: in their place
    found = held.get("s1")
    assert found is not None and found.by_index() == {7: "h"} and found.created_at == "t"
    held.keep("s2", "t", 0, ["x" * 40])
    held.keep("s3", "t", 0, ["y" * 40])  # a third session: the least recently stepped goes
    assert (span("s1"), span("s2")) == (None, (0, 1))
    held.keep("s2", "t", 1, ["z" * 40])  # 120 characters held: the other session goes
    assert (span("s2"), span("s3")) == ((0, 2), None)
    held.keep("s4", "t", 0, ["w" * 101])  # more than the whole budget: not held at all
    assert span("s4") is None and span("s2") == (0, 2)
    held.keep("s2", "t", 0, [str(k) for k in range(HOT + 3)])  # the latest HOT only
    assert span("s2") == (3, HOT + 3)
    held.keep("s2", "u", HOT + 3, ["new"])  # another session under the id: what was held goes
    assert span("s2") == (HOT + 3, HOT + 4)


def test_a_listing_of_files_reads_no_slot(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 5))
    returned = Returned(fresh(storage).client)
    assert fresh(storage).load_step(SID, window=0).window == []
    assert not [k for q in returned.queries for k in q if k.startswith("W#")]


def unit_items(storage: DynamoDBSessionStorage) -> list[dict[str, Any]]:
    """The items of the file FID's first unit partition."""
    return partition(storage, f"S#{SID}#U#{FID}#00000")


def test_a_commits_units_are_one_item_and_an_older_releases_read_and_revise_the_same(
    storage: DynamoDBSessionStorage,
) -> None:
    create(storage, messages=users(0, 1))
    add_file(storage, "One. Two. Three. Four.")
    first = [unit(0, 4, "a"), unit(5, 9, "a")]
    step(storage, units=first, coverage=covering(*first))
    step(storage, units=[unit(10, 16, "b")], coverage=covering(*first, unit(10, 16)))
    assert [(i["sk"]["S"], sorted(json.loads(i["u"]["S"]))) for i in unit_items(storage)] == [
        ("0000000000", ["0", "5"]),
        ("0000000010", ["10"]),
    ]
    listed = storage.list_units(SID, FID)
    stale = storage.load_step(SID, window=WINDOW)
    step(fresh(storage), revisions=[revision(0, 4, "Zéro.")])  # another commit revises a unit of the item
    with pytest.raises(ConflictError):  # over the version (and the units) it read: refused whole
        storage.commit(stale.token, StepEffects(revisions=[revision(5, 9, "Cinq.")]))
    assert [u.text for u in storage.list_units(SID, FID)][:2] == ["Zéro.", "t5"]
    step(storage, revisions=[revision(0, 4, "Un."), revision(5, 9, "Deux.")])  # one item: put whole
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)][:2] == [(0, "Un."), (5, "Deux.")]
    # The previous release kept a commit's units as a map: they list and revise the same.
    for item, units in zip(unit_items(storage), ([unit(0, 4, "a"), unit(5, 9, "a")], [unit(10, 16, "b")]), strict=True):
        as_map = {"M": {str(u.start): {"S": json.dumps(json.loads(item["u"]["S"])[str(u.start)])} for u in units}}
        storage.client.put_item(
            TableName=storage.table, Item={k: v for k, v in item.items() if k != "u"} | {"units": as_map}
        )
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)][:2] == [(0, "Un."), (5, "Deux.")]
    step(storage, revisions=[revision(0, 4, "t0")])
    assert storage.list_units(SID, FID)[0].text == "t0" and "units" in unit_items(storage)[0]
    # A release before that wrote an item per unit: they list and revise the same.
    listed = storage.list_units(SID, FID)
    for item in unit_items(storage):
        storage.client.delete_item(TableName=storage.table, Key={"pk": item["pk"], "sk": item["sk"]})
    for u in listed:
        storage.client.put_item(TableName=storage.table, Item=unit_item(SID, u, u.updated_at))
    assert storage.list_units(SID, FID) == listed
    step(storage, revisions=[revision(5, 9, "Deux.")])
    step(storage, units=[unit(17, 22, "c")], coverage=covering(*first, unit(10, 16), unit(17, 22)))  # a new one
    step(storage, revisions=[revision(17, 22, "Quatre.")])
    assert [(u.start, u.text) for u in storage.list_units(SID, FID)] == [
        (0, "t0"),
        (5, "Deux."),
        (10, "t10"),
        (17, "Quatre."),
    ]


def verdict_items(storage: DynamoDBSessionStorage, bucket: int = 0) -> list[dict[str, Any]]:
    """The verdict items of one of the session's buckets, in key order."""
    return partition(storage, f"S#{SID}#B#{bucket:06d}", "R#")


def listed(storage: DynamoDBSessionStorage, limit: int) -> list[str]:
    """Every verdict's call id, page by page."""
    ids: list[str] = []
    cursor = None
    while True:
        page = storage.list_verdicts(SID, cursor=cursor, limit=limit)
        ids += [v.tool.call_id for v in page.items]
        if (cursor := page.next_cursor) is None:
            return ids


def test_a_commits_verdicts_are_one_item_and_single_ones_still_read(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    step(storage, messages=[calls("c1", "c2", "c3")])
    step(storage, verdicts=[approve("c2"), approve("c1")])
    step(storage, verdicts=[refine("c3", "edit")])
    assert [i["sk"]["S"] for i in verdict_items(storage)] == ["R#0000000001#~0000000002", "R#0000000001#~0000000003"]
    expected = ["c1", "c2", "c3"]
    assert [listed(storage, k) for k in (1, 2, 10)] == [expected] * 3, "pages may end inside a commit's item"
    assert [v.tool.call_id for v in from_buckets(storage).copilot_responses] == expected
    packed = verdict_items(storage)
    assert all(sorted(i) == ["createdAt", "pk", "sk", "v"] for i in packed), "one attribute for the verdicts"
    # The previous release kept a commit's verdicts as a map: they read the same.
    for item in packed:
        as_map = {"M": {call_id: {"S": data} for call_id, data in json.loads(item["v"]["S"]).items()}}
        old = {k: v for k, v in item.items() if k != "v"} | {"verdicts": as_map}
        storage.client.put_item(TableName=storage.table, Item=old)
    assert [listed(storage, k) for k in (1, 2, 10)] == [expected] * 3
    assert [v.tool.call_id for v in from_buckets(storage).copilot_responses] == expected
    # Releases before that wrote an item per verdict: they read the same.
    for item in verdict_items(storage):
        storage.client.delete_item(TableName=storage.table, Key={"pk": item["pk"], "sk": item["sk"]})
        for call_id, data in item["verdicts"]["M"].items():
            single = {"pk": item["pk"], "sk": {"S": f"R#0000000001#{call_id}"}, "data": data}
            storage.client.put_item(TableName=storage.table, Item=single | {"createdAt": item["createdAt"]})
    assert [listed(storage, k) for k in (1, 2, 10)] == [expected] * 3
    assert [v.tool.call_id for v in from_buckets(storage).copilot_responses] == expected


def test_verdicts_too_large_for_one_item_are_stored_one_per_call(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    ids = [f"big{k:02d}" for k in range(30)]
    step(storage, messages=[calls(*ids)])
    step(storage, verdicts=[refine(i, "中" * 4_990) for i in ids])  # 15 KB of UTF-8 each, 450 KB together
    assert [i["sk"]["S"] for i in verdict_items(storage)] == [f"R#0000000001#{i}" for i in ids]
    assert listed(storage, 7) == ids
    same(storage.load_step(SID, window=WINDOW), from_buckets(storage))


class Transactions:
    """The actions of every TransactWriteItems sent through a client: (kind, sort key) pairs."""

    def __init__(self, client: Any) -> None:
        self.sent: list[list[tuple[str, str]]] = []
        client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", self._seen)

    def _seen(self, params: dict[str, Any], **_: Any) -> None:
        actions = [next(iter(a.items())) for a in params["TransactItems"]]
        self.sent.append([(kind, (op.get("Key") or op.get("Item"))["sk"]["S"]) for kind, op in actions])


def session_items(storage: DynamoDBSessionStorage, sid: str) -> dict[str, dict[str, Any]]:
    """META, the files and the verdict items of a session, by sort key, without what names the session."""
    named = ("pk", "gsi1sk", "createdAt")
    found: dict[str, Any] = {
        i["sk"]["S"]: {k: v for k, v in i.items() if k not in named}
        for i in partition(storage, f"S#{sid}")
        if i["sk"]["S"].startswith(("F#", "V#"))
    }
    read = dynamodb_meta.read(meta(storage, sid))
    found["META"] = replace(read, record=replace(read.record, session_id="", created_at="", updated_at=""))
    return found


def test_a_commit_puts_whole_what_its_step_loaded_and_reads_it_again_if_the_process_no_longer_holds_it(
    storage: DynamoDBSessionStorage,
) -> None:
    """META, a file's coverage and a verdict item are put whole over the version the step loaded:
    no update expression (moto, like botocore, charges by expression and attribute). A process that
    holds no longer what the step loaded (here: another one, before it committed a version itself)
    reads it again first; both leave the same items."""
    sent = Transactions(storage.client)
    counted = DynamoRequests(storage.client)
    other = fresh(storage)
    spent = Telemetry(steps=1, model_requests=1, input_tokens=900, output_tokens=40, model_ms=700, cached_tokens=300)
    for sid, committer, reads in (("s_" + "3" * 32, storage, 0), ("s_" + "4" * 32, other, 1)):
        create(storage, sid, messages=users(0, 2), user_inputs=["Translate."])
        storage.add_file(sid, file(FID, "Hello world. Bye.\n"), "Hello world. Bye.\n", max_files=20)
        rounds: list[dict[str, Any]] = [
            {"messages": [calls("a", "b")], "telemetry": spent, "queued_inputs": ["Faster."]},
            {"verdicts": [approve("a")], "units": [unit(0, 12, "a")], "coverage": covering(unit(0, 12, "a"))},
            {"verdicts": [approve("b")], "units": [unit(13, 17, "b")], "coverage": covering(unit(0, 12), unit(13, 17))},
            {"messages": [returns("a", "b"), calls("c")], "telemetry": spent, "hidden_messages": 1},
        ]
        sent.sent.clear()
        for k, effects in enumerate(rounds):
            loaded = storage.load_step(sid, window=WINDOW)
            counted.take()
            committer.commit(loaded.token, StepEffects(**effects))
            # The other process reads before its first commit only: then it holds what it committed.
            expected = {"Query": 1, "TransactWriteItems": 1} if reads and k == 0 else {"TransactWriteItems": 1}
            assert counted.take() == expected
        kinds = {sk: kind for tx in sent.sent for kind, sk in tx if sk.startswith(("META", "F#", "V#"))}
        assert kinds == {"META": "Put", f"F#{FID}": "Put", "V#0000000002": "Put"}
    first, second = (session_items(storage, "s_" + c * 32) for c in "34")
    assert first == second
    assert storage.get_session("s_" + "3" * 32).telemetry == Telemetry(
        steps=2, model_requests=2, input_tokens=1800, output_tokens=80, model_ms=1400, cached_tokens=600
    )


def test_a_stale_token_puts_nothing_over_a_newer_version(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    add_file(storage)
    stale = storage.load_step(SID, window=WINDOW)
    step(fresh(storage), messages=users(2, 1), units=[unit(0, 5)], coverage=covering(unit(0, 5)))
    before = session_items(storage, SID)
    with pytest.raises(ConflictError):
        storage.commit(stale.token, StepEffects(units=[unit(6, 11)], coverage=covering(unit(6, 11))))
    assert session_items(storage, SID) == before


def test_an_upload_during_a_step_fails_neither_and_is_counted(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    add_file(storage)
    loaded = storage.load_step(SID, window=WINDOW)
    add_file(storage, "Second file.", "f_" + "5" * 32, max_files=3)
    storage.commit(loaded.token, StepEffects(messages=users(2, 1), units=[unit(0, 5)], coverage=covering(unit(0, 5))))
    add_file(storage, "Third file.", "f_" + "6" * 32, max_files=3)
    with pytest.raises(InvalidRequestError):
        add_file(storage, "Fourth file.", "f_" + "7" * 32, max_files=3)
    assert len(storage.load_step(SID, window=WINDOW).files) == 3
    assert "fileCount" not in meta(storage), "META is written by steps only"


def test_a_session_of_an_older_release_counts_its_files_on_from_meta(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    add_file(storage)
    counter = {"pk": {"S": f"S#{SID}"}, "sk": {"S": "COUNT#files"}}
    storage.client.delete_item(TableName=storage.table, Key=counter)  # as an older release left it:
    storage.client.put_item(TableName=storage.table, Item=meta(storage) | {"fileCount": {"N": "2"}})  # 2 files
    add_file(storage, "Another file.", "f_" + "5" * 32, max_files=3)
    with pytest.raises(InvalidRequestError):
        add_file(storage, "One too many.", "f_" + "6" * 32, max_files=3)
    storage.client.delete_item(TableName=storage.table, Key=counter)  # an older release's session at its cap
    storage.client.put_item(TableName=storage.table, Item=meta(storage) | {"fileCount": {"N": "3"}})
    with pytest.raises(InvalidRequestError):
        add_file(storage, "Over the cap.", "f_" + "7" * 32, max_files=3)
    assert len(storage.load_step(SID, window=WINDOW).files) == 2


def test_the_slots_of_an_older_release_are_read_by_nothing_and_deleted_by_the_next_commit(
    storage: DynamoDBSessionStorage,
) -> None:
    create(storage, messages=users(0, 3))
    review_rounds(storage, 3)
    for item in partition(storage, f"S#{SID}", "W#"):  # as a release before this one kept them
        storage.client.delete_item(TableName=storage.table, Key={"pk": item["pk"], "sk": item["sk"]})
        old = item | {"sk": {"S": "H#" + item["sk"]["S"][2:]}, "d": {"B": zlib.compress(b'"not read"')}}
        storage.client.put_item(TableName=storage.table, Item=old)
    other = fresh(storage)
    same(other.load_step(SID, window=WINDOW), from_buckets(storage))
    step(other, messages=[calls("n1")])
    assert hot_items(storage) and not partition(storage, f"S#{SID}", "H#")
    same(fresh(storage).load_step(SID, window=WINDOW), from_buckets(storage))


def test_a_meta_of_an_older_release_reads_the_same_and_the_next_commit_packs_it(
    storage: DynamoDBSessionStorage,
) -> None:
    spent = Telemetry(steps=1, model_requests=1, input_tokens=500, output_tokens=20, model_ms=300, cached_tokens=100)
    create(storage, messages=users(0, 2), user_inputs=["Translate."], telemetry=spent)
    add_file(storage)
    step(storage, messages=[calls("a")], queued_inputs=["Faster."], telemetry=spent, hidden_messages=1)
    record, packed = storage.get_session(SID), meta(storage)
    assert sorted(packed) == ["gsi1pk", "gsi1sk", "pk", "sk", "state", "version"]
    fields = json.loads(packed["state"]["S"])
    old = {k: v for k, v in packed.items() if k != "state"} | {  # each field an attribute, as releases before
        "owner": {"S": fields["owner"]},
        "createdAt": {"S": fields["createdAt"]},
        "updatedAt": {"S": fields["updatedAt"]},
        "messageCount": {"N": str(fields["messageCount"])},
        "hiddenMessages": {"N": str(fields["hiddenMessages"])},
        "copilotResponseCount": {"N": "0"},
        "userInputs": {"S": json.dumps(fields["userInputs"])},
        "queuedInputs": {"S": json.dumps(fields["queuedInputs"])},
        "hot": {"N": "0"},
        "schemaVersion": {"N": "2"},
        "telemetry": {"S": json.dumps([1, 1, 500, 20, 300])},  # schema 2's totals, beside the counters
        "steps": {"N": "1"},
        "modelRequests": {"N": "1"},
        "inputTokens": {"N": "500"},
        "outputTokens": {"N": "20"},
        "modelMs": {"N": "300"},
        "cachedTokens": {"N": "200"},
        "fileCount": {"N": "1"},
    }
    storage.client.put_item(TableName=storage.table, Item=old)
    assert fresh(storage).get_session(SID) == record
    same(fresh(storage).load_step(SID, window=WINDOW), storage.load_step(SID, window=WINDOW))
    step(fresh(storage), verdicts=[approve("a")], telemetry=spent)
    repacked = meta(storage)
    assert sorted(repacked) == ["fileCount", "gsi1pk", "gsi1sk", "pk", "sk", "state", "version"], "kept as it is"
    assert storage.get_session(SID).telemetry == Telemetry(
        steps=3, model_requests=3, input_tokens=1500, output_tokens=60, model_ms=900, cached_tokens=300
    )
    assert storage.get_session(SID).copilot_response_count == 1


class Torn:
    """The next `times` Queries that return the item at `key` return it as `stale` instead (None:
    not at all), as a Query read while a commit is applied can (DynamoDB reads each item as
    committed, not the partition as of one transaction)."""

    def __init__(self, client: Any, key: dict[str, Any], stale: dict[str, Any] | None, times: int) -> None:
        self.key, self.stale, self.times, self.torn = key, stale, times, 0
        client.meta.events.register("after-call.dynamodb.Query", self._seen)

    def _seen(self, parsed: dict[str, Any], **_: Any) -> None:
        items = parsed.get("Items", [])
        if self.times and any(i["pk"] == self.key["pk"] and i["sk"] == self.key["sk"] for i in items):
            same = [i["pk"] == self.key["pk"] and i["sk"] == self.key["sk"] for i in items]
            parsed["Items"] = [(self.stale if hit else i) for i, hit in zip(items, same, strict=True)]
            parsed["Items"] = [i for i in parsed["Items"] if i is not None]
            self.times -= 1
            self.torn += 1


def test_a_read_that_meets_a_commit_half_applied_reads_again(storage: DynamoDBSessionStorage) -> None:
    """A file's coverage, a verdict item or a message the latest commit wrote, read as before it,
    is read again: a step never loads coverage older than its META (a unit would be written twice)."""
    create(storage, messages=users(0, 2))
    add_file(storage)
    step(storage, messages=[calls("a", "b")])
    file_key = {"pk": {"S": f"S#{SID}"}, "sk": {"S": f"F#{FID}"}}
    before = partition(storage, f"S#{SID}", "F#")[0]
    step(storage, verdicts=[approve("a")], units=[unit(0, 5, "a")], coverage=covering(unit(0, 5, "a")))
    expected = fresh(storage).load_step(SID, window=WINDOW)
    reader = fresh(storage)
    torn = Torn(reader.client, file_key, before, times=1)
    same(reader.load_step(SID, window=WINDOW), expected)
    assert torn.torn == 1 and expected.token.covered == {FID: ((0, 6),)}
    verdicts_key = {"pk": {"S": f"S#{SID}"}, "sk": {"S": "V#0000000002"}}
    reader = fresh(storage)
    torn = Torn(reader.client, verdicts_key, None, times=2)  # the verdicts' item not read yet, twice
    same(reader.load_step(SID, window=WINDOW), expected)
    assert torn.torn == 2
    reader = fresh(storage)
    Torn(reader.client, file_key, before, times=100)  # a commit that never shows whole: a conflict
    with pytest.raises(ConflictError):
        reader.load_step(SID, window=WINDOW)


def test_a_message_of_the_latest_commit_not_read_yet_is_read_again(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 40))
    step(storage, messages=users(40, 2))
    latest = {"pk": {"S": f"S#{SID}#B#000000"}, "sk": {"S": "M#0000000041"}}
    reader = fresh(storage)
    torn = Torn(reader.client, latest, None, times=1)
    long = reader.load_step(SID, window=HOT + 10)  # longer than the hot window: from the buckets
    assert torn.torn == 1 and texts(long.window)[-1] == "m41" and len(long.window) == HOT + 10


def test_what_a_process_holds_of_its_steps_reads_is_bounded_by_bytes(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    add_file(storage)
    loaded = storage.load_step(SID, window=WINDOW)
    read = [i for i in partition(storage, f"S#{SID}") if "F#" <= i["sk"]["S"] < "W#"]  # as the step's Query
    size = sum(item_size(i) for i in read)
    held = Held(head_bytes=size)
    held.keep_head(dynamodb_meta.read(meta(storage)), read)
    assert held.head(loaded.token) is not None
    small = Held(head_bytes=size - 1)
    small.keep_head(dynamodb_meta.read(meta(storage)), read)
    assert small.head(loaded.token) is None, "too large to hold: the commit reads it again"
    storage._held = small  # a commit whose process does not hold what its step loaded still commits
    storage.commit(loaded.token, StepEffects(messages=users(2, 1)))
    assert storage.get_session(SID).message_count == 3
