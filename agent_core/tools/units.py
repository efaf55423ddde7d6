"""A Translate call that carries many units, read as one Translate call a unit.

A model proposes a screen's units in one call, `{"file_id": "f1", "units": {"s12 s13": "…", "s14":
"…"}}`: each unit's segment ids and its translation, so the framing a unit costs in its output is a
few tokens, not a call's (a list of objects, `[{"segments": "s12 s13", "translation": "…"}, …]`, is
read the same).
The response is stored with that call replaced by one Translate call per unit, in order, each named
`<call id>-u<k>` (k from 1): every unit is then checked, reviewed (its own copilot request and card)
and answered like a call of its own, and a unit that breaks a rule is refused alone while the others
reach the reviewer. A listed unit may name its own `file_id`; without one it is the call's. A call
whose `units` is neither, or is empty, stays as it came and is refused with a reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelResponse, ModelResponsePart, ToolCallPart

UNIT_ID = "-u"
"""What joins a multi-unit call's id and a unit's number in the id of the unit's own call."""
UNIT_KEYS = frozenset({"segments", "translation", "translate_string", "src_string", "file_id", "rating"})
"""The names of a unit's arguments: an object of units that holds one is a unit sent without its list."""


def unit_calls(part: ToolCallPart) -> list[ToolCallPart] | None:
    """The Translate calls of a multi-unit call's units, in order; None for any other call (one
    unit, another tool, arguments that are not JSON, or `units` that holds no unit)."""
    if part.tool_name != "Translate":
        return None
    try:
        args = part.args_as_dict()
    except ValueError:
        return None
    units = listed_units(args.get("units"))
    if not units:
        return None
    shared = {k: v for k, v in args.items() if k == "file_id"}
    return [
        ToolCallPart("Translate", _unit_args(shared, unit), tool_call_id=f"{part.tool_call_id}{UNIT_ID}{k}")
        for k, unit in enumerate(units, start=1)
    ]


def listed_units(units: object) -> list[object] | None:
    """A call's `units` as a list, each unit as a one-unit call's arguments would name it: an object
    of translations by segment ids read in the order it came in; None when it is neither an object
    nor a list, or is one unit's arguments (`{"segments": …, "translation": …}`), which a list holds."""
    if isinstance(units, dict):
        if UNIT_KEYS & units.keys():
            return None
        return [{"segments": names, "translation": text} for names, text in units.items()]
    return units if isinstance(units, list) else None


def _unit_args(shared: dict[str, Any], unit: object) -> dict[str, Any]:
    """One unit's arguments as a one-unit call gives them (`translation` is `translate_string`); a
    unit that is not an object keeps only the call's file, which Translate refuses with a reason."""
    if not isinstance(unit, dict):
        return {**shared, "unit": unit}
    args = {**shared, **unit}
    if "translation" in args and "translate_string" not in args:
        args["translate_string"] = args.pop("translation")
    return args


def with_unit_calls(response: ModelResponse) -> ModelResponse:
    """The response with each multi-unit Translate call replaced by its units' calls (see the module)."""
    parts: list[ModelResponsePart] = []
    changed = False
    for part in response.parts:
        calls = unit_calls(part) if isinstance(part, ToolCallPart) else None
        if calls is None:
            parts.append(part)
        else:
            parts.extend(calls)
            changed = True
    return replace(response, parts=parts) if changed else response
