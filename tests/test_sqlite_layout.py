"""The SQLite layout: a new file gets it, a file of any other layout is refused and left as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage.errors import StorageUnavailableError
from storage.records import MemoryEntryRecord
from storage.sqlite import SQLiteStorage
from storage.sqlite_schema import LAYOUT_VERSION

RECORD = MemoryEntryRecord(
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


def _tables(path: str) -> list[tuple[str, int]]:
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master ORDER BY name")]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    return [(name, version) for name in names]


def test_a_new_file_gets_the_layout_and_opens_again_with_its_data(tmp_path: Path) -> None:
    path = str(tmp_path / "new.sqlite3")
    store = SQLiteStorage(path)
    store.put_memory_entry(RECORD, max_entries=30)
    store.close()
    assert {version for _, version in _tables(path)} == {LAYOUT_VERSION}
    again = SQLiteStorage(path)
    assert again.list_memory("alice") == [RECORD]
    again.close()


@pytest.mark.parametrize("layout", [1, 3, LAYOUT_VERSION - 1, LAYOUT_VERSION + 1])
def test_a_file_of_another_layout_is_refused_and_left_alone(tmp_path: Path, layout: int) -> None:
    path = str(tmp_path / "other.sqlite3")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL)")
        db.execute("INSERT INTO sessions VALUES ('s_1', 'alice')")
        db.execute(f"PRAGMA user_version = {layout}")
    before = _tables(path)
    with pytest.raises(StorageUnavailableError, match="delete or move the file") as raised:
        SQLiteStorage(path)
    assert f"({layout}," in str(raised.value) and path in str(raised.value)
    assert _tables(path) == before
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT * FROM sessions").fetchall() == [("s_1", "alice")]


def test_a_file_with_tables_but_no_layout_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "foreign.sqlite3")
    with sqlite3.connect(path) as db:  # another program's database: user_version 0, not empty
        db.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(StorageUnavailableError, match="delete or move the file"):
        SQLiteStorage(path)
    assert _tables(path) == [("notes", 0)]
