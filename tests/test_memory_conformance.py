"""The owner's memory contract (storage/interface.py's MemoryStorageInterface) on every backend: SQLite
(a file and :memory:) and DynamoDB under moto, asserted through the interface (and service.tm's
replicas, which every process keeps of it)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest

from agent_core.errors import ConflictError, InvalidRequestError
from agent_core.tm import TmEntry
from service.memory import OwnerMemory
from service.tm import TranslationMemory, record_of
from storage.interface import Storage, TmRecord
from storage.records import MemoryEntryRecord
from tests.conftest import make_backend
from tests.storage_cases import atomic_requests, create, entry, same_store, step, tm

CAPS = {"glossary": 200, "style": 30}


@pytest.fixture(params=["sqlite", "memory", "dynamodb"])
def storage(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Storage]:
    """Each backend in turn, fresh."""
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    backend = make_backend(request.param, tmp_path)
    assert isinstance(backend, Storage)
    yield backend


def terms(prefix: str, count: int) -> list[MemoryEntryRecord]:
    """`count` glossary entries of distinct terms."""
    return [replace(entry(f"m_{prefix}{k:03d}"), source=f"{prefix} term {k}", text=f"t{k}") for k in range(count)]


# -- glossary entries and style notes: one atomic write -------------------------------------------


def test_entries_are_written_all_together_or_not_at_all(storage: Storage) -> None:
    storage.put_memory_entries("alice", terms("a", 150), max_entries=CAPS)
    with pytest.raises(InvalidRequestError, match="at most 200"):
        storage.put_memory_entries("alice", terms("b", 51), max_entries=CAPS)
    assert len(storage.list_memory("alice")) == 150
    storage.put_memory_entries("alice", terms("b", 50), max_entries=CAPS)
    assert len(storage.list_memory("alice")) == 200
    replaced = [replace(e, text="new") for e in terms("a", 150)]
    storage.put_memory_entries("alice", replaced, max_entries=CAPS)  # replacing at the cap: no growth
    assert sum(e.text == "new" for e in storage.list_memory("alice")) == 150


def test_two_imports_racing_store_one_of_them_whole(storage: Storage) -> None:
    atomic_requests(storage)
    start = threading.Barrier(2)

    def put(prefix: str) -> str:
        start.wait()
        try:
            storage.put_memory_entries("alice", terms(prefix, 150), max_entries=CAPS)
        except InvalidRequestError:
            return "refused"
        return prefix

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(put, ["a", "b"]))
    assert sorted(outcomes)[1] == "refused", outcomes
    (won,) = [o for o in outcomes if o != "refused"]
    assert {e.entry_id for e in storage.list_memory("alice")} == {e.entry_id for e in terms(won, 150)}


@pytest.mark.parametrize("field", ["text", "source"])
@pytest.mark.parametrize("blank", ["", "  ", " \n\t "])
def test_a_blank_entry_is_refused_and_nothing_of_its_write_is_stored(storage: Storage, field: str, blank: str) -> None:
    batch = [*terms("a", 3), replace(entry("m_blank"), **{field: blank})]
    with pytest.raises(InvalidRequestError, match="blank"):
        storage.put_memory_entries("alice", batch, max_entries=CAPS)
    assert storage.list_memory("alice") == []


def test_an_entry_keeps_its_kind_and_its_owner(storage: Storage) -> None:
    storage.put_memory_entry(entry("m_1"), max_entries=10)
    with pytest.raises(ConflictError):
        storage.put_memory_entry(entry("m_1", kind="style"), max_entries=10)
    with pytest.raises(InvalidRequestError):
        storage.put_memory_entries("alice", [entry("m_2", owner="bob")], max_entries=CAPS)
    assert [(e.entry_id, e.kind) for e in storage.list_memory("alice")] == [("m_1", "glossary")]
    assert storage.list_memory("bob") == []


def test_a_glossary_entry_keeps_its_term_kind_and_a_replacement_changes_it(storage: Storage) -> None:
    forbidden = replace(entry("m_1"), term_kind="forbidden")
    storage.put_memory_entries("alice", [forbidden, entry("m_2")], max_entries=CAPS)
    assert [(e.entry_id, e.term_kind) for e in storage.list_memory("alice")] == [
        ("m_1", "forbidden"),
        ("m_2", "preferred"),
    ]
    storage.put_memory_entries("alice", [replace(forbidden, term_kind="keep")], max_entries=CAPS)
    assert [e.term_kind for e in storage.memory_snapshot("alice", corrections=0).entries] == ["keep", "preferred"]


def test_the_snapshot_is_the_entries_and_the_latest_corrections(storage: Storage) -> None:
    storage.put_memory_entries("alice", [entry("m_1"), entry("m_2", kind="style")], max_entries=CAPS)
    read = storage.memory_snapshot("alice", corrections=8)
    assert [e.entry_id for e in read.entries] == ["m_1", "m_2"] and read.corrections == []
    storage.delete_memory_entry("alice", "m_1")
    assert [e.entry_id for e in storage.memory_snapshot("alice", corrections=0).entries] == ["m_2"]


# -- the translation memory ------------------------------------------------------------------------


def blank(source: str, target: str) -> TmRecord:
    record = tm(source)
    return replace(record, entry=replace(record.entry, target=target))


@pytest.mark.parametrize("target", ["", " ", " \n\t "])
def test_a_blank_target_is_never_stored_in_the_translation_memory(storage: Storage, target: str) -> None:
    assert storage.put_tm("alice", [tm("Kept."), blank("Blank.", target)], max_entries=100) == (1, 0, 1)
    # Not over a stored entry either: the entry stays as it was.
    assert storage.put_tm("alice", [blank("Kept.", target)], max_entries=100) == (0, 0, 1)
    found = storage.tm_entries("alice")
    assert [(e.source, e.target) for e in found] == [("Kept.", "KEPT.")]


def test_blank_targets_are_skipped_whatever_their_place_among_equal_sources(storage: Storage) -> None:
    records = [tm("One.", "un"), blank("One.", " "), tm("Two.", "deux"), blank("Two.", "")]
    assert storage.put_tm("alice", records, max_entries=100) == (2, 0, 2)
    assert sorted((e.source, e.target) for e in storage.tm_entries("alice")) == [
        ("One.", "un"),
        ("Two.", "deux"),
    ]


def entries_of(found: list[TmEntry]) -> list[tuple[str, str]]:
    return sorted((e.source, e.target) for e in found)


# -- one rule of precedence: the later write wins, whatever the entries' dates --------------------


def other_instance(storage: Storage) -> Storage:
    """Another process's storage over the same store (the same instance for :memory:, which has no other)."""
    from storage.sqlite import SQLiteStorage

    if isinstance(storage, SQLiteStorage) and storage_path(storage) == "":
        return storage
    return same_store(storage)


def elsewhere_of(storage: Storage, warm: TranslationMemory) -> TranslationMemory:
    """Another process's translation memory (:memory: has no other process: its own, then)."""
    other = other_instance(storage)
    return warm if other is storage else TranslationMemory(other)


def storage_path(storage: Any) -> str:
    rows = storage._conn.execute("PRAGMA database_list")
    return str(next(row["file"] for row in rows if row["name"] == "main"))


def approved(source: str, target: str, at: str) -> TmEntry:
    return TmEntry(source=source, target=target, languages="*>fr", origin="approved", updated_at=at)


def stepped_refresh(storage: Storage, memory: TranslationMemory) -> None:
    """What a step reads before its lookups: the owner's memory (which shows the latest write's number),
    then the translation memory's refresh (agent_core's runtime)."""
    OwnerMemory(storage, tm=memory).snapshot("alice")
    asyncio.run(memory.refresh("alice"))


def lookups(memory: TranslationMemory, sources: list[str]) -> dict[str, tuple[str, str]]:
    found = asyncio.run(memory.exact("alice", "auto>french", sources))
    return {s: (e.target, e.updated_at) for s, e in found.items()}


SOURCES = ["Save the file.", "Open the file.", "Close the file."]


def test_an_older_dated_import_after_a_steps_approval_replaces_it_everywhere(storage: Storage) -> None:
    warm = TranslationMemory(storage)
    first = [approved("Save the file.", "Enregistrez le fichier.", "2026-06-01T00:00:00+00:00")]
    create(storage, memory=first)
    warm.kept("alice", first)
    assert lookups(warm, SOURCES) == {"Save the file.": ("Enregistrez le fichier.", "2026-06-01T00:00:00+00:00")}
    # A TMX from 2001 (its changedate is data, not the write's order), imported after the step.
    old = record_of("Save the file.", "Sauvegardez le fichier.", "fr", "imported", "2001-01-01T00:00:00+00:00")
    assert elsewhere_of(storage, warm).record("alice", [old]) == (0, 1, 0), "an update"
    expected = {"Save the file.": ("Sauvegardez le fichier.", "2001-01-01T00:00:00+00:00")}
    stored = storage.tm_entries("alice")
    assert [(e.target, e.updated_at) for e in stored] == [expected["Save the file."]], "stored: the import"
    stepped_refresh(storage, warm)
    assert lookups(warm, SOURCES) == expected, "the warm replica of the process that held the approval"
    assert lookups(TranslationMemory(other_instance(storage)), SOURCES) == expected, "a cold replica"
    # And a step after the import wins over it, whatever its date.
    later = [approved("Save the file.", "Enregistre.", "1999-01-01T00:00:00+00:00")]
    step(storage, memory=later)
    warm.kept("alice", later)  # as the runtime does after its commit
    assert lookups(warm, SOURCES) == lookups(TranslationMemory(other_instance(storage)), SOURCES)
    assert lookups(warm, SOURCES)["Save the file."][0] == "Enregistre."


def test_warm_and_cold_replicas_agree_after_writes_from_another_process(storage: Storage) -> None:
    other = other_instance(storage)
    warm = TranslationMemory(storage)
    elsewhere = elsewhere_of(storage, warm)

    def stepped_elsewhere(digit: str, entries: list[TmEntry]) -> None:
        create(other, "s_" + digit * 32, memory=entries)  # another session's step, in the other process
        elsewhere.kept("alice", entries)

    def stepped_here(digit: str, entries: list[TmEntry]) -> None:
        create(storage, "s_" + digit * 32, memory=entries)  # a step of this process (the runtime's order)
        warm.kept("alice", entries)

    first = [approved("Open the file.", "Ouvrez.", "2026-01-01T00:00:00+00:00")]
    create(storage, memory=first)
    warm.kept("alice", first)
    assert lookups(warm, SOURCES)["Open the file."][0] == "Ouvrez."
    writes = [
        lambda: elsewhere.record("alice", [record_of("Open the file.", "Ouvre.", "fr", "imported", "2000-01-01")]),
        lambda: stepped_here("5", [approved("Close the file.", "Fermez donc.", "2031-01-01")]),
        lambda: stepped_elsewhere("7", [approved("Close the file.", "Fermez.", "2001-01-01")]),
        lambda: stepped_here("6", [approved("Save the file.", "Enregistrez donc.", "2032-01-01")]),
        lambda: warm.record("alice", [record_of("Close the file.", "Ferme.", "fr", "imported", "1990-01-01")]),
        lambda: stepped_elsewhere("8", [approved("Save the file.", "Enregistrez.", "2030-01-01")]),
        lambda: elsewhere.record("alice", [record_of("Save the file.", "Sauve.", "fr", "imported", "1980-01-01")]),
        lambda: stepped_here("9", [approved("Open the file.", "Ouvrez donc.", "1970-01-01")]),
    ]
    for write in writes:
        write()
        stepped_refresh(storage, warm)
        assert lookups(warm, SOURCES) == lookups(TranslationMemory(other_instance(storage)), SOURCES)
    assert {s: t for s, (t, _) in lookups(warm, SOURCES).items()} == {
        "Open the file.": "Ouvrez donc.",
        "Close the file.": "Ferme.",
        "Save the file.": "Sauve.",
    }


def test_a_read_during_an_import_sees_all_of_it_or_none(storage: Storage) -> None:
    """The glossary and notes are one item (DynamoDB) or one transaction (SQLite): a read between an
    import's entries cannot happen by construction; reads racing imports see whole imports only."""
    atomic_requests(storage)
    seen: list[int] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.append(len(storage.memory_snapshot("alice", corrections=2).entries))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for k in range(4):
            storage.put_memory_entries("alice", terms(f"i{k}", 40), max_entries=CAPS)
    finally:
        done.set()
        reader.join()
    assert set(seen) <= {0, 40, 80, 120, 160} and len(storage.list_memory("alice")) == 160
