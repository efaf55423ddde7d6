"""The SQLite backend's connection: one file shared by threads and processes, its layout, its transactions.

Every write is one `BEGIN IMMEDIATE` transaction (SQLite's writer lock), so a commit's version check
and its writes, and a cap's count and its insert, cannot interleave with another process's.
`sqlite3.Error` becomes StorageUnavailableError (an integrity failure ConflictError) in one place,
`_transaction`. `:memory:` gives a private in-process store (the tests' fast backend).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from typing import Any

from agent_core.errors import InvalidRequestError

from .errors import ConflictError, StorageUnavailableError
from .sqlite_schema import LAYOUT_VERSION, SCHEMA

ROWS_PER_STATEMENT = 200
"""Rows one multi-row INSERT carries (a step's batch is one statement per table, not one per row)."""


def timestamp() -> str:
    """The current time, ISO 8601 in UTC with milliseconds (what rows are stamped with)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _row_dict(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


def insert_rows(db: sqlite3.Connection, insert: str, rows: Sequence[tuple[Any, ...]], suffix: str = "") -> None:
    """`insert` (`INSERT INTO t (columns)`) of `rows` as multi-row VALUES statements, then `suffix`."""
    for k in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[k : k + ROWS_PER_STATEMENT]
        marks = ", ".join("(" + ", ".join("?" for _ in row) + ")" for row in chunk)
        db.execute(f"{insert} VALUES {marks}{suffix}", [value for row in chunk for value in row])


class SQLiteDatabase:
    """One connection to the file behind a lock, its layout created on opening a new file."""

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
        """Create the tables in a new file (under the writer lock, so racing processes agree); refuse a
        file of any other layout, or not ours: there is no data of another layout to carry over."""
        with self._transaction(write=True) as db:
            layout = int(db.execute("PRAGMA user_version").fetchone()["user_version"])
            if layout == LAYOUT_VERSION:
                return
            if layout != 0 or db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None:
                raise StorageUnavailableError(
                    f"{path} holds another storage layout ({layout}, this app writes {LAYOUT_VERSION}): "
                    "delete or move the file, and a new one is created."
                )
            for statement in SCHEMA:
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

    def close(self) -> None:
        """Close the connection; the store is unusable afterwards."""
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self, *, write: bool, one_statement: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction: IMMEDIATE for writes (the writer lock before the version is read). A read
        of one statement needs none (the connection is in autocommit: a statement is atomic)."""
        with self._lock:
            db = self._conn
            bare = not write and one_statement
            try:
                if not bare:
                    db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield db
                if not bare:
                    db.execute("COMMIT")
            except BaseException as exc:
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                if isinstance(exc, UnicodeEncodeError):
                    raise InvalidRequestError("The text cannot be stored: it is not valid Unicode.") from exc
                if isinstance(exc, sqlite3.IntegrityError):
                    raise ConflictError(f"The write conflicts with stored data: {exc}") from exc
                if isinstance(exc, sqlite3.Error):
                    raise StorageUnavailableError(f"The session database failed: {exc}") from exc
                raise
