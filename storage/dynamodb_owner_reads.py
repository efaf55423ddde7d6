"""What a DynamoDB process keeps of owners' memory reads between steps, by the memory's version.

The owner's version item (N#tm: `dynamodb_items.memory_version_key`) counts every write that
changes what a step reads of the owner's memory (`changes`) and the translation memory's writes
(`writes`, `merged`); a held step's read of its session brings it (storage.dynamodb, `_held_head`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from . import dynamodb_items as di
from . import dynamodb_journal as journal
from .dynamodb_items import Item
from .records import OwnerSnapshot

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
