"""The translation memory's journal on DynamoDB (storage.dynamodb_journal): a step's entries are one
item, in the index, read from there by other processes and merged once no reader of the index can
need them; the owner's memory is its puts' entries and its journals', the newest of each source."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import boto3
import pytest

from agent_core.tm import TmEntry, normalize, source_hash
from storage import dynamodb_journal as journal
from storage.dynamodb import DynamoDBSessionStorage
from storage.dynamodb_items import now_iso
from storage.errors import ConflictError
from storage.interface import tm_record
from tests.aws import DynamoRequests
from tests.aws import another_process as fresh
from tests.storage_cases import SID, calls, create, step, users

WINDOW = 16


@pytest.fixture
def storage(moto_table: str) -> DynamoDBSessionStorage:
    return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)


def owner_items(storage: DynamoDBSessionStorage, prefix: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = storage.client.query(
        TableName=storage.table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :k)",
        ExpressionAttributeValues={":p": {"S": "O#alice"}, ":k": {"S": prefix}},
        ConsistentRead=True,
    )["Items"]
    return found


def counter(storage: DynamoDBSessionStorage) -> dict[str, int]:
    (item,) = owner_items(storage, "N#tm")
    return {k: int(v["N"]) for k, v in item.items() if "N" in v}


def units(*texts: str, target: str = "", at: str = "") -> list[TmEntry]:
    return [TmEntry(source=t, target=target or t.upper(), languages="*>fr", updated_at=at) for t in texts]


def remember(storage: DynamoDBSessionStorage, *entries: TmEntry, added: int | None = None) -> None:
    """A step of the session SID whose reviewed units are `entries`."""
    step(storage, messages=users(100, 1), memory=list(entries), memory_added=len(entries) if added is None else added)


def by_source(entries: list[TmEntry]) -> dict[str, str]:
    return {e.source: e.target for e in entries}


def test_a_steps_entries_are_one_journal_in_the_index(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    mark = now_iso()
    sent: list[list[str]] = []
    storage.client.meta.events.register(
        "provide-client-params.dynamodb.TransactWriteItems",
        lambda params, **_: sent.append(
            [next(iter(a.values()))["Item"]["sk"]["S"] for a in params["TransactItems"] if "Put" in a]
        ),
    )
    remember(storage, *units(*(f"Unit {k}." for k in range(5))))
    assert owner_items(storage, "T#") == [], "no item per entry"
    (item,) = owner_items(storage, "TJ#")
    assert "gsi1pk" in item and "expiresAt" not in item, "in the index, kept until merged"
    assert sorted(e.source for e in journal.decode(item)) == [f"Unit {k}." for k in range(5)]
    assert len([sk for sk in sent[-1] if sk.startswith(("TJ#", "T#", "J#"))]) == 1, "one Put for the step's entries"
    assert counter(storage) == {"writes": 5, "entryCount": 5}
    counted = DynamoRequests(storage.client)
    reader = fresh(storage)
    found = reader.tm_changes("alice", since=mark)
    assert sorted(e.source for e in found) == [f"Unit {k}." for k in range(5)]
    assert counted.take() == {"Query": 1}, "the entries are in the journal: nothing more to read"
    assert storage.tm_changes("alice", since=mark) == [], "its own journal: the writer has its entries"
    known = {source_hash(normalize(e.source), e.languages): e.written for e in found}
    assert reader.tm_changes("alice", since=mark, known=known) == []
    assert sorted(e.source for e in reader.tm_changes("alice", since=None)) == [f"Unit {k}." for k in range(5)]


def test_the_newest_entry_of_a_source_wins_across_puts_and_journals(storage: DynamoDBSessionStorage) -> None:
    create(storage, messages=users(0, 2))
    early, late, later = (f"2026-01-01T00:00:0{k}.000+00:00" for k in (1, 5, 9))
    assert storage.put_tm(
        "alice", [tm_record(e) for e in units("Put first.", "Journal first.", at=early)], max_entries=10
    ) == (2, 0, 0)
    remember(
        storage,
        *units("Put first.", target="from the step", at=late),
        *units("Journal first.", target="old", at=early),
        added=0,
    )
    assert storage.put_tm(
        "alice", [tm_record(e) for e in units("Journal first.", target="put later", at=late)], max_entries=10
    ) == (0, 1, 0)
    remember(storage, *units("Step only.", target="new", at=late), added=1)
    assert storage.put_tm(
        "alice", [tm_record(e) for e in units("Step only.", target="imported", at=later)], max_entries=10
    ) == (0, 1, 0), "held by a journal: an update"
    everything = by_source(fresh(storage).tm_changes("alice", since=None))
    assert everything == {"Put first.": "from the step", "Journal first.": "put later", "Step only.": "imported"}
    assert counter(storage)["entryCount"] == 3, "a source held by a journal is not counted again"


def test_old_journals_merge_out_of_the_index(storage: DynamoDBSessionStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    """Journals that no reader of the index can need any longer merge into one item out of it: the
    memory reads the same, a replica that looked before that reads everything, and two processes
    merging the same journals merge them once."""
    create(storage, messages=users(0, 2))
    for k in range(5):
        remember(storage, *units(f"Unit {k}.", "Shared.", target=f"T{k}"))
    before = by_source(storage.tm_changes("alice", since=None))
    assert before["Shared."] == "T4"
    assert storage.merge_journals("alice") == 0, "all too recent: a replica of the index may still need them"
    monkeypatch.setattr(journal, "MERGE_AFTER", timedelta(0))
    replaced = [i["sk"]["S"] for i in owner_items(storage, "TJ#")]
    other = fresh(storage)
    assert other.merge_journals("alice") == 5
    assert storage.merge_journals("alice") == 0, "nothing left to merge"
    (merged,) = owner_items(storage, "TJ#")
    assert "gsi1pk" not in merged, "out of the index"
    # After all it replaces: a whole read that passed some of them before the merge meets it after.
    assert merged["sk"]["S"] > max(replaced)
    assert by_source(fresh(storage).tm_changes("alice", since=None)) == before
    long_ago = "2026-01-01T00:00:00.000+00:00"  # before what the index keeps now: everything
    assert by_source(fresh(storage).tm_changes("alice", since=long_ago)) == before


def test_two_merges_of_the_same_journals_merge_them_once(
    storage: DynamoDBSessionStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    create(storage, messages=users(0, 2))
    for k in range(3):
        remember(storage, *units(f"Unit {k}."))
    monkeypatch.setattr(journal, "MERGE_AFTER", timedelta(0))
    first, second = fresh(storage), fresh(storage)
    stale = second._journal_items("alice")  # what the second read before the first merged
    assert first.merge_journals("alice") == 3
    plan = journal.merge_plan("alice", stale, "second")
    assert plan is not None
    with pytest.raises(ConflictError):
        second._transact(plan.actions)
    assert len(owner_items(storage, "TJ#")) == 1
    assert sorted(by_source(storage.tm_changes("alice", since=None))) == [f"Unit {k}." for k in range(3)]


def test_a_commit_merges_when_many_entries_were_written_since_the_last_merge(
    storage: DynamoDBSessionStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "MERGE_AT", 3)
    create(storage, messages=users(0, 2))
    step(storage, messages=[calls("a")])
    for k in range(3):
        remember(storage, *units(f"Unit {k}."))
    monkeypatch.setattr(journal, "MERGE_AFTER", timedelta(0))
    storage.load_step(SID, window=WINDOW)  # the step's read shows 3 entries written, none merged
    remember(storage, *units("Unit 3."))
    assert len(owner_items(storage, "TJ#")) == 1 and counter(storage)["merged"] == 3, "merged, and the try recorded"
    for k in range(4, 8):
        storage.load_step(SID, window=WINDOW)
        remember(storage, *units(f"Unit {k}."))
    assert len(owner_items(storage, "TJ#")) == 5, "merged lately: not again so soon"
    storage.put_tm("alice", [tm_record(e) for e in units("Imported.")], max_entries=100)
    assert counter(storage)["writes"] - counter(storage)["merged"] == 8 - 3, "a put's entries wait for no merge"
    assert sorted(by_source(fresh(storage).tm_changes("alice", since=None))) == sorted(
        [f"Unit {k}." for k in range(8)] + ["Imported."]
    )
