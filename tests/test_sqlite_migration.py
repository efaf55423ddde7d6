"""The SQLite layout migrates in place: files of earlier layouts open as the current one, data kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_core.effects import StepEffects, StoredAnswer
from storage.records import MemoryEntryRecord
from storage.sqlite import SQLiteStorage
from storage.sqlite_schema import LAYOUT_VERSION, MIGRATIONS

SID = "s_" + "0" * 32
LAYOUT_3 = Path(__file__).parent / "data" / "sqlite_layout3.sql"


def _old_file(path: str, layout: int) -> None:
    """A file as the release of `layout` left it: one session, one kept answer (layout 3)."""
    with sqlite3.connect(path) as db:
        db.executescript(LAYOUT_3.read_text())
        db.execute(
            "INSERT INTO sessions (session_id, owner, created_at, updated_at, version, message_count, "
            "copilot_response_count, user_inputs, schema_version) VALUES (?, 'alice', 'then', 'then', 1, 0, 0, "
            "'[\"Translate into French.\"]', 2)",
            (SID,),
        )
        db.execute("INSERT INTO idempotency VALUES ('alice', 'k1', 'h', 200, '{}', 'then', 99999999999)")
        if layout == 2:
            db.execute("DROP TABLE memory_entries")
        db.execute(f"PRAGMA user_version = {layout}")


def test_a_layout_2_file_gains_the_memory_table_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    _old_file(path, 2)
    store = SQLiteStorage(path)
    assert store.get_session(SID).owner == "alice"
    assert store.get_session(SID).user_inputs == ("Translate into French.",)
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
        assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION == 7


def test_a_layout_3_file_keeps_its_answers_and_steps_go_on(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    _old_file(path, 3)
    store = SQLiteStorage(path)
    kept = store.get_answer("alice", "k1", now=0)
    assert kept is not None and kept.body == "{}"
    snapshot = store.load_step(SID, window=10)
    assert snapshot.queued_inputs == () and snapshot.token.version == 1
    store.commit(snapshot.token, StepEffects(queued_inputs=["later"]))
    assert store.get_session(SID).queued_inputs == ("later",)
    answer = StoredAnswer(owner="alice", key="k2", request_hash="h", body="{}", expires_at=99999999999)
    store.keep_answer(SID, answer, now=0)
    store.delete_session(SID)
    assert store.get_answer("alice", "k2", now=0) is None, "an answer goes with its session"
    assert store.get_answer("alice", "k1", now=0) is not None, "an old answer names no session"


def test_a_layout_4_file_keeps_its_translation_memory_and_drops_the_word_index(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    _old_file(path, 3)
    with sqlite3.connect(path) as db:  # as the release of layout 4 left it: entries and their word keys
        for statement in MIGRATIONS[3]:
            db.execute(statement)
        db.execute(
            "CREATE TABLE tm_keys (owner TEXT NOT NULL, key TEXT NOT NULL, source_hash TEXT NOT NULL, "
            "updated_at TEXT NOT NULL, PRIMARY KEY (owner, key, source_hash))"
        )
        db.execute("INSERT INTO tm_entries VALUES ('alice', 'h1', 'Hello.', 'Bonjour.', '*>fr', 'approved', 't1')")
        db.execute("INSERT INTO tm_keys VALUES ('alice', 'k', 'h1', 't1')")
        db.execute("PRAGMA user_version = 4")
    store = SQLiteStorage(path)
    (entry,) = store.tm_changes("alice", since=None)
    assert (entry.source, entry.target, entry.updated_at) == ("Hello.", "Bonjour.", "t1")
    assert store.tm_changes("alice", since="2000-01-01") == [], "written before the layout knew when"
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT_VERSION
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'tm_keys'").fetchone() is None


def test_a_layout_5_file_counts_hidden_messages_from_zero(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    _old_file(path, 3)
    with sqlite3.connect(path) as db:  # as the release of layout 5 left it
        for layout in (3, 4):
            for statement in MIGRATIONS[layout]:
                db.execute(statement)
        db.execute("PRAGMA user_version = 5")
    store = SQLiteStorage(path)
    snapshot = store.load_step(SID, window=10)
    assert snapshot.token.hidden_messages == 0
    store.commit(snapshot.token, StepEffects(hidden_messages=2))
    assert store.get_session(SID).hidden_messages == 2
