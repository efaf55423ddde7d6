"""The SQLite backend's tables: one layout, created in a new file (storage.sqlite_db refuses any other)."""

from __future__ import annotations

LAYOUT_VERSION = 19
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
# No foreign key: an owner's glossary entries and style notes, and its translation memory, outlive
# every session. The translation memory is kept by language pair (`languages`, `*>fr`): each pair holds
# one entry per source hash, each with the number of the pair's write that stored it (`tm_heads` holds
# each pair's latest, and is the list of the owner's pairs), read by number by the replica of that pair
# that serves lookups (service.tm). `key`: the key of the string an entry was written from (NULL: none);
# a row whose target is blank is a tombstone (the write that deleted the source's entry).
_TM = (
    """CREATE TABLE tm_entries (owner TEXT NOT NULL, languages TEXT NOT NULL, source_hash TEXT NOT NULL,
    source TEXT NOT NULL, target TEXT NOT NULL, origin TEXT NOT NULL, updated_at TEXT NOT NULL,
    written INTEGER NOT NULL, key TEXT, PRIMARY KEY (owner, languages, source_hash))""",
    "CREATE INDEX tm_entries_by_write ON tm_entries (owner, languages, written)",
    """CREATE TABLE tm_heads (owner TEXT NOT NULL, languages TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (owner, languages))""",
)
_MEMORY = (
    """CREATE TABLE memory_entries (owner TEXT NOT NULL, entry_id TEXT NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL, text TEXT NOT NULL, languages TEXT NOT NULL, origin TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, term_kind TEXT NOT NULL DEFAULT 'preferred',
    PRIMARY KEY (owner, entry_id))""",
)
# A project's row is its one mutable record (settings and members as JSON, `storage.projects`);
# `project_members` is the index of each member's projects, written with the row that adds or removes them.
_PROJECTS = (
    """CREATE TABLE projects (project_id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, data TEXT NOT NULL)""",
    """CREATE TABLE project_members (sub TEXT NOT NULL, project_id TEXT NOT NULL REFERENCES projects ON DELETE CASCADE,
    PRIMARY KEY (sub, project_id))""",
)
# A comment's row is written once; only its resolved mark (with who and when) is updated.
_COMMENTS = (
    f"""CREATE TABLE comments (session_id TEXT NOT NULL {_SESSION}, comment_id TEXT NOT NULL,
    file_id TEXT NOT NULL, segment_id TEXT NOT NULL, by_sub TEXT NOT NULL, at TEXT NOT NULL, text TEXT NOT NULL,
    resolved INTEGER NOT NULL DEFAULT 0, resolved_by TEXT, resolved_at TEXT, PRIMARY KEY (session_id, comment_id))""",
    "CREATE INDEX comments_by_segment ON comments (session_id, file_id, segment_id, comment_id)",
)
SCHEMA = (
    """CREATE TABLE sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, version INTEGER NOT NULL, message_count INTEGER NOT NULL,
    hidden_messages INTEGER NOT NULL DEFAULT 0, copilot_response_count INTEGER NOT NULL, user_inputs TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0, model_requests INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    model_ms INTEGER NOT NULL DEFAULT 0, cached_tokens INTEGER NOT NULL DEFAULT 0,
    cost_micro_usd INTEGER NOT NULL DEFAULT 0,
    queued_inputs TEXT NOT NULL DEFAULT '[]', source_language TEXT, target_language TEXT, budget TEXT,
    model TEXT, hold TEXT, auto_approve INTEGER, claim TEXT, second_review INTEGER NOT NULL DEFAULT 0,
    auto_sample REAL NOT NULL DEFAULT 0, qa_profile TEXT)""",
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
    # segments: those that begin in the chunk (agent_core.segment.dump_segments); none for an original's.
    """CREATE TABLE file_chunks (session_id TEXT NOT NULL, file_id TEXT NOT NULL, n INTEGER NOT NULL,
    text TEXT NOT NULL, segments TEXT NOT NULL DEFAULT '[0,[]]', PRIMARY KEY (session_id, file_id, n),
    FOREIGN KEY (session_id, file_id) REFERENCES files (session_id, file_id) ON DELETE CASCADE)""",
    # The primary key is the idempotency rule: one unit per (session, file, start).
    f"""CREATE TABLE units (session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, cover_end INTEGER NOT NULL, text TEXT NOT NULL, call_id TEXT NOT NULL,
    status TEXT NOT NULL, origin TEXT NOT NULL DEFAULT 'model', updated_at TEXT NOT NULL DEFAULT '',
    estimate INTEGER, auto INTEGER NOT NULL DEFAULT 0, stage TEXT, sampled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, file_id, start))""",
    # A revision is a row of its own, never an update of the unit's (the unit's first write stays as it was
    # written, for the audit trail); the latest revision of a unit is its text (list_units applies them).
    f"""CREATE TABLE revisions (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL,
    start INTEGER NOT NULL, text TEXT NOT NULL, call_id TEXT NOT NULL, status TEXT NOT NULL, origin TEXT NOT NULL,
    updated_at TEXT NOT NULL, estimate INTEGER, auto INTEGER NOT NULL DEFAULT 0, stage TEXT)""",
    "CREATE INDEX revisions_by_file ON revisions (session_id, file_id, seq)",
    # No foreign key: an owner's corrections outlive the session they came from. `start`: the unit's
    # position in its file (-1: unknown); `issue`: the MQM issue as JSON, or NULL.
    """CREATE TABLE corrections (seq INTEGER PRIMARY KEY, correction_id TEXT NOT NULL, owner TEXT NOT NULL,
    session_id TEXT NOT NULL, file_id TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,
    proposal TEXT NOT NULL, final TEXT, reason TEXT, created_at TEXT NOT NULL, start INTEGER NOT NULL DEFAULT -1,
    issue TEXT)""",
    "CREATE INDEX corrections_by_owner ON corrections (owner, created_at, seq)",
    "CREATE INDEX corrections_by_file ON corrections (session_id, file_id, seq)",
    # Who decided a unit's write (`kind` U), a revision (R) or a correction (its status) when it was a
    # project's member, not the session's owner: a row only then, so an owner's session stores no more.
    # The record it names is the one of the same file, start and commit time (`at`).
    f"""CREATE TABLE decided_by (session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL,
    start INTEGER NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, by_sub TEXT NOT NULL,
    PRIMARY KEY (session_id, file_id, start, at, kind)) WITHOUT ROWID""",
    # A job outlives nothing and holds nothing but its sessions' ids: its progress is theirs.
    "CREATE TABLE jobs (job_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL, data TEXT NOT NULL)",
    *_IDEMPOTENCY,
    *_MEMORY,
    *_TM,
    *_PROJECTS,
    *_COMMENTS,
)
