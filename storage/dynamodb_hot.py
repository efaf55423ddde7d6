"""The session's hot window, kept in its META item so a step loads in ONE Query (`storage.dynamodb`).

The durable history is the bucket items (one per message and per verdict, read by the listings);
META also carries, compressed, what a step needs of it:

    hot          the history index from which every message has its slot (0 for sessions created
                 with this layout; for older ones, the message count at their first commit since)
    h<i % HOT>   message i, zlib-compressed JSON, for the latest HOT messages (a ring: each commit
                 writes its new messages' slots, so no commit needs the old ones)
    r<R>#<call>  the verdict on a call of the response at index R, zlib-compressed, for the latest
                 two responses (a commit that appends a response removes the third-latest's)

A message or verdict too large for its share of the item (`SLOT_BYTES`, `VERDICT_BYTES`), or past
`HOT_VERDICTS` on one response, is stored as NULL: the step then reads that part from the buckets,
as it does for a window longer than HOT or a response older than `hot`. So META stays well under
DynamoDB's 400 KB (HOT × SLOT_BYTES + 2 × HOT_VERDICTS × VERDICT_BYTES ≈ 180 KB at most), and a
step's common path reads one item set, not the buckets.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agent_core.effects import StepToken

from .dynamodb_items import Item, n

HOT = 16
"""Messages kept in META: at least the window a step loads (agent_core's runtime asks for 14)."""
SLOT_BYTES = 8_000
"""The largest compressed message kept in a slot."""
VERDICT_BYTES = 600
"""The largest compressed verdict kept in META."""
HOT_VERDICTS = 40
"""Verdicts kept in META per response (a batch has at most 20 units)."""
_NULL: Item = {"NULL": True}


def _pack(data: str, limit: int) -> Item:
    packed = zlib.compress(data.encode("utf-8"), 6)
    return {"B": packed} if len(packed) <= limit else _NULL


def _unpack(value: Item) -> str:
    return zlib.decompress(value["B"]).decode("utf-8")


def slot(index: int) -> str:
    """The META attribute holding message `index` while it is among the latest HOT."""
    return f"h{index % HOT}"


def verdict_attr(response_index: int, call_id: str) -> str:
    """The META attribute holding the verdict on `call_id` of the response at `response_index`."""
    return f"r{response_index}#{call_id}"


def window(meta: Item, first: int, count: int) -> list[str] | None:
    """Messages `[first, count)` from META's slots, or None when any must come from the buckets."""
    since = meta.get("hot")
    if since is None or first < int(since["N"]) or count - first > HOT:
        return None
    found = [meta.get(slot(i)) for i in range(first, count)]
    if any(v is None or "B" not in v for v in found):
        return None
    return [_unpack(v) for v in found if v is not None]


def verdicts(meta: Item, response_index: int) -> list[str] | None:
    """The stored verdicts on the response at `response_index` (by call id), or None when they must
    come from the buckets (a response from before `hot`, or one of its verdicts too large)."""
    since = meta.get("hot")
    if response_index < 0:
        return []
    if since is None or response_index < int(since["N"]):
        return None
    prefix = f"r{response_index}#"
    found = sorted((k, v) for k, v in meta.items() if k.startswith(prefix))
    if any("B" not in v for _, v in found):
        return None
    return [_unpack(v) for _, v in found]


@dataclass
class HotWrite:
    """What a commit writes of the hot window: attributes to set (or, with None, to remove)."""

    attributes: dict[str, Item | None] = field(default_factory=dict)

    def item(self) -> Item:
        """The attributes as a new META item holds them (a session's first commit)."""
        return {name: value for name, value in self.attributes.items() if value is not None}

    def expression(self) -> tuple[list[str], list[str], dict[str, str], Item]:
        """The SET and REMOVE clauses of META's update, with their names and values; `hot` is set
        only where absent (it is the index from which every slot was written)."""
        sets: list[str] = []
        removes: list[str] = []
        names: dict[str, str] = {}
        values: Item = {}
        for k, (attr, value) in enumerate(self.attributes.items()):
            names[f"#x{k}"] = attr
            if value is None:
                removes.append(f"#x{k}")
            elif attr == "hot":
                values[f":x{k}"] = value
                sets.append(f"#x{k} = if_not_exists(#x{k}, :x{k})")
            else:
                values[f":x{k}"] = value
                sets.append(f"#x{k} = :x{k}")
        return sets, removes, names, values


def hot_write(
    token: StepToken, messages: Sequence[str], is_response: Sequence[bool], verdicts: Mapping[str, str]
) -> HotWrite:
    """The slots of the commit's new `messages` (dumped; `is_response` tells which are model responses),
    its `verdicts` (call id → dumped verdict, on the token's latest response), and the removal of the
    verdicts of any response no longer among the latest two."""
    write = HotWrite()
    write.attributes["hot"] = n(token.message_count)
    for k, data in enumerate(messages):
        write.attributes[slot(token.message_count + k)] = _pack(data, SLOT_BYTES)
    kept = len(token.verdict_ids)
    for call_id, data in verdicts.items():
        if call_id not in token.verdict_ids:
            kept += 1
        value = _pack(data, VERDICT_BYTES) if kept <= HOT_VERDICTS else _NULL
        write.attributes[verdict_attr(token.response_index, call_id)] = value
    new_responses = [token.message_count + k for k, r in enumerate(is_response) if r]
    answered = {
        token.previous_response_index: token.previous_verdict_ids,
        token.response_index: token.verdict_ids | verdicts.keys(),
    }
    responses = [r for r in (token.previous_response_index, token.response_index) if r >= 0] + new_responses
    for dropped in responses[:-2]:
        for call_id in sorted(answered.get(dropped, ())):
            write.attributes[verdict_attr(dropped, call_id)] = None
    return write
