"""DynamoDB operations on owners' memory: corrections, glossary entries and style notes in the owner's
partition `O#<owner>`, and the translation memory in one partition per language pair, `T#<owner>#<pair>`
(`*>fr`), so that no item or partition takes every write of a many-language project:

    O#<owner>         MEM#K#<time>#<session>#<v:010>   the corrections one commit recorded (compressed)
    O#<owner>         MEM#M                            the glossary entries and style notes: one item, versioned
    O#<owner>         TM#P                             the translation memory's pairs (a set; grows on a
                                                       pair's first write only)
    T#<owner>#<pair>  HEAD                             the pair's head: its latest write number, its count
    T#<owner>#<pair>  E#<source hash>                  an entry, with the number of the write that stored it
                                                       (a tombstone, `gone`, once deleted: it counts no more)
    T#<owner>#<pair>  L#<write:012>                    what that write stored (compressed), kept LOG_SECONDS

Every write of a pair (a step's entries in its commit, a put's part for the pair or a part of that)
takes the pair's head's next number in one transaction conditional on the number it read, so the
pair's writes are numbered in the order they commit, on every replica, whatever dates the entries
carry; writes of other pairs never meet it. A replica of a pair reads the logs after the number it
holds (consistent: a Query of the table, never an index), or, once they have expired, the entries;
nothing here has to be compacted.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_core.effects import Correction
from agent_core.tm import TmEntry, TmOrigin

from . import dynamodb_items as di
from .codec import dump_issue, load_issue
from .dynamodb_items import Item, n, num, s
from .dynamodb_table import DynamoDBTable, errors, parallel
from .errors import ConflictError, NotFoundError
from .interface import MemoryStorageInterface, TmRecord, storable_tm, tm_pairs_of, tm_record
from .records import MemoryEntryRecord, OwnerSnapshot, TmChanges, merge_entries

logger = logging.getLogger(__name__)

WRITE_ROUNDS = 64
"""How many times a write that met another writer's is tried again (each round one of them wins)."""
LOG_SECONDS = 7 * 24 * 3600
"""How long a write's log is kept (DynamoDB's TTL then removes it): a replica that has not read for
longer reads the entries instead."""
PUT_CHUNK = 90
"""Entries a put writes per transaction (with the head and the log: under DynamoDB's 100 actions)."""


def _pk(owner: str) -> Item:
    return s(f"O#{owner}")


def _memory_key(owner: str) -> Item:
    return {"pk": _pk(owner), "sk": s("MEM#M")}


def _tm_pk(owner: str, pair: str) -> str:
    return f"T#{owner}#{pair}"


def _head_key(owner: str, pair: str) -> Item:
    return {"pk": s(_tm_pk(owner, pair)), "sk": s("HEAD")}


def _pairs_key(owner: str) -> Item:
    return {"pk": _pk(owner), "sk": s("TM#P")}


@dataclass(frozen=True, slots=True)
class TmWrite:
    """A write of one pair of the translation memory as a transaction's actions (the head's first),
    over head number `seq`."""

    owner: str
    pair: str
    records: tuple[TmRecord, ...]
    added: int
    seq: int
    actions: tuple[Item, ...]
    attempts: int = WRITE_ROUNDS

    def again(self, store: DynamoDBMemoryStorage) -> TmWrite:
        """The same write over the head as it is now (another write took the number this one read)."""
        time.sleep(random.uniform(0, 0.002))
        head = store._get(_head_key(self.owner, self.pair))
        return _tm_write(self.owner, self.pair, self.records, self.added, num(head or {}, "seq"), self.attempts)


class DynamoDBMemoryStorage(DynamoDBTable, MemoryStorageInterface):
    """Owners' memory in the table (partition O#<owner>)."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        super().__init__(boto3_client, table_name=table_name)
        self._heads: dict[tuple[str, str], int] = {}
        """The head number each (owner, pair) last showed here: the guess a step's write is
        conditional on (a wrong one costs a read and another try, never a wrong number)."""

    # -- corrections, glossary and style notes ------------------------------------------------

    def corrections_put(
        self, owner: str, session_id: str, version: int, corrections: Sequence[Correction], now: str
    ) -> Item:
        """A commit's Put of the corrections it records (one item)."""
        rows = correction_rows(corrections)
        sk = f"MEM#K#{now}#{session_id}#{version:010d}"
        item = {
            "pk": _pk(owner),
            "sk": s(sk),
            "sessionId": s(session_id),
            "createdAt": s(now),
            "packed": di.packed(rows),
        }
        return di.put(item)

    def memory_snapshot(self, owner: str, *, corrections: int, tm_pair: str | None = None) -> OwnerSnapshot:
        """One consistent Query, newest first, from the memory item (MEM#M) down into the latest
        corrections (MEM#K#), beside a consistent GetItem of the pair's head when `tm_pair` names one:
        each item is whole as committed, and no invariant spans two of them, so no read is torn."""
        values = {":k": s("MEM#K#"), ":m": s("MEM#M")}
        limit = max(corrections, 0) + 1

        def query() -> list[Item]:
            return self._query_page(f"O#{owner}", "sk BETWEEN :k AND :m", values, ScanIndexForward=False, Limit=limit)[
                0
            ]

        if tm_pair:
            items, head = parallel(query, lambda: self._get(_head_key(owner, tm_pair)))
            seq = self._heads[owner, tm_pair] = num(head or {}, "seq")
        else:
            items, seq = query(), 0
        by_sk = {i["sk"]["S"]: i for i in items}
        found = _corrections([i for i in items if i["sk"]["S"].startswith("MEM#K#")])[: max(corrections, 0)]
        return OwnerSnapshot(_entries(owner, by_sk.get("MEM#M")), found, seq)

    def put_memory_entries(
        self, owner: str, records: Sequence[MemoryEntryRecord], *, max_entries: Mapping[str, int]
    ) -> None:
        """One conditional Put of the owner's memory item over the version read (`merge_entries`'s rule)."""
        self._change(owner, lambda held: merge_entries(held, owner, records, max_entries))

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """One conditional Put of the owner's memory item without the entry; NotFoundError if it has none."""

        def without(held: dict[str, MemoryEntryRecord]) -> dict[str, MemoryEntryRecord]:
            if entry_id not in held:
                raise NotFoundError(f"No memory entry {entry_id}.")
            return {k: e for k, e in held.items() if k != entry_id}

        self._change(owner, without)

    def _change(
        self, owner: str, change: Callable[[dict[str, MemoryEntryRecord]], dict[str, MemoryEntryRecord]]
    ) -> None:
        """Read the memory item, apply `change`, write it back if nobody wrote it meanwhile (else again)."""
        for attempt in range(WRITE_ROUNDS):
            item = self._get(_memory_key(owner))
            version = num(item or {}, "version")
            held = {e.entry_id: e for e in _entries(owner, item)}
            with di.storable():
                written = _memory_key(owner) | {
                    "version": n(version + 1),
                    "packed": di.packed(_rows(change(held).values())),
                }
                di.check_size(written, "The owner's memory")
            condition = {
                "ConditionExpression": "#version = :v",
                "ExpressionAttributeNames": {"#version": "version"},
                "ExpressionAttributeValues": {":v": n(version)},
            }
            try:
                with errors():
                    self.client.put_item(
                        TableName=self.table,
                        Item=written,
                        **(condition if item else {"ConditionExpression": "attribute_not_exists(sk)"}),
                    )
                return
            except di.Refused:
                time.sleep(random.uniform(0, 0.002) * min(attempt + 1, 10))
        raise ConflictError("The memory kept changing meanwhile; try again.")

    # -- the translation memory ------------------------------------------------------------------

    def tm_write(self, owner: str, entries: Sequence[TmEntry], *, added: int, room: int) -> TmWrite | None:
        """A step's entries (of one pair) as the pair's next write, for the step's own transaction (None:
        no entries). Only `room` actions fit beside the step's: entries past them are left out, and logged."""
        records = list({r.source_hash: r for r in storable_tm([tm_record(e) for e in entries])}.values())
        if not records:
            return None
        pair = records[0].entry.languages  # one pair (checked by `commit`)
        if (owner, pair) not in self._heads:
            self._heads[owner, pair] = num(self._get(_head_key(owner, pair)) or {}, "seq")
        spare = room - 2 - (self._heads[owner, pair] == 0)  # the head, the log (and the pairs item, first)
        if len(records) > spare:
            logger.warning("translation memory: %d of a step's entries left out", len(records) - max(spare, 0))
            records = records[: max(spare, 0)]
        return _tm_write(owner, pair, records, min(added, len(records)), self._heads[owner, pair], 5)

    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace entries by source hash, pair by pair, PUT_CHUNK a write; new ones past a pair's
        cap are skipped. Each write reads the pair's head and which entries exist (one BatchGetItem),
        then commits (one TransactWriteItems over that head: a race lost is read again)."""
        kept = storable_tm(records)
        outcome: dict[str, str] = {}
        for pair, found_records in tm_pairs_of(kept).items():
            outcome |= self._put_pair(owner, pair, found_records, max_entries)
        added = updated = skipped = 0
        seen: set[str] = set()
        for r in kept:  # a repeated hash updates what came before it
            if r.source_hash not in outcome:
                skipped += 1
            elif outcome[r.source_hash] == "updated" or r.source_hash in seen:
                updated += 1
            else:
                added += 1
            seen.add(r.source_hash)
        return added, updated, skipped + len(records) - len(kept)

    def _put_pair(self, owner: str, pair: str, records: Sequence[TmRecord], max_entries: int) -> dict[str, str]:
        """`put_tm` of one pair's records: each hash's outcome, `added` or `updated` (none: skipped)."""
        latest = {r.source_hash: r for r in records}
        hashes = list(latest)
        pk = s(_tm_pk(owner, pair))
        outcome: dict[str, str] = {}
        for k in range(0, len(hashes), PUT_CHUNK):
            chunk = hashes[k : k + PUT_CHUNK]
            for _ in range(WRITE_ROUNDS):
                keys = [_head_key(owner, pair), *({"pk": pk, "sk": s(f"E#{h}")} for h in chunk)]
                read = self._batch_get(keys, attributes=("sk", "seq", "tmCount", "gone"))
                found = {i["sk"]["S"]: i for i in read if "gone" not in i}  # a tombstone holds no place
                head = found.get("HEAD", {})
                room = max_entries - num(head, "tmCount")
                admitted: list[str] = []
                for h in chunk:
                    if f"E#{h}" in found or room > 0:
                        admitted.append(h)
                        room -= f"E#{h}" not in found
                new = sum(f"E#{h}" not in found for h in admitted)
                if not admitted:
                    break
                write = _tm_write(owner, pair, [latest[h] for h in admitted], new, num(head, "seq"), 1)
                try:
                    with di.storable():
                        self._transact(list(write.actions), retries=4)
                except di.Refused:
                    continue
                self._heads[owner, pair] = write.seq + 1
                outcome |= {h: "updated" if f"E#{h}" in found else "added" for h in admitted}
                break
            else:
                raise ConflictError("The translation memory kept changing meanwhile; try again.")
        return outcome

    def tm_changes(self, owner: str, pair: str, *, since: int | None) -> TmChanges:
        """After a number: the pair's head beside its logs after it (one GetItem, one Query); the pair's
        entries instead when the logs no longer reach back to it (or for all of them)."""
        pk = _tm_pk(owner, pair)
        if since is not None:
            values = {":a": s(f"L#{since + 1:012d}"), ":b": s("L#~")}
            head, logs = parallel(
                lambda: self._get(_head_key(owner, pair)),
                lambda: list(self._query(pk, "sk BETWEEN :a AND :b", values)),
            )
            seq, changed = since, dict[str, TmEntry]()
            for item in logs:
                number = int(item["sk"]["S"][2:])
                if number != seq + 1:
                    break
                changed |= {r.source_hash: replace(r.entry, written=number) for r in map(_logged, di.unpacked(item))}
                seq = number
            if seq > since or num(head or {}, "seq") <= since:
                return TmChanges(list(changed.values()), seq if changed else num(head or {}, "seq"))
        head = self._get(_head_key(owner, pair))
        items = self._query(pk, "begins_with(sk, :e)", {":e": s("E#")})
        return TmChanges([_stored(i) for i in items], num(head or {}, "seq"))

    def rewrite_tm(self, owner: str, pair: str, source_hash: str, *, target: str, updated_at: str) -> TmEntry:
        """The head and the entry (one BatchGetItem), then the entry's new version or tombstone as the
        pair's next write (one TransactWriteItems over that head, a tombstone taking one off its count:
        a race lost is read again)."""
        target = target if target.strip() else ""  # blank: the tombstone, as every backend stores it
        pk = s(_tm_pk(owner, pair))
        for _ in range(WRITE_ROUNDS):
            keys = [_head_key(owner, pair), {"pk": pk, "sk": s(f"E#{source_hash}")}]
            found = {i["sk"]["S"]: i for i in self._batch_get(keys, attributes=("sk", "seq", "packed", "gone"))}
            item = found.get(f"E#{source_hash}")
            if item is None or "gone" in item:
                raise NotFoundError("No such translation-memory entry.")
            held = _stored(item)
            origin: TmOrigin = "revised" if target.strip() else held.origin
            entry = replace(held, target=target, origin=origin, updated_at=updated_at)
            seq = num(found.get("HEAD", {}), "seq")
            record = TmRecord(entry=entry, source_hash=source_hash)
            write = _tm_write(owner, pair, [record], -1 if entry.deleted else 0, seq, 1)
            try:
                with di.storable():
                    self._transact(list(write.actions), retries=4)
            except di.Refused:
                continue
            self._heads[owner, pair] = seq + 1
            return replace(entry, written=seq + 1)
        raise ConflictError("The translation memory kept changing meanwhile; try again.")

    def tm_pairs(self, owner: str) -> list[str]:
        """The owner's pairs item (TM#P), one GetItem."""
        item = self._get(_pairs_key(owner)) or {}
        return sorted(item.get("pairs", {}).get("SS", []))


# -- items -------------------------------------------------------------------------------------


def _tm_write(owner: str, pair: str, records: Sequence[TmRecord], added: int, seq: int, attempts: int) -> TmWrite:
    """The actions of the pair's write number `seq + 1`: the head (conditional on `seq`), the log, each
    entry, and on the pair's first write the owner's pairs item (an unconditional ADD to its set)."""
    number, now, pk = seq + 1, di.now_iso(), s(_tm_pk(owner, pair))
    head: Item = {
        "Key": _head_key(owner, pair),
        "UpdateExpression": "SET seq = :next, tmCount = if_not_exists(tmCount, :zero) + :added",
        "ConditionExpression": "attribute_not_exists(seq)" if seq == 0 else "seq = :seq",
        "ExpressionAttributeValues": {
            ":next": n(number),
            ":zero": n(0),
            ":added": n(added),
            **({":seq": n(seq)} if seq else {}),
        },
    }
    rows = [_row(r, now) for r in records]
    expires = n(int(time.time()) + LOG_SECONDS)
    log = {"pk": pk, "sk": s(f"L#{number:012d}"), "packed": di.packed(rows), "expiresAt": expires}
    entries = [
        {"pk": pk, "sk": s(f"E#{h}"), "packed": di.packed(row), "written": n(number), **({} if row[1] else _GONE)}
        for h, *row in rows
    ]
    for item in (log, *entries):
        di.check_size(item, "A translation-memory entry")
    first: tuple[Item, ...] = ()
    if seq == 0:
        pairs = {
            "Key": _pairs_key(owner),
            "UpdateExpression": "ADD pairs :p",
            "ExpressionAttributeValues": {":p": {"SS": [pair]}},
        }
        first = ({"Update": pairs},)
    actions = ({"Update": head}, di.put(log), *(di.put(e) for e in entries), *first)
    return TmWrite(owner, pair, tuple(records), added, seq, actions, attempts)


_TM_FIELDS = ("source", "target", "languages", "origin", "updated_at")
"""An entry's packed row: these, then its key when it has one (a row of 5 has none)."""
_GONE: Item = {"gone": n(1)}
"""The mark of a tombstone's entry item (what a put reads to know the place is free)."""
_CORRECTION_FIELDS = ("file_id", "status", "source", "proposal", "final", "reason")
_ENTRY_FIELDS = ("entry_id", "kind", "source", "text", "languages", "origin", "created_at", "updated_at", "term_kind")


def _row(record: TmRecord, now: str) -> list[Any]:
    """A record as its log row: its hash, `_TM_FIELDS` (the time of the write for an entry without one),
    then its key when it has one."""
    e = record.entry
    key = [] if e.key is None else [e.key]
    return [record.source_hash, e.source, e.target, e.languages, e.origin, e.updated_at or now, *key]


def _entry(row: list[Any], written: int = 0) -> TmEntry:
    fields = dict(zip(_TM_FIELDS, row[: len(_TM_FIELDS)], strict=True))
    return TmEntry(**fields, key=row[len(_TM_FIELDS)] if len(row) > len(_TM_FIELDS) else None, written=written)


def _logged(row: list[Any]) -> TmRecord:
    return TmRecord(entry=_entry(row[1:]), source_hash=row[0])


def _stored(i: Item) -> TmEntry:
    return _entry(di.unpacked(i), num(i, "written"))


def correction_rows(corrections: Iterable[Correction]) -> list[list[Any]]:
    """Corrections as an item packs them: `_CORRECTION_FIELDS`, then the unit's start and the MQM issue, then
    the person who made it when it is not the owner (an owner's own correction packs no more)."""
    return [
        [*(getattr(c, f) for f in _CORRECTION_FIELDS), c.start, dump_issue(c.issue), *([c.by] if c.by else [])]
        for c in corrections
    ]


def correction_of(row: list[Any], *, session_id: str, created_at: str) -> Correction:
    """A correction as `correction_rows` packed it (a row from before the start and issue were kept has neither)."""
    start, issue = (row[6], row[7]) if len(row) > len(_CORRECTION_FIELDS) else (-1, None)
    by = row[8] if len(row) > 8 else None
    fields = dict(zip(_CORRECTION_FIELDS, row[: len(_CORRECTION_FIELDS)], strict=True))
    return Correction(
        **fields, session_id=session_id, created_at=created_at, start=start, issue=load_issue(issue), by=by
    )


def _corrections(items: Iterable[Item]) -> list[Correction]:
    """The corrections of correction items read newest first, newest first."""
    return [
        correction_of(row, session_id=i["sessionId"]["S"], created_at=i["createdAt"]["S"])
        for i in items
        for row in reversed(di.unpacked(i))
    ]


def _rows(entries: Iterable[MemoryEntryRecord]) -> list[list[str]]:
    return [[getattr(e, f) for f in _ENTRY_FIELDS] for e in entries]


def _entries(owner: str, item: Item | None) -> list[MemoryEntryRecord]:
    """The memory item's entries, oldest first (none if it does not exist)."""
    rows = di.unpacked(item) if item else []
    entries = [MemoryEntryRecord(owner=owner, **dict(zip(_ENTRY_FIELDS, r, strict=True))) for r in rows]
    return sorted(entries, key=lambda e: (e.created_at, e.entry_id))
