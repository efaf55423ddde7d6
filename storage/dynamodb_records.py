"""The written-once items of a session's partition as values (storage.dynamodb owns the layout): a
message item's index, the verdict records of a response merged, and the unit rows of `U#` items,
packed and read. Nothing here calls DynamoDB."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_core.copilot import Verdict
from agent_core.effects import UnitWrite

from . import dynamodb_items as di
from .codec import load_verdict
from .dynamodb_items import Item


def message_index(item: Item) -> int:
    """A message item's index."""
    return int(item["sk"]["S"][2:])


def verdict_record(item: Item) -> tuple[int, int]:
    """A verdict record's response index and the version its commit was over."""
    _, response, version = item["sk"]["S"].split("#")
    return int(response), int(version)


def merged_verdicts(records: Sequence[Item]) -> dict[str, Verdict]:
    """The verdicts of one response's records, the later commit's replacing the earlier's, by call id."""
    dumped: dict[str, str] = {}
    for item in sorted(records, key=verdict_record):
        dumped |= di.unpacked(item)
    return {call_id: load_verdict(dumped[call_id]) for call_id in sorted(dumped)}


def item_kind(item: Item) -> str:
    """`U` for a unit item, `R` for a revision item, `K` for a correction item (`U#<file>#…`)."""
    parts = item["sk"]["S"].split("#")
    return parts[2] if len(parts) > 3 else "U"


def unit_writes(file_id: str, items: Sequence[Item]) -> list[UnitWrite]:
    """The unit writes of a file's `U#` items as a Query returns them (unit items, then revisions by version)."""
    return [
        unit_of(file_id, u, item["writtenAt"]["S"])
        for item in items
        if item_kind(item) != "K"
        for u in di.unpacked(item)
    ]


def unit_rows(units: Sequence[UnitWrite]) -> list[list[Any]]:
    """Units as packed rows: the place, text, call, status and origin, then the estimate, the auto mark,
    the person, the review stage and the sample mark, each only up to the last that is set (verbatim
    units have none of them, an owner's own units no person, a session reviewed once no stage)."""
    rows: list[list[Any]] = []
    for u in units:
        row: list[Any] = [u.start, u.end, u.cover_end, u.text, u.call_id, u.status, u.origin]
        marks: list[Any] = [u.estimate, int(u.auto), u.by, u.stage, int(u.sampled)]
        while marks and marks[-1] == _UNMARKED[len(marks) - 1]:
            marks.pop()
        rows.append(row + marks)
    return rows


_UNMARKED: tuple[Any, ...] = (None, 0, None, None, 0)
"""A packed row's optional fields when not set: estimate, auto, person, stage, sample."""


def unit_of(file_id: str, u: list[Any], at: str) -> UnitWrite:
    start, end, cover_end, written, call_id, status, origin, *rest = u
    fields = {"start": start, "end": end, "cover_end": cover_end, "text": written, "call_id": call_id}
    estimate = rest[0] if rest else None
    auto = len(rest) > 1 and bool(rest[1])
    by = rest[2] if len(rest) > 2 else None
    stage = rest[3] if len(rest) > 3 else None
    sampled = len(rest) > 4 and bool(rest[4])
    return UnitWrite(
        file_id=file_id,
        status=status,
        origin=origin,
        updated_at=at,
        estimate=estimate,
        auto=auto,
        by=by,
        stage=stage,
        sampled=sampled,
        **fields,
    )
