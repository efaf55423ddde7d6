"""The translation memory's replica (service.tm): a step refreshes it with one storage read and its
lookups read nothing more; another process's writes arrive with the next refresh, even one whose
write time lies before the last read (the margin); a cold replica reads the whole memory once."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import datetime
from pathlib import Path

import boto3
import pytest

from service import tm as tm_module
from service.memory import OwnerMemory
from service.tm import MARGIN, OWNERS, TranslationMemory, record_of
from storage.dynamodb import DynamoDBSessionStorage
from storage.sqlite import SQLiteStorage
from tests.aws import DynamoRequests
from tests.storage_cases import create, step

FR = "auto>french"


def remember(memory: TranslationMemory, owner: str, *pairs: tuple[str, str]) -> None:
    memory.record(owner, [record_of(s, t, FR, "approved") for s, t in pairs])


def exact(memory: TranslationMemory, owner: str, *sources: str) -> dict[str, str]:
    return {s: e.target for s, e in asyncio.run(memory.exact(owner, FR, list(sources))).items()}


def two_processes(tmp_path: Path) -> tuple[TranslationMemory, TranslationMemory, str]:
    """Two TranslationMemory services over one SQLite file through separate connections (as two
    processes see it: separate storages, so separate replicas)."""
    path = str(tmp_path / "shared.sqlite3")
    return TranslationMemory(SQLiteStorage(path)), TranslationMemory(SQLiteStorage(path)), path


def test_another_process_writes_arrive_with_the_next_refresh(tmp_path: Path) -> None:
    a, b, _ = two_processes(tmp_path)
    remember(a, "alice", ("Save the file.", "Enregistrez le fichier."))
    asyncio.run(b.refresh("alice"))  # cold: the whole memory
    assert exact(b, "alice", "Save the file.", "Open it.") == {"Save the file.": "Enregistrez le fichier."}
    remember(a, "alice", ("Open it.", "Ouvrez-le."), ("Save the file.", "Sauvegardez le fichier."))
    asyncio.run(b.refresh("alice"))
    assert exact(b, "alice", "Save the file.", "Open it.") == {
        "Save the file.": "Sauvegardez le fichier.",
        "Open it.": "Ouvrez-le.",
    }
    similar = asyncio.run(b.similar("alice", FR, "Save the files."))
    assert [m.entry.target for m in similar] == ["Sauvegardez le fichier."]
    assert exact(b, "bob", "Open it.") == {}, "each owner has their own memory"


def test_a_write_that_shows_late_still_arrives(tmp_path: Path) -> None:
    a, b, path = two_processes(tmp_path)
    asyncio.run(b.refresh("alice"))
    remember(a, "alice", ("Late.", "En retard."))
    # As if the write had been stamped before b's last read but shown only after it (a write in
    # flight, an index behind): its time is half the margin before b's read.
    with sqlite3.connect(path) as db:
        db.execute("UPDATE tm_entries SET written_at = ?", (tm_module._iso(_since(b) + MARGIN / 2),))
    asyncio.run(b.refresh("alice"))
    assert exact(b, "alice", "Late.") == {"Late.": "En retard."}


def _since(memory: TranslationMemory) -> float:
    """Where the replica's next read starts: MARGIN seconds before its last read."""
    since = memory._replica("alice").since
    assert since is not None
    return datetime.fromisoformat(since).timestamp()


def test_this_process_sees_its_own_writes_at_once(tmp_path: Path) -> None:
    a, _, _ = two_processes(tmp_path)
    asyncio.run(a.refresh("alice"))
    remember(a, "alice", ("Now.", "Maintenant."))
    assert exact(a, "alice", "Now.") == {"Now.": "Maintenant."}


def test_replicas_are_kept_for_the_latest_owners_only(tmp_path: Path) -> None:
    a, _, _ = two_processes(tmp_path)
    for k in range(OWNERS + 5):
        asyncio.run(a.refresh(f"owner{k}"))
    kept = a.owners()
    assert len(kept) == OWNERS and f"owner{OWNERS + 4}" in kept and "owner0" not in kept


@pytest.fixture
def dynamodb(moto_table: str) -> DynamoDBSessionStorage:
    return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)


def test_on_dynamodb_a_refresh_is_one_query_and_lookups_read_nothing(dynamodb: DynamoDBSessionStorage) -> None:
    other = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=dynamodb.table)
    writer, reader = TranslationMemory(dynamodb), TranslationMemory(other)
    writer.record("alice", [record_of(f"Unit number {k}.", f"Unité {k}.", FR, "approved") for k in range(30)])
    requests = DynamoRequests(other.client)
    asyncio.run(reader.refresh("alice"))
    assert requests.take() == {"Query": 1}
    assert exact(reader, "alice", "Unit number 7.") == {"Unit number 7.": "Unité 7."}
    matches = asyncio.run(reader.similar_many("alice", FR, ["Unit numbers 7.", "Unit number 12!"]))
    assert matches["Unit numbers 7."][0].entry.target == "Unité 7."
    assert requests.take() == {}, "lookups after a refresh read nothing"
    asyncio.run(reader.refresh("alice"))
    assert requests.take() == {"Query": 1}, "the changes' keys only: nothing new to fetch"
    writer.record("alice", [record_of("Unit number 7.", "Septième unité.", FR, "refined")])
    asyncio.run(reader.refresh("alice"))
    assert requests.take() == {"Query": 1, "BatchGetItem": 1}, "the keys, then the one entry changed"
    assert exact(reader, "alice", "Unit number 7.") == {"Unit number 7.": "Septième unité."}
    asyncio.run(writer.refresh("alice"))
    writer.record("alice", [record_of("Unit number 8.", "Huitième.", FR, "refined")])  # warm: applied at once
    writer_requests = DynamoRequests(dynamodb.client)
    asyncio.run(writer.refresh("alice"))
    assert writer_requests.take() == {"Query": 1}, "its own writes are not fetched again"


class Clock:
    """The clocks service.tm reads, moved forward by the test instead of by waiting."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def time(self) -> float:
        return time.time() + self.ahead

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead


def test_on_dynamodb_the_owners_read_tells_a_replica_when_to_read_changes(
    dynamodb: DynamoDBSessionStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step's read of the owner's memory carries the translation memory's write count: a replica
    that holds every write reads nothing more; another process's write costs a read, and reads go on
    for MARGIN seconds after it (its entries may show late in the index)."""
    other = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=dynamodb.table)
    tm, elsewhere = TranslationMemory(dynamodb), TranslationMemory(other)
    memory = OwnerMemory(dynamodb, tm=tm)
    requests = DynamoRequests(dynamodb.client)
    clock = Clock()
    monkeypatch.setattr(tm_module, "time", clock)

    def owners_read() -> dict[str, int]:
        """What a step reads of the owner before its lookups (agent_core's runtime: recall, then refresh)."""
        memory.snapshot("alice")
        asyncio.run(tm.refresh("alice"))
        return requests.take()

    elsewhere.record("alice", [record_of("Open it.", "Ouvrez-le.", FR, "approved")])
    assert owners_read() == {"Query": 2}, "cold: the owner's memory, then the whole translation memory"
    assert owners_read() == {"Query": 1}, "warm, no write since: the owner's memory only"
    create(dynamodb)
    entries = [record_of(f"Unit {k}.", f"Unité {k}.", FR, "approved").entry for k in range(3)]
    step(dynamodb, memory=entries, memory_added=3)  # this process's step, as the runtime commits it
    tm.kept("alice", entries)
    requests.take()
    assert owners_read() == {"Query": 1}, "its own writes are counted as it makes them"
    assert exact(tm, "alice", "Unit 2.") == {"Unit 2.": "Unité 2."} and requests.take() == {}
    clock.ahead += 30  # a slow model request later, in the same step
    assert exact(tm, "alice", "Unit 1.") == {"Unit 1.": "Unité 1."} and requests.take() == {}, "the refresh serves it"
    elsewhere.record("alice", [record_of("Close it.", "Fermez-le.", FR, "approved")])
    assert owners_read() == {"Query": 2, "BatchGetItem": 1}, "another process wrote: its changes are read"
    assert exact(tm, "alice", "Close it.") == {"Close it.": "Fermez-le."}
    assert owners_read() == {"Query": 2}, "and read again while its index may lag"
    clock.ahead += tm_module.MARGIN
    assert owners_read() == {"Query": 1}, "past the margin, the count decides again"
