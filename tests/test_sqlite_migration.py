"""The SQLite layout migrates in place: a layout-2 file (before owners' memory) opens as layout 3."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storage.records import MemoryEntryRecord
from storage.sqlite import LAYOUT_VERSION, SQLiteSessionStorage
from tests.test_storage_conformance import SID, create


def test_a_layout_2_file_gains_the_memory_table_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    store = SQLiteSessionStorage(path)
    create(store)
    store.close()
    with sqlite3.connect(path) as db:  # back to layout 2, as the previous release left it
        db.execute("DROP TABLE memory_entries")
        db.execute("PRAGMA user_version = 2")

    store = SQLiteSessionStorage(path)
    assert store.get_session(SID).owner == "alice"
    record = MemoryEntryRecord(
        entry_id="m_1",
        owner="alice",
        kind="style",
        source="",
        text="Use vous.",
        languages="auto>french",
        origin="user",
        created_at="2026-01-01T00:00:00.000+00:00",
        updated_at="2026-01-01T00:00:00.000+00:00",
    )
    store.put_memory_entry(record)
    assert store.list_memory("alice") == [record]
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION == 3
