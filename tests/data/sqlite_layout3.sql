-- The SQLite layout 3 (user_version 3), as the release before the storage rebuild created it.
CREATE TABLE sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, version INTEGER NOT NULL, message_count INTEGER NOT NULL,
    copilot_response_count INTEGER NOT NULL, user_inputs TEXT NOT NULL, schema_version INTEGER NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0, model_requests INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    model_ms INTEGER NOT NULL DEFAULT 0);
CREATE INDEX sessions_by_owner ON sessions (owner, updated_at, session_id);
CREATE TABLE messages (session_id TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, "index" INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (session_id, "index"));
CREATE TABLE copilot_responses (session_id TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, response_index INTEGER NOT NULL,
    call_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, response_index, call_id));
CREATE TABLE files (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, file_id TEXT NOT NULL,
    name TEXT NOT NULL, chars INTEGER NOT NULL, covered TEXT NOT NULL, created_at TEXT NOT NULL,
    UNIQUE (session_id, file_id));
CREATE TABLE file_chunks (session_id TEXT NOT NULL, file_id TEXT NOT NULL, n INTEGER NOT NULL,
    text TEXT NOT NULL, PRIMARY KEY (session_id, file_id, n),
    FOREIGN KEY (session_id, file_id) REFERENCES files (session_id, file_id) ON DELETE CASCADE);
CREATE TABLE units (session_id TEXT NOT NULL REFERENCES sessions ON DELETE CASCADE, file_id TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, cover_end INTEGER NOT NULL, text TEXT NOT NULL, call_id TEXT NOT NULL,
    status TEXT NOT NULL, PRIMARY KEY (session_id, file_id, start));
CREATE TABLE corrections (seq INTEGER PRIMARY KEY, correction_id TEXT NOT NULL, owner TEXT NOT NULL,
    session_id TEXT NOT NULL, file_id TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,
    proposal TEXT NOT NULL, final TEXT, reason TEXT, created_at TEXT NOT NULL);
CREATE INDEX corrections_by_owner ON corrections (owner, created_at, seq);
CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
        status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (owner, key));
CREATE TABLE memory_entries (owner TEXT NOT NULL, entry_id TEXT NOT NULL, kind TEXT NOT NULL,
        source TEXT NOT NULL, text TEXT NOT NULL, languages TEXT NOT NULL, origin TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (owner, entry_id));
