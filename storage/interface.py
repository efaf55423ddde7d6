"""The storage contracts every backend implements: sessions (with their steps) and owners' memory.

They speak storage, never copilot or translation rules (those live in `agent_core` and `service`):
a step is loaded as agent_core's `SessionSnapshot` and committed as its `StepEffects`, conditional
on the `StepToken` it loaded; versions, message indexes and counters are the backend's arithmetic.
Every backend passes one conformance suite (`tests/storage_conformance.py`), raises only the errors
of `storage.errors`, and is called from worker threads (never on the event loop), so it must be
safe to share between threads.
"""

from __future__ import annotations

import bisect
import itertools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import EllipsisType
from typing import Protocol

from pydantic_ai.messages import ModelMessage
from pydantic_core import PydanticSerializationError

from agent_core.document import FileState
from agent_core.effects import (
    Budget,
    Correction,
    SessionSnapshot,
    StepEffects,
    StepToken,
    StoredAnswer,
    Telemetry,
    UnitWrite,
    Verdict,
)
from agent_core.review_modes import ReviewMode
from agent_core.segment import Segment, dump_segments
from agent_core.tm import TmEntry, normalize, source_hash

from .codec import dump_message, dump_verdict
from .comments import CommentStore
from .errors import ConflictError, InvalidRequestError, TooLargeError
from .projects import ProjectStore
from .records import (
    JobRecord,
    MemoryEntryRecord,
    OwnerSnapshot,
    Page,
    ReviewLog,
    SessionClaim,
    SessionHold,
    SessionRecord,
    TmChanges,
)

MAX_STORED_BYTES = 400_000
"""No stored record (a message, a verdict, a unit, a kept answer) may be larger, in UTF-8, on any backend
(DynamoDB's item limit): a commit that would store one is TooLargeError and writes nothing, except a kept
answer, which is dropped instead (the step succeeds without a key, so it must succeed with one)."""

MAX_TM_ENTRIES = 20_000
"""The most translation-memory entries an owner keeps per language pair (new ones past it are skipped)."""

CHUNK_CHARS = 32_000
"""File content is stored in chunks of this many characters (under DynamoDB's 400 KB item limit)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredSession:
    """What a backend's one read of a session for a step holds (`_load`): the base assembles the snapshot."""

    record: SessionRecord
    messages: Sequence[ModelMessage]
    """The latest messages asked for, oldest first."""
    response_index: int
    """The index of the latest model response (-1: none)."""
    verdicts: Sequence[Verdict]
    """The stored verdicts on the latest response's calls."""
    previous_index: int
    """The index of the model response before it (-1: none)."""
    previous: Sequence[Verdict]
    """The stored verdicts on that response's calls."""
    files: Sequence[FileState]


class JobStore(Protocol):
    """Jobs: each written once, when it is created, and read at each view."""

    def put_job(self, job: JobRecord) -> None:
        """Store a new job (ConflictError if one with its id exists)."""

    def get_job(self, job_id: str) -> JobRecord:
        """The job; NotFoundError if there is none."""


class SessionStorageInterface(ABC):
    """Sessions: their steps, history, verdicts, files, units and idempotent answers.

    The rules every backend keeps are written here once (template methods): a commit's checks (each
    unit written once, every record within MAX_STORED_BYTES, a kept answer too large dropped), the
    step's snapshot assembled from what a backend read, a file's text and units derived from its
    chunks and its review log. A backend implements the primitives, the reads and writes it does its
    own way (the abstract methods)."""

    # -- template methods: the rules, once ------------------------------------------------------

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        """What a step needs: the token, the latest `window` messages, their verdicts, the files."""
        return self.load_view(session_id, window=window)[1]

    def load_view(self, session_id: str, *, window: int) -> tuple[SessionRecord, SessionSnapshot]:
        """The session's record beside what a step needs (`load_step`), in the same one read."""
        found = self._load(session_id, window=max(window, 0))
        record, files = found.record, list(found.files)
        token = StepToken(
            session_id=session_id,
            owner=record.owner,
            version=record.version,
            created_at=record.created_at,
            message_count=record.message_count,
            hidden_messages=record.hidden_messages,
            response_index=found.response_index,
            verdict_ids=frozenset(v.tool.call_id for v in found.verdicts),
            previous_response_index=found.previous_index,
            covered={f.file_id: f.covered for f in files},
        )
        snapshot = SessionSnapshot(
            token=token,
            window=list(found.messages),
            window_complete=record.message_count <= len(found.messages),
            user_inputs=record.user_inputs,
            copilot_responses=list(found.verdicts),
            files=files,
            queued_inputs=record.queued_inputs,
            previous_verdicts=list(found.previous),
            budget=record.budget,
            model=record.model,
            telemetry=record.telemetry,
            target_language=record.target_language,
            auto_approve=record.auto_approve,
            review=record.review,
            auto_sample=record.auto_sample,
            qa_profile=record.qa_profile,
            held_by=record.claim.by if record.claim is not None else None,
            held_until=record.claim.until if record.claim is not None else None,
        )
        return record, snapshot

    def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None = None) -> None:
        """Write the effects atomically if the session is still at `token.version` (0 creates it),
        else ConflictError; `answer` is written in the same transaction. The effects' translation-memory
        entries, all of one language pair (InvalidRequestError otherwise), are that pair's next numbered
        write (`tm_changes`), in that same transaction, their new entries counted by `memory_added`.
        Nothing follows the transaction that could fail the commit.

        Checked first, on every backend, before anything is written: each unit is written once
        (`check_units`), no record is over MAX_STORED_BYTES (`check_records`, TooLargeError); an
        answer too large to keep is dropped (the step succeeds without a key, so it must with one)."""
        check_units(token, effects)
        check_records(effects)
        tm_pair_of(effects.memory)
        self._commit(token, effects, answer if answer is not None and fits(answer.body) else None)

    def keep_answer(self, session_id: str | None, answer: StoredAnswer, *, now: int) -> None:
        """Keep the answer of a request that committed nothing (ConflictError if an unexpired one
        exists); one too large to keep is not kept."""
        if fits(answer.body):
            self._keep_answer(session_id, answer, now=now)

    def read_chunks(self, session_id: str, file_id: str, first: int, last: int) -> list[FileChunk]:
        """The file's chunks `first` to `last` (chunk n: characters from `n * CHUNK_CHARS`), each with
        the segments that begin in it (an empty chunk past the file's end), in one read."""
        return self._chunks(session_id, file_id, range(max(first, 0), last + 1), segments=True)

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)`, reading only the text of the chunks that hold them."""
        start, end = max(0, start), max(0, end)
        first = start // CHUNK_CHARS
        numbers = range(first, (end - 1) // CHUNK_CHARS + 1) if end > start else range(0)
        text = "".join(c.text for c in self._chunks(session_id, file_id, numbers, segments=False))
        return text[start - first * CHUNK_CHARS : end - first * CHUNK_CHARS]

    def list_units(self, session_id: str, file_id: str) -> list[UnitWrite]:
        """The file's written units, in source order: each one's latest write (`review_log`)."""
        latest = {w.start: w for w in self.review_log(session_id, file_id).writes}  # revisions come after
        return [latest[k] for k in sorted(latest)]

    # -- primitives: what each backend does its own way -----------------------------------------

    @abstractmethod
    def _load(self, session_id: str, *, window: int) -> StoredSession:
        """The record, the latest `window` messages, the latest two responses' verdicts and the files,
        in one consistent read; NotFoundError if there is no session."""

    @abstractmethod
    def _commit(self, token: StepToken, effects: StepEffects, answer: StoredAnswer | None) -> None:
        """`commit`'s transaction, its effects and answer checked already."""

    @abstractmethod
    def _keep_answer(self, session_id: str | None, answer: StoredAnswer, *, now: int) -> None:
        """`keep_answer`'s write, the answer checked already."""

    @abstractmethod
    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record; NotFoundError if there is none."""

    @abstractmethod
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
        """Set the session's languages, budget, model, auto-approval, second review or QA profile (None
        clears one, `...` leaves it), bumping its version and ending its hold (the next step tries
        again), and return the record; NotFoundError if there is none. Retried over a concurrent step's
        commit, never lost by one (a step loaded before it fails its commit: ConflictError)."""

    @abstractmethod
    def hold_session(self, session_id: str, hold: SessionHold) -> None:
        """Record why the session's latest step failed (a provider's throttle, a refusal), leaving its
        version and everything else as they are, so no step is refused for it; the session's next
        commit clears it. NotFoundError if there is no session."""

    @abstractmethod
    def claim_session(self, session_id: str, claim: SessionClaim, *, now: str, take_over: bool = False) -> SessionClaim:
        """Set the session's claim to `claim` when no other identity's lasts past `now` (ISO 8601 as the
        claim's), or with `take_over` whatever holds it, in one atomic conditional write that leaves the
        version and everything else as they are; return the claim stored after it: `claim`, or the other
        identity's that refused it. NotFoundError if there is no session."""

    @abstractmethod
    def release_claim(self, session_id: str, by: str | None) -> bool:
        """Remove the session's claim if `by` holds it (None: whoever does), in one atomic conditional
        write; True if one was removed. NotFoundError if there is no session."""

    @abstractmethod
    def add_spent(self, session_id: str, spent: Telemetry) -> None:
        """Add what a step that did not commit spent (its model request, billed all the same) to the
        session's counters, in one atomic update that leaves its version and everything else as they
        are. NotFoundError if there is no session."""

    @abstractmethod
    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first."""

    @abstractmethod
    def delete_session(self, session_id: str) -> None:
        """Delete the session and everything stored with it, its answers included (no error if absent)."""

    @abstractmethod
    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[ModelMessage]:
        """The session's messages, oldest first, a page at a time."""

    @abstractmethod
    def list_verdicts(self, session_id: str, *, cursor: str | None, limit: int) -> Page[Verdict]:
        """All the session's verdicts, oldest first, a page at a time."""

    @abstractmethod
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
        """Store a new file of an existing session (NotFoundError if the session is gone) with its
        segments, each kept with the chunk it begins in; the session's file count is checked in the
        same transaction (InvalidRequestError past `max_files`), and an upload refused there leaves
        nothing stored. `original` is the document the content was taken from (an XLIFF file), kept
        for its export."""

    @abstractmethod
    def read_original(self, session_id: str, file_id: str) -> str | None:
        """The document the file's content was taken from, if it was stored with one."""

    @abstractmethod
    def _chunks(self, session_id: str, file_id: str, numbers: range, *, segments: bool) -> list[FileChunk]:
        """The file's chunks `numbers` (an empty one past the file's end) in one read, each with the
        segments that begin in it if `segments`; NotFoundError for no such session or file."""

    @abstractmethod
    def review_log(self, session_id: str, file_id: str) -> ReviewLog:
        """Every write of the file's units (first writes, then revisions, in commit order) and the session's
        corrections of the file, in commit order: what the audit trail and the scorecard are made of. A
        correction and the write it came with carry the same time. NotFoundError for no such file."""

    @abstractmethod
    def get_answer(self, owner: str, key: str, *, now: int) -> StoredAnswer | None:
        """The kept answer for the owner's key, unless it expired before `now` (epoch seconds)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TmRecord:
    """A translation-memory entry with its key (computed by the caller, see agent_core.tm)."""

    entry: TmEntry
    source_hash: str
    """The exact-match key: the normalised source and the language pair, hashed."""


def tm_record(entry: TmEntry) -> TmRecord:
    """An entry with its key: its normalised source and language pair, hashed (agent_core.tm)."""
    return TmRecord(entry=entry, source_hash=source_hash(normalize(entry.source), entry.languages))


def tm_pair_of(entries: Sequence[TmEntry]) -> str | None:
    """The one language pair of a step's translation-memory entries (None: no entries); entries of
    several pairs are InvalidRequestError (a step writes its session's pair only)."""
    pairs = {e.languages for e in entries}
    if len(pairs) > 1:
        raise InvalidRequestError(f"A step's translation-memory entries are of one language pair, not {sorted(pairs)}.")
    return next(iter(pairs), None)


def tm_pairs_of(records: Sequence[TmRecord]) -> dict[str, list[TmRecord]]:
    """Records by language pair (their entries' `languages`), each pair's in their order."""
    found: dict[str, list[TmRecord]] = {}
    for r in records:
        found.setdefault(r.entry.languages, []).append(r)
    return found


def storable_tm(records: Sequence[TmRecord]) -> list[TmRecord]:
    """The records a `put_tm` may store: those whose target is not blank (the others are skipped)."""
    return [r for r in records if r.entry.target.strip()]


class MemoryStorageInterface(ABC):
    """Owners' memory: their corrections, glossary entries and style notes (they outlive sessions)."""

    def recent_corrections(self, owner: str, *, limit: int) -> list[Correction]:
        """The owner's latest corrections, newest first (`memory_snapshot`'s)."""
        return self.memory_snapshot(owner, corrections=max(limit, 0)).corrections if limit > 0 else []

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes, oldest first (by `created_at`, then id)."""
        return self.memory_snapshot(owner, corrections=0).entries

    @abstractmethod
    def memory_snapshot(self, owner: str, *, corrections: int, tm_pair: str | None = None) -> OwnerSnapshot:
        """`list_memory` and `recent_corrections(limit=corrections)` in one read that stands alone (what a
        step shows; it may run beside the read of the session), with the number of the latest write of
        the translation memory's pair `tm_pair` (`tm_changes`; 0 when None). Never torn: an import is
        seen whole or not at all."""

    @abstractmethod
    def put_memory_entries(
        self, owner: str, records: Sequence[MemoryEntryRecord], *, max_entries: Mapping[str, int]
    ) -> None:
        """Add the entries, or replace the owner's entries that have the same ids, in one atomic write:
        all of them or none (`records.merge_entries`'s rule: a kind growing past its cap in `max_entries`,
        a blank text, is InvalidRequestError; a replacement of another kind, ConflictError)."""

    def put_memory_entry(self, record: MemoryEntryRecord, *, max_entries: int) -> None:
        """`put_memory_entries` of one entry, its kind capped at `max_entries`."""
        self.put_memory_entries(record.owner, [record], max_entries={record.kind: max_entries})

    @abstractmethod
    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry; NotFoundError if the owner has no entry with that id."""

    @abstractmethod
    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace translation-memory entries by source hash: `(added, updated, skipped)`; new entries
        past `max_entries` for one of the owner's language pairs (the entries' `languages`) are skipped,
        so what a lookup reads stays bounded, and so is an entry whose target is blank (it would make a
        session propose nothing). The put is, for each pair it names, that pair's newest write (one or
        more numbered writes, `tm_changes`): it replaces what it names whatever the entries'
        `updated_at`, which stays data."""

    @abstractmethod
    def tm_changes(self, owner: str, pair: str, *, since: int | None) -> TmChanges:
        """The owner's entries of the language pair `pair` (`*>fr`) written after write number `since`
        (None: all of them, as a cold replica reads them), in no set order, and the number of the latest
        write the read covers; a deleted entry is read as its tombstone (`rewrite_tm`). Nothing of
        another pair is read.

        Each language pair of an owner's translation memory is its own numbered write log: every write
        of it (a step's entries, a put's part for the pair) is numbered 1, 2, … in the order it
        committed, on every backend, and each entry read back carries its write's number in `written`:
        of two entries for one source, the one written later wins. The read is consistent: what a write
        numbered at most the returned `seq` wrote is in it."""

    @abstractmethod
    def rewrite_tm(self, owner: str, pair: str, source_hash: str, *, target: str, updated_at: str) -> TmEntry:
        """Give the pair's entry of `source_hash` a new target (its origin then `revised`), or delete it
        for a blank `target`, as the pair's next write; the entry written. A deletion stores the entry's
        tombstone (its target blank, `TmEntry.deleted`, numbered like any write, so every replica
        reading the pair's changes drops the entry) and frees its place under the pair's cap.
        NotFoundError when the pair holds no such entry (or only its tombstone)."""

    @abstractmethod
    def tm_pairs(self, owner: str) -> list[str]:
        """The language pairs the owner's translation memory has written, sorted (one small read)."""

    def tm_entries(self, owner: str) -> list[TmEntry]:
        """Every entry of every pair of the owner's translation memory (an export), pair by pair; no tombstone."""
        found = (e for pair in self.tm_pairs(owner) for e in self.tm_changes(owner, pair, since=None).entries)
        return [e for e in found if not e.deleted]


class Storage(SessionStorageInterface, MemoryStorageInterface, JobStore, ProjectStore, CommentStore, ABC):
    """A backend: the five contracts over one store."""


def check_units(token: StepToken, effects: StepEffects) -> None:
    """The contract's rule for a step's new units, before anything is written: each is written once,
    outside its file's coverage as the token loaded it (ConflictError: a unit is never written twice,
    a replayed step fails whole) and inside the step's new coverage of its file (InvalidRequestError).
    The commit is conditional on the token's version, so the coverage it loaded is the stored one.
    Each test is a binary search (`_Spans`): a bulk approval of n units against n spans costs n log n."""
    starts = [(u.file_id, u.start) for u in effects.units]
    if len(set(starts)) < len(starts):
        raise ConflictError("A step writes each unit once.")
    written = {fid: _Spans(spans) for fid, spans in token.covered.items()}
    allowed = {fid: _Spans(spans) for fid, spans in effects.coverage.items()}
    for u in effects.units:
        if u.file_id in written and written[u.file_id].overlaps(u.start, u.end):
            raise ConflictError(f"The text at {u.start} of {u.file_id} is translated already: a unit is written once.")
        if u.file_id not in allowed or not allowed[u.file_id].covers(u.start, u.end):
            raise InvalidRequestError(
                f"The unit at {u.start} of {u.file_id} is outside the step's coverage of its file."
            )


class _Spans:
    """Spans `[start, end)` (in any order, overlapping or not), asked whether one of them overlaps or
    covers a range: sorted by start, with the greatest end up to each, so each answer is a bisection."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.starts = [s for s, _ in ordered]
        self.reach = list(itertools.accumulate((e for _, e in ordered), max))

    def overlaps(self, start: int, end: int) -> bool:
        """Some span starts before `end` and ends after `start`."""
        before = bisect.bisect_left(self.starts, end)
        return before > 0 and self.reach[before - 1] > start

    def covers(self, start: int, end: int) -> bool:
        """Some span starts at or before `start` and ends at or after `end`."""
        upto = bisect.bisect_right(self.starts, start)
        return upto > 0 and self.reach[upto - 1] >= end


def chunks(content: str) -> list[str]:
    """`content` cut into storage chunks (at least one, possibly empty)."""
    return [content[i : i + CHUNK_CHARS] for i in range(0, len(content), CHUNK_CHARS)] or [""]


@dataclass(frozen=True, slots=True)
class FileChunk:
    """A stored chunk of a file: its text and the segments that begin in it, in order."""

    text: str
    segments: tuple[Segment, ...]


def chunk_segments(segments: Sequence[Segment], count: int) -> list[str]:
    """The segments of each of a file's `count` chunks as stored (`agent_core.segment.dump_segments`):
    each segment with the chunk it begins in."""
    by_chunk: list[list[Segment]] = [[] for _ in range(count)]
    for segment in segments:
        by_chunk[min(segment.start // CHUNK_CHARS, count - 1)].append(segment)
    return [dump_segments(found) for found in by_chunk]


def fits(text: str) -> bool:
    """True when `text` is no larger than MAX_STORED_BYTES in UTF-8 (a kept answer that is not is dropped)."""
    return len(text.encode("utf-8", "surrogatepass")) <= MAX_STORED_BYTES


def check_records(effects: StepEffects) -> None:
    """TooLargeError for a record of the step over the limit every backend keeps (DynamoDB's item size),
    before anything is written: one rule on every backend, whatever a backend compresses."""
    try:
        records = [
            *(("A message", dump_message(m)) for m in effects.messages),
            *(("A copilot response", dump_verdict(v)) for v in effects.verdicts),
            *(("A unit", u.text) for u in (*effects.units, *effects.revisions)),
            *(("A correction", f"{c.source}{c.proposal}{c.final or ''}{c.reason or ''}") for c in effects.corrections),
        ]
    except (UnicodeError, PydanticSerializationError) as exc:
        raise InvalidRequestError("The text holds characters that cannot be stored (a lone surrogate).") from exc
    for what, text in records:
        if not fits(text):
            size = len(text.encode("utf-8", "surrogatepass")) // 1000
            raise TooLargeError(
                f"{what} would take {size} KB, over the store's limit of {MAX_STORED_BYTES // 1000} KB; "
                "send shorter text."
            )
