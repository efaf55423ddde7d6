"""The session's hot window: items beside META that a step reads in the same Query (`storage.dynamodb`).

The durable history is the bucket items (one per message and per commit's verdicts, read by the listings); the
session's partition also holds, compressed, what a step needs of it:

    S#<session>  V#<R:010>     the verdicts on the calls of the response at index R, one attribute
                               per commit that brought some (its version: a later one wins), for the
                               latest two responses (a commit that appends a response deletes the
                               third-latest's)
    S#<session>  W#<i % HOT>   message i, while it is among the latest HOT (a ring of slot items: each
                               commit puts its new messages' slots, so no commit rewrites the others)
    S#<session>  META  hot     the history index from which every message has had its slot and every
                               response its verdict item (0 for sessions created with this layout;
                               for older ones, the message count at their first commit since; a
                               slot not written under W# yet, or overwritten, sends the read to
                               the buckets)
    S#<session>  H#<i % HOT>   the slots as releases before this one kept them (returned with the
                               files and META until deleted, but never used; a commit that sees
                               them deletes them, if it has room for it)

The verdict items sort after META, the slots after them: a process that holds the latest messages
of the session (`Held`) reads META, the files and the verdicts in one Query that stops before the
slots (`sk BETWEEN F# AND W#`), and the slots only when another process committed since (their new
messages) or when it holds none (`sk >= F#`, everything). A message or verdict too large for its
item (`SLOT_BYTES`, `VERDICT_BYTES`), or past `HOT_VERDICTS` on one response, is stored as NULL: the
step then reads that part from the buckets, as it does for a window longer than HOT, a slot not yet
written, or a response older than `hot`. Every write is a small item of its own (DynamoDB bills a
write by the size of the item it writes), and none of these items grows past HOT_VERDICTS ×
VERDICT_BYTES (360 KB; a few hundred bytes in practice).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_core.effects import StepToken

from .dynamodb_items import Item, item_size, n, pack, s, unpack
from .dynamodb_meta import Meta

HOT = 16
"""Messages kept in slots: at least the window a step loads (agent_core's runtime asks for 16)."""
SLOT_BYTES = 100_000
"""The largest compressed message kept in a slot."""
VERDICT_BYTES = 6_000
"""The most a commit's verdicts take, compressed, in a response's verdict item (a response takes at
most HOT_VERDICTS commits: each brings a verdict on a call not yet answered)."""
HOT_VERDICTS = 60
"""Verdicts kept per response (a batch has at most 20 units)."""
_NULL: Item = {"NULL": True}
HEAD_FIRST = "F#"
"""The first sort key of what a step reads beside the slots: the files, META, the verdict items."""
SLOTS = "W#"
"""The slots' prefix: they sort after META and the verdict items."""
LEGACY_SLOTS = "H#"
"""The slots' prefix before this release (between the files and META)."""


def _held_in(packed: bytes, limit: int) -> Item:
    """A slot's or verdict item's value: the packed text, or NULL when it is over `limit` bytes."""
    return {"B": packed} if len(packed) <= limit else _NULL


def _unpack(value: Item) -> str:
    return unpack(value["B"])


def slot_sk(index: int) -> str:
    """The sort key of the slot that holds message `index` while it is among the latest HOT."""
    return f"{SLOTS}{index % HOT:02d}"


def verdicts_sk(response_index: int) -> str:
    """The sort key of the item holding the verdicts on the response at `response_index`."""
    return f"V#{response_index:010d}"


def _commit_attr(version: int) -> str:
    return f"c{version:010d}"


def window(
    since: int | None, head: Sequence[Item], first: int, count: int, held: Mapping[int, str] | None = None
) -> list[str] | None:
    """Messages `[first, count)` from those the process `held` and the slot items among `head`, or
    None when any must come from the buckets (a window longer than HOT, older than META's `hot`
    (`since`), a slot not written since, or a message too large for its slot)."""
    held = held or {}
    if count - first > HOT:
        return None
    slots = {int(i["i"]["N"]): i["d"] for i in head if i["sk"]["S"].startswith(SLOTS)}
    out: list[str] = []
    for index in range(first, count):
        if index in held:
            out.append(held[index])
            continue
        value = slots.get(index)
        if since is None or index < since or value is None or "B" not in value:
            return None
        out.append(_unpack(value))
    return out


@dataclass(frozen=True, slots=True)
class HeldHead:
    """A session's META, files and verdict items as a process holds them (`Held.latest_head`)."""

    created_at: str
    version: int
    """The session's creation time and version they were held at."""
    items: Mapping[str, Item]
    """By sort key."""
    moved: bool
    """The session was found stepped elsewhere since (`Held.moved`)."""
    owner: str


HELD_SESSIONS = 64
"""Sessions whose latest messages a process keeps (at most HOT messages each)."""
HELD_CHARS = 8_000_000
"""The most a process holds, in characters of dumped messages over all sessions (least recently
stepped sessions go first); a session's latest messages past it are not held at all."""
HELD_HEAD_BYTES = 8_000_000
"""The most a process holds of what steps loaded beside the slots (META, files, verdict items), in
bytes as DynamoDB sizes items, over all sessions."""


@dataclass(frozen=True, slots=True)
class HeldMessages:
    """A session's messages `[first, end)` as a process holds them, and when the session was created."""

    created_at: str
    first: int
    data: tuple[str, ...]

    @property
    def end(self) -> int:
        """The index after the last held message."""
        return self.first + len(self.data)

    def by_index(self) -> dict[int, str]:
        """The messages by history index."""
        return {self.first + k: d for k, d in enumerate(self.data)}


class Held:
    """The latest messages (dumped) of the sessions a process stepped lately: thread-safe, least
    recently used out first.

    A committed message never changes, so a process that holds a session's messages `[lo, hi)` has
    the step's Query stop before the slots, and reads only the slots of messages past `hi` (committed
    by another process since), with a filter on the slot's index. It keeps what it loaded and what it
    committed, never what a failed commit tried to write, each with the session's creation time: a
    session deleted and created again under its id is another session.

    It also holds the other items the latest step of each session loaded (META, the files, the
    verdict items: `keep_head`), which the step's commit puts whole, changed, over the version
    loaded (a commit whose process no longer holds them reads them again), and after the commit as
    it put them: the next step of the session in this process reads only META and the file count
    to know they are still the session's (storage.dynamodb, `_held_head`).
    """

    def __init__(
        self, sessions: int = HELD_SESSIONS, chars: int = HELD_CHARS, head_bytes: int = HELD_HEAD_BYTES
    ) -> None:
        self._sessions: OrderedDict[str, tuple[str, int, list[str]]] = OrderedDict()
        self._heads: OrderedDict[str, tuple[str, int, dict[str, Item], int, str]] = OrderedDict()
        """By session: its creation time and version, the items held, their size, its owner."""
        self._capacity = sessions
        self._budget = chars
        self._chars = 0
        self._head_bytes, self._head_budget = 0, head_bytes
        self._moved: set[str] = set()
        """Sessions held (in `_heads`) that were found stepped elsewhere since (`moved`)."""
        self._lock = threading.Lock()

    def get(self, session_id: str) -> HeldMessages | None:
        """What is held of the session, if anything (one consistent view)."""
        with self._lock:
            found = self._sessions.get(session_id)
        return None if found is None else HeldMessages(found[0], found[1], tuple(found[2]))

    def keep(self, session_id: str, created_at: str, first: int, data: Sequence[str]) -> None:
        """Hold messages `first`, `first + 1`, … (committed ones) of the session created at
        `created_at`: joined to those held when they follow on or overlap, in their place otherwise;
        the latest HOT are kept."""
        with self._lock:
            created, lo, held = self._drop(session_id) or (created_at, first, [])
            if created == created_at and lo <= first <= lo + len(held):
                joined = held[: first - lo] + list(data)
            else:
                lo, joined = first, list(data)
            if len(joined) > HOT:
                lo, joined = lo + len(joined) - HOT, joined[-HOT:]
            size = sum(map(len, joined))
            if not joined or size > self._budget:
                return
            self._sessions[session_id] = (created_at, lo, joined)
            self._chars += size
            while len(self._sessions) > self._capacity or self._chars > self._budget:
                self._drop(next(iter(self._sessions)))

    def keep_head(self, meta: Meta, items: Sequence[Item]) -> None:
        """Hold the items a step loaded beside the slots (META, the files, the verdict items) at META's
        version: the step's commit writes the ones it changes whole, over that version (`head`)."""
        session_id = meta.record.session_id
        head = {i["sk"]["S"]: i for i in items if not i["sk"]["S"].startswith((SLOTS, LEGACY_SLOTS))}
        head |= {i["sk"]["S"]: {"pk": i["pk"], "sk": i["sk"]} for i in items if i["sk"]["S"].startswith(LEGACY_SLOTS)}
        size = sum(item_size(i) for i in head.values())
        with self._lock:
            if (old := self._heads.pop(session_id, None)) is not None:
                self._head_bytes -= old[3]
            if size > self._head_budget:
                self._moved.discard(session_id)
                return  # its commit reads it again
            self._heads[session_id] = (meta.record.created_at, meta.record.version, head, size, meta.record.owner)
            self._head_bytes += size
            while len(self._heads) > self._capacity or self._head_bytes > self._head_budget:
                evicted, (_, _, _, size, _) = self._heads.popitem(last=False)
                self._head_bytes -= size
                self._moved.discard(evicted)

    def latest_head(self, session_id: str) -> HeldHead | None:
        """What is held of the session's items beside the slots, at the version this process's latest
        step of it loaded or committed, if anything."""
        with self._lock:
            found = self._heads.get(session_id)
            moved = session_id in self._moved
        if found is None:
            return None
        return HeldHead(found[0], found[1], found[2], moved, found[4])

    def moved(self, session_id: str, *, on: bool) -> None:
        """The session was (`on`) or was not found stepped elsewhere since this process held it: while
        it is, its steps here read with the Query at once (requests that alternate between processes
        would otherwise pay for a read that finds the version held stale before every Query)."""
        with self._lock:
            if on and session_id in self._heads:
                self._moved.add(session_id)
            else:
                self._moved.discard(session_id)

    def head(self, token: StepToken) -> Mapping[str, Item] | None:
        """The items (by sort key) the process loaded of the token's session at the token's version, or
        None if it holds none of that version. Only commits write them, each over the version it
        loaded, and a load keeps only a read that holds every item its META's latest commits wrote
        (storage.dynamodb_meta.seen_whole), so they are what that version's commit finds, and an
        item absent is absent."""
        with self._lock:
            found = self._heads.get(token.session_id)
        if found is None or found[:2] != (token.created_at, token.version):
            return None
        return found[2]

    def drop_head(self, session_id: str) -> None:
        """Hold nothing of what steps of the session loaded (its latest commit changed an item it did
        not put whole: the next step reads them)."""
        with self._lock:
            self._moved.discard(session_id)
            if (old := self._heads.pop(session_id, None)) is not None:
                self._head_bytes -= old[3]

    def forget(self, session_id: str) -> None:
        """Hold nothing of the session (it was deleted)."""
        self.drop_head(session_id)
        with self._lock:
            self._drop(session_id)

    def _drop(self, session_id: str) -> tuple[str, int, list[str]] | None:
        """Remove the session's entry (under the lock), and return it."""
        found = self._sessions.pop(session_id, None)
        if found is not None:
            self._chars -= sum(map(len, found[2]))
        return found


def verdicts(since: int | None, head: Sequence[Item], response_index: int) -> list[str] | None:
    """The stored verdicts on the response at `response_index` (by call id), or None when they must
    come from the buckets (a response from before META's `hot`, `since`, or one of its verdicts too large)."""
    if response_index < 0:
        return []
    if since is None or response_index < since:
        return None
    wanted = verdicts_sk(response_index)
    item = next((i for i in head if i["sk"]["S"] == wanted), {})
    commits = sorted((k, v) for k, v in item.items() if k.startswith("c"))
    if any("B" not in v for _, v in commits):
        return None
    found: dict[str, str] = {}
    for _, v in commits:  # in commit order: a later verdict on a call replaces an earlier one
        found |= json.loads(_unpack(v))
    return [found[call_id] for call_id in sorted(found)]


def hot_writes(
    token: StepToken,
    pk: str,
    messages: Sequence[bytes],
    is_response: Sequence[bool],
    verdicts: Mapping[str, str],
    head: Mapping[str, Item],
) -> list[tuple[Item, int]]:
    """A commit's actions on the hot window, each with the size it writes: the slots of its new
    `messages` (dumped and packed, `dynamodb_items.pack`; `is_response` tells which are model
    responses), its `verdicts` (call id → dumped verdict, on the token's latest response) into that
    response's item (put whole, from the
    `head` the token's step loaded), and the Delete of the verdict item of any response no longer
    among the latest two."""
    actions: list[tuple[Item, int]] = []
    new_responses = [token.message_count + k for k, r in enumerate(is_response) if r]
    responses = [r for r in (token.previous_response_index, token.response_index) if r >= 0] + new_responses
    dropped = responses[:-2]
    for k, data in enumerate(messages[-HOT:], start=max(0, len(messages) - HOT)):
        index = token.message_count + k
        item = {"pk": s(pk), "sk": s(slot_sk(index)), "i": n(index), "d": _held_in(data, SLOT_BYTES)}
        actions.append(({"Put": {"Item": item}}, item_size(item)))
    if verdicts and token.response_index not in dropped:
        answered = len(token.verdict_ids | verdicts.keys())
        packed = _held_in(pack(json.dumps(dict(verdicts))), VERDICT_BYTES) if answered <= HOT_VERDICTS else _NULL
        key = {"pk": s(pk), "sk": s(verdicts_sk(token.response_index))}
        written = {_commit_attr(token.version): packed, "v": n(token.version + 1)}  # and the version that wrote it
        item = (head.get(key["sk"]["S"]) or key) | written  # put whole
        actions.append(({"Put": {"Item": item}}, item_size(item)))
    for response in dropped:
        actions.append(({"Delete": {"Key": {"pk": s(pk), "sk": s(verdicts_sk(response))}}}, 200))
    return actions


def legacy_deletes(head: Mapping[str, Item]) -> list[tuple[Item, int]]:
    """The Deletes of the slots a release before this one left (`LEGACY_SLOTS`) among the `head` a step loaded."""
    keys = [k for sk, k in head.items() if sk.startswith(LEGACY_SLOTS)]
    return [({"Delete": {"Key": {"pk": k["pk"], "sk": k["sk"]}}}, 200) for k in keys]
