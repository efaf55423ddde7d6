"""The SQLite backend's comments: one `comments` row a comment, under its session (deleted with it)."""

from __future__ import annotations

from typing import Any

from . import comments as limits
from .comments import (
    CommentRecord,
    CommentStore,
    ThreadCount,
    cap_error,
)
from .errors import NotFoundError
from .sqlite_db import SQLiteDatabase

_COLUMNS = "session_id, comment_id, file_id, segment_id, by_sub, at, text, resolved, resolved_by, resolved_at"


class SQLiteCommentStorage(SQLiteDatabase, CommentStore):
    """Comments in the SQLite file; a post's counts and insert are one write transaction (the writer
    lock), so the caps hold across processes."""

    def _add_comment(self, comment: CommentRecord) -> None:
        """The session checked, both caps counted and the row inserted, in one transaction."""
        c = comment
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM sessions WHERE session_id = ?", (c.session_id,)).fetchone() is None:
                raise NotFoundError(f"No session {c.session_id}.")
            row = db.execute(
                "SELECT COUNT(*) AS n, SUM(file_id = ? AND segment_id = ?) AS here FROM comments WHERE session_id = ?",
                (c.file_id, c.segment_id, c.session_id),
            ).fetchone()
            if (row["here"] or 0) >= limits.MAX_COMMENTS_PER_SEGMENT:
                raise cap_error("segment")
            if row["n"] >= limits.MAX_COMMENTS_PER_SESSION:
                raise cap_error("session")
            db.execute(
                f"INSERT INTO comments ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL, NULL)",
                (c.session_id, c.comment_id, c.file_id, c.segment_id, c.by, c.at, c.text),
            )

    def thread(self, session_id: str, file_id: str, segment_id: str) -> list[CommentRecord]:
        """One SELECT of the segment's rows (an index on session, file, segment, id)."""
        sql = (
            f"SELECT {_COLUMNS} FROM comments WHERE session_id = ? AND file_id = ? AND segment_id = ? "
            "ORDER BY comment_id LIMIT ?"
        )
        with self._transaction(write=False, one_statement=True) as db:
            rows = db.execute(sql, (session_id, file_id, segment_id, limits.MAX_COMMENTS_PER_SEGMENT)).fetchall()
        return [_comment(r) for r in rows]

    def resolve_comment(
        self, session_id: str, file_id: str, segment_id: str, comment_id: str, *, resolved: bool, by: str, at: str
    ) -> CommentRecord:
        """One UPDATE where the mark differs, then the row, in one transaction."""
        where = "session_id = ? AND comment_id = ? AND file_id = ? AND segment_id = ?"
        key = (session_id, comment_id, file_id, segment_id)
        with self._transaction(write=True) as db:
            db.execute(
                f"UPDATE comments SET resolved = ?, resolved_by = ?, resolved_at = ? WHERE {where} AND resolved != ?",
                (int(resolved), by, at, *key, int(resolved)),
            )
            row = db.execute(f"SELECT {_COLUMNS} FROM comments WHERE {where}", key).fetchone()
        if row is None:
            raise NotFoundError(f"No comment {comment_id[:80]} on this segment.")
        return _comment(row)

    def comment_counts(self, session_id: str, file_id: str) -> dict[str, ThreadCount]:
        """One grouped SELECT over the file's rows (the index; no text read)."""
        sql = (
            "SELECT segment_id, COUNT(*) AS n, SUM(resolved = 0) AS open FROM comments "
            "WHERE session_id = ? AND file_id = ? GROUP BY segment_id"
        )
        with self._transaction(write=False, one_statement=True) as db:
            rows = db.execute(sql, (session_id, file_id)).fetchall()
        return {r["segment_id"]: ThreadCount(r["n"], r["open"] or 0) for r in rows}

    def session_comments(self, session_id: str) -> list[CommentRecord]:
        """One SELECT of the session's rows."""
        sql = f"SELECT {_COLUMNS} FROM comments WHERE session_id = ? ORDER BY file_id, segment_id, comment_id LIMIT ?"
        with self._transaction(write=False, one_statement=True) as db:
            rows = db.execute(sql, (session_id, limits.MAX_COMMENTS_PER_SESSION)).fetchall()
        return [_comment(r) for r in rows]


def _comment(row: dict[str, Any]) -> CommentRecord:
    return CommentRecord(
        comment_id=row["comment_id"],
        session_id=row["session_id"],
        file_id=row["file_id"],
        segment_id=row["segment_id"],
        by=row["by_sub"],
        at=row["at"],
        text=row["text"],
        resolved=bool(row["resolved"]),
        resolved_by=row["resolved_by"],
        resolved_at=row["resolved_at"],
    )
