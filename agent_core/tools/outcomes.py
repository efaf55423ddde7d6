"""What became of the units of the model's latest answer, for the state note.

The model is not sent its decided Translate calls again (`agent_core.context`): when any of the
latest answer's units was edited or not written, the note says, in a few lines, for each such
unit, its segments and what happened (the reviewer's change, or the
reason it must be translated again); an answer written as proposed needs no line (the progress says
so). A unit that was not written is the start of the next screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ..memory import changed_part
from .base import NOT_REVIEWED, is_memory_call, result_status, snippet

MAX_LINES = 12
"""The most units the section names one by one (the rest are counted)."""


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The latest answer's units: the note's section ("" when there is nothing to say) and the texts
    it shows (each edited unit's final text, each rejected proposal), which the note's list of the
    reviewer's recent corrections leaves out."""

    section: str = ""
    shown: frozenset[str] = frozenset()


def latest_outcomes(messages: Sequence[ModelMessage]) -> Outcomes:
    """The outcomes of the Translate calls of the latest response the model made (not the
    translation memory's) whose returns the history holds; none when that response proposed nothing
    (a text answer: the batch before it was told already)."""
    response = next((m for m in reversed(messages) if isinstance(m, ModelResponse) and not _memory_only(m)), None)
    if response is None or not _model_calls(response):
        return Outcomes()
    returns = {
        p.tool_call_id: p
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "Translate"
    }
    lines: list[tuple[str, str | None]] = []  # each line, and the text it shows
    failed = False
    for call in _model_calls(response):
        part = returns.get(call.tool_call_id)
        if part is None or part.outcome == "failed":  # a call that failed stays in the window, with its return
            failed = True
            continue
        status = result_status(part.content)
        if status == "approve" and not (isinstance(part.content, dict) and "translated_string" in part.content):
            continue
        args = _args(call)
        name = _named(args)
        proposal = args.get("translate_string", args.get("translation"))
        if status in ("approve", "refined") and isinstance(part.content, dict):
            final = str(part.content.get("translated_string", ""))
            old, new = changed_part(proposal, final) if isinstance(proposal, str) else ("", final)
            lines.append((f"- {name}: edited, «{snippet(old, 160)}» → «{snippet(new, 160)}»", final))
        else:
            lines.append((f"- {name}: {_reason(part)}", proposal if isinstance(proposal, str) else None))
    if not lines:  # all written as proposed: the progress says so
        return Outcomes()
    more = len(lines) - MAX_LINES
    listed = [line for line, _ in lines[:MAX_LINES]]
    listed += [f"- and {more} more, edited or not written"] if more > 0 else []
    head = "Your latest answer (its other units were written as proposed):"
    if failed:
        head = "Your latest answer (its other units were written as proposed, but for the calls that failed):"
    shown = frozenset(text for _, text in lines[:MAX_LINES] if text is not None)
    return Outcomes("\n".join([head, *listed]), shown)


def _memory_only(response: ModelResponse) -> bool:
    """True for the translation memory's proposals (every call its own; the model never made them)."""
    calls = response.tool_calls
    return bool(calls) and all(is_memory_call(c.tool_call_id) for c in calls)


def _model_calls(response: ModelResponse) -> list[ToolCallPart]:
    return [c for c in response.tool_calls if c.tool_name == "Translate" and not is_memory_call(c.tool_call_id)]


def _args(call: ToolCallPart) -> dict[str, object]:
    try:
        return call.args_as_dict()
    except ValueError:
        return {}


def _named(args: dict[str, object]) -> str:
    """How the section names a unit: its segment ids, else the start of its source."""
    segments = args.get("segments")
    if isinstance(segments, list) and segments:
        return " ".join(map(str, segments))
    if isinstance(segments, str) and segments.strip():
        return segments.strip()
    source = args.get("src_string")
    return f"«{snippet(source, 40)}»" if isinstance(source, str) else "a unit"


def _reason(part: ToolReturnPart) -> str:
    """Why the unit was not written: the reviewer's reason, or the tool's."""
    content = part.content
    reason = str(content.get("reason") or "") if isinstance(content, dict) else str(content)
    if reason.startswith(NOT_REVIEWED):
        return "refused by the tool: " + reason[len(NOT_REVIEWED) :]
    return f"rejected by the reviewer: {reason.rstrip('. ') or 'no reason given'}. Translate it again."
