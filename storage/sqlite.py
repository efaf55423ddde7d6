"""SQLiteStorage: the embedded backend, one SQLite file shared by threads and processes.

Sessions, steps, files, units and kept answers are here; the connection, its layout and its
transactions are storage.sqlite_db's, the owners' memory's operations storage.sqlite_memory's.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from types import EllipsisType
from typing import Any, get_args

from pydantic_ai.messages import ModelMessage, ModelResponse

from agent_core.document import FileState
from agent_core.effects import (
    Budget,
    Correction,
    StepEffects,
    StepToken,
    StoredAnswer,
    Telemetry,
    UnitWrite,
    Verdict,
)
from agent_core.errors import InvalidRequestError
from agent_core.review_modes import ReviewMode
from agent_core.segment import Segment, load_segments

from .codec import dump_issue, dump_message, dump_verdict, load_messages, load_verdict
from .errors import ConflictError, NotFoundError, StorageUnavailableError
from .interface import (
    MAX_TM_ENTRIES,
    FileChunk,
    Storage,
    StoredSession,
    chunk_segments,
    chunks,
    tm_record,
)
from .records import SCHEMA_VERSION, JobRecord, Page, ReviewLog, SessionClaim, SessionHold, SessionRecord
from .sqlite_comments import SQLiteCommentStorage
from .sqlite_db import insert_rows, timestamp
from .sqlite_memory import CORRECTION_COLUMNS, SQLiteMemoryStorage, correction_of, put_tm_rows
from .sqlite_paging import decode_cursor, page
from .sqlite_projects import SQLiteProjectStorage

_TELEMETRY = ("steps", "model_requests", "input_tokens", "output_tokens", "model_ms", "cached_tokens", "cost_micro_usd")
_SESSION_COLUMNS = (
    "session_id, owner, created_at, updated_at, version, message_count, hidden_messages, copilot_response_count, "
    "user_inputs, "
    "schema_version, queued_inputs, source_language, target_language, budget, model, hold, auto_approve, claim, "
    "second_review, auto_sample, qa_profile, " + ", ".join(_TELEMETRY)
)
_UNIT_COLUMNS = (
    'file_id, start, "end", cover_end, text, call_id, status, origin, updated_at, estimate, auto, stage, sampled'
)
_REVISED = ("text", "call_id", "status", "origin", "updated_at", "estimate", "auto", "stage")
"""What a revision changes of a unit (its place stays)."""
_REVISIONS = (
    "SELECT start, text, call_id, status, origin, updated_at, estimate, auto, stage FROM revisions "
    "WHERE session_id = ? AND file_id = ? ORDER BY seq"
)

REVIEW_MODES: tuple[ReviewMode, ...] = get_args(ReviewMode)
"""The session's `review`, stored in its `second_review` column as an index (0 `single`, 1 `double`, 2
`pretranslate`)."""


class SQLiteStorage(SQLiteMemoryStorage, SQLiteProjectStorage, SQLiteCommentStorage, Storage):
    """Sessions and memory in one SQLite file (WAL), one connection behind a lock, safe across processes."""

    @classmethod
    def from_env(cls) -> SQLiteStorage:
        """A store at `SQLITE_PATH` (default `data/sessions.sqlite3`, relative to the working directory)."""
        return cls(os.environ.get("SQLITE_PATH") or "data/sessions.sqlite3")

    # -- sessions and steps ----------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record; NotFoundError if there is none."""
        with self._transaction(write=False) as db:
            return _session(_require(db, session_id))

    def update_session(
        self,
        session_id: str,
        *,
        source_language: str | EllipsisType | None = ...,
        target_language: str | EllipsisType | None = ...,
        budget: Budget | EllipsisType | None = ...,
        model: str | EllipsisType | None = ...,
        auto_approve: int | EllipsisType | None = ...,
        review: ReviewMode | EllipsisType = ...,
        auto_sample: float | EllipsisType = ...,
        qa_profile: str | EllipsisType | None = ...,
    ) -> SessionRecord:
        """Set the session's settings in one transaction (the version bumped); NotFoundError if none."""
        stored = budget.dumps() if isinstance(budget, Budget) else budget
        changes = {
            "source_language": source_language,
            "target_language": target_language,
            "budget": stored,
            "model": model,
            "auto_approve": auto_approve,
            "second_review": review if review is ... else REVIEW_MODES.index(review),
            "auto_sample": auto_sample,
            "qa_profile": qa_profile,
        }
        sets = "".join(f", {column} = ?" for column, value in changes.items() if value is not ...)
        values = [value for value in changes.values() if value is not ...]
        with self._transaction(write=True) as db:
            _require(db, session_id)
            sql = f"UPDATE sessions SET version = version + 1, hold = NULL{sets} WHERE session_id = ?"
            db.execute(sql, (*values, session_id))
            return _session(_require(db, session_id))

    def hold_session(self, session_id: str, hold: SessionHold) -> None:
        """One UPDATE of the session's hold alone (its version unchanged)."""
        with self._transaction(write=True) as db:
            _require(db, session_id)
            db.execute("UPDATE sessions SET hold = ? WHERE session_id = ?", (hold.dumps(), session_id))

    def claim_session(self, session_id: str, claim: SessionClaim, *, now: str, take_over: bool = False) -> SessionClaim:
        """One write transaction: the row read and its claim set unless another identity's lasts."""
        with self._transaction(write=True) as db:
            row = _require(db, session_id)
            held = SessionClaim.loads(row["claim"]) if row["claim"] else None
            if held is not None and held.by != claim.by and held.until > now and not take_over:
                return held
            db.execute("UPDATE sessions SET claim = ? WHERE session_id = ?", (claim.dumps(), session_id))
            return claim

    def release_claim(self, session_id: str, by: str | None) -> bool:
        """One write transaction: the row read and its claim removed if `by` holds it."""
        with self._transaction(write=True) as db:
            row = _require(db, session_id)
            held = SessionClaim.loads(row["claim"]) if row["claim"] else None
            if held is None or (by is not None and held.by != by):
                return False
            db.execute("UPDATE sessions SET claim = NULL WHERE session_id = ?", (session_id,))
            return True

    def add_spent(self, session_id: str, spent: Telemetry) -> None:
        """One UPDATE of the session's counters alone (its version unchanged)."""
        sets = ", ".join(f"{c} = {c} + ?" for c in _TELEMETRY)
        with self._transaction(write=True) as db:
            _require(db, session_id)
            db.execute(
                f"UPDATE sessions SET {sets} WHERE session_id = ?",
                (*(getattr(spent, c) for c in _TELEMETRY), session_id),
            )

    def put_job(self, job: JobRecord) -> None:
        """One INSERT; a job id taken is a ConflictError."""
        with self._transaction(write=True) as db:
            inserted = db.execute(
                "INSERT INTO jobs (job_id, owner, created_at, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (job.job_id, job.owner, job.created_at, job.dumps()),
            )
            if inserted.rowcount != 1:
                raise ConflictError(f"A job {job.job_id} exists already.")

    def get_job(self, job_id: str) -> JobRecord:
        """The job's row."""
        with self._transaction(write=False) as db:
            row = db.execute("SELECT * FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No job {job_id}.")
        return JobRecord.loads(row["job_id"], row["owner"], row["created_at"], row["data"])

    def _load(self, session_id: str, *, window: int) -> StoredSession:
        """The record, the latest messages, the latest two responses' verdicts and the files, in one read."""
        with self._transaction(write=False) as db:
            record = _session(_require(db, session_id))
            sql = 'SELECT "index", data FROM messages WHERE session_id = ? ORDER BY "index" DESC LIMIT ?'
            rows = list(reversed(db.execute(sql, (session_id, window)).fetchall()))
            messages = load_messages([r["data"] for r in rows])
            responses = [rows[i]["index"] for i in range(len(rows)) if isinstance(messages[i], ModelResponse)]
            response_index = responses[-1] if responses else -1
            previous_index = responses[-2] if len(responses) > 1 else -1
            sql = (
                "SELECT response_index, data FROM copilot_responses WHERE session_id = ? AND response_index IN (?, ?) "
                "ORDER BY call_id"
            )
            both = db.execute(sql, (session_id, response_index, previous_index)).fetchall()
            return StoredSession(
                record=record,
                messages=messages,
                response_index=response_index,
                verdicts=[load_verdict(r["data"]) for r in both if r["response_index"] == response_index],
                previous_index=previous_index,
                previous=[load_verdict(r["data"]) for r in both if r["response_index"] == previous_index],
                files=_files(db, session_id),
            )

    def _commit(self, token: StepToken, effects: StepEffects, answer: StoredAnswer | None) -> None:
        """Write the step in one transaction if the stored version is the token's, else ConflictError."""
        sid, stamp = token.session_id, timestamp()
        advanced = ConflictError("The session advanced concurrently; reload it and try again.")
        with self._transaction(write=True) as db:
            if token.version == 0:
                created = db.execute(
                    "INSERT INTO sessions (session_id, owner, created_at, updated_at, version, message_count, "
                    "copilot_response_count, user_inputs, schema_version, source_language, target_language, budget, "
                    "model, auto_approve, second_review, auto_sample, qa_profile) "
                    "VALUES (?, ?, ?, ?, 0, 0, 0, '[]', ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (session_id) DO NOTHING",
                    (sid, token.owner, token.created_at, stamp, SCHEMA_VERSION, *_settings(effects)),
                )
                if created.rowcount != 1:
                    raise advanced
            if not _update_session(db, token, effects, stamp):  # the version check, in the same statement
                raise advanced
            insert_rows(
                db,
                'INSERT INTO messages (session_id, "index", data)',
                [(sid, token.message_count + i, dump_message(m)) for i, m in enumerate(effects.messages)],
            )
            insert_rows(
                db,
                "INSERT INTO copilot_responses (session_id, response_index, call_id, data, created_at)",
                [(sid, token.response_index, v.tool.call_id, dump_verdict(v), stamp) for v in effects.verdicts],
                " ON CONFLICT (session_id, response_index, call_id) DO UPDATE SET "
                "data = excluded.data, created_at = excluded.created_at",
            )
            _insert_units(db, sid, effects.units, stamp)
            _revise_units(db, sid, effects.revisions, stamp)
            for file_id, covered in effects.coverage.items():
                update = "UPDATE files SET covered = ? WHERE session_id = ? AND file_id = ?"
                if db.execute(update, (json.dumps(covered), sid, file_id)).rowcount == 0:
                    raise NotFoundError(f"No file {file_id} in this session.")
            insert_rows(
                db,
                "INSERT INTO corrections (correction_id, owner, session_id, file_id, status, source, proposal, final, "
                "reason, created_at, start, issue)",
                [_correction_row(token, c, stamp) for c in effects.corrections],
            )
            insert_rows(
                db,
                "INSERT OR IGNORE INTO decided_by (session_id, file_id, start, at, kind, by_sub)",
                _decided(sid, effects, stamp),
            )
            if effects.memory:
                pair = effects.memory[0].languages  # one pair (checked by `commit`)
                put_tm_rows(db, token.owner, pair, [tm_record(e) for e in effects.memory], MAX_TM_ENTRIES)
            if answer is not None:
                _put_answer(db, sid, answer, int(time.time()))

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first (ties by session id, descending)."""
        after = decode_cursor(cursor, "s", (str, str))
        sql = f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE owner = ?"
        sql += " AND (updated_at, session_id) < (?, ?)" if after else ""
        sql += " ORDER BY updated_at DESC, session_id DESC LIMIT ?"
        with self._transaction(write=False) as db:
            rows = db.execute(sql, (owner, *after, max(limit, 0) + 1)).fetchall()
        return page([_session(r) for r in rows], limit, "s", lambda s: [s.updated_at, s.session_id])

    def delete_session(self, session_id: str) -> None:
        """Delete the session with its messages, verdicts, files, units (cascading) and answers; not corrections."""
        with self._transaction(write=True) as db:
            db.execute("DELETE FROM idempotency WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[ModelMessage]:
        """The session's messages, oldest first, a page at a time."""
        after = decode_cursor(cursor, "m", (int,))
        sql = 'SELECT "index", data FROM messages WHERE session_id = ?' + (' AND "index" > ?' if after else "")
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = db.execute(sql + ' ORDER BY "index" LIMIT ?', (session_id, *after, max(limit, 0) + 1)).fetchall()
        found = page(rows, limit, "m", lambda r: [r["index"]])
        return Page(load_messages([r["data"] for r in found.items]), found.next_cursor)

    def list_verdicts(self, session_id: str, *, cursor: str | None, limit: int) -> Page[Verdict]:
        """All the session's verdicts by response index, then call id, a page at a time."""
        after = decode_cursor(cursor, "r", (int, str))
        sql = "SELECT response_index, call_id, data FROM copilot_responses WHERE session_id = ?"
        sql += " AND (response_index, call_id) > (?, ?)" if after else ""
        sql += " ORDER BY response_index, call_id LIMIT ?"
        with self._transaction(write=False) as db:
            _require(db, session_id)
            rows = db.execute(sql, (session_id, *after, max(limit, 0) + 1)).fetchall()
        found = page(rows, limit, "r", lambda r: [r["response_index"], r["call_id"]])
        return Page([load_verdict(r["data"]) for r in found.items], found.next_cursor)

    # -- files and units ---------------------------------------------------------------------

    def add_file(
        self,
        session_id: str,
        file: FileState,
        content: str,
        *,
        segments: Sequence[Segment],
        max_files: int,
        original: str | None = None,
    ) -> None:
        """Store a file of an existing session in chunks, each with the segments that begin in it; the
        cap is counted under the writer lock."""
        stamp = timestamp()
        with self._transaction(write=True) as db:
            _require(db, session_id)
            count = db.execute("SELECT count(*) AS n FROM files WHERE session_id = ?", (session_id,)).fetchone()["n"]
            if count >= max_files:
                raise InvalidRequestError(f"A session holds at most {max_files} files.")
            db.execute(
                "INSERT INTO files (session_id, file_id, name, chars, covered, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, file.file_id, file.name, file.chars, json.dumps(file.covered), file.created_at or stamp),
            )
            texts = chunks(content)
            db.executemany(
                "INSERT INTO file_chunks VALUES (?, ?, ?, ?, ?)",
                [
                    (session_id, file.file_id, n, text, found)
                    for n, (text, found) in enumerate(zip(texts, chunk_segments(segments, len(texts)), strict=True))
                ],
            )
            if original is not None:  # chunks numbered below zero: the original document
                db.executemany(
                    "INSERT INTO file_chunks (session_id, file_id, n, text) VALUES (?, ?, ?, ?)",
                    [(session_id, file.file_id, -1 - n, text) for n, text in enumerate(chunks(original))],
                )

    def read_original(self, session_id: str, file_id: str) -> str | None:
        """The document the file was taken from (its chunks are numbered -1, -2, …), or None."""
        with self._transaction(write=False) as db:
            _require_file(db, session_id, file_id)
            sql = "SELECT text FROM file_chunks WHERE session_id = ? AND file_id = ? AND n < 0 ORDER BY n DESC"
            rows = db.execute(sql, (session_id, file_id)).fetchall()
        return "".join(r["text"] for r in rows) if rows else None

    def _chunks(self, session_id: str, file_id: str, numbers: range, *, segments: bool) -> list[FileChunk]:
        """The file's chunks `numbers` (their segments only if asked), in one read."""
        columns = "n, text, segments" if segments else "n, text, NULL AS segments"
        sql = f"SELECT {columns} FROM file_chunks WHERE session_id = ? AND file_id = ? AND n BETWEEN ? AND ?"
        with self._transaction(write=False) as db:
            _require_file(db, session_id, file_id)
            rows = {r["n"]: r for r in db.execute(sql, (session_id, file_id, numbers.start, numbers.stop - 1))}
        return [
            FileChunk(rows[n]["text"], load_segments(rows[n]["segments"]) if segments else ())
            if n in rows
            else FileChunk("", ())
            for n in numbers
        ]

    def review_log(self, session_id: str, file_id: str) -> ReviewLog:
        """The units' first writes and revisions, and the file's corrections, in commit order (one read)."""
        with self._transaction(write=False) as db:
            _require_file(db, session_id, file_id)
            sql = f"SELECT {_UNIT_COLUMNS} FROM units WHERE session_id = ? AND file_id = ? ORDER BY updated_at, start"
            first = {r["start"]: _unit(r) for r in db.execute(sql, (session_id, file_id))}
            revisions = db.execute(_REVISIONS, (session_id, file_id)).fetchall()
            sql = f"SELECT {CORRECTION_COLUMNS} FROM corrections WHERE session_id = ? AND file_id = ? ORDER BY seq"
            corrections = [correction_of(r) for r in db.execute(sql, (session_id, file_id))]
            sql = "SELECT start, at, kind, by_sub FROM decided_by WHERE session_id = ? AND file_id = ?"
            people = {(r["start"], r["at"], r["kind"]): r["by_sub"] for r in db.execute(sql, (session_id, file_id))}
        writes = [replace(u, by=people.get((u.start, u.updated_at, "U"))) for u in first.values()]
        for r in revisions:
            held = first.get(r["start"])
            if held is not None:
                writes.append(replace(_revised(held, r), by=people.get((r["start"], r["updated_at"], "R"))))
        corrections = [replace(c, by=people.get((c.start, c.created_at, c.status))) for c in corrections]
        return ReviewLog(writes=writes, corrections=corrections)

    # -- answers -------------------------------------------------------------------------------

    def get_answer(self, owner: str, key: str, *, now: int) -> StoredAnswer | None:
        """The unexpired answer for the owner's key, if any."""
        sql = "SELECT owner, key, request_hash, body, expires_at FROM idempotency WHERE owner = ? AND key = ? "
        with self._transaction(write=False) as db:
            row = db.execute(sql + "AND expires_at > ?", (owner, key, now)).fetchone()
        return StoredAnswer(**row) if row else None

    def _keep_answer(self, session_id: str | None, answer: StoredAnswer, *, now: int) -> None:
        """Keep an answer unless an unexpired one exists (ConflictError)."""
        with self._transaction(write=True) as db:
            _put_answer(db, session_id, answer, now)


def _update_session(db: sqlite3.Connection, token: StepToken, effects: StepEffects, stamp: str) -> bool:
    """The version, counters and framing inputs after the step (the backend's arithmetic), if the
    stored version is still the token's: False when it is not (nothing was changed)."""
    spent = effects.telemetry
    new_verdicts = len({v.tool.call_id for v in effects.verdicts} - token.verdict_ids)
    sets = ", ".join(f"{c} = {c} + ?" for c in _TELEMETRY)
    inputs = None if effects.user_inputs is None else json.dumps(list(effects.user_inputs))
    queued = None if effects.queued_inputs is None else json.dumps(list(effects.queued_inputs))
    changed = db.execute(
        "UPDATE sessions SET version = version + 1, hold = NULL, updated_at = ?, message_count = message_count + ?, "
        "hidden_messages = hidden_messages + ?, copilot_response_count = copilot_response_count + ?, "
        "user_inputs = coalesce(?, user_inputs), "
        f"queued_inputs = coalesce(?, queued_inputs), {sets} WHERE session_id = ? AND version = ?",
        (
            stamp,
            len(effects.messages),
            effects.hidden_messages,
            new_verdicts,
            inputs,
            queued,
            *(getattr(spent, c) for c in _TELEMETRY),
            token.session_id,
            token.version,
        ),
    )
    return bool(changed.rowcount == 1)


def _correction_row(token: StepToken, c: Correction, stamp: str) -> tuple[str | int | None, ...]:
    row = (uuid.uuid4().hex, token.owner, token.session_id, c.file_id, c.status, c.source, c.proposal, c.final)
    return (*row, c.reason, stamp, c.start, dump_issue(c.issue))


def _decided(session_id: str, effects: StepEffects, stamp: str) -> list[tuple[str, str, int, str, str, str]]:
    """The `decided_by` rows of the commit: one for each unit, revision and correction a member decided."""
    units = [(u, "U") for u in effects.units] + [(u, "R") for u in effects.revisions]
    rows = [(session_id, u.file_id, u.start, stamp, kind, u.by) for u, kind in units if u.by is not None]
    decided = [(session_id, c.file_id, c.start, stamp, c.status, c.by) for c in effects.corrections if c.by]
    return rows + decided


def _put_answer(db: sqlite3.Connection, session_id: str | None, answer: StoredAnswer, now: int) -> None:
    """Insert the answer (expired ones are purged first); an unexpired one for the same key is a conflict."""
    db.execute("DELETE FROM idempotency WHERE expires_at <= ?", (now,))
    try:
        db.execute(
            "INSERT INTO idempotency (owner, key, request_hash, body, created_at, expires_at, session_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (answer.owner, answer.key, answer.request_hash, answer.body, timestamp(), answer.expires_at, session_id),
        )
    except sqlite3.IntegrityError as exc:
        raise ConflictError("A request with this Idempotency-Key is already recorded.") from exc


def _insert_units(db: sqlite3.Connection, session_id: str, units: Sequence[UnitWrite], stamp: str) -> None:
    """Insert the units; one already written at the same (file, start) fails the whole commit."""
    rows = [
        (
            *(session_id, u.file_id, u.start, u.end, u.cover_end, u.text, u.call_id, u.status, u.origin, stamp),
            *_unit_marks(u),
            int(u.sampled),
        )
        for u in units
    ]
    try:
        insert_rows(db, f"INSERT INTO units (session_id, {_UNIT_COLUMNS})", rows)
    except sqlite3.IntegrityError as exc:
        written = {(u.file_id, u.start) for u in units}
        sql = (
            "SELECT file_id, start FROM units WHERE session_id = ? AND (file_id, start) IN (VALUES "
            + ", ".join("(?, ?)" for _ in written)
            + ") ORDER BY start LIMIT 1"
        )
        found = db.execute(sql, [session_id, *(v for key in sorted(written) for v in key)]).fetchone()
        where = f"at {found['start']} of {found['file_id']}" if found else "in this batch"
        raise ConflictError(f"A unit {where} is already written.") from exc


def _revise_units(db: sqlite3.Connection, session_id: str, units: Sequence[UnitWrite], stamp: str) -> None:
    """Record new texts of written units (rows of their own); a unit that is not written there fails the commit."""
    for u in units:
        sql = "SELECT 1 FROM units WHERE session_id = ? AND file_id = ? AND start = ?"
        if db.execute(sql, (session_id, u.file_id, u.start)).fetchone() is None:
            raise NotFoundError(f"No written unit begins at {u.start} of {u.file_id}.")
    insert_rows(
        db,
        "INSERT INTO revisions (session_id, file_id, start, text, call_id, status, origin, updated_at, estimate, auto, "
        "stage)",
        [
            (session_id, u.file_id, u.start, u.text, u.call_id, u.status, u.origin, stamp, *_unit_marks(u))
            for u in units
        ],
    )


def _unit_marks(u: UnitWrite) -> tuple[int | None, int, str | None]:
    """A unit's row's last columns: the estimate, the auto mark (0 or 1), the review stage."""
    return u.estimate, int(u.auto), u.stage


def _unit(row: dict[str, Any]) -> UnitWrite:
    """A unit's row (its `auto` and `sampled` stored as 0 or 1)."""
    return UnitWrite(**(row | {"auto": bool(row["auto"]), "sampled": bool(row["sampled"])}))


def _revised(held: UnitWrite, row: dict[str, Any]) -> UnitWrite:
    """A unit with a revision's row applied (its place stays)."""
    changed: dict[str, Any] = {k: row[k] for k in _REVISED} | {"auto": bool(row["auto"])}
    return replace(held, **changed)


def _require(db: sqlite3.Connection, session_id: str) -> dict[str, Any]:
    """The session's row; NotFoundError if it is missing."""
    sql = f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE session_id = ?"
    row: dict[str, Any] | None = db.execute(sql, (session_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"No session {session_id}.")
    return row


def _require_file(db: sqlite3.Connection, session_id: str, file_id: str) -> None:
    sql = "SELECT 1 FROM files WHERE session_id = ? AND file_id = ?"
    if db.execute(sql, (session_id, file_id)).fetchone() is None:
        _require(db, session_id)
        raise NotFoundError(f"No file {file_id} in this session.")


def _files(db: sqlite3.Connection, session_id: str) -> list[FileState]:
    sql = "SELECT file_id, name, chars, covered, created_at FROM files WHERE session_id = ? ORDER BY seq"
    return [
        FileState(
            file_id=r["file_id"],
            name=r["name"],
            chars=r["chars"],
            covered=tuple((int(a), int(b)) for a, b in json.loads(r["covered"])),
            created_at=r["created_at"],
        )
        for r in db.execute(sql, (session_id,))
    ]


def _session(row: dict[str, Any]) -> SessionRecord:
    if row["schema_version"] > SCHEMA_VERSION:
        raise StorageUnavailableError(
            f"Session {row['session_id']} was written by a newer version of this app (schema "
            f"{row['schema_version']} > {SCHEMA_VERSION}); upgrade the app to open it."
        )
    return SessionRecord(
        session_id=row["session_id"],
        owner=row["owner"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        version=row["version"],
        message_count=row["message_count"],
        hidden_messages=row["hidden_messages"],
        copilot_response_count=row["copilot_response_count"],
        user_inputs=tuple(json.loads(row["user_inputs"])),
        queued_inputs=tuple(json.loads(row["queued_inputs"])),
        schema_version=row["schema_version"],
        telemetry=Telemetry(**{c: row[c] for c in _TELEMETRY}),
        source_language=row["source_language"],
        target_language=row["target_language"],
        budget=Budget.loads(row["budget"]) if row["budget"] else None,
        model=row["model"],
        hold=SessionHold.loads(row["hold"]) if row["hold"] else None,
        auto_approve=row["auto_approve"],
        review=REVIEW_MODES[row["second_review"]],
        auto_sample=row["auto_sample"],
        qa_profile=row["qa_profile"],
        claim=SessionClaim.loads(row["claim"]) if row["claim"] else None,
    )


def _settings(effects: StepEffects) -> tuple[str | int | float | None, ...]:
    """The settings a creating commit keeps: the languages, the budget, the model, the auto-approval, the
    second review."""
    budget = effects.budget.dumps() if effects.budget else None
    settings = (effects.source_language, effects.target_language, budget, effects.model, effects.auto_approve)
    return (*settings, REVIEW_MODES.index(effects.review), effects.auto_sample, effects.qa_profile)
