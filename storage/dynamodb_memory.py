"""DynamoDB operations on owners' memory: corrections, glossary entries and style notes, and the
translation memory (its items and planning in storage.dynamodb_tm). Layout in storage.dynamodb."""

from __future__ import annotations

import json
import logging
import random
import secrets
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agent_core.effects import Correction
from agent_core.tm import TmEntry

from . import dynamodb_items as di
from . import dynamodb_journal as journal
from . import dynamodb_tm as tm
from .dynamodb_items import Item, n, s
from .dynamodb_owner_reads import Snapshots
from .dynamodb_table import INDEX, DynamoDBTable, errors
from .errors import ConflictError, NotFoundError, StorageUnavailableError, TooLargeError
from .interface import MemoryStorageInterface, TmRecord, storable_tm
from .records import MemoryEntryRecord, OwnerSnapshot, merge_entries

MEMORY_SK = "M"
"""The sort key of the owner's memory item: all its glossary entries and style notes (bounded by their
caps), compressed (`z`), with the version (`v`) every write of it is conditional on."""
_TM_COUNTER = "N#tm"
WRITE_ROUNDS = 64
"""How many times a write of the memory item that met another writer's is tried again."""


def memory_key(owner: str) -> Item:
    """The key of the owner's memory item."""
    return {"pk": s(f"O#{owner}"), "sk": s(MEMORY_SK)}


def _encode(entries: Iterable[MemoryEntryRecord]) -> bytes:
    rows = [[e.entry_id, e.kind, e.source, e.text, e.languages, e.origin, e.created_at, e.updated_at] for e in entries]
    return zlib.compress(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode(), 6)


def _entries(owner: str, item: Item | None) -> list[MemoryEntryRecord]:
    """The memory item's entries, oldest first (none if it does not exist)."""
    rows = json.loads(zlib.decompress(item["z"]["B"])) if item else []
    entries = [
        MemoryEntryRecord(
            entry_id=r[0],
            owner=owner,
            kind=r[1],
            source=r[2],
            text=r[3],
            languages=r[4],
            origin=r[5],
            created_at=r[6],
            updated_at=r[7],
        )
        for r in rows
    ]
    return sorted(entries, key=lambda e: (e.created_at, e.entry_id))


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
        """The owners' memory versions as steps observed them (when to merge journals)."""

    def recent_corrections(self, owner: str, *, limit: int) -> list[Correction]:
        """Newest first."""
        if limit <= 0:
            return []
        args = di.query_args(f"O#{owner}", "begins_with(sk, :k)", {":k": s("K#")})
        with errors():
            items = self.client.query(TableName=self.table, **args, ScanIndexForward=False, Limit=limit)["Items"]
        return [di.correction(i) for i in items]

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes (one GetItem of its memory item), oldest first."""
        return _entries(owner, self._get(memory_key(owner)))

    def memory_snapshot(self, owner: str, *, corrections: int) -> OwnerSnapshot:
        """One consistent Query, newest first, from the translation memory's counter (N#tm) down through
        the memory item (M) into the latest `corrections` corrections (K#): each item is read as
        committed, and the memory item is whole, so no read is torn."""
        args = di.query_args(f"O#{owner}", "sk BETWEEN :k AND :top", {":k": s("K#"), ":top": s(_TM_COUNTER)})
        with errors():
            items = self.client.query(
                TableName=self.table, **args, ScanIndexForward=False, Limit=max(corrections, 0) + 2
            )["Items"]
        by_sk = {i["sk"]["S"]: i for i in items}
        writes = int(by_sk.get(_TM_COUNTER, {}).get("writes", {"N": "0"})["N"])
        found = [di.correction(i) for i in items if i["sk"]["S"].startswith("K#")][: max(corrections, 0)]
        return OwnerSnapshot(_entries(owner, by_sk.get(MEMORY_SK)), found, writes)

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
        """Read the memory item, apply `change`, write it back if nobody wrote it meanwhile (else again:
        each round one of the competing writers wins, so WRITE_ROUNDS bounds the writers that can race)."""
        for attempt in range(WRITE_ROUNDS):
            item = self._get(memory_key(owner))
            version = int(item["v"]["N"]) if item else 0
            held = {e.entry_id: e for e in _entries(owner, item)}
            written = memory_key(owner) | {"v": n(version + 1), "z": {"B": _encode(change(held).values())}}
            with di.storable():
                di.check_size(written, "The owner's memory")
            condition = {"ConditionExpression": "v = :v", "ExpressionAttributeValues": {":v": n(version)}}
            try:
                with errors():
                    self.client.put_item(
                        TableName=self.table,
                        Item=written,
                        **(condition if item else {"ConditionExpression": "attribute_not_exists(sk)"}),
                    )
                return
            except di.Refused:
                time.sleep(random.uniform(0, 0.002) * min(attempt + 1, 10))  # written meanwhile: read again
        raise ConflictError("The memory kept changing meanwhile; try again.")

    # -- the owner's translation memory (items and planning in storage.dynamodb_tm) --------------

    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace entries by source hash, in rounds; new ones past the cap are skipped.

        A put is the owner's latest write of what it holds, whatever their dates: each entry is stamped
        with the put's write stamp (`dynamodb_journal.stamp`), which orders it after every write before.
        A round reads up to 98 entries and the owner's counter N#tm (one BatchGetItem), and writes what
        fits in one TransactWriteItems: N#tm's count ADDed for the new entries (capped) and its write
        count for all, then each entry. A round a race refused is read again.
        """
        now = di.now_iso()
        with di.storable():
            latest = tm.checked(owner, kept := storable_tm(records), now)
        journaled = set(journal.newest(e for i in self._journal_items(owner) for e in journal.decode(i)))
        outcome: dict[str, tm.Outcome] = {}
        pending, refused = list(latest), 0
        while pending:
            chunk = pending[: tm.READ_CHUNK]
            counter = tm.counter_key(owner)["sk"]["S"]
            found = self._batch_get([tm.counter_key(owner), *(tm.entry_key(owner, h) for h in chunk)])
            counted = sum(int(i.get("entryCount", {"N": "0"})["N"]) for i in found if i["sk"]["S"] == counter)
            stored = {tm.source_hash_of(i): i for i in found if i["sk"]["S"] != counter}
            with di.storable():
                batch = tm.plan(
                    owner,
                    chunk,
                    latest,
                    stored,
                    counted,
                    journaled=journaled,
                    max_entries=max_entries,
                    now=now,
                    writer=self._writer,
                )
            if batch.actions:
                try:
                    self._transact(batch.actions, retries=8)
                except di.Refused as exc:  # another put won this round: read again (WRITE_ROUNDS bounds the racers)
                    if (refused := refused + 1) > WRITE_ROUNDS:
                        raise ConflictError("The translation memory kept changing meanwhile; try again.") from exc
                    time.sleep(random.uniform(0, 0.002) * min(refused, 10))
                    continue
            outcome |= batch.outcome
            pending = [h for h in pending if h not in outcome]
        added, updated, skipped = tm.tally(kept, outcome)
        return added, updated, skipped + len(records) - len(kept)

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
            return [e for h, e in found.items() if known.get(h) != e.written]
        args: dict[str, Any] = {
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :p AND gsi1sk > :after",
            "ExpressionAttributeValues": {":p": s(tm.changes_pk(owner)), ":after": s(since), ":me": s(self._writer)},
            "ProjectionExpression": "sk, #w, entries, z",
            "ExpressionAttributeNames": {"#w": "written"},
            "FilterExpression": "writer <> :me",
        }
        inline: list[TmEntry] = []
        named: list[str] = []
        for i in self._pages(args):
            if "z" in i:
                inline += journal.decode(i)
            else:
                named += [h for h, at in tm.noted(i).items() if known.get(h) != at]
        changed = [e for h, e in journal.newest(inline).items() if known.get(h) != e.written]
        wanted = list(dict.fromkeys(named))
        if wanted:
            changed += [tm.tm_entry(i) for i in self._batch_get([tm.entry_key(owner, h) for h in wanted])]
        return changed

    def _journal_items(self, owner: str, *, before: str = "TJ$") -> list[Item]:
        """The owner's journals and merged journals (storage.dynamodb_journal) whose keys sort before
        `before`, in key order."""
        names = {"#z": "z", "#w": "written"}
        found = self._query(
            f"O#{owner}",
            "sk BETWEEN :a AND :b",
            {":a": s(journal.PREFIX), ":b": s(before)},
            ProjectionExpression="pk, sk, #z, #w, gsi1pk",
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


def tm_actions(
    owner: str, records: Sequence[TmRecord], *, added: int, now: str, writer: str, changed: bool = False
) -> list[tuple[Item, int]]:
    """The TransactWriteItems actions, with their sizes, of a step's translation-memory entries, for
    the step's own transaction: none without entries, else the owner's counter N#tm (its entry count
    raised by `added`, its write count by the entries, its `changes` by one if `changed`) and the
    step's journal (one Put; its entries stamped `now`, `writer` by `dynamodb_journal.stamp`). No
    condition: they never cancel a step. A blank target is left out (`storable_tm`); a journal past
    DynamoDB's item limit is TooLargeError before anything is written."""
    with di.storable():
        return tm.step_writes(owner, storable_tm(records), added, now, writer, changed=changed)
