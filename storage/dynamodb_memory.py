"""DynamoDB operations on owners' memory: corrections, glossary entries and style notes, and the
translation memory (its items and planning in storage.dynamodb_tm). Layout in storage.dynamodb."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from agent_core.effects import Correction
from agent_core.errors import InvalidRequestError
from agent_core.tm import TmEntry

from . import dynamodb_items as di
from . import dynamodb_journal as journal
from . import dynamodb_tm as tm
from .dynamodb_items import Item, n, s
from .dynamodb_table import INDEX, DynamoDBTable, errors
from .errors import ConflictError, NotFoundError, StorageUnavailableError, TooLargeError
from .interface import MemoryStorageInterface, TmRecord
from .records import MemoryEntryRecord, OwnerSnapshot

# A new memory entry is never overwritten (two adds racing on one id: the second becomes a replace).
NEW_ENTRY = "attribute_not_exists(sk)"
# An owner's entries of one kind are counted in the same transaction that adds one, capped at :max.
ENTRY_ROOM = "attribute_not_exists(entryCount) OR entryCount < :max"
# A replaced (or deleted) memory entry is still the one that was read: its kind decides its counter.
SAME_KIND = "kind = :kind"


logger = logging.getLogger(__name__)

OWNERS = 64
"""Owners whose memory a process keeps (`Snapshots`), the most recently read."""
MERGE_PAUSE = 600.0
"""Seconds after a process tried to merge an owner's journals before it tries again."""


@dataclass(frozen=True, slots=True)
class MemoryVersion:
    """The owner's memory version item as a step's read of its session brought it (storage.dynamodb,
    `_held_head`): the count of the memory's changes and of the translation memory's writes."""

    changes: int
    writes: int
    merged: int = 0
    """Of the writes, those that wait for no merge of journals (storage.dynamodb_journal)."""


def memory_version(item: Item | None) -> MemoryVersion:
    """The version item read (None: it does not exist yet)."""
    counts = {k: int(item[k]["N"]) if item and k in item else 0 for k in ("writes", "merged")}
    return MemoryVersion(changes=di.memory_changes(item), **counts)


class Snapshots:
    """What steps last read of each owner's memory, by the count of its changes
    (`dynamodb_items.memory_changes`) that the step's read of its session showed BEFORE that read;
    thread-safe.

    Every write that changes what a step reads of an owner's memory (an entry put or deleted, a
    step's corrections) counts one on the owner's version item in its own transaction, and a step's
    read of its session in the process that holds it brings that item along (storage.dynamodb,
    `_held_head`, handed to `memory_snapshot` through the SessionSnapshot): while the count a step
    brings is the one a kept read was taken at, the owner's memory is as that read saw it, and the
    step reads nothing more. A read is kept with the count its step brought before it, never with the
    one it returned itself (a Query reads each item as committed, not the partition at one moment: it
    may show the new count of a write whose entry it had read before the write): what it saw of a
    later write only sends the next step to read again. A read without such a count (not a held
    step's) is neither served from here nor kept.
    """

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, int], tuple[int, OwnerSnapshot]] = OrderedDict()
        self._observed: OrderedDict[str, MemoryVersion] = OrderedDict()
        """The version each owner's version item showed last (for merges: `merge_due`)."""
        self._merges: dict[str, float] = {}
        """When this process last tried to merge each owner's journals (monotonic)."""
        self._lock = threading.Lock()

    def observe(self, owner: str, version: MemoryVersion) -> None:
        """The owner's version, as a step's read just brought it."""
        with self._lock:
            self._observed[owner] = version
            self._observed.move_to_end(owner)
            while len(self._observed) > OWNERS:
                self._merges.pop(self._observed.popitem(last=False)[0], None)

    def merge_due(self, owner: str) -> int | None:
        """The entry writes to record a merge of the owner's journals tried after, if one is due: the
        owner's version item showed MERGE_AT entries or more written since a merge was last tried, and
        this process has not tried one in MERGE_PAUSE (it counts as tried from now)."""
        now = time.monotonic()
        with self._lock:
            seen = self._observed.get(owner)
            if seen is None or seen.writes - seen.merged < journal.MERGE_AT:
                return None
            if now - self._merges.get(owner, -MERGE_PAUSE) < MERGE_PAUSE:
                return None
            self._merges[owner] = now
            return seen.writes

    def get(self, owner: str, corrections: int, seen: MemoryVersion) -> OwnerSnapshot | None:
        """The kept read, if it was taken at the count `seen` shows (the memory unchanged since)."""
        with self._lock:
            kept = self._kept.get((owner, corrections))
            if kept is None or kept[0] != seen.changes:
                return None
            self._kept.move_to_end((owner, corrections))
        return replace(kept[1], tm_writes=seen.writes)

    def keep(self, owner: str, corrections: int, read: OwnerSnapshot, seen: MemoryVersion) -> None:
        """A read just taken, after its step's read of its session showed the count `seen` shows."""
        with self._lock:
            self._kept[(owner, corrections)] = (seen.changes, read)
            self._kept.move_to_end((owner, corrections))
            while len(self._kept) > OWNERS:
                self._kept.popitem(last=False)

    def forget(self, owner: str) -> None:
        """This process just changed the owner's memory (an entry put or deleted, corrections
        committed): keep nothing read of it before (a step's count would show the change anyway; a
        read in this process right after, as the workbench's checks, reads)."""
        with self._lock:
            for key in [k for k in self._kept if k[0] == owner]:
                del self._kept[key]


class DynamoDBMemoryStorage(DynamoDBTable, MemoryStorageInterface):
    """Owners' memory in the table (partition O#<owner>; the translation memory's changes in the index)."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        super().__init__(boto3_client, table_name=table_name)
        self._writer = secrets.token_hex(8)
        """Names this instance's translation-memory writes, which its own reads of the changes leave out."""
        self._entries_seen: dict[str, int] = {}
        """How many memory entries each owner had at the last read: sizes the next read's page (a hint)."""
        self._snapshots = Snapshots()
        """The owners' memory as steps last read it, while it is unchanged."""

    def recent_corrections(self, owner: str, *, limit: int) -> list[Correction]:
        """Newest first."""
        if limit <= 0:
            return []
        args = di.query_args(f"O#{owner}", "begins_with(sk, :k)", {":k": s("K#")})
        with errors():
            items = self.client.query(TableName=self.table, **args, ScanIndexForward=False, Limit=limit)["Items"]
        return [di.correction(i) for i in items]

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes (one partition, bounded), oldest first."""
        entries = [di.memory_entry(i) for i in self._query(f"O#{owner}", "begins_with(sk, :m)", {":m": s("P#")})]
        return sorted(entries, key=lambda e: (e.created_at, e.entry_id))

    def memory_snapshot(self, owner: str, *, corrections: int, seen: object = None) -> OwnerSnapshot:
        """What a step read before, while the step's read of its session showed the owner's memory
        unchanged since (`seen`: its MemoryVersion, `Snapshots`); else one Query, newest first, of the
        owner's partition from its entries (P#, bounded by their caps) down through the counters (N#:
        the kinds', and the translation memory's with its write count) into the corrections (K#),
        stopped after `corrections` of them: its page is sized by how many entries the owner had last
        time, so it is normally one call."""
        if isinstance(seen, MemoryVersion):
            kept = self._snapshots.get(owner, corrections, seen)
            if kept is not None:
                return kept
        read = self._read_snapshot(owner, corrections)
        if isinstance(seen, MemoryVersion):
            self._snapshots.keep(owner, corrections, read, seen)
        return read

    def _read_snapshot(self, owner: str, corrections: int) -> OwnerSnapshot:
        args = di.query_args(f"O#{owner}", "sk BETWEEN :k AND :top", {":k": s("K#"), ":top": s("P$")})
        entries: list[MemoryEntryRecord] = []
        found: list[Correction] = []
        writes, counter = 0, tm.counter_key(owner)["sk"]
        key: Item | None = None
        past_entries = False
        while True:
            limit = self._entries_seen.get(owner, 8) + 4 + max(corrections, 0)
            page_args = {**args, **({"ExclusiveStartKey": key} if key else {})}
            with errors():
                page = self.client.query(TableName=self.table, **page_args, ScanIndexForward=False, Limit=limit)
            for item in page["Items"]:
                kind = item["sk"]["S"][:2]
                if kind == "P#":
                    entries.append(di.memory_entry(item))
                    continue
                past_entries = True
                if item["sk"] == counter:
                    writes = int(item.get("writes", {"N": "0"})["N"])
                if kind == "K#" and len(found) < corrections:
                    found.append(di.correction(item))
            key = page.get("LastEvaluatedKey")
            if key is None or (past_entries and len(found) >= corrections):
                break
            self._entries_seen[owner] = len(entries) + 8  # more than guessed: the next page, and next time
        self._entries_seen[owner] = len(entries)
        return OwnerSnapshot(sorted(entries, key=lambda e: (e.created_at, e.entry_id)), found, writes)

    def put_memory_entry(self, record: MemoryEntryRecord, *, max_entries: int) -> None:
        """Add the entry with its kind's count raised (capped) in one transaction, or replace it in place.

        A replacement keeps the entry's kind (its count stays right): one of another kind is refused.
        """
        item = di.memory_item(record)
        with di.storable():
            di.check_size(item, "The memory entry")
        add, same = di.put(item, "", NEW_ENTRY)[0], di.put(item, "", SAME_KIND)[0]
        same["Put"]["ExpressionAttributeValues"] = {":kind": s(record.kind)}
        changed = di.memory_changed(record.owner)
        counted = self._entry_count(record.owner, record.kind, +1, max_entries)
        try:
            self._put_entry(record, max_entries, counted, add, same, changed)
        finally:
            self._snapshots.forget(record.owner)

    def _put_entry(
        self, record: MemoryEntryRecord, max_entries: int, counted: Item, add: Item, same: Item, changed: Item
    ) -> None:
        """`put_memory_entry`'s writes: an add, else a replacement in place, a few times over races."""
        for _ in range(4):
            try:
                self._transact([counted, add, changed], retries=8)
                return
            except di.Refused as exc:
                full = exc.codes[1] != "ConditionalCheckFailed"
            try:  # it exists (or the count is full): replace it in place, its count unchanged
                self._transact([same, changed], retries=8)
                return
            except di.Refused as exc:
                if full:
                    message = f"The memory holds at most {max_entries} {record.kind} entries; delete some first."
                    raise InvalidRequestError(message) from exc
                # deleted meanwhile: add it again
        raise ConflictError(f"The memory entry {record.entry_id} changed meanwhile, or is of another kind.")

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry and lower its kind's count, in one transaction."""
        key = {"pk": s(f"O#{owner}"), "sk": s(f"P#{entry_id}")}
        found = self._get(key)
        if found is None:
            raise NotFoundError(f"No memory entry {entry_id}.")
        kind = found["kind"]["S"]
        delete = {"Key": key, "ConditionExpression": SAME_KIND}
        delete["ExpressionAttributeValues"] = {":kind": s(kind)}
        try:
            self._transact(
                [{"Delete": delete}, self._entry_count(owner, kind, -1, None), di.memory_changed(owner)], retries=8
            )
        except di.Refused as exc:
            raise NotFoundError(f"No memory entry {entry_id}.") from exc
        finally:
            self._snapshots.forget(owner)

    def _entry_count(self, owner: str, kind: str, delta: int, cap: int | None) -> Item:
        values = {":d": n(delta)} | ({":max": n(cap)} if cap is not None else {})
        key = di.memory_counter_key(owner, kind)
        return di.update(key, "ADD entryCount :d", values, ENTRY_ROOM if cap is not None else None, "")[0]

    # -- the owner's translation memory (items and planning in storage.dynamodb_tm) --------------

    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace entries by source hash, in rounds; new ones past the cap are skipped.

        A round reads up to 98 entries and the owner's two counters, N#tm and the older releases' TN
        (one BatchGetItem), and writes what fits in one TransactWriteItems: N#tm's count ADDed for the
        new entries (capped) and its write count for all, then each entry. A round a race refused is
        read again.
        """
        now = di.now_iso()
        with di.storable():
            latest = tm.checked(owner, records, now)
        journaled = set(journal.newest(e for i in self._journal_items(owner) for e in journal.decode(i)))
        outcome: dict[str, tm.Outcome] = {}
        pending, refused = list(latest), 0
        while pending:
            chunk = pending[: tm.READ_CHUNK]
            counters = {tm.counter_key(owner)["sk"]["S"]: 0, tm.legacy_counter_key(owner)["sk"]["S"]: 0}
            keys = [tm.counter_key(owner), tm.legacy_counter_key(owner), *(tm.entry_key(owner, h) for h in chunk)]
            found = self._batch_get(keys)
            for i in found:
                if i["sk"]["S"] in counters:
                    counters[i["sk"]["S"]] = int(i.get("entryCount", {"N": "0"})["N"])
            stored = {tm.source_hash_of(i): i for i in found if i["sk"]["S"] not in counters}
            counted, legacy = counters.values()
            with di.storable():
                batch = tm.plan(
                    owner,
                    chunk,
                    latest,
                    stored,
                    counted,
                    legacy=legacy,
                    journaled=journaled,
                    max_entries=max_entries,
                    now=now,
                    writer=self._writer,
                )
            if batch.actions:
                try:
                    self._transact(batch.actions, retries=8)
                except di.Refused as exc:
                    if (refused := refused + 1) > 8:
                        raise ConflictError("The translation memory kept changing meanwhile; try again.") from exc
                    continue
            outcome |= batch.outcome
            pending = [h for h in pending if h not in outcome]
        return tm.tally(records, outcome)

    def tm_changes(self, owner: str, *, since: str | None, known: Mapping[str, str] | None = None) -> list[TmEntry]:
        """All: the owner's T# items and journals (two consistent Queries), the newest of each source,
        as for a `since` older than the index keeps. Since a time: the notes and journals of writes
        after it in the `by-owner` index's TM#<owner> partition that another instance wrote (one
        Query, normally one page; this instance's own are filtered out by DynamoDB): a journal's
        entries are in it; a note's, not in `known` at that time, in one BatchGetItem."""
        known = known or {}
        if since is None or not tm.notes_kept_since(since):
            items = list(self._query(f"O#{owner}", "sk BETWEEN :t AND :j", {":t": s("T#"), ":j": s("TJ$")}))
            stored = [(tm.source_hash_of(i), tm.tm_entry(i)) for i in items if i["sk"]["S"].startswith("T#")]
            journaled = (e for i in items if "z" in i for e in journal.decode(i))  # T#, then TJ#: newer wins ties
            found = journal.newest([*stored, *journaled])
            return [e for h, e in found.items() if known.get(h) != e.updated_at]
        args: dict[str, Any] = {
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :p AND gsi1sk > :after",
            "ExpressionAttributeValues": {":p": s(tm.changes_pk(owner)), ":after": s(since), ":me": s(self._writer)},
            "ProjectionExpression": "sk, updatedAt, entries, z",
            "FilterExpression": "writer <> :me",
        }
        inline: list[TmEntry] = []
        named: list[str] = []
        for i in self._pages(args):
            if "z" in i:
                inline += journal.decode(i)
            else:
                named += [h for h, at in tm.noted(i).items() if known.get(h) != at]
        changed = [e for h, e in journal.newest(inline).items() if known.get(h) != e.updated_at]
        wanted = list(dict.fromkeys(named))
        if wanted:
            changed += [tm.tm_entry(i) for i in self._batch_get([tm.entry_key(owner, h) for h in wanted])]
        return changed

    def _journal_items(self, owner: str, *, before: str = "TJ$") -> list[Item]:
        """The owner's journals and merged journals (storage.dynamodb_journal) whose keys sort before
        `before`, in key order."""
        names = {"#z": "z"}
        found = self._query(
            f"O#{owner}",
            "sk BETWEEN :a AND :b",
            {":a": s(journal.PREFIX), ":b": s(before)},
            ProjectionExpression="pk, sk, #z, gsi1pk",
            ExpressionAttributeNames=names,
        )
        return [i for i in found if "z" in i]

    def _merge_due(self, owner: str) -> None:
        """After a commit that wrote a journal: merge the owner's old journals if its version item
        showed MERGE_AT entries or more written since a merge was last tried (at most once in
        MERGE_PAUSE per owner here), and record it tried. Never fails the commit: a merge that
        fails is left for a later one."""
        writes = self._snapshots.merge_due(owner)
        if writes is None:
            return
        try:
            self.merge_journals(owner)
            self._transact([journal.merge_tried(owner, writes)])
        except di.Refused:
            pass  # another process recorded a later try
        except (StorageUnavailableError, ConflictError, TooLargeError) as exc:
            logger.warning("journals not merged: %s: %s", type(exc).__name__, exc)

    def merge_journals(self, owner: str, *, transactions: int = 4) -> int:
        """Merge the owner's journals that no reader of the index can need any longer (older than
        `dynamodb_journal.MERGE_AFTER`), at most `transactions` transactions of them: how many were
        merged. A merge that meets another (of the same journals) stops."""
        items = self._journal_items(owner, before=journal.mergeable_before(datetime.now(UTC)))
        merged = 0
        for _ in range(transactions):
            plan = journal.merge_plan(owner, items, self._writer)
            if plan is None:
                break
            with di.storable():
                di.check_size(plan.actions[0]["Put"]["Item"], "Merged journals")
            try:
                self._transact(plan.actions)
            except di.Refused:
                break
            merged += plan.journals
            done = {a["Delete"]["Key"]["sk"]["S"] for a in plan.actions if "Delete" in a}
            items = [i for i in items if i["sk"]["S"] not in done]
        return merged
