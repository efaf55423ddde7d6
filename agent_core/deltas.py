"""What a streamed model response shows while it forms: its text so far and the Translate proposals forming.

Nothing here is ever committed: the step commits only the complete response. A delta carries the
whole text (or the whole proposal) so far, so a client that misses one loses nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

from pydantic import BaseModel, ConfigDict
from pydantic_ai.messages import ModelResponsePart, TextPart, ToolCallPart
from pydantic_core import from_json

from .tools.units import UNIT_ID, listed_units

MIN_INTERVAL = 0.05
"""Deltas are sent at most this often (20 a second): a fast model must not flood a slow client."""


class Proposal(BaseModel):
    """A Translate call as far as its arguments have arrived."""

    model_config = ConfigDict(frozen=True)

    callId: str
    src_string: str = ""
    translate_string: str = ""


class Delta(BaseModel):
    """One `event: delta` of a streamed step: `{"text": …}` or `{"proposal": {…}}`."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    proposal: Proposal | None = None

    def to_json(self) -> str:
        """The event's data: only the field this delta carries."""
        return self.model_dump_json(exclude_none=True)


DeltaSink = Callable[[Delta], Awaitable[None]]
"""Where a streamed step sends its deltas (it must not raise: the model's answer does not wait for it)."""


class DeltaTracker:
    """Turns the parts of a response so far into the deltas that changed since the last ones sent."""

    def __init__(self, *, interval: float = MIN_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._last_sent = float("-inf")
        self._text = ""
        self._proposals: dict[str, Proposal] = {}

    def due(self) -> bool:
        """Whether enough time has passed since the last deltas to send more."""
        return self._clock() - self._last_sent >= self._interval

    def changes(self, parts: Sequence[ModelResponsePart]) -> list[Delta]:
        """The deltas for what changed in `parts` (the response so far); remembers them as sent."""
        self._last_sent = self._clock()
        deltas: list[Delta] = []
        text = "".join(p.content for p in parts if isinstance(p, TextPart))
        if text != self._text:
            self._text = text
            deltas.append(Delta(text=text))
        for proposal in _proposals(parts):
            if proposal != self._proposals.get(proposal.callId):
                self._proposals[proposal.callId] = proposal
                deltas.append(Delta(proposal=proposal))
        return deltas


def _proposals(parts: Sequence[ModelResponsePart]) -> list[Proposal]:
    """The Translate calls with any of their text yet, by the ids the committed response will give them
    (a multi-unit call's units each by its own call's id, `agent_core.tools.units`)."""
    seen: set[str] = set()
    found: list[Proposal] = []
    for part in parts:
        if not isinstance(part, ToolCallPart):
            continue
        call_id = unique_id(part.tool_call_id, seen)  # the same renaming as the committed response's
        if part.tool_name != "Translate":
            continue
        args = _partial_args(part.args if isinstance(part.args, str) else part.args_as_json_str())
        units = listed_units(args.get("units"))
        if units is not None:  # a multi-unit call: a proposal a unit, named as the loop names its call
            named = [(f"{call_id}{UNIT_ID}{k}", u) for k, u in enumerate(units, start=1) if isinstance(u, dict)]
        else:
            named = [(call_id, args)]
        for unit_id, unit in named:
            src, text = unit.get("src_string"), unit.get("translate_string", unit.get("translation"))
            proposal = Proposal(
                callId=unit_id,
                src_string=src if isinstance(src, str) else "",
                translate_string=text if isinstance(text, str) else "",
            )
            if proposal.src_string or proposal.translate_string:
                found.append(proposal)
    return found


def unique_id(call_id: str, seen: set[str]) -> str:
    """`call_id`, or `call_id~N` when an earlier call of the response has it; adds it to `seen`."""
    unique, n = call_id, 1
    while unique in seen:
        n += 1
        unique = f"{call_id}~{n}"
    seen.add(unique)
    return unique


def _partial_args(args: str) -> dict[str, object]:
    """The arguments so far: a partial JSON object read as far as it goes (an unfinished string too)."""
    if not args:
        return {}
    try:
        value = from_json(args, allow_partial="trailing-strings")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
