"""The SQLite layout migrates in place: files of earlier layouts open as the current one, data kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_core.effects import StepEffects, StepToken, StoredAnswer
from storage.records import MemoryEntryRecord
from storage.sqlite import SQLiteStorage
from storage.sqlite_schema import LAYOUT_VERSION

SID = "s_" + "0" * 32


def _create(store: SQLiteStorage) -> None:
    token = StepToken(session_id=SID, owner="alice", version=0, created_at="2026-01-01T00:00:00+00:00", message_count=0)
    store.commit(token, StepEffects(user_inputs=["Translate into French."]))


def test_a_layout_2_file_gains_the_memory_table_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    store = SQLiteStorage(path)
    _create(store)
    store.close()
    with sqlite3.connect(path) as db:  # back to layout 2, as that release left it
        db.execute("DROP TABLE memory_entries")
        db.execute("DROP TABLE idempotency")
        db.execute(
            "CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, "
            "status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL, "
            "PRIMARY KEY (owner, key))"
        )
        db.execute("PRAGMA user_version = 2")

    store = SQLiteStorage(path)
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
    store.put_memory_entry(record, max_entries=30)
    assert store.list_memory("alice") == [record]
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION == 4


def test_a_layout_3_file_keeps_its_answers_and_they_go_with_their_session(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    store = SQLiteStorage(path)
    _create(store)
    store.close()
    with sqlite3.connect(path) as db:  # back to layout 3: answers carried an HTTP status, no session
        db.execute("DROP TABLE idempotency")
        db.execute(
            "CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, "
            "status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL, "
            "PRIMARY KEY (owner, key))"
        )
        db.execute("INSERT INTO idempotency VALUES ('alice', 'k1', 'h', 200, '{}', 'then', 99999999999)")
        db.execute("PRAGMA user_version = 3")

    store = SQLiteStorage(path)
    kept = store.get_answer("alice", "k1", now=0)
    assert kept is not None and kept.body == "{}"
    answer = StoredAnswer(owner="alice", key="k2", request_hash="h", body="{}", expires_at=99999999999)
    store.keep_answer(SID, answer, now=0)
    store.delete_session(SID)
    assert store.get_answer("alice", "k2", now=0) is None, "an answer goes with its session"
    assert store.get_answer("alice", "k1", now=0) is not None, "an old answer names no session"
