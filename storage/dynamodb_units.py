"""DynamoDB items of a session's written units, and a commit's unit writes (for `storage.dynamodb`).

Layout (in the table of `storage.dynamodb`):

    S#<session>#U#<file>#<n:05>  <start:010>   a commit's units in that span of the file (n = start //
                                               UNIT_SPAN): `u`, one JSON object of each unit's fields
                                               by start, keyed like its first unit; or, as releases
                                               before this one wrote them (read and revised the same),
                                               `units`, a map by start of each unit's fields (compact
                                               JSON), or one unit with its fields as attributes

A unit is never written twice: `storage.interface.check_units` refuses a unit inside the coverage
the step loaded, and the commit is conditional on the session's version, so no per-unit condition
is needed. A revision updates its unit in the item that holds it (found by reading the unit's
partition first), all of one item's revisions in one Update, since a transaction touches an item once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

from agent_core.effects import StepEffects, UnitWrite

from .dynamodb_items import Item, n, put, s, to_json, unit_pk, update
from .errors import NotFoundError

# A commit's units item is written once (a replayed commit fails whole).
NEW_ITEM = "attribute_not_exists(sk)"
# A revision replaces a written unit: one that is not written fails the step (NotFoundError).
UNIT_WRITTEN = "attribute_exists(sk)"
# A revision puts a commit's units whole over the units it read (and the commit is conditional on
# the session's version): it never puts back what another commit changed meanwhile.
AS_READ = "u = :read"


def unit_key(session_id: str, file_id: str, start: int) -> Item:
    """The key of the unit written at `start` of the file."""
    return {"pk": s(unit_pk(session_id, file_id, start)), "sk": s(f"{start:010d}")}


def unit_item(session_id: str, u: UnitWrite, now: str) -> Item:
    """A unit as releases before this one wrote it, an item of its own keyed by its start (read and
    revised still; tests build such sessions with it)."""
    return unit_key(session_id, u.file_id, u.start) | {
        "fileId": s(u.file_id),
        "end": n(u.end),
        "coverEnd": n(u.cover_end),
        "text": s(u.text),
        "callId": s(u.call_id),
        "status": s(u.status),
        "origin": s(u.origin),
        "updatedAt": s(now),
    }


def unit_revision(u: UnitWrite, now: str) -> tuple[str, Item]:
    """The update expression and values that replace a written unit's text (its span stays)."""
    values = {":t": s(u.text), ":s": s(u.status), ":o": s(u.origin), ":c": s(u.call_id), ":u": s(now)}
    return "SET #t = :t, #s = :s, #o = :o, #c = :c, #u = :u", values


UNIT_NAMES = {"#t": "text", "#s": "status", "#o": "origin", "#c": "callId", "#u": "updatedAt"}
"""The revised attributes by name (TEXT and STATUS are reserved words in expressions)."""


UNITS_ITEM_BYTES = 300_000
"""The most a commit's units take in one item (DynamoDB's limit is 400 KB; a revision may grow it)."""


_PACKED_UNIT = {
    "e": "end",
    "c": "cover_end",
    "t": "text",
    "i": "call_id",
    "s": "status",
    "o": "origin",
    "u": "updated_at",
}
"""A unit's fields by their short names in a commit's units item (file and start are the item's and its map's)."""


def _fields(u: UnitWrite, now: str) -> dict[str, object]:
    return {short: now if name == "updated_at" else getattr(u, name) for short, name in _PACKED_UNIT.items()}


def _packed_unit(u: UnitWrite, now: str) -> Item:
    return s(to_json(_fields(u, now)))


def units_items(session_id: str, units: Sequence[UnitWrite], now: str) -> list[Item]:
    """A commit's new units as items: one per unit partition (more when they would pass
    UNITS_ITEM_BYTES), keyed like its first unit, holding the units' fields by start in one JSON
    object (`u`: one value to parse, not one a unit)."""
    groups: list[tuple[str, str, str, dict[str, object]]] = []
    size = 0
    for u in sorted(units, key=lambda u: (u.file_id, u.start)):
        pk, fields = unit_pk(session_id, u.file_id, u.start), _fields(u, now)
        grows = len(to_json(fields).encode()) + 20
        if not groups or groups[-1][0] != pk or size + grows > UNITS_ITEM_BYTES:
            groups.append((pk, f"{u.start:010d}", u.file_id, {}))
            size = 200
        groups[-1][3][str(u.start)] = fields
        size += grows
    return [{"pk": s(pk), "sk": s(sk), "fileId": s(f), "u": s(to_json(by_start))} for pk, sk, f, by_start in groups]


def units_item_revision(item: Item, revisions: Sequence[UnitWrite], now: str) -> tuple[Item, int]:
    """The one action that replaces the revised units inside a commit's units `item` (their spans
    stay): the item put whole, on condition that it still holds the units read (`AS_READ`); an update
    of each unit's entry in the map of an item of the previous release, on condition that it holds
    each."""
    stored = {u.start: u for u in unit_writes(item)}
    what = f"The revised unit at {revisions[0].start}"
    if "u" in item:
        by_start = json.loads(item["u"]["S"])
        for r in revisions:
            revised = replace(stored[r.start], text=r.text, status=r.status, origin=r.origin, call_id=r.call_id)
            by_start[str(r.start)] = _fields(revised, now)
        action, size = put(item | {"u": s(to_json(by_start))}, what, AS_READ)
        action["Put"]["ExpressionAttributeValues"] = {":read": item["u"]}
        return action, size
    sets, held, values, names = [], [], {}, {"#units": "units"}
    for k, r in enumerate(revisions):
        revised = replace(stored[r.start], text=r.text, status=r.status, origin=r.origin, call_id=r.call_id)
        sets.append(f"#units.#k{k} = :v{k}")
        held.append(f"attribute_exists(#units.#k{k})")
        values[f":v{k}"], names[f"#k{k}"] = _packed_unit(revised, now), str(r.start)
    key = {"pk": item["pk"], "sk": item["sk"]}
    action, size = update(key, "SET " + ", ".join(sets), values, " AND ".join(held), what)
    action["Update"]["ExpressionAttributeNames"] = names
    return action, size


def unit_writes(i: Item) -> list[UnitWrite]:
    """The units of a unit item: a commit's (one JSON object by start, or a map by start as the
    previous release wrote it), or the one unit of an older release's item."""
    if "u" in i:
        by_start = json.loads(i["u"]["S"])
    elif "units" in i:
        by_start = {start: json.loads(value["S"]) for start, value in i["units"]["M"].items()}
    else:
        return [unit_write(i)]
    file_id = i["fileId"]["S"]
    return [
        UnitWrite(file_id=file_id, start=int(start), **{name: fields[short] for short, name in _PACKED_UNIT.items()})
        for start, fields in by_start.items()
    ]


def unit_write(i: Item) -> UnitWrite:
    """A unit item of the releases that wrote one item per unit."""
    return UnitWrite(
        file_id=i["fileId"]["S"],
        start=int(i["sk"]["S"]),
        end=int(i["end"]["N"]),
        cover_end=int(i["coverEnd"]["N"]),
        text=i["text"]["S"],
        call_id=i["callId"]["S"],
        status=i["status"]["S"],
        origin=i["origin"]["S"] if "origin" in i else "model",
        updated_at=i["updatedAt"]["S"] if "updatedAt" in i else "",
    )


def unit_writes_of(
    session_id: str,
    effects: StepEffects,
    now: str,
    actions: list[tuple[Item, int]],
    stored: Callable[[str], list[Item]],
) -> dict[int, UnitWrite]:
    """Append the step's new units (one item per unit partition, `units_items`) and revisions to
    `actions`; the revisions' positions there. `stored` reads a unit partition's items: a revision
    updates the item that holds its unit (one of a commit's, or of an older release's one per unit).

    A revision of a unit written in the same step is folded into its Put (one action per item).
    """
    written = {(u.file_id, u.start): u for u in effects.units}
    revisions: dict[tuple[str, int], UnitWrite] = {}
    for r in effects.revisions:
        key = (r.file_id, r.start)
        if key in written:
            written[key] = replace(written[key], text=r.text, status=r.status, origin=r.origin, call_id=r.call_id)
        else:
            revisions[key] = r
    for item in units_items(session_id, list(written.values()), now):
        actions.append(put(item, "The step's units", NEW_ITEM))
    positions: dict[int, UnitWrite] = {}
    partitions: dict[str, list[Item]] = {}
    in_items: dict[tuple[str, str], tuple[Item, list[UnitWrite]]] = {}
    for u in revisions.values():
        pk = unit_pk(session_id, u.file_id, u.start)
        if pk not in partitions:
            partitions[pk] = stored(pk)
        holder = next((i for i in partitions[pk] if u.start in {w.start for w in unit_writes(i)}), None)
        if holder is None:
            raise NotFoundError(f"No written unit begins at {u.start} of {u.file_id}.")
        if (
            "u" in holder or "units" in holder
        ):  # revisions of one item are one action (a transaction touches an item once)
            in_items.setdefault((pk, holder["sk"]["S"]), (holder, []))[1].append(u)
            continue
        # a unit an older release wrote as an item of its own
        expression, values = unit_revision(u, now)
        single = unit_key(session_id, u.file_id, u.start)
        action, size = update(single, expression, values, UNIT_WRITTEN, f"The revised unit at {u.start}")
        action["Update"]["ExpressionAttributeNames"] = UNIT_NAMES
        positions[len(actions)] = u
        actions.append((action, size))
    for holder, revised in in_items.values():
        positions[len(actions)] = revised[0]
        actions.append(units_item_revision(holder, revised, now))
    return positions
