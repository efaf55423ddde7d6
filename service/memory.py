"""OwnerMemory: an owner's glossary entries and style notes, over any MemoryStorageInterface.

It implements agent_core's `MemoryStore` port (distilled lessons, written after a step's commit)
and the operations of the memory routes (view, add by hand, delete), and it loads the memory a
step shows the model. The rules live here, not in a backend:

- a glossary entry has a kind (`preferred`, `forbidden`, `keep`; agent_core.memory.glossary_kind):
  one whose target is its term is `keep` whatever was given, and a learned entry is `preferred` (or
  `keep`, for an identity);
- one glossary entry per (source term, ignoring case; language pair): a new translation for a term
  replaces the old one (newest wins), except that a learned lesson never replaces an entry the owner
  added by hand; one style note per text (ignoring case and spacing) and language pair;
- at most MAX_GLOSSARY entries and MAX_STYLE_NOTES notes an owner, so what a step reads is bounded:
  a new lesson replaces the least recently updated learned entry when the memory is full, and the
  owner adding by hand to a full memory is told to delete some first.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from agent_core.effects import Correction
from agent_core.errors import InvalidRequestError, NotFoundError
from agent_core.ids import new_id
from agent_core.memory import GlossaryEntry, GlossaryKind, Lessons, Memory, Origin, StyleNote, glossary_kind
from storage.interface import MemoryStorageInterface
from storage.records import MemoryEntryRecord

from .blocking import blocking
from .tm import TranslationMemory

MAX_GLOSSARY = 200
MAX_STYLE_NOTES = 30
PROMPT_CORRECTIONS = 8
"""How many of the latest corrections a step shows the model."""


def _cap(kind: str) -> int:
    """The most entries of `kind` (`glossary` or `style`) an owner's memory holds."""
    return MAX_GLOSSARY if kind == "glossary" else MAX_STYLE_NOTES


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _key(record: MemoryEntryRecord) -> tuple[str, str, str]:
    """What makes two entries the same: kind, term (or note text) ignoring case and spacing, pair; a
    forbidden translation is an entry of its own beside the term's preferred one (and other forbidden ones)."""
    subject = record.source if record.kind == "glossary" else record.text
    pair = record.languages
    if record.kind == "glossary" and record.term_kind == "forbidden":
        pair += "\x00forbidden\x00" + " ".join(record.text.split()).casefold()
    return record.kind, " ".join(subject.split()).casefold(), pair


@dataclass(frozen=True, slots=True, kw_only=True)
class _Wanted:
    kind: str
    source: str
    text: str
    languages: str
    origin: Origin
    term_kind: GlossaryKind = "preferred"


def kind_of(record: MemoryEntryRecord) -> GlossaryKind:
    """A stored glossary entry's kind (an identity is `keep`, whatever was stored)."""
    try:
        return glossary_kind(record.source, record.text, record.term_kind)
    except ValueError:
        return "preferred"


def _newest(entries: Sequence[MemoryEntryRecord]) -> list[MemoryEntryRecord]:
    """The entries, oldest first; of two with the same key (a race), the newer only."""
    newest: dict[tuple[str, str, str], MemoryEntryRecord] = {}
    for e in entries:
        kept = newest.get(_key(e))
        if kept is None or (e.updated_at, e.entry_id) > (kept.updated_at, kept.entry_id):
            newest[_key(e)] = e
    return sorted(newest.values(), key=lambda e: (e.created_at, e.entry_id))


class OwnerMemory:
    """Owners' memory: what a step shows the model, what it learns, what the owner edits."""

    def __init__(self, storage: MemoryStorageInterface, *, tm: TranslationMemory | None = None) -> None:
        self.storage = storage
        self.tm = tm
        """Told the latest write number of the translation memory's pair that the owner's read brings
        (the pair this process last used for the owner: service.tm)."""

    # -- for a step (agent_core's MemoryStore port; blocking work runs in a worker thread) ----------

    async def recall(self, owner: str) -> Memory:
        """The owner's memory as a step shows it to the model (one storage read: `memory_snapshot`)."""
        return await blocking(self.snapshot, owner)

    async def learn(self, owner: str, lessons: Lessons) -> None:
        """Store distilled lessons (deduplicated; an entry the owner wrote is never overwritten)."""
        await blocking(self.learn_now, owner, lessons)

    def snapshot(self, owner: str) -> Memory:
        """The owner's glossary, style notes and latest corrections, as the agent sees them."""
        glossary: list[GlossaryEntry] = []
        notes: list[StyleNote] = []
        pair = self.tm.observed_pair(owner) if self.tm is not None else None
        read = self.storage.memory_snapshot(owner, corrections=PROMPT_CORRECTIONS, tm_pair=pair)
        if self.tm is not None and pair is not None:
            self.tm.observe(owner, pair, read.tm_seq)
        for e in _newest(read.entries):
            origin: Origin = "user" if e.origin == "user" else "learned"
            if e.kind == "glossary":
                glossary.append(
                    GlossaryEntry(source=e.source, target=e.text, languages=e.languages, origin=origin, kind=kind_of(e))
                )
            else:
                notes.append(StyleNote(text=e.text, languages=e.languages, origin=origin))
        return Memory(glossary=tuple(glossary), style_notes=tuple(notes), corrections=tuple(read.corrections))

    def learn_now(self, owner: str, lessons: Lessons) -> None:
        """`learn`, in the calling thread."""
        wanted = [
            *(
                _Wanted(
                    kind="glossary",
                    source=g.source,
                    text=g.target,
                    languages=g.languages,
                    origin="learned",
                    term_kind=glossary_kind(g.source, g.target),
                )
                for g in lessons.glossary
            ),
            *(
                _Wanted(kind="style", source="", text=n.text, languages=n.languages, origin="learned")
                for n in lessons.style_notes
            ),
        ]
        entries = self.entries(owner)
        changed: dict[str, MemoryEntryRecord] = {}
        for item in wanted:
            record, write = self._plan(owner, item, entries)
            if record is not None and write:
                changed[record.entry_id] = record
                entries = [e for e in entries if e.entry_id != record.entry_id] + [record]
        if not changed:
            return
        try:  # the step's lessons in one write of the owner's memory, not one a lesson
            caps = {kind: _cap(kind) for kind in ("glossary", "style")}
            self.storage.put_memory_entries(owner, list(changed.values()), max_entries=caps)
        except InvalidRequestError:  # full: a concurrent writer took the last places; each that fits
            for record in changed.values():
                with suppress(InvalidRequestError):
                    self.storage.put_memory_entry(record, max_entries=_cap(record.kind))

    # -- for the owner -------------------------------------------------------------------------

    def entries(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's entries, oldest first; of two with the same key (a race), the newer only."""
        return _newest(self.storage.list_memory(owner))

    def corrections(self, owner: str, *, limit: int) -> list[Correction]:
        """The owner's latest corrections, newest first."""
        return self.storage.recent_corrections(owner, limit=limit)

    def import_glossary(self, owner: str, terms: Sequence[tuple[str, str, str, GlossaryKind]]) -> tuple[int, int, int]:
        """Add or update the owner's own glossary entries for `(source, target, languages, kind)` terms (each key
        once), all in one atomic write or none: `(added, updated, unchanged)`. InvalidRequestError, with
        nothing written, when they do not fit in MAX_GLOSSARY (a concurrent import may have taken the room)."""
        stamp = _now()
        existing = {_key(e): e for e in self.entries(owner) if e.kind == "glossary"}
        records: list[MemoryEntryRecord] = []
        added = unchanged = 0
        for source, target, languages, wanted_kind in terms:
            term_kind = glossary_kind(source, target, wanted_kind)
            target = source if term_kind == "keep" else target
            wanted = MemoryEntryRecord(
                entry_id=new_id("m"),
                owner=owner,
                kind="glossary",
                source=source,
                text=target,
                languages=languages,
                origin="user",
                created_at=stamp,
                updated_at=stamp,
                term_kind=term_kind,
            )
            same = existing.get(_key(wanted))
            if same is not None and same.text == target and same.origin == "user" and kind_of(same) == term_kind:
                unchanged += 1
            elif same is not None:
                records.append(replace(same, text=target, origin="user", updated_at=stamp, term_kind=term_kind))
            else:
                records.append(wanted)
                added += 1
        if len(existing) + added > MAX_GLOSSARY:
            raise InvalidRequestError(
                f"Your glossary holds {len(existing)} entries and this file adds {added}; at most {MAX_GLOSSARY} "
                "fit. Delete some entries or import fewer terms."
            )
        if records:
            self.storage.put_memory_entries(owner, records, max_entries={"glossary": MAX_GLOSSARY})
        return added, len(records) - added, unchanged

    def add_glossary(
        self, owner: str, *, source: str, target: str, languages: str, kind: GlossaryKind = "preferred"
    ) -> MemoryEntryRecord:
        """Add (or update) a glossary entry by hand (an identity is `keep`, whatever `kind` says)."""
        term_kind = glossary_kind(source, target, kind)
        text = source if term_kind == "keep" else target  # a term to keep translates as itself
        item = _Wanted(
            kind="glossary", source=source, text=text, languages=languages, origin="user", term_kind=term_kind
        )
        return self._add(owner, item)

    def add_style_note(self, owner: str, *, text: str, languages: str) -> MemoryEntryRecord:
        """Add a style note by hand (the same note again returns the one stored)."""
        return self._add(owner, _Wanted(kind="style", source="", text=text, languages=languages, origin="user"))

    def update(
        self,
        owner: str,
        entry_id: str,
        *,
        source: str | None = None,
        target: str | None = None,
        text: str | None = None,
        languages: str | None = None,
        kind: GlossaryKind | None = None,
    ) -> MemoryEntryRecord:
        """Edit one of the owner's entries by hand (it becomes `user`); NotFoundError for another owner's or
        an unknown one, InvalidRequestError when the edit would make it a duplicate of another entry."""
        entries = self.entries(owner)
        current = next((e for e in entries if e.entry_id == entry_id), None)
        if current is None:
            raise NotFoundError(f"No memory entry {entry_id[:80]}.")
        glossary = current.kind == "glossary"
        if (source is not None or target is not None or kind is not None) if not glossary else text is not None:
            raise InvalidRequestError(
                "A glossary entry takes source and target." if glossary else "A style note takes text only."
            )
        new_text = target if glossary else text
        edited = replace(
            current,
            source=current.source if source is None else source,
            text=current.text if new_text is None else new_text,
            languages=current.languages if languages is None else languages,
            origin="user",
        )
        if glossary:
            term_kind = glossary_kind(edited.source, edited.text, kind or kind_of(current))
            text = edited.source if term_kind == "keep" else edited.text
            edited = replace(edited, term_kind=term_kind, text=text)
        if any(_key(e) == _key(edited) for e in entries if e.entry_id != entry_id):
            what = "term and language pair" if edited.kind == "glossary" else "note"
            raise InvalidRequestError(f"Another entry has that {what}; edit or delete that one instead.")
        if edited == current:
            return current
        record = replace(edited, updated_at=_now())
        self.storage.put_memory_entry(record, max_entries=_cap(record.kind))
        return record

    def delete(self, owner: str, entry_id: str) -> None:
        """Delete one of the owner's entries; NotFoundError for another owner's or an unknown one."""
        self.storage.delete_memory_entry(owner, entry_id)

    # -- rules ---------------------------------------------------------------------------------

    def _add(self, owner: str, item: _Wanted) -> MemoryEntryRecord:
        written = self._write(owner, item, self.entries(owner))
        if written is None:
            noun = "glossary entries" if item.kind == "glossary" else "style notes"
            raise InvalidRequestError(f"Your memory holds at most {_cap(item.kind)} {noun}; delete some first.")
        return written

    def _write(self, owner: str, item: _Wanted, entries: Sequence[MemoryEntryRecord]) -> MemoryEntryRecord | None:
        """Write `item` under the rules; the record written (or kept), None when the memory is full."""
        record, write = self._plan(owner, item, entries)
        if record is not None and write:
            try:
                self.storage.put_memory_entry(record, max_entries=_cap(record.kind))
            except InvalidRequestError:
                return None  # full: a concurrent writer took the last place
        return record

    def _plan(
        self, owner: str, item: _Wanted, entries: Sequence[MemoryEntryRecord]
    ) -> tuple[MemoryEntryRecord | None, bool]:
        """What writing `item` under the rules means: the record it leaves (None: the memory is full)
        and whether it must be written (False: the same entry is kept as it is)."""
        stamp = _now()
        new = MemoryEntryRecord(
            entry_id=new_id("m"),
            owner=owner,
            kind=item.kind,
            source=item.source,
            text=item.text,
            languages=item.languages,
            origin=item.origin,
            created_at=stamp,
            updated_at=stamp,
            term_kind=item.term_kind if item.kind == "glossary" else "preferred",
        )
        same = next((e for e in entries if _key(e) == _key(new)), None)
        record: MemoryEntryRecord | None
        if same is not None:
            if item.origin == "learned" and same.origin == "user":
                return same, False  # the owner's own entry wins over anything learned
            text = new.text if new.kind == "glossary" else same.text  # a note's text is its key
            if same.text == text and same.origin == new.origin and same.term_kind == new.term_kind:
                return same, False
            return replace(same, text=text, origin=new.origin, updated_at=stamp, term_kind=new.term_kind), True
        record = self._room_for(new, entries)
        return record, record is not None

    def _room_for(self, new: MemoryEntryRecord, entries: Sequence[MemoryEntryRecord]) -> MemoryEntryRecord | None:
        """`new` when the memory has room (evicting the stalest learned entry for a lesson), else None."""
        same_kind = [e for e in entries if e.kind == new.kind]
        if len(same_kind) < _cap(new.kind):
            return new
        learned = [e for e in same_kind if e.origin == "learned"]
        if new.origin == "user" or not learned:
            return None
        stale = min(learned, key=lambda e: (e.updated_at, e.entry_id))
        with suppress(NotFoundError):  # already gone: a concurrent step evicted it
            self.storage.delete_memory_entry(new.owner, stale.entry_id)
        return new
