"""The translation memory's replicas (service.tm), one per (owner, language pair): a step refreshes
its pair's with at most one storage read, none when the owner's memory read shows no write of that
pair it lacks, and its lookups read nothing more; another process's writes arrive with the next
refresh; a cold replica reads its pair's entries once, and nothing of the owner's other pairs; a
write of another pair costs a pair's replica nothing. On every backend (the reads counted are the
interface's `tm_changes`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent_core.tm import TmEntry
from service import tm as tm_module
from service.memory import OwnerMemory
from service.tm import REPLICAS, TranslationMemory, record_of
from storage.interface import Storage
from storage.records import TmChanges
from storage.sqlite import SQLiteStorage
from tests.storage_cases import create, same_store, step

FR = "auto>french"
DE = "auto>german"


def remember(memory: TranslationMemory, owner: str, *pairs: tuple[str, str], languages: str = FR) -> None:
    memory.record(owner, [record_of(s, t, languages, "approved") for s, t in pairs])


def exact(memory: TranslationMemory, owner: str, *sources: str, languages: str = FR) -> dict[str, str]:
    return {s: e.target for s, e in asyncio.run(memory.exact(owner, languages, list(sources))).items()}


def approved(*pairs: tuple[str, str], languages: str = FR) -> list[TmEntry]:
    return [record_of(s, t, languages, "approved").entry for s, t in pairs]


def two_processes(tmp_path: Path) -> tuple[TranslationMemory, TranslationMemory]:
    """Two TranslationMemory services over one SQLite file through separate connections (as two
    processes see it: separate storages, so separate replicas)."""
    path = str(tmp_path / "shared.sqlite3")
    return TranslationMemory(SQLiteStorage(path)), TranslationMemory(SQLiteStorage(path))


class Reads:
    """The `tm_changes` calls a storage serves (their `since`; their pairs in `pairs`), taken by the test."""

    def __init__(self, storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[int | None] = []
        self.pairs: list[str] = []
        self.read: list[int] = []
        """How many entries each call brought."""
        read = storage.tm_changes

        def counted(owner: str, pair: str, *, since: int | None) -> TmChanges:
            self.calls.append(since)
            self.pairs.append(pair)
            found = read(owner, pair, since=since)
            self.read.append(len(found.entries))
            return found

        monkeypatch.setattr(storage, "tm_changes", counted)

    def take(self) -> list[int | None]:
        calls, self.calls = self.calls, []
        return calls


class Clock:
    """The clock service.tm reads, moved forward by the test instead of by waiting."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead


def test_another_process_writes_arrive_with_the_next_refresh(tmp_path: Path) -> None:
    a, b = two_processes(tmp_path)
    remember(a, "alice", ("Save the file.", "Enregistrez le fichier."))
    asyncio.run(b.refresh("alice"))  # cold: the pair's entries at the first lookup
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


def test_this_process_sees_its_own_writes_at_once(tmp_path: Path) -> None:
    a, _ = two_processes(tmp_path)
    asyncio.run(a.refresh("alice"))
    remember(a, "alice", ("Now.", "Maintenant."))
    assert exact(a, "alice", "Now.") == {"Now.": "Maintenant."}


def test_replicas_are_kept_for_the_latest_owners_pairs_only(tmp_path: Path) -> None:
    a, _ = two_processes(tmp_path)
    for k in range(REPLICAS + 5):
        exact(a, f"owner{k}", "Hello.")
    kept = a.owners()
    assert len(kept) == REPLICAS and f"owner{REPLICAS + 4}" in kept and "owner0" not in kept
    exact(a, f"owner{REPLICAS + 4}", "Hello.", languages=DE)  # a second pair of one owner: one more replica
    assert len(a.owners()) == REPLICAS - 1 and f"owner{REPLICAS + 4}" in a.owners()


def test_the_owners_read_tells_a_replica_when_to_read_changes(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step's read of the owner's memory carries the latest write's number: a replica that holds
    every write (those it read, those this process committed) reads nothing more; another process's
    write costs one read of the changes since the replica's number."""
    tm, elsewhere = TranslationMemory(storage), TranslationMemory(same_store(storage))
    memory, reads, clock = OwnerMemory(storage, tm=tm), Reads(storage, monkeypatch), Clock()
    monkeypatch.setattr(tm_module, "time", clock)

    def owners_read() -> list[int | None]:
        """What a step reads of the owner before and for its first lookup (agent_core's runtime:
        recall, then refresh, then the loop's lookups)."""
        memory.snapshot("alice")
        asyncio.run(tm.refresh("alice"))
        exact(tm, "alice", "Nothing.")
        return reads.take()

    remember(elsewhere, "alice", ("Open it.", "Ouvrez-le."))
    assert owners_read() == [None], "cold: the pair's whole translation memory"
    assert owners_read() == [], "warm, no write since: nothing"
    entries = approved(*((f"Unit {k}.", f"Unité {k}.") for k in range(3)))
    create(storage, memory=entries, memory_added=3)  # this process's step, as the runtime commits it
    tm.kept("alice", entries)
    step(storage, memory=approved(("Unit 0.", "Unité zéro.")))
    tm.kept("alice", approved(("Unit 0.", "Unité zéro.")))
    assert owners_read() == [], "its own writes are counted as it makes them"
    assert exact(tm, "alice", "Unit 0.", "Unit 2.") == {"Unit 0.": "Unité zéro.", "Unit 2.": "Unité 2."}
    clock.ahead += 30  # a slow model request later, in the same step
    assert exact(tm, "alice", "Unit 1.") == {"Unit 1.": "Unité 1."} and reads.take() == [], "the refresh serves it"
    remember(elsewhere, "alice", ("Close it.", "Fermez-le."))
    step(storage, memory=approved(("Unit 1.", "Unité une.")))  # and one more of its own after it
    tm.kept("alice", approved(("Unit 1.", "Unité une.")))
    assert owners_read() == [3], "another process wrote: the changes since write 3 are read"
    assert exact(tm, "alice", "Close it.", "Unit 1.") == {"Close it.": "Fermez-le.", "Unit 1.": "Unité une."}
    assert owners_read() == [], "and then nothing"
    clock.ahead += tm_module.FRESH
    remember(elsewhere, "alice", ("Open it.", "Ouvre-le."))
    assert exact(tm, "alice", "Open it.") == {"Open it.": "Ouvre-le."}, "a lookup outside a step, a minute on"
    assert reads.take() == [5]
    remember(tm, "alice", ("Close it.", "Ferme-le."))  # a put of this process: its replica is read whole
    assert owners_read() == [None] and exact(tm, "alice", "Close it.") == {"Close it.": "Ferme-le."}


def test_a_read_between_a_commit_and_its_kept_does_not_hide_another_process_write(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lookup's read may land after a step's commit and before the runtime hands the replica its
    entries: the read numbers that write, so it is not counted again as this process's own."""
    tm, elsewhere = TranslationMemory(storage), TranslationMemory(same_store(storage))
    memory, reads = OwnerMemory(storage, tm=tm), Reads(storage, monkeypatch)
    exact(tm, "alice", "Save it.")
    entries = approved(("Save it.", "Enregistrez-le."))
    create(storage, memory=entries, memory_added=1)
    asyncio.run(tm.refresh("alice"))  # no observation: a read at the next lookup, which finds the step's write
    exact(tm, "alice", "Save it.")
    tm.kept("alice", entries)
    remember(elsewhere, "alice", ("Open it.", "Ouvrez-le."))
    reads.take()
    memory.snapshot("alice")
    asyncio.run(tm.refresh("alice"))
    assert reads.take() == [1], "write 2 is another process's: read"
    assert exact(tm, "alice", "Save it.", "Open it.") == {"Save it.": "Enregistrez-le.", "Open it.": "Ouvrez-le."}


def test_this_process_later_write_of_a_source_another_wrote_unread_wins_everywhere(storage: Storage) -> None:
    """Another process writes a source this replica has not read yet, then a step here writes it again:
    held with a provisional number, it stays the entry after the read that brings both writes."""
    tm, elsewhere = TranslationMemory(storage), TranslationMemory(same_store(storage))
    remember(elsewhere, "alice", ("Open it.", "Ouvrez-le."))
    exact(tm, "alice", "Open it.")
    remember(elsewhere, "alice", ("Save it.", "Sauvegardez-le."))
    entries = approved(("Save it.", "Enregistrez-le."))
    create(storage, memory=entries, memory_added=1)
    tm.kept("alice", entries)
    assert exact(tm, "alice", "Save it.") == {"Save it.": "Enregistrez-le."}
    asyncio.run(tm.refresh("alice"))  # no observation: the changes since write 1, at the next lookup
    cold = TranslationMemory(same_store(storage))
    assert exact(tm, "alice", "Save it.", "Open it.") == exact(cold, "alice", "Save it.", "Open it.")
    assert exact(tm, "alice", "Save it.") == {"Save it.": "Enregistrez-le."}


def test_a_pair_replica_reads_its_pair_only_and_other_pairs_writes_cost_it_nothing(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project of two languages: the French replica reads French entries only, cold; a German
    write (another process's step or import) does not make a French step read anything."""
    tm, elsewhere = TranslationMemory(storage), TranslationMemory(same_store(storage))
    memory, reads = OwnerMemory(storage, tm=tm), Reads(storage, monkeypatch)
    remember(elsewhere, "alice", *((f"Unit {k}.", f"Einheit {k}.") for k in range(5)), languages=DE)
    remember(elsewhere, "alice", ("Unit 0.", "Unité 0."), ("Unit 1.", "Unité 1."))
    reads.take()
    assert exact(tm, "alice", "Unit 0.", "Unit 2.") == {"Unit 0.": "Unité 0."}
    assert (reads.pairs, reads.read, reads.take()) == (["*>fr"], [2], [None]), "cold: the French entries only"
    reads.pairs, reads.read = [], []
    remember(elsewhere, "alice", ("Unit 9.", "Einheit 9."), languages=DE)
    create(same_store(storage), memory=approved(("Unit 8.", "Einheit 8."), languages=DE), memory_added=1)
    memory.snapshot("alice")
    asyncio.run(tm.refresh("alice"))
    assert exact(tm, "alice", "Unit 1.") == {"Unit 1.": "Unité 1."} and reads.take() == [], "German writes: no read"
    assert exact(tm, "alice", "Unit 9.", languages=DE) == {"Unit 9.": "Einheit 9."}
    assert (reads.pairs, reads.take()) == (["*>de"], [None]), "the German replica, cold, reads German"
    remember(tm, "alice", ("Unit 1.", "Einheit eins."), languages=DE)  # a put here drops its pair's replica only
    reads.pairs = []
    assert exact(tm, "alice", "Unit 1.") == {"Unit 1.": "Unité 1."} and reads.take() == []
    assert exact(tm, "alice", "Unit 1.", languages=DE) == {"Unit 1.": "Einheit eins."} and reads.pairs == ["*>de"]
