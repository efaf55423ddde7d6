"""DynamoDB operations on owners' memory: corrections, glossary entries and style notes, and the
translation memory (its items and planning in storage.dynamodb_tm). Layout in storage.dynamodb."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agent_core.effects import Correction
from agent_core.errors import InvalidRequestError
from agent_core.tm import TmEntry

from . import dynamodb_items as di
from . import dynamodb_journal as journal
from . import dynamodb_tm as tm
from .dynamodb_items import Item, n, s
from .dynamodb_owner_reads import MemoryVersion, Snapshots
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
