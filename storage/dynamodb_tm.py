"""DynamoDB items of the owners' translation memory, and how a put is cut into transactions.

Layout (in the table of `storage.dynamodb`):

    O#<owner>   T#<source hash>   an entry: source, target, languages, origin, updatedAt; in the
                                  `by-owner` index under TM#<owner>, <written at>#<source hash>
    O#<owner>   N#tm              the owner's counter: how many entries (entryCount, ADDed for new
                                  ones, capped) and how many entry writes (writes, ADDed by each)
    O#<owner>   TN                the count of releases before this one (entryCount, no longer
                                  written; added to N#tm's)

Lookups are not DynamoDB's: the service keeps a replica of an owner's memory in the warm process
(service.tm) and brings it up to date with one Query of the index for the entries changed since it
last looked (`tm_changes`); a cold replica reads the owner's T# items once. N#tm sorts among the
owner's memory counters, so the step's read of the owner's memory (`memory_snapshot`) returns its
write count too: a replica that knows of that many writes reads no changes. A put replaces an
entry only while it is the version read (two puts racing on one hash: the second reads again); a
step's entries are written unconditionally (the last write wins: no condition may cancel a step). Releases
before this one also wrote `O#<owner>#TK#<key>` partitions (a fuzzy index): nothing reads them now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from .errors import InvalidCursorError
from .interface import TmRecord

Outcome = Literal["added", "updated", "skipped"]

READ_CHUNK = MAX_TRANSACTION_ITEMS - 2
"""Entries read (with the two counters, one BatchGetItem) before a transaction is planned."""

# An entry is added once (two puts racing on one hash: the second becomes an update).
NEW_ENTRY = "attribute_not_exists(sk)"
# An entry is replaced only while it is the version read.
SAME_ENTRY = "updatedAt = :at"
# New entries are counted in the transaction that adds them, up to the owner's cap (`:room` = cap - new).
TM_ROOM = "attribute_not_exists(entryCount) OR entryCount <= :room"


def entry_key(owner: str, source_hash: str) -> Item:
    """The key of the owner's entry for a source hash."""
    return {"pk": s(f"O#{owner}"), "sk": s(f"T#{source_hash}")}


def counter_key(owner: str) -> Item:
    """The key of the item counting the owner's entries and their writes: among the memory's counters
    (N#<kind>), so the owner's memory read returns it."""
    return memory_counter_key(owner, "tm")


def legacy_counter_key(owner: str) -> Item:
    """The key of the item that counted the owner's entries before N#tm (read, never written)."""
    return {"pk": s(f"O#{owner}"), "sk": s("TN")}


def counter_write(owner: str, written: int, added: int, room: int | None) -> tuple[Item, int]:
    """The counter's update for `written` entry writes of which `added` are new entries; with `room`,
    conditional on the count leaving room for them (`TM_ROOM`)."""
    values = {":w": n(written)} | ({":k": n(added)} if added else {})
    if room is not None and added:
        values[":room"] = n(room)
    expression = "ADD writes :w" + (", entryCount :k" if added else "")
    return update(counter_key(owner), expression, values, TM_ROOM if room is not None and added else None, "")


def changes_pk(owner: str) -> str:
    """The `by-owner` index partition that lists the owner's entries by the time they changed."""
    return f"TM#{owner}"


def entry_item(owner: str, r: TmRecord, at: str, written: str, writer: str) -> Item:
    """An entry item: `at` is the entry's time, `written` the write's (its key among the owner's changes),
    `writer` the storage instance that wrote it (whose own reads of the changes leave it out)."""
    return entry_key(owner, r.source_hash) | {
        "writer": s(writer),
        "source": s(r.entry.source),
        "target": s(r.entry.target),
        "languages": s(r.entry.languages),
        "origin": s(r.entry.origin),
        "updatedAt": s(at),
        "gsi1pk": s(changes_pk(owner)),
        "gsi1sk": s(f"{written}#{r.source_hash}"),
    }


def tm_entry(i: Item) -> TmEntry:
    """An entry item back."""
    return TmEntry(
        source=i["source"]["S"],
        target=i["target"]["S"],
        languages=i["languages"]["S"],
        origin=i["origin"]["S"],
        updated_at=i["updatedAt"]["S"],
    )


def source_hash_of(i: Item) -> str:
    """The source hash of an entry item."""
    return str(i["sk"]["S"]).removeprefix("T#")


def checked(owner: str, records: Sequence[TmRecord], now: str) -> dict[str, TmRecord]:
    """The records by hash (the last of equal hashes wins, in first-seen order), each checked to fit."""
    latest: dict[str, TmRecord] = {}
    for r in records:
        check_size(entry_item(owner, r, r.entry.updated_at or now, now, "w" * 16), "A translation-memory entry")
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
    legacy: int = 0,
    max_entries: int,
    now: str,
    writer: str,
) -> Batch:
    """The next transaction for `hashes` (in order), given the entries read and the owner's counts
    (N#tm's `count` and the `legacy` one's).

    New entries past the cap are skipped (final: the count never falls); the transaction stops before
    DynamoDB's limits, leaving the rest for the next one. Its first action, the counter's, counts
    the new entries and every write.
    """
    batch, added = Batch(), 0
    for h in hashes:
        old = stored.get(h)
        if old is None and legacy + count + added >= max_entries:
            batch.outcome[h] = "skipped"
            continue
        actions = writes(owner, latest[h], old, now, writer)
        size = sum(size for _, size in actions)
        # One action and a kilobyte are kept for the counter.
        if batch.actions and (
            len(batch.actions) + len(actions) > MAX_TRANSACTION_ITEMS - 1
            or batch.size + size > MAX_TRANSACTION_BYTES - 1_000
        ):
            break
        batch.actions += [a for a, _ in actions]
        batch.size += size
        batch.outcome[h] = "updated" if old else "added"
        added += old is None
    if batch.actions:
        written = len(batch.actions)
        batch.actions.insert(0, counter_write(owner, written, added, max_entries - legacy - added)[0])
    return batch


def writes(owner: str, r: TmRecord, old: Item | None, now: str, writer: str) -> list[tuple[Item, int]]:
    """The entry's Put: a new one, or over the version read."""
    item = entry_item(owner, r, r.entry.updated_at or now, now, writer)
    entry, size = put(item, "A translation-memory entry", NEW_ENTRY if old is None else SAME_ENTRY)
    if old is not None:
        entry["Put"]["ExpressionAttributeValues"] = {":at": old["updatedAt"]}
    return [(entry, size)]


def step_writes(owner: str, records: Sequence[TmRecord], added: int, now: str, writer: str) -> list[tuple[Item, int]]:
    """A step's entries as Puts for its transaction (the last write wins; no condition may cancel a
    step), and the owner's counter: its count raised by the `added` ones the step's replica did not
    hold, its write count by all."""
    latest = checked(owner, records, now)
    writes = [
        put(entry_item(owner, r, r.entry.updated_at or now, now, writer), "A translation-memory entry")
        for r in latest.values()
    ]
    if writes:
        writes.append(counter_write(owner, len(writes), added, None))
    return writes


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


def cursor_hash(position: Mapping[str, object]) -> str:
    """The last source hash a listing's cursor names."""
    value = position.get("t")
    if not isinstance(value, str) or not 0 < len(value) < 1024:
        raise InvalidCursorError("Invalid cursor.")
    return value
