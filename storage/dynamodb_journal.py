"""The translation memory's journal on DynamoDB: a step's entries as one item, and their merging.

Layout (in the table of `storage.dynamodb`, beside storage.dynamodb_tm's items):

    O#<owner>   TJ#<written at>#<writer>#<n>  a step's journal: its entries (`z`, compressed JSON), in
                                              the `by-owner` index under TM#<owner>, <written at>#~…
                                              (where replicas read what other processes wrote), kept
                                              (no TTL) until merged
    O#<owner>   TJ#<latest written>#~m<n>     merged journals: the newest of each source's entries of
                                              journals older than MERGE_AFTER (`z`), not in the index

They sort right after the T# items, so one Query reads the owner's whole translation memory.

A step writes its entries as its journal, one item in its transaction (an entry item each would
cost an action and a write unit or more each, twice in a transaction); the owner's counter (N#tm)
counts the writes (`writes`), and of them
those that wait for no merge (`merged`: a put's, and a journal's once a merge was tried after it).
The owner's translation memory is its T# items (what a put wrote: imports) and its journals'
entries, the latest written of each source winning (`newest`, by write stamp: `stamp`). The journals a reader
of the index could still need (those younger than MERGE_AFTER) stay as they are; older ones are
merged, a few at a time, into items out of the index (`merge_plan`), so that a whole read of the
owner's memory reads few items.
"""

from __future__ import annotations

import json
import secrets
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from agent_core.tm import TmEntry

from .dynamodb_items import MAX_TRANSACTION_ITEMS, Item, memory_version_key, n, put, s, update
from .interface import tm_record

PREFIX = "TJ#"
"""The journals' sort keys begin so: after the T# items."""
MERGE_AFTER = timedelta(days=1)
"""How long a journal stays in the index before it may be merged (a replica that last looked longer
ago than that reads the whole memory, `notes_kept_since`)."""
MERGED_BYTES = 300_000
"""The most a merged item's compressed entries take (DynamoDB's item limit is 400 KB)."""
MERGE_AT = 640
"""Entries written since the last merge (`writes` - `merged`) past which a step's commit merges the
journals it may (a step writes about a screen of units: some sixty journals)."""

# A journal is merged once (two processes merging the same journals: the second is refused).
STILL_THERE = "attribute_exists(sk)"


# A merge tried records the writes it was tried after; a later record never goes back.
LATER = "attribute_not_exists(merged) OR merged < :w"


def merge_tried(owner: str, writes: int) -> Item:
    """The Update that records a merge tried after `writes` entry writes: none of them waits for one."""
    return update(memory_version_key(owner), "SET merged = :w", {":w": n(writes)}, LATER, "")[0]


def encode(entries: Iterable[TmEntry]) -> bytes:
    """Entries as a journal's `z`: compressed compact JSON, one list per entry (with its write stamp
    where it has one: a merged item's entries keep their journals')."""
    rows = [[e.source, e.target, e.languages, e.origin, e.updated_at, e.written] for e in entries]
    return zlib.compress(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode(), 6)


def decode(item: Item) -> list[TmEntry]:
    """A journal's (or a merged item's) entries, each with its write stamp (a journal's: its own)."""
    rows = json.loads(zlib.decompress(item["z"]["B"]))
    stamp = str(item.get("written", {}).get("S", ""))
    return [
        TmEntry(source=r[0], target=r[1], languages=r[2], origin=r[3], updated_at=r[4], written=r[5] or stamp)
        for r in rows
    ]


def newest(entries: Iterable[TmEntry | tuple[str, TmEntry]]) -> dict[str, TmEntry]:
    """By source hash, the latest written of the entries (by `written`; of equal stamps, the later
    given), each given alone (its hash computed: `storage.interface.tm_record`) or with the hash it is
    stored under."""
    found: dict[str, TmEntry] = {}
    for given in entries:
        h, e = given if isinstance(given, tuple) else (tm_record(given).source_hash, given)
        old = found.get(h)
        if old is None or old.written <= e.written:
            found[h] = e
    return found


def stamp(written: str, writer: str) -> str:
    """A write's place in the owner's write order: its time, then its writer (ties broken the same
    way in every process)."""
    return f"{written}#{writer}"


def journal_write(owner: str, entries: Sequence[TmEntry], written: str, writer: str) -> tuple[Item, int]:
    """The Put of a step's journal: its `entries`, written at `written` by `writer` (the storage
    instance, whose own reads of the index leave it out), in the owner's changes (the index)."""
    tag = f"{writer}#{secrets.token_hex(4)}"
    item = {
        "pk": s(f"O#{owner}"),
        "sk": s(f"{PREFIX}{written}#{tag}"),
        "writer": s(writer),
        "written": s(stamp(written, writer)),
        "z": {"B": encode(entries)},
        "gsi1pk": s(f"TM#{owner}"),
        "gsi1sk": s(f"{written}#~{tag}"),
    }
    return put(item, "The translation memory's journal of a step")


def mergeable_before(now: datetime) -> str:
    """The sort key below which an owner's journals may be merged."""
    return f"{PREFIX}{(now - MERGE_AFTER).isoformat(timespec='microseconds')}"


@dataclass(frozen=True, slots=True)
class Merge:
    """One merge's transaction: the merged item and the Deletes of what it merges."""

    actions: list[Item]
    journals: int
    """How many journals (index items) it merges."""


def merge_plan(owner: str, items: Sequence[Item], writer: str) -> Merge | None:
    """The next merge of `items` (the owner's journals and merged items old enough, in key order):
    as many as fit one transaction and one merged item, except merged items already half full; None
    when fewer than two would merge."""
    picked: list[Item] = []
    size = 0
    for i in items:
        if "gsi1pk" not in i and len(i["z"]["B"]) > MERGED_BYTES // 2:
            continue  # merged enough: left as it is
        if len(picked) == MAX_TRANSACTION_ITEMS - 2 or size + len(i["z"]["B"]) > MERGED_BYTES:
            break
        picked.append(i)
        size += len(i["z"]["B"])
    if len(picked) < 2:
        return None
    merged = newest(e for i in picked for e in decode(i))
    # Keyed after every item it replaces (`~` sorts after a writer's name): a whole read that has
    # passed some of them, in key order, still meets it if it has not met the others.
    last = max(i["sk"]["S"].split("#")[1] for i in picked)
    item = {"pk": s(f"O#{owner}"), "sk": s(f"{PREFIX}{last}#~m{writer}{secrets.token_hex(4)}")}
    item["z"] = {"B": encode(merged.values())}
    actions = [put(item, "Merged journals")[0]]
    actions += [{"Delete": {"Key": {"pk": i["pk"], "sk": i["sk"]}, "ConditionExpression": STILL_THERE}} for i in picked]
    return Merge(actions, sum("gsi1pk" in i for i in picked))


def kept_since(since: str, now: datetime | None = None) -> bool:
    """True if every journal written after `since` is still in the index (none merged yet)."""
    now = now or datetime.now(UTC)
    return since >= (now - MERGE_AFTER + timedelta(hours=1)).isoformat(timespec="milliseconds")
