"""The DynamoDB layout's promises beyond the contract: a session's mutable state is one item (META),
everything else is written once; a step's load is two Queries side by side and its commit one
TransactWriteItems; a read that meets a commit half applied sees it, reads again, refuses a tear that
lasts and never serves one; the owner's translation memory's writes are numbered by one conditional
head, whoever wins a race."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from agent_core.effects import Correction, StepEffects
from agent_core.tm import TmEntry
from storage.dynamodb import NEWER, DynamoDBSessionStorage
from storage.errors import ConflictError, StorageUnavailableError
from storage.interface import tm_record
from tests.aws import DynamoRequests
from tests.storage_cases import (
    FID,
    SID,
    add_file,
    approve,
    calls,
    covering,
    create,
    refine,
    returns,
    revision,
    step,
    texts,
    tm,
    unit,
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


def items(storage: DynamoDBSessionStorage, pk: str, prefix: str = "") -> list[dict[str, Any]]:
    """The items of one partition whose sort keys begin with `prefix`, in key order."""
    pages = storage.client.get_paginator("query").paginate(
        TableName=storage.table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :k)" if prefix else "pk = :p",
        ExpressionAttributeValues={":p": {"S": pk}, **({":k": {"S": prefix}} if prefix else {})},
        ConsistentRead=True,
    )
    return [i for page in pages for i in page["Items"]]


def delete(storage: DynamoDBSessionStorage, pk: str, sk: str) -> dict[str, Any]:
    """Delete one item and return it (to put back: a commit not yet applied to it)."""
    key = {"pk": {"S": pk}, "sk": {"S": sk}}
    item: dict[str, Any] = storage.client.get_item(TableName=storage.table, Key=key)["Item"]
    storage.client.delete_item(TableName=storage.table, Key=key)
    return item


def review_rounds(storage: DynamoDBSessionStorage, rounds: int) -> None:
    """Rounds of: a response with calls, the verdicts on them, their returns (as a session runs)."""
    for r in range(rounds):
        ids = [f"c{r}_0", f"c{r}_1"]
        step(storage, messages=[calls(*ids)])
        step(storage, verdicts=[approve(ids[0]), refine(ids[1], f"edit {r}")])
        step(storage, messages=[returns(*ids), *users(100 + r, 1)])


@pytest.mark.slow
def test_a_step_loads_in_two_queries_side_by_side_and_commits_in_one_transaction(
    storage: DynamoDBSessionStorage, counted: DynamoRequests
) -> None:
    create(storage, messages=users(0, 3))
    review_rounds(storage, 30)  # 120 messages: the load reads the window, not the history
    counted.take()
    snapshot = storage.load_step(SID, window=WINDOW)
    assert counted.take() == {"Query": 2}
    storage.memory_snapshot("alice", corrections=8)  # the step's read of the owner's memory, beside its load
    assert counted.take() == {"Query": 1}
    storage.memory_snapshot("alice", corrections=8, tm_pair="*>fr")  # with its pair's head, side by side
    assert counted.take() == {"Query": 1, "GetItem": 1}
    assert len(snapshot.window) == WINDOW and not snapshot.window_complete
    storage.commit(
        snapshot.token, StepEffects(messages=[calls("x")], memory=[TmEntry(source="a", target="b", languages="*>fr")])
    )
    assert counted.take() == {"TransactWriteItems": 1}, "the step's translation memory is in its transaction"


def test_only_meta_the_pairs_head_and_a_sources_latest_entry_are_written_twice(
    storage: DynamoDBSessionStorage,
) -> None:
    puts: Counter[tuple[str, str]] = Counter()

    def seen(params: dict[str, Any], **_: Any) -> None:
        for action in params.get("TransactItems", []):
            for body in action.values():
                item = body.get("Item") or body.get("Key")
                puts[(item["pk"]["S"].split("#")[0], item["sk"]["S"])] += 1

    storage.client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", seen)
    create(storage, messages=users(0, 1))
    add_file(storage, "One. Two. Three.\n")
    step(storage, messages=[calls("c1")], memory=[TmEntry(source="One.", target="Un.", languages="*>fr")])
    correction = Correction(file_id=FID, status="refined", source="One.", proposal="Un", final="Un.", reason=None)
    step(
        storage,
        verdicts=[refine("c1", "Un.")],
        units=[unit(0, 4)],
        coverage=covering(unit(0, 4)),
        corrections=[correction],
    )
    step(
        storage,
        revisions=[revision(0, 4, "Un !", "r1")],
        memory=[TmEntry(source="One.", target="Un !", languages="*>fr")],
    )
    step(storage, messages=[returns("c1")])
    again = {key for key, count in puts.items() if count > 1}
    entries = {key for key in again if key[1].startswith("E#")}
    assert again - entries == {("S", "META"), ("T", "HEAD")}, again
    assert len(entries) == 1, "the source's entry is its latest write (its log, the write itself, stays)"


def test_messages_verdicts_and_units_are_stored_compressed(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    add_file(storage, "One. Two.\n")
    step(storage, messages=[calls("c1")])
    step(storage, verdicts=[approve("c1")], units=[unit(0, 4)], coverage=covering(unit(0, 4)))
    for item in items(storage, f"S#{SID}"):
        if item["sk"]["S"][:2] in ("M#", "R#", "U#"):
            assert set(item) <= {"pk", "sk", "packed", "writtenAt"} and "B" in item["packed"], item["sk"]


def test_a_read_that_meets_a_commit_half_applied_refuses_it(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("c1")])
    step(storage, verdicts=[approve("c1")])
    reader = DynamoDBSessionStorage(storage.client, table_name=storage.table)  # holds no message
    message = delete(storage, f"S#{SID}", "M#0000000002")  # META counts it; its item not applied yet
    with pytest.raises(ConflictError, match="being written"):
        reader.load_step(SID, window=WINDOW)
    storage.client.put_item(TableName=storage.table, Item=message)
    (record,) = items(storage, f"S#{SID}", "R#")
    delete(storage, f"S#{SID}", record["sk"]["S"])  # META counts the record; it is not there yet
    with pytest.raises(ConflictError, match="being written"):
        reader.load_step(SID, window=WINDOW)
    storage.client.put_item(TableName=storage.table, Item=record)
    assert [v.tool.call_id for v in storage.load_step(SID, window=WINDOW).copilot_responses] == ["c1"]


def test_a_read_that_meets_a_commit_half_applied_reads_again_once_it_is_applied(
    storage: DynamoDBSessionStorage,
) -> None:
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("c1")])
    client = boto3.client("dynamodb", region_name="us-east-1")
    reader = DynamoDBSessionStorage(client, table_name=storage.table)
    message = delete(storage, f"S#{SID}", "M#0000000002")
    queries: list[str] = []

    def apply_the_rest(**_: Any) -> None:  # the transaction's last item lands after the first load
        queries.append("Query")
        if len(queries) == 3:  # META and messages, verdict records, the range still missing
            storage.client.put_item(TableName=storage.table, Item=message)

    client.meta.events.register("after-call.dynamodb.Query", apply_the_rest)
    snapshot = reader.load_step(SID, window=WINDOW)
    assert len(snapshot.window) == 3 and len(queries) == 5  # the torn first load, then a whole one


def test_items_of_a_commit_newer_than_the_meta_read_are_left_out(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("c1")])
    before = storage.load_step(SID, window=WINDOW)
    meta = items(storage, f"S#{SID}", "META")[0]
    step(storage, messages=[returns("c1"), *users(5, 1)], verdicts=[approve("c1")])
    storage.client.put_item(TableName=storage.table, Item=meta)  # META as the read met it, the rest applied
    after = storage.load_step(SID, window=WINDOW)
    assert after.token == before.token
    assert texts(after.window) == texts(before.window) and list(after.copilot_responses) == []


def test_the_verdicts_of_responses_with_many_records_are_read_on(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    step(storage, messages=[calls("a", "b", "c", "d", "e", "f")])
    for call in "abcdef":  # six commits, six records on one response: more than the load reads at first
        step(storage, verdicts=[approve(call)])
    step(storage, verdicts=[refine("a", "again")])
    snapshot = storage.load_step(SID, window=WINDOW)
    assert [v.tool.call_id for v in snapshot.copilot_responses] == list("abcdef")
    assert snapshot.copilot_responses[0].translated_string == "again", "the later record replaces the earlier"
    assert storage.get_session(SID).copilot_response_count == 6


def test_an_upload_during_a_step_fails_neither(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    loaded = storage.load_step(SID, window=WINDOW)
    add_file(storage, "Uploaded meanwhile.\n")
    storage.commit(loaded.token, StepEffects(messages=users(1, 1)))
    assert [f.file_id for f in storage.load_step(SID, window=WINDOW).files] == [FID]


def test_a_failed_transaction_leaves_the_session_and_the_memory_as_they_were(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    before = storage.load_step(SID, window=WINDOW)

    def fail(**_: Any) -> None:
        raise StorageUnavailableError("injected")

    storage.client.meta.events.register("before-send.dynamodb.TransactWriteItems", fail, unique_id="fail")
    effects = StepEffects(messages=users(1, 1), memory=[TmEntry(source="x", target="X", languages="*>fr")])
    with pytest.raises(StorageUnavailableError):
        storage.commit(before.token, effects)
    storage.client.meta.events.unregister("before-send.dynamodb.TransactWriteItems", unique_id="fail")
    assert storage.load_step(SID, window=WINDOW).token == before.token
    assert (
        storage.tm_changes("alice", "*>fr", since=None).entries == []
        and storage.memory_snapshot("alice", corrections=1, tm_pair="*>fr").tm_seq == 0
        and storage.tm_pairs("alice") == []
    )


def test_a_step_whose_owners_memory_moved_on_takes_the_next_number(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 1))
    storage.memory_snapshot("alice", corrections=0, tm_pair="*>fr")  # the step's read of the owner's memory: head 0
    loaded = storage.load_step(SID, window=WINDOW)
    other = DynamoDBSessionStorage(storage.client, table_name=storage.table)
    other.put_tm("alice", [tm("imported", "importé")], max_entries=100)  # write 1, meanwhile
    storage.commit(
        loaded.token, StepEffects(messages=users(1, 1), memory=[TmEntry(source="s", target="S", languages="*>fr")])
    )
    read = storage.tm_changes("alice", "*>fr", since=None)
    assert read.seq == 2 and {e.source: e.written for e in read.entries} == {"imported": 1, "s": 2}
    assert [e.source for e in storage.tm_changes("alice", "*>fr", since=1).entries] == ["s"]


def test_a_replica_whose_logs_expired_reads_the_entries(storage: DynamoDBSessionStorage) -> None:
    for k in range(3):
        storage.put_tm("alice", [tm(f"s{k}", f"S{k}")], max_entries=100)
    for log in items(storage, "T#alice#*>fr", "L#")[:2]:  # DynamoDB's TTL removed the oldest logs
        delete(storage, "T#alice#*>fr", log["sk"]["S"])
    read = storage.tm_changes("alice", "*>fr", since=0)
    assert read.seq == 3 and sorted(e.source for e in read.entries) == ["s0", "s1", "s2"]
    assert [e.source for e in storage.tm_changes("alice", "*>fr", since=2).entries] == ["s2"], "the logs serve"
    assert storage.tm_changes("alice", "*>fr", since=3).entries == []


def test_each_language_pair_is_a_partition_of_its_own(storage: DynamoDBSessionStorage) -> None:
    """A project's writes in 30 languages: each pair's entries, log and head in its own partition, the
    owner's partition holding only the list of pairs (written by each pair's first write)."""
    written: Counter[str] = Counter()

    def seen(params: dict[str, Any], **_: Any) -> None:
        for action in params.get("TransactItems", []):
            for body in action.values():
                written[(body.get("Item") or body.get("Key"))["pk"]["S"]] += 1

    storage.client.meta.events.register("provide-client-params.dynamodb.TransactWriteItems", seen)
    pairs = [f"*>l{k:02d}" for k in range(30)]
    for _ in range(2):
        storage.put_tm(
            "alice", [tm_record(TmEntry(source=f"s{p}", target="T", languages=p)) for p in pairs], max_entries=9
        )
    assert written.pop("O#alice") == 30, "the pairs list: once a pair"
    assert written == {f"T#alice#{p}": 6 for p in pairs}, "each pair: its head, its log and its entry, twice"
    assert storage.tm_pairs("alice") == pairs
    assert [i["sk"]["S"] for i in items(storage, "T#alice#*>l07", "")] == [
        "E#" + tm_record(TmEntry(source="s*>l07", target="T", languages="*>l07")).source_hash,
        "HEAD",
        "L#000000000001",
        "L#000000000002",
    ]


def test_a_process_reads_only_the_messages_it_does_not_hold(storage: DynamoDBSessionStorage) -> None:
    returned: list[int] = []

    def seen(parsed: dict[str, Any], **_: Any) -> None:
        returned.append(sum(i["sk"]["S"].startswith("M#") for i in parsed.get("Items", [])))

    create(storage, messages=users(0, 3))
    review_rounds(storage, 10)
    other = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=storage.table)
    storage.client.meta.events.register("after-call.dynamodb.Query", seen)
    assert storage.load_step(SID, window=WINDOW).window == other.load_step(SID, window=WINDOW).window
    assert sorted(returned) == [0, NEWER], "the process that committed the latest step holds the window"
    returned.clear()
    for k in range(3):  # another process steps the session: this one holds none of its messages
        step(other, messages=users(200 + k, 2))
    mine, theirs = storage.load_step(SID, window=WINDOW), other.load_step(SID, window=WINDOW)
    assert mine.window == theirs.window and texts(mine.window)[-1] == texts(users(202, 2))[-1]
    assert sorted(returned) == [0, 2, 4], "the six messages committed elsewhere: four in the first page, two in a range"
