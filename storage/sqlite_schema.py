"""The SQLite backend's tables, by layout version, and the migrations between layouts."""

from __future__ import annotations

LAYOUT_VERSION = 7
"""The table layout `storage.sqlite` writes, kept in `PRAGMA user_version`."""

_SESSION = "REFERENCES sessions ON DELETE CASCADE"
_IDEMPOTENCY = (
    # session_id: the answers go with their session when it is deleted (NULL: the request made none).
    """CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
    body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL, session_id TEXT,
    PRIMARY KEY (owner, key))""",
    "CREATE INDEX idempotency_by_session ON idempotency (session_id)",
    "CREATE INDEX idempotency_by_expiry ON idempotency (expires_at)",
)
# No foreign key: an owner's glossary entries and style notes outlive every session.
# The owner's translation memory: one entry per source hash, listed by time for the replica that
# serves lookups (service.tm).
_TM_ENTRIES = """CREATE TABLE tm_entries (owner TEXT NOT NULL, source_hash TEXT NOT NULL, source TEXT NOT NULL,
    target TEXT NOT NULL, languages TEXT NOT NULL, origin TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (owner, source_hash))"""
_TM_WRITTEN = (
    "ALTER TABLE tm_entries ADD COLUMN written_at TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE tm_entries ADD COLUMN writer TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX tm_entries_by_time ON tm_entries (owner, written_at)",
)
_TM = (_TM_ENTRIES, *_TM_WRITTEN)
_MEMORY = (
    """CREATE TABLE memory_entries (owner TEXT NOT NULL, entry_id TEXT NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL, text TEXT NOT NULL, languages TEXT NOT NULL, origin TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (owner, entry_id))""",
)
SCHEMA = (
    """CREATE TABLE sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, version INTEGER NOT NULL, message_count INTEGER NOT NULL,
    hidden_messages INTEGER NOT NULL DEFAULT 0, copilot_response_count INTEGER NOT NULL, user_inputs TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0, model_requests INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    model_ms INTEGER NOT NULL DEFAULT 0, cached_tokens INTEGER NOT NULL DEFAULT 0,
    queued_inputs TEXT NOT NULL DEFAULT '[]', source_language TEXT, target_language TEXT)""",
    "CREATE INDEX sessions_by_owner ON sessions (owner, updated_at, session_id)",
    f"""CREATE TABLE messages (session_id TEXT NOT NULL {_SESSION}, "index" INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (session_id, "index"))""",
    f"""CREATE TABLE copilot_responses (session_id TEXT NOT NULL {_SESSION}, response_index INTEGER NOT NULL,
    call_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, response_index, call_id))""",
    # An explicit INTEGER PRIMARY KEY keeps upload order stable across VACUUM.
    f"""CREATE TABLE files (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL,
    name TEXT NOT NULL, chars INTEGER NOT NULL, covered TEXT NOT NULL, created_at TEXT NOT NULL,
    UNIQUE (session_id, file_id))""",
    """CREATE TABLE file_chunks (session_id TEXT NOT NULL, file_id TEXT NOT NULL, n INTEGER NOT NULL,
    text TEXT NOT NULL, PRIMARY KEY (session_id, file_id, n),
    FOREIGN KEY (session_id, file_id) REFERENCES files (session_id, file_id) ON DELETE CASCADE)""",
    # The primary key is the idempotency rule: one unit per (session, file, start).
    f"""CREATE TABLE units (session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, cover_end INTEGER NOT NULL, text TEXT NOT NULL, call_id TEXT NOT NULL,
    status TEXT NOT NULL, origin TEXT NOT NULL DEFAULT 'model', updated_at TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, file_id, start))""",
    # No foreign key: an owner's corrections outlive the session they came from.
    """CREATE TABLE corrections (seq INTEGER PRIMARY KEY, correction_id TEXT NOT NULL, owner TEXT NOT NULL,
    session_id TEXT NOT NULL, file_id TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,
    proposal TEXT NOT NULL, final TEXT, reason TEXT, created_at TEXT NOT NULL)""",
    "CREATE INDEX corrections_by_owner ON corrections (owner, created_at, seq)",
    *_IDEMPOTENCY,
    *_MEMORY,
    *_TM,
)
_IDEMPOTENCY_V2 = """CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
    status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL,
    PRIMARY KEY (owner, key))"""
MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 1 → 2: telemetry counters on sessions, and the idempotency table.
    1: (
        *(
            f"ALTER TABLE sessions ADD COLUMN {c} INTEGER NOT NULL DEFAULT 0"
            for c in ("steps", "model_requests", "input_tokens", "output_tokens", "model_ms")
        ),
        _IDEMPOTENCY_V2,
    ),
    # 2 → 3: owners' glossary entries and style notes.
    2: _MEMORY,
    # 3 → 4: cached input tokens, queued inputs, units' origin and time, the translation memory;
    # answers belong to their session (deleted with it), carry no HTTP status, expired ones are purged.
    3: (
        "ALTER TABLE sessions ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE sessions ADD COLUMN queued_inputs TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE units ADD COLUMN origin TEXT NOT NULL DEFAULT 'model'",
        "ALTER TABLE units ADD COLUMN updated_at TEXT NOT NULL DEFAULT ''",
        _TM_ENTRIES,
        "ALTER TABLE idempotency DROP COLUMN status",
        "ALTER TABLE idempotency ADD COLUMN session_id TEXT",
        "CREATE INDEX idempotency_by_session ON idempotency (session_id)",
        "CREATE INDEX idempotency_by_expiry ON idempotency (expires_at)",
    ),
    # 4 → 5: the translation memory's entries by the time they were written, and by whom (the
    # replica's changes); its word-key index is no longer read (lookups are the replica's, service.tm).
    4: ("DROP TABLE IF EXISTS tm_keys", *_TM_WRITTEN),
    # 5 → 6: how many of a session's messages the model is never shown (the window's boundary).
    5: ("ALTER TABLE sessions ADD COLUMN hidden_messages INTEGER NOT NULL DEFAULT 0",),
    # 6 → 7: the session's languages.
    6: ("ALTER TABLE sessions ADD COLUMN source_language TEXT", "ALTER TABLE sessions ADD COLUMN target_language TEXT"),
}
"""The statements that take a file from layout `n` to `n + 1`."""
