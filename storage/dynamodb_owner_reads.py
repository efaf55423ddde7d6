"""What a DynamoDB process observes of owners' memory versions: when to merge their journals.

The owner's version item (N#tm: `dynamodb_items.memory_version_key`) counts every write that
changes what a step reads of the owner's memory (`changes`) and the translation memory's writes
(`writes`, `merged`); a held step's read of its session brings it (storage.dynamodb, `_held_head`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from . import dynamodb_items as di
from . import dynamodb_journal as journal
from .dynamodb_items import Item

OWNERS = 64
"""Owners whose version a process keeps (`Snapshots`), the most recently observed."""
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
    """What a process observed of each owner's memory version (the held step's read brings it:
    storage.dynamodb, `_held_head`), for deciding when to merge the owner's journals; thread-safe."""

    def __init__(self) -> None:
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
