"""DynamoDB items of the owners' translation memory, and how a put is cut into transactions.

Layout (in the table of `storage.dynamodb`):

    O#<owner>   T#<source hash>   an entry a put wrote: source, target, languages, origin, updatedAt
                                  (data), written (its write's stamp, `dynamodb_journal.stamp`)
    O#<owner>   J#<written at>#<writer>#<n>
                                  a note of one transaction's entry writes: `entries`, source hash →
                                  write stamp, and its writer; in the `by-owner` index under
                                  TM#<owner>, <written at>#~<writer>#<n>; it expires (TTL
                                  `expiresAt`) after NOTE_DAYS
    O#<owner>   N#tm              the owner's counter: how many entries (entryCount, ADDed for new
                                  ones, capped) and how many entry writes (writes, ADDed by each)

A step writes no T# item: its entries are its journal (storage.dynamodb_journal), and the owner's
translation memory is its T# items and its journals' entries, the latest WRITTEN of each source
winning (by write stamp, never by `updatedAt`, which is the data's own date: a TMX `changedate`).
Lookups are not DynamoDB's: the service keeps a replica of an owner's memory in the warm process
(service.tm) and brings it up to date with one Query of the index for the notes and journals written
since it last looked, then the entries the notes name that it does not hold (`tm_changes`); a cold
replica, or one that last looked before the oldest note or journal the index keeps, reads the
owner's T# items and journals (one Query: they sort together). A transaction's entries share one
note in the index. N#tm sorts among the owner's memory items, so the step's read of the owner's
memory (`memory_snapshot`) returns its write count too: a replica that knows of that many writes
reads no changes. A put replaces an entry only while it is the version read (two puts racing on one
hash: the second reads again); a step's entries are written unconditionally (no condition may
cancel a step).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from agent_core.tm import TmEntry

from .dynamodb_items import (
    MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_ITEMS,
    Item,
    check_size,
    memory_counter_key,
    n,
    put,
    s,
    update,
)
from .dynamodb_journal import journal_write, kept_since, stamp
from .interface import TmRecord

Outcome = Literal["added", "updated", "skipped"]

READ_CHUNK = MAX_TRANSACTION_ITEMS - 3
"""Entries read (with the two counters, one BatchGetItem) before a transaction is planned (with its
counter and its note)."""
NOTE_DAYS = 30
"""How long a note of entry writes is kept (TTL): a replica that last looked earlier reads everything."""

# An entry is added once (two puts racing on one hash: the second becomes an update).
NEW_ENTRY = "attribute_not_exists(sk)"
# An entry is replaced only while it is the version read.
SAME_ENTRY = "written = :w"
# New entries are counted in the transaction that adds them, up to the owner's cap (`:room` = cap - new).
TM_ROOM = "attribute_not_exists(entryCount) OR entryCount <= :room"


def entry_key(owner: str, source_hash: str) -> Item:
    """The key of the owner's entry for a source hash."""
    return {"pk": s(f"O#{owner}"), "sk": s(f"T#{source_hash}")}


def counter_key(owner: str) -> Item:
    """The key of the item counting the owner's entries and their writes: among the memory's counters
    (N#<kind>), so the owner's memory read returns it."""
    return memory_counter_key(owner, "tm")


def counter_write(
    owner: str, written: int, added: int, room: int | None, *, changed: bool = False, merged: bool = False
) -> tuple[Item, int]:
    """The counter's update for `written` entry writes of which `added` are new entries; with `room`,
    conditional on the count leaving room for them (`TM_ROOM`); `changed`: the same transaction
    changes the owner's memory too (its corrections), counted on this item
    (`dynamodb_items.memory_version_key`); `merged`: the writes are no journal's (a put's T# items),
    so none of them waits to be merged (`merged`, storage.dynamodb_journal)."""
    values = {":w": n(written)} | ({":k": n(added)} if added else {}) | ({":one": n(1)} if changed else {})
    if room is not None and added:
        values[":room"] = n(room)
    expression = "ADD writes :w" + (", entryCount :k" if added else "") + (", changes :one" if changed else "")
    expression += ", merged :w" if merged else ""
    return update(counter_key(owner), expression, values, TM_ROOM if room is not None and added else None, "")


def changes_pk(owner: str) -> str:
    """The `by-owner` index partition that lists the owner's entries by the time they changed."""
    return f"TM#{owner}"


def entry_item(owner: str, r: TmRecord, at: str, written: str) -> Item:
    """An entry item: `at` is the entry's time, `written` its write's stamp (`dynamodb_journal.stamp`)."""
    return entry_key(owner, r.source_hash) | {
        "source": s(r.entry.source),
        "target": s(r.entry.target),
        "languages": s(r.entry.languages),
        "origin": s(r.entry.origin),
        "updatedAt": s(at),
        "written": s(written),
    }


def note_write(owner: str, entries: Mapping[str, str], written: str, writer: str) -> tuple[Item, int]:
    """The Put of the note of one transaction's entry `entries` (source hash → the entry's time),
    written at `written` by `writer` (the storage instance, whose own reads of the changes leave it
    out), in the owner's changes (the `by-owner` index) under that time."""
    tag = f"{writer}#{secrets.token_hex(4)}"
    expires = int(time.time()) + NOTE_DAYS * 86_400
    item = {
        "pk": s(f"O#{owner}"),
        "sk": s(f"J#{written}#{tag}"),
        "writer": s(writer),
        "entries": {"M": {h: s(at) for h, at in entries.items()}},
        "gsi1pk": s(changes_pk(owner)),
        "gsi1sk": s(f"{written}#~{tag}"),
        "expiresAt": n(expires),
    }
    return put(item, "The translation memory's note of a write")


def noted(i: Item) -> dict[str, str]:
    """What a note of the owner's changes says was written (a journal's entries are in the item
    itself: `dynamodb_journal.decode`): each source hash with its write's stamp."""
    return {h: v["S"] for h, v in i["entries"]["M"].items()}


def notes_kept_since(since: str) -> bool:
    """True if every note and journal written after `since` is still in the index (no note has
    expired, no journal been merged)."""
    kept_from = datetime.now(UTC) - timedelta(days=NOTE_DAYS - 1)
    return since >= kept_from.isoformat(timespec="milliseconds") and kept_since(since)


def tm_entry(i: Item) -> TmEntry:
    """An entry item back."""
    return TmEntry(
        source=i["source"]["S"],
        target=i["target"]["S"],
        languages=i["languages"]["S"],
        origin=i["origin"]["S"],
        updated_at=i["updatedAt"]["S"],
        written=i["written"]["S"],
    )


def source_hash_of(i: Item) -> str:
    """The source hash of an entry item."""
    return str(i["sk"]["S"]).removeprefix("T#")


def checked(owner: str, records: Sequence[TmRecord], now: str) -> dict[str, TmRecord]:
    """The records by hash (the last of equal hashes wins, in first-seen order), each checked to fit."""
    latest: dict[str, TmRecord] = {}
    for r in records:
        check_size(entry_item(owner, r, r.entry.updated_at or now, now), "A translation-memory entry")
        latest[r.source_hash] = r
    return latest


@dataclass
class Batch:
    """One transaction of a put: its actions and what they do to each hash (skipped ones write nothing)."""

    actions: list[Item] = field(default_factory=list)
    outcome: dict[str, Outcome] = field(default_factory=dict)
    size: int = 0


def plan(
    owner: str,
    hashes: Sequence[str],
    latest: Mapping[str, TmRecord],
    stored: Mapping[str, Item],
    count: int,
    *,
    journaled: Collection[str] = (),
    max_entries: int,
    now: str,
    writer: str,
) -> Batch:
    """The next transaction for `hashes` (in order), given the entries read, the hashes the owner's
    journals hold (`journaled`: such an entry is there already, with no T# item yet) and the owner's
    count (N#tm's).

    New entries past the cap are skipped (final: the count never falls); the transaction stops before
    DynamoDB's limits, leaving the rest for the next one. Its first action, the counter's, counts
    the new entries and every write; its last, the note, names them.
    """
    batch, added = Batch(), 0
    for h in hashes:
        old = stored.get(h)
        new = old is None and h not in journaled
        if new and count + added >= max_entries:
            batch.outcome[h] = "skipped"
            continue
        actions = writes(owner, latest[h], old, now, stamp(now, writer))
        size = sum(size for _, size in actions)
        # Two actions are kept for the counter and the note, a kilobyte for the counter, 100 bytes a hash for the note.
        if batch.actions and (
            len(batch.actions) + len(actions) > MAX_TRANSACTION_ITEMS - 2
            or batch.size + size + 100 * (len(batch.outcome) + 1) > MAX_TRANSACTION_BYTES - 1_000
        ):
            break
        batch.actions += [a for a, _ in actions]
        batch.size += size
        batch.outcome[h] = "added" if new else "updated"
        added += new
    if batch.actions:
        written = len(batch.actions)
        batch.actions.insert(0, counter_write(owner, written, added, max_entries - added, merged=True)[0])
        times = {h: stamp(now, writer) for h, o in batch.outcome.items() if o != "skipped"}
        batch.actions.append(note_write(owner, times, now, writer)[0])
    return batch


def writes(owner: str, r: TmRecord, old: Item | None, now: str, written: str) -> list[tuple[Item, int]]:
    """The entry's Put: a new one, or over the version read."""
    item = entry_item(owner, r, r.entry.updated_at or now, written)
    entry, size = put(item, "A translation-memory entry", NEW_ENTRY if old is None else SAME_ENTRY)
    if old is not None:
        entry["Put"]["ExpressionAttributeValues"] = {":w": old["written"]}
    return [(entry, size)]


def step_writes(
    owner: str, records: Sequence[TmRecord], added: int, now: str, writer: str, *, changed: bool = False
) -> list[tuple[Item, int]]:
    """A step's entries as its journal (one Put: storage.dynamodb_journal; the last write wins, no
    condition may cancel a step) and the owner's counter (its count raised by the `added` ones the
    step's replica did not hold, its write count by all, its memory's changes by one if `changed`)."""
    latest = {r.source_hash: replace(r.entry, updated_at=r.entry.updated_at or now) for r in records}
    if not latest:
        return []
    journal = journal_write(owner, list(latest.values()), now, writer)
    check_size(journal[0]["Put"]["Item"], "A step's translation-memory entries")
    return [counter_write(owner, len(latest), added, None, changed=changed), journal]


def fits(writes: Sequence[tuple[Item, int]], *, beside: Sequence[int]) -> bool:
    """True if a step's transaction of `beside` sizes can carry these writes too (and a kept answer)."""
    room_items = MAX_TRANSACTION_ITEMS - 2 - len(beside)
    return (
        len(writes) <= room_items and sum(beside) + sum(size for _, size in writes) <= MAX_TRANSACTION_BYTES - 500_000
    )


def tally(records: Sequence[TmRecord], outcome: Mapping[str, Outcome]) -> tuple[int, int, int]:
    """`(added, updated, skipped)` over the records as given: a repeated hash updates what came before it."""
    counts = {"added": 0, "updated": 0, "skipped": 0}
    seen: set[str] = set()
    for r in records:
        result = outcome[r.source_hash]
        if r.source_hash in seen and result != "skipped":
            result = "updated"
        seen.add(r.source_hash)
        counts[result] += 1
    return counts["added"], counts["updated"], counts["skipped"]
