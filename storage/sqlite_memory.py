"""The owners' memory in SQLite: corrections, glossary entries and style notes, the translation memory."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agent_core.effects import Correction
from agent_core.tm import TmEntry

from .codec import load_issue
from .errors import NotFoundError
from .interface import TmRecord, storable_tm, tm_pairs_of
from .records import MemoryEntryRecord, OwnerSnapshot, TmChanges, merge_entries
from .sqlite_db import ROWS_PER_STATEMENT, SQLiteDatabase, insert_rows

_MEMORY_COLUMNS = "entry_id, owner, kind, source, text, languages, origin, created_at, updated_at, term_kind"
_MEMORY_ENTRIES = f"SELECT {_MEMORY_COLUMNS} FROM memory_entries WHERE owner = ? ORDER BY created_at, entry_id"
CORRECTION_COLUMNS = "session_id, file_id, status, source, proposal, final, reason, created_at, start, issue"
_LATEST_CORRECTIONS = (
    f"SELECT {CORRECTION_COLUMNS} FROM corrections WHERE owner = ? ORDER BY created_at DESC, seq DESC LIMIT ?"
)


def correction_of(row: dict[str, Any]) -> Correction:
    """A correction as a row of `CORRECTION_COLUMNS` holds it."""
    return Correction(**{**row, "issue": load_issue(row["issue"])})


class SQLiteMemoryStorage(SQLiteDatabase):
    """The owners' memory's operations of the SQLite backend (storage.sqlite adds the sessions')."""

    # -- the owners' memory ----------------------------------------------------------------------

    def memory_snapshot(self, owner: str, *, corrections: int, tm_pair: str | None = None) -> OwnerSnapshot:
        """The entries, the latest corrections and the latest write number of the translation memory's
        pair `tm_pair`, in one read transaction."""
        with self._transaction(write=False) as db:
            found = [MemoryEntryRecord(**r) for r in db.execute(_MEMORY_ENTRIES, (owner,))]
            latest = [correction_of(r) for r in db.execute(_LATEST_CORRECTIONS, (owner, max(corrections, 0)))]
            return OwnerSnapshot(found, latest, tm_seq(db, owner, tm_pair) if tm_pair else 0)

    def put_memory_entries(
        self, owner: str, records: Sequence[MemoryEntryRecord], *, max_entries: Mapping[str, int]
    ) -> None:
        """All the entries in one write transaction, checked against what it holds (`merge_entries`)."""
        with self._transaction(write=True) as db:
            held = {r["entry_id"]: MemoryEntryRecord(**r) for r in db.execute(_MEMORY_ENTRIES, (owner,))}
            merge_entries(held, owner, records, max_entries)
            rows = [
                (
                    *(r.entry_id, r.owner, r.kind, r.source, r.text, r.languages, r.origin, r.created_at),
                    *(r.updated_at, r.term_kind),
                )
                for r in {r.entry_id: r for r in records}.values()
            ]
            insert_rows(
                db,
                f"INSERT INTO memory_entries ({_MEMORY_COLUMNS})",
                rows,
                " ON CONFLICT (owner, entry_id) DO UPDATE SET source = excluded.source, text = excluded.text, "
                "languages = excluded.languages, origin = excluded.origin, updated_at = excluded.updated_at, "
                "term_kind = excluded.term_kind",
            )

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry; NotFoundError if there is none."""
        with self._transaction(write=True) as db:
            sql = "DELETE FROM memory_entries WHERE owner = ? AND entry_id = ?"
            if db.execute(sql, (owner, entry_id)).rowcount == 0:
                raise NotFoundError(f"No memory entry {entry_id}.")

    # -- the owners' translation memory -----------------------------------------------------------

    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace entries by source hash, as each pair's next write; new ones past a pair's cap
        are skipped. One write transaction for all the pairs."""
        kept = storable_tm(records)
        added = updated = skipped = 0
        with self._transaction(write=True) as db:
            for pair, found in tm_pairs_of(kept).items():
                a, u, s = put_tm_rows(db, owner, pair, found, max_entries)
                added, updated, skipped = added + a, updated + u, skipped + s
        return added, updated, skipped + len(records) - len(kept)

    def tm_changes(self, owner: str, pair: str, *, since: int | None) -> TmChanges:
        """The pair's entries written after write `since` (the `tm_entries_by_write` index) and the
        pair's latest write number, in one read transaction."""
        sql = (
            "SELECT source, target, languages, origin, updated_at, written, key FROM tm_entries "
            "WHERE owner = ? AND languages = ? AND written > ?"
        )
        with self._transaction(write=False) as db:  # every write is numbered from 1: since None is since 0
            seq = tm_seq(db, owner, pair)
            return TmChanges([TmEntry(**r) for r in db.execute(sql, (owner, pair, since or 0))], seq)

    def rewrite_tm(self, owner: str, pair: str, source_hash: str, *, target: str, updated_at: str) -> TmEntry:
        """The entry's new version (or tombstone) as the pair's next write, in one write transaction."""
        target = target if target.strip() else ""  # blank: the tombstone, as every backend stores it
        with self._transaction(write=True) as db:
            sql = (
                "SELECT source, target, languages, origin, updated_at, written, key FROM tm_entries "
                "WHERE owner = ? AND languages = ? AND source_hash = ? AND target != ''"
            )
            row = db.execute(sql, (owner, pair, source_hash)).fetchone()
            if row is None:
                raise NotFoundError("No such translation-memory entry.")
            head = next_tm_write(db, owner, pair)
            origin = "revised" if target.strip() else row["origin"]
            sql = (
                "UPDATE tm_entries SET target = ?, origin = ?, updated_at = ?, written = ? "
                "WHERE owner = ? AND languages = ? AND source_hash = ?"
            )
            db.execute(sql, (target, origin, updated_at, head, owner, pair, source_hash))
            return TmEntry(**{**row, "target": target, "origin": origin, "updated_at": updated_at, "written": head})

    def tm_pairs(self, owner: str) -> list[str]:
        """The pairs with a head (`tm_heads`), sorted."""
        with self._transaction(write=False) as db:
            sql = "SELECT languages FROM tm_heads WHERE owner = ? ORDER BY languages"
            return [r["languages"] for r in db.execute(sql, (owner,))]


def tm_seq(db: sqlite3.Connection, owner: str, pair: str) -> int:
    """The number of the latest write of the owner's translation memory's pair (0: none)."""
    row = db.execute("SELECT seq FROM tm_heads WHERE owner = ? AND languages = ?", (owner, pair)).fetchone()
    return int(row["seq"]) if row is not None else 0


def next_tm_write(db: sqlite3.Connection, owner: str, pair: str) -> int:
    """Take the number of the pair's next write (inside the caller's write transaction)."""
    sql = (
        "INSERT INTO tm_heads (owner, languages, seq) VALUES (?, ?, 1) "
        "ON CONFLICT (owner, languages) DO UPDATE SET seq = seq + 1 RETURNING seq"
    )
    return int(db.execute(sql, (owner, pair)).fetchone()["seq"])


def put_tm_rows(
    db: sqlite3.Connection, owner: str, pair: str, records: Sequence[TmRecord], cap: int
) -> tuple[int, int, int]:
    """`put_tm` of one pair's records inside the caller's write transaction, numbered as the pair's
    next write (the count is exact under its lock): one count, one lookup of the hashes, one multi-row
    upsert. The write is numbered even if it stores nothing, so a replica that counts its own writes
    (service.tm) counts true."""
    head = next_tm_write(db, owner, pair)
    latest = {r.source_hash: r for r in records}  # the last of equal hashes wins
    hashes = list(latest)
    sql = "SELECT count(*) AS n FROM tm_entries WHERE owner = ? AND languages = ? AND target != ''"
    count = db.execute(sql, (owner, pair)).fetchone()["n"]
    known: set[str] = set()
    for k in range(0, len(hashes), ROWS_PER_STATEMENT):
        chunk = hashes[k : k + ROWS_PER_STATEMENT]
        sql = (
            "SELECT source_hash FROM tm_entries WHERE owner = ? AND languages = ? "
            f"AND target != '' AND source_hash IN ({', '.join('?' for _ in chunk)})"
        )
        known |= {r["source_hash"] for r in db.execute(sql, [owner, pair, *chunk])}
    room = max(cap - count, 0)
    admitted: set[str] = set()
    for h in hashes:  # updates always; new entries while there is room
        if h in known or room > 0:
            admitted.add(h)
            room -= h not in known
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    rows = [
        (owner, pair, h, e.source, e.target, e.origin, e.updated_at or now, head, e.key)
        for h in hashes
        if h in admitted
        for e in [latest[h].entry]
    ]
    insert_rows(
        db,
        "INSERT INTO tm_entries (owner, languages, source_hash, source, target, origin, updated_at, written, key)",
        rows,
        " ON CONFLICT (owner, languages, source_hash) DO UPDATE SET source = excluded.source, "
        "target = excluded.target, origin = excluded.origin, updated_at = excluded.updated_at, "
        "written = excluded.written, key = excluded.key",
    )
    return _counts(records, admitted, known)


def _counts(records: Sequence[TmRecord], admitted: set[str], known: set[str]) -> tuple[int, int, int]:
    """`(added, updated, skipped)` of a put: a repeated hash updates what came before it."""
    added = updated = skipped = 0
    seen: set[str] = set()
    for r in records:
        if r.source_hash not in admitted:
            skipped += 1
        elif r.source_hash in known or r.source_hash in seen:
            updated += 1
        else:
            added += 1
        seen.add(r.source_hash)
    return added, updated, skipped
