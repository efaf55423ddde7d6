"""SQLiteSessionStorage: the embedded backend, one SQLite file shared by threads and processes.

Every write is one `BEGIN IMMEDIATE` transaction (SQLite's writer lock), so a commit's version check
and its writes cannot interleave with another process's. Columns are named after the record fields,
so rows map onto records by name. `sqlite3.Error` becomes StorageUnavailableError (an integrity
failure ConflictError) in one place, `_transaction`.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, fields
from typing import Any

from .errors import ConflictError, InvalidCursorError, NotFoundError, StorageUnavailableError
from .interface import CHUNK_CHARS, SessionStorageInterface, chunks
from .records import (
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    IdempotencyRecord,
    MemoryEntryRecord,
    MessageRecord,
    Page,
    SessionRecord,
    StepWrite,
    T,
    UnitRecord,
)

LAYOUT_VERSION = 3
"""The table layout this module writes, kept in `PRAGMA user_version`."""

_SESSION = "REFERENCES sessions ON DELETE CASCADE"
_SCHEMA = (
    """CREATE TABLE sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, version INTEGER NOT NULL, message_count INTEGER NOT NULL,
    copilot_response_count INTEGER NOT NULL, user_inputs TEXT NOT NULL, schema_version INTEGER NOT NULL,
    steps INTEGER NOT NULL DEFAULT 0, model_requests INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    model_ms INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX sessions_by_owner ON sessions (owner, updated_at, session_id)",
    f"""CREATE TABLE messages (session_id TEXT NOT NULL {_SESSION}, "index" INTEGER NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (session_id, "index"))""",
    f"""CREATE TABLE copilot_responses (session_id TEXT NOT NULL {_SESSION}, response_index INTEGER NOT NULL,
    call_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, response_index, call_id))""",
    # An explicit INTEGER PRIMARY KEY keeps upload order stable across VACUUM and re-uploads.
    f"""CREATE TABLE files (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL,
    name TEXT NOT NULL, chars INTEGER NOT NULL, covered TEXT NOT NULL, created_at TEXT NOT NULL,
    UNIQUE (session_id, file_id))""",
    """CREATE TABLE file_chunks (session_id TEXT NOT NULL, file_id TEXT NOT NULL, n INTEGER NOT NULL,
    text TEXT NOT NULL, PRIMARY KEY (session_id, file_id, n),
    FOREIGN KEY (session_id, file_id) REFERENCES files (session_id, file_id) ON DELETE CASCADE)""",
    # The primary key is the idempotency rule: one unit per (session, file, start).
    f"""CREATE TABLE units (session_id TEXT NOT NULL {_SESSION}, file_id TEXT NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, cover_end INTEGER NOT NULL, text TEXT NOT NULL, call_id TEXT NOT NULL,
    status TEXT NOT NULL, PRIMARY KEY (session_id, file_id, start))""",
    # No foreign key: an owner's corrections outlive the session they came from.
    """CREATE TABLE corrections (seq INTEGER PRIMARY KEY, correction_id TEXT NOT NULL, owner TEXT NOT NULL,
    session_id TEXT NOT NULL, file_id TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL,
    proposal TEXT NOT NULL, final TEXT, reason TEXT, created_at TEXT NOT NULL)""",
    "CREATE INDEX corrections_by_owner ON corrections (owner, created_at, seq)",
    *(
        _IDEMPOTENCY := (
            """CREATE TABLE idempotency (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
        status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (owner, key))""",
        )
    ),
    # No foreign key either: an owner's glossary entries and style notes outlive every session.
    *(
        _MEMORY := (
            """CREATE TABLE memory_entries (owner TEXT NOT NULL, entry_id TEXT NOT NULL, kind TEXT NOT NULL,
        source TEXT NOT NULL, text TEXT NOT NULL, languages TEXT NOT NULL, origin TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (owner, entry_id))""",
        )
    ),
)
# Layout 1 → 2: telemetry counters on sessions, and the idempotency table.
_MIGRATE_1_TO_2 = (
    *(
        f"ALTER TABLE sessions ADD COLUMN {c} INTEGER NOT NULL DEFAULT 0"
        for c in ("steps", "model_requests", "input_tokens", "output_tokens", "model_ms")
    ),
    *_IDEMPOTENCY,
)
# Layout 2 → 3: owners' glossary entries and style notes.
_MIGRATE_2_TO_3 = _MEMORY
_MIGRATIONS = {1: _MIGRATE_1_TO_2, 2: _MIGRATE_2_TO_3}
"""The statements that take a file from layout `n` to `n + 1`."""


def _columns(record: type[Any], *extra: str) -> list[str]:
    return [*extra, *(f'"{f.name}"' for f in fields(record))]


def _insert(table: str, columns: list[str], conflict: str = "") -> str:
    params = ", ".join(":" + c.strip('"') for c in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({params}){conflict}"


def _upsert(table: str, record: type[Any], key: str, *extra: str) -> str:
    """An insert that, on a row with the same `key`, updates every other column in place."""
    keys = [k.strip() for k in key.split(",")]
    sets = ", ".join(f"{c} = excluded.{c}" for c in _columns(record) if c.strip('"') not in keys)
    return _insert(table, _columns(record, *extra), f" ON CONFLICT ({key}) DO UPDATE SET {sets}")


# Each record's columns, in field order, and the statements that write them by name.
_RECORDS = (SessionRecord, FileRecord, UnitRecord, CopilotResponseRecord, CorrectionRecord)
_S, _F, _U, _R, _C = (", ".join(_columns(record)) for record in _RECORDS)
_UPSERT_SESSION = _upsert("sessions", SessionRecord, "session_id")
_UPSERT_RESPONSE = _upsert(
    "copilot_responses", CopilotResponseRecord, "session_id, response_index, call_id", "session_id"
)
_UPSERT_FILE = _upsert("files", FileRecord, "session_id, file_id", "session_id")
_INSERT_MESSAGE = _insert("messages", _columns(MessageRecord, "session_id"))
_INSERT_UNIT = _insert("units", _columns(UnitRecord, "session_id"))
_INSERT_CORRECTION = _insert("corrections", _columns(CorrectionRecord))
_UPSERT_MEMORY = _upsert("memory_entries", MemoryEntryRecord, "owner, entry_id")
_M = ", ".join(_columns(MemoryEntryRecord))


def _row_dict(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


class SQLiteSessionStorage(SessionStorageInterface):
    """Sessions in one SQLite file (WAL), one connection behind a lock, safe across processes."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        try:
            folder = os.path.dirname(path)
            if folder and path != ":memory:":
                os.makedirs(folder, exist_ok=True)
            self._conn = sqlite3.connect(path, timeout=5.0, isolation_level=None, check_same_thread=False)
            self._conn.row_factory = _row_dict
            self._conn.execute("PRAGMA busy_timeout = 5000")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except (OSError, sqlite3.Error) as exc:
            raise StorageUnavailableError(f"Cannot open the session database {path}: {exc}") from exc
        try:
            self._create_schema(path)
            self._use_wal(path)
        except StorageUnavailableError:
            self._conn.close()
            raise

    def _create_schema(self, path: str) -> None:
        """Create the tables once (under the writer lock, so racing processes agree); refuse newer layouts."""
        with self._transaction(write=True) as db:
            layout = int(db.execute("PRAGMA user_version").fetchone()["user_version"])
            if layout > LAYOUT_VERSION:
                raise StorageUnavailableError(
                    f"{path} was written by a newer storage layout ({layout} > {LAYOUT_VERSION}); upgrade the app."
                )
            if layout < LAYOUT_VERSION:
                steps = [_SCHEMA] if layout == 0 else [_MIGRATIONS[n] for n in range(layout, LAYOUT_VERSION)]
                for step in steps:
                    for statement in step:
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")

    def _use_wal(self, path: str) -> None:
        """Switch the file to WAL once; the switch ignores busy_timeout, so retry while others open it."""
        error: sqlite3.Error | None = None
        for _ in range(50):
            try:
                if self._conn.execute("PRAGMA journal_mode = WAL").fetchone()["journal_mode"] in ("wal", "memory"):
                    return
            except sqlite3.OperationalError as exc:
                error = exc
            time.sleep(0.1)
        raise StorageUnavailableError(f"Cannot switch {path} to WAL journal mode: {error}") from error

    @classmethod
    def from_env(cls) -> SQLiteSessionStorage:
        """A store at `SQLITE_PATH` (default `data/sessions.sqlite3`, relative to the working directory)."""
        return cls(os.environ.get("SQLITE_PATH") or "data/sessions.sqlite3")

    def close(self) -> None:
        """Close the connection; the store is unusable afterwards."""
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction: IMMEDIATE for writes (the writer lock before the version is read)."""
        with self._lock:
            db = self._conn
            try:
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield db
                db.execute("COMMIT")
            except BaseException as exc:
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.IntegrityError):
                    raise ConflictError(f"The write conflicts with stored data: {exc}") from exc
                if isinstance(exc, sqlite3.Error):
                    raise StorageUnavailableError(f"The session database failed: {exc}") from exc
                raise

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record; NotFoundError if there is none."""
        with self._transaction(write=False) as db:
            return _session(_require(db, session_id))

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first (ties by session id, descending)."""
        after = _decode(cursor, "s", (str, str))
        sql = f"SELECT {_S} FROM sessions WHERE owner = ?" + (" AND (updated_at, session_id) < (?, ?)" if after else "")
        with self._transaction(write=False) as db:
            rows = _fetch(db, sql + " ORDER BY updated_at DESC, session_id DESC", [owner, *after], limit)
        return _page([_session(r) for r in rows], limit, "s", lambda s: [s.updated_at, s.session_id])

    def delete_session(self, session_id: str) -> None:
        """Delete the session and its messages, verdicts, files and units (cascading); not corrections."""
        with self._transaction(write=True) as db:
            db.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))

    def commit(self, write: StepWrite) -> None:
        """Write the step in one transaction if the stored version is `expected_version`, else ConflictError."""
        sid = write.session.session_id
        with self._transaction(write=True) as db:
            row = db.execute("SELECT version FROM sessions WHERE session_id = ?", (sid,)).fetchone()
            if (row["version"] if row else 0) != write.expected_version:
                raise ConflictError("The session advanced concurrently; reload it and try again.")
            db.execute(_UPSERT_SESSION, {**asdict(write.session), "user_inputs": json.dumps(write.session.user_inputs)})
            db.executemany(_INSERT_MESSAGE, [{**asdict(m), "session_id": sid} for m in write.messages])
            db.executemany(_UPSERT_RESPONSE, [{**asdict(r), "session_id": sid} for r in write.copilot_responses])
            _insert_units(db, sid, write.units)
            for file_id, covered in write.coverage.items():
                update = "UPDATE files SET covered = ? WHERE session_id = ? AND file_id = ?"
                if db.execute(update, (json.dumps(covered), sid, file_id)).rowcount == 0:
                    raise NotFoundError(f"No file {file_id} in this session.")
            db.executemany(_INSERT_CORRECTION, [asdict(c) for c in write.corrections])
            if write.idempotency is not None:
                _put_idempotency(db, write.idempotency, int(time.time()))

    def latest_messages(self, session_id: str, *, limit: int, count: int | None = None) -> list[MessageRecord]:
        """The session's last `limit` messages, oldest first."""
        with self._transaction(write=False) as db:
            _require(db, session_id)
            sql = 'SELECT "index", data FROM messages WHERE session_id = ? ORDER BY "index" DESC LIMIT ?'
            rows = db.execute(sql, (session_id, max(limit, 0))).fetchall()
        return [MessageRecord(**r) for r in reversed(rows)]

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[MessageRecord]:
        """The session's messages, oldest first, a page at a time."""
        after = _decode(cursor, "m", (int,))
        sql = 'SELECT "index", data FROM messages WHERE session_id = ?' + (' AND "index" > ?' if after else "")
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = _fetch(db, sql + ' ORDER BY "index"', [session_id, *after], limit)
        return _page([MessageRecord(**r) for r in rows], limit, "m", lambda m: [m.index])

    def copilot_responses(self, session_id: str, *, response_index: int) -> list[CopilotResponseRecord]:
        """The verdicts on the calls of the model response at `response_index`, by call id."""
        sql = f"SELECT {_R} FROM copilot_responses WHERE session_id = ? AND response_index = ? ORDER BY call_id"
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = db.execute(sql, (session_id, response_index)).fetchall()
        return [CopilotResponseRecord(**r) for r in rows]

    def list_copilot_responses(self, session_id: str, *, cursor: str | None, limit: int) -> Page[CopilotResponseRecord]:
        """All the session's verdicts by response index, then call id, a page at a time."""
        after = _decode(cursor, "r", (int, str))
        sql = f"SELECT {_R} FROM copilot_responses WHERE session_id = ?"
        sql += " AND (response_index, call_id) > (?, ?)" if after else ""
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = _fetch(db, sql + " ORDER BY response_index, call_id", [session_id, *after], limit)
        return _page([CopilotResponseRecord(**r) for r in rows], limit, "r", lambda r: [r.response_index, r.call_id])

    def add_file(self, session_id: str, record: FileRecord, content: str) -> None:
        """Store a file of an existing session in chunks (one with the same id is replaced in place)."""
        with self._transaction(write=True) as db:
            _require(db, session_id)
            covered = json.dumps(record.covered)
            db.execute(_UPSERT_FILE, {**asdict(record), "session_id": session_id, "covered": covered})
            db.execute("DELETE FROM file_chunks WHERE session_id = ? AND file_id = ?", (session_id, record.file_id))
            db.executemany(
                "INSERT INTO file_chunks VALUES (?, ?, ?, ?)",
                [(session_id, record.file_id, n, text) for n, text in enumerate(chunks(content))],
            )

    def list_files(self, session_id: str) -> list[FileRecord]:
        """The session's files, in the order they were added."""
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = db.execute(f"SELECT {_F} FROM files WHERE session_id = ? ORDER BY seq", (session_id,)).fetchall()
        return [_file(r) for r in rows]

    def get_file(self, session_id: str, file_id: str) -> FileRecord:
        """One file's record; NotFoundError if there is none."""
        with self._transaction(write=False) as db:
            return _file(_require(db, session_id, file_id))

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)`, reading only the chunks that hold them."""
        start, end = max(0, start), max(0, end)
        first, last = start // CHUNK_CHARS, (end - 1) // CHUNK_CHARS
        with self._transaction(write=False) as db:
            _require(db, session_id, file_id)
            if end <= start:
                return ""
            sql = "SELECT text FROM file_chunks WHERE session_id = ? AND file_id = ? AND n BETWEEN ? AND ? ORDER BY n"
            rows = db.execute(sql, (session_id, file_id, first, last)).fetchall()
        text = "".join(r["text"] for r in rows)
        return text[start - first * CHUNK_CHARS : end - first * CHUNK_CHARS]

    def list_units(self, session_id: str, file_id: str) -> list[UnitRecord]:
        """The file's written units, in source order."""
        with self._transaction(write=False) as db:
            _require(db, session_id)
            sql = f"SELECT {_U} FROM units WHERE session_id = ? AND file_id = ? ORDER BY start"
            rows = db.execute(sql, (session_id, file_id)).fetchall()
        return [UnitRecord(**r) for r in rows]

    def get_idempotency(self, owner: str, key: str, *, now: int) -> IdempotencyRecord | None:
        """The unexpired answer for the owner's key, if any."""
        sql = "SELECT * FROM idempotency WHERE owner = ? AND key = ? AND expires_at > ?"
        with self._transaction(write=False) as db:
            row = db.execute(sql, (owner, key, now)).fetchone()
        return IdempotencyRecord(**row) if row else None

    def put_idempotency(self, record: IdempotencyRecord, *, now: int) -> None:
        """Remember an answer unless an unexpired one exists (ConflictError)."""
        with self._transaction(write=True) as db:
            _put_idempotency(db, record, now)

    def recent_corrections(self, owner: str, *, limit: int) -> list[CorrectionRecord]:
        """The owner's latest corrections, newest first (equal times: the later written first)."""
        sql = f"SELECT {_C} FROM corrections WHERE owner = ? ORDER BY created_at DESC, seq DESC LIMIT ?"
        with self._transaction(write=False) as db:
            rows = db.execute(sql, (owner, max(limit, 0))).fetchall()
        return [CorrectionRecord(**r) for r in rows]

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes, oldest first."""
        sql = f"SELECT {_M} FROM memory_entries WHERE owner = ? ORDER BY created_at, entry_id"
        with self._transaction(write=False) as db:
            rows = db.execute(sql, (owner,)).fetchall()
        return [MemoryEntryRecord(**r) for r in rows]

    def put_memory_entry(self, record: MemoryEntryRecord) -> None:
        """Add the entry or replace the owner's entry with the same id."""
        with self._transaction(write=True) as db:
            db.execute(_UPSERT_MEMORY, asdict(record))

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry; NotFoundError if there is none."""
        with self._transaction(write=True) as db:
            sql = "DELETE FROM memory_entries WHERE owner = ? AND entry_id = ?"
            if db.execute(sql, (owner, entry_id)).rowcount == 0:
                raise NotFoundError(f"No memory entry {entry_id}.")


def _put_idempotency(db: sqlite3.Connection, record: IdempotencyRecord, now: int) -> None:
    """Insert the answer; an unexpired one for the same owner and key is a conflict."""
    db.execute(
        "DELETE FROM idempotency WHERE owner = ? AND key = ? AND expires_at <= ?", (record.owner, record.key, now)
    )
    try:
        db.execute(_insert("idempotency", _columns(IdempotencyRecord)), asdict(record))
    except sqlite3.IntegrityError as exc:
        raise ConflictError("A request with this Idempotency-Key is already recorded.") from exc


def _insert_units(db: sqlite3.Connection, session_id: str, units: Sequence[UnitRecord]) -> None:
    """Insert the units; one already written at the same (file, start) fails the whole commit."""
    for unit in units:
        try:
            db.execute(_INSERT_UNIT, {**asdict(unit), "session_id": session_id})
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"A unit at {unit.start} of {unit.file_id} is already written.") from exc


def _require(db: sqlite3.Connection, session_id: str, file_id: str | None = None) -> dict[str, Any]:
    """The session's row (or, given `file_id`, the file's); NotFoundError if either is missing."""
    row: dict[str, Any] | None = db.execute(f"SELECT {_S} FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"No session {session_id}.")
    if file_id is not None:
        sql = f"SELECT {_F} FROM files WHERE session_id = ? AND file_id = ?"
        row = db.execute(sql, (session_id, file_id)).fetchone()
        if row is None:
            raise NotFoundError(f"No file {file_id} in this session.")
    return row


def _session(row: dict[str, Any]) -> SessionRecord:
    return SessionRecord(**{**row, "user_inputs": tuple(json.loads(row["user_inputs"]))})


def _file(row: dict[str, Any]) -> FileRecord:
    return FileRecord(**{**row, "covered": tuple((int(a), int(b)) for a, b in json.loads(row["covered"]))})


def _fetch(db: sqlite3.Connection, sql: str, args: list[Any], limit: int) -> list[dict[str, Any]]:
    """Up to `limit + 1` rows: the extra one only says whether another page follows."""
    return db.execute(sql + " LIMIT ?", (*args, max(limit, 0) + 1)).fetchall()


def _page(items: list[T], limit: int, kind: str, key: Callable[[T], list[Any]]) -> Page[T]:
    """The first `limit` items and, if more follow, a cursor naming the last one returned."""
    if limit <= 0 or len(items) <= limit:
        return Page(items[: max(limit, 0)], None)
    token = json.dumps([kind, *key(items[limit - 1])]).encode()
    return Page(items[:limit], base64.urlsafe_b64encode(token).decode("ascii"))


def _decode(cursor: str | None, kind: str, shape: tuple[type, ...]) -> list[Any]:
    """The key a cursor of this kind names (empty for the first page); InvalidCursorError otherwise."""
    if not cursor:
        return []
    try:
        value = json.loads(base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True))
    except ValueError as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if not isinstance(value, list) or value[:1] + [type(v) for v in value[1:]] != [kind, *shape]:
        raise InvalidCursorError("Invalid cursor.")
    return value[1:]
