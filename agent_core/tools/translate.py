"""Translate: reviewed units of a file, each one segment or several consecutive ones, never skipping or
repeating text.

The model sends a screen's units in one call (`units`); the loop stores that call as one call a unit
(`tools.units`), so what follows is about one unit's call, which is also what a model that sends a
call a unit sends.
A unit names the segments it covers by id (the ids the state note marks); the model never copies the
source. Rules, each checked before any human sees the unit (its position: `tools.position`; its
glossary and codes: `tools.card`) and answered to the model at once (`status: "reject"`, with a reason
that says where the next untranslated text begins), so a faulty unit never reaches the human: the
file exists; the first segment is the next untranslated one (in one response, the one right after
the previous unit); the segments are consecutive; joined, they are at most 300
characters; they do not run into text already translated; `src_string`, when the model sends it, is
their source exactly. A unit of text that has no ids in view (a Read result) may give `src_string`
alone: it must then begin at the first untranslated character and match the source there; it must
not use a translation the reviewer's glossary forbids for a term of its source. A valid unit answers
a copilot request first (with the warnings of `agent_core.qa`, which the reviewer weighs, its
glossary hits and its quality estimate: `tools.card`), and its result once the human's verdict is
given; when the session's routing approves it (`autoApprove`: the estimate reaches the threshold and
QA found nothing), its result at once, the unit written as approved and marked `auto`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, Literal, assert_never

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator
from pydantic_ai.tools import ToolDefinition

from ..copilot import (
    Approve,
    CopilotRequest,
    EntryContext,
    Reference,
    Refined,
    Reject,
    ToolRef,
    Verdict,
)
from ..effects import Correction, UnitWrite
from ..segment import segment_names
from ..tm import TmMatch, string_key
from .base import (
    APPROVED,
    MAX_UNIT_CHARS,
    ToolCall,
    ToolOutcome,
    ToolResult,
    is_memory_call,
    memory_match,
    parse_args,
    refuse,
)
from .card import auto_approvable, forbidden_refusal, sampled, with_findings
from .entries import entry_proposal, unit_codes
from .position import Located, locate

DESCRIPTION = f"""\
Propose translations of the next units of a file, in order; a person reviews each.

- `units`: the screen's units in order, from its first untranslated segment on, each right after the
  previous: {{"s12 s13": "…", "s14": "…"}}. A unit is one segment or several consecutive ones of a
  paragraph, at most {MAX_UNIT_CHARS} characters joined. Its key names them by the ids the screen
  marks (【s12】 begins s12); its value translates exactly them, without the marks or a string's
  context line ⟪…⟫. Never send the source.
- Text read with `Read` has no ids: send a call a unit, its `src_string` copied exactly from `start`
  on and its `translation`.
- Keep a string's locked codes exactly. A plural entry is a unit of its own: its value is an object
  with a form for each category its line names ({{"one": "…", "other": "…"}})."""

_TRANSLATION = {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": {"type": "string"}}]}
SCHEMA = {
    "type": "object",
    "properties": {
        "file_id": {"type": "string"},
        "units": {"type": "object", "additionalProperties": _TRANSLATION},
        "src_string": {"type": "string"},
        "translation": {"type": "string"},
    },
    "required": ["file_id"],
}
"""What the model sees of Translate's arguments: a file and its units by segment ids
(`agent_core.tools.units`), or one unit given by its source; the shape written out small. A unit
given at the top level by `segments` and `translate_string`, and `units` as a list of objects
(`{"segments": …, "translation": …}`), are read too."""


class TranslateArgs(BaseModel):
    """Arguments of one unit's Translate call (a multi-unit call's units arrive as calls of their own)."""

    model_config = ConfigDict(extra="ignore")
    file_id: str = Field(description="The file being translated: its handle (f1, f2, …) or id.")
    segments: list[str] | None = Field(
        default=None, description='The ids of the consecutive segments the unit covers, in order: ["s12", "s13"].'
    )
    translate_string: str | dict[str, str] = Field(
        validation_alias=AliasChoices("translate_string", "translation"),
        description="Your translation of those segments (for a plural entry, an object of forms by category).",
    )
    src_string: str | None = Field(
        default=None, description="Only for text without segment ids (a Read result): the source, copied exactly."
    )
    rating: int | None = Field(default=None, description="Optional: your confidence in it, 0-100.")

    @field_validator("rating", mode="before")
    @classmethod
    def _rating(cls, value: Any) -> Any:
        """A rating is a hint: one that is not a number is dropped, one outside 0–100 is clamped; one that
        is not finite (`1e400`, NaN) breaks the rules like any bad argument."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not math.isfinite(value):
            raise ValueError("rating must be a finite number from 0 to 100")
        return max(0, min(100, round(value)))

    @field_validator("segments", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        """Ids given as one string ("s3, s4") or as numbers are ids too."""
        if isinstance(value, str):
            return segment_names(value)
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) else v for v in value]
        return value


UNITS_REFUSAL = (
    "Invalid arguments (units): give file_id and units, an object of translations by segment ids such as "
    '{"s12 s13": "…", "s14": "…"}.'
)


class TranslateTool:
    """Checks a proposed unit, asks the human, and writes what the human approved."""

    @property
    def definition(self) -> ToolDefinition:
        """Translate's definition for the model."""
        return ToolDefinition(
            name="Translate",
            description=DESCRIPTION,
            parameters_json_schema=SCHEMA,
        )

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Validate the unit; answer a copilot request, or the result once reviewed."""
        if "units" in call.args:  # a multi-unit call whose units could not be read as calls of their own
            return refuse(UNITS_REFUSAL)
        args = parse_args(TranslateArgs, call, 'file_id and units, translations by segment ids: {"s12 s13": "…"}')
        if isinstance(args, ToolResult):
            return args
        located = await locate(call.batch, args)
        if isinstance(located, ToolResult):
            return located
        request = _card(call, args, located)
        if isinstance(request, ToolResult):
            return request
        if auto_approvable(request, call.batch) and sampled(request, call.batch):
            request = request.model_copy(update={"sampled": True})  # to a person, so the rule is measured
        if response is not None:
            return _result(request, response, located)
        if request.plural is not None and not call.batch.routing.pretranslate:
            return request  # the forms were checked with the card (categories, locked codes)
        if request.plural is None and (refusal := forbidden_refusal(request)):
            return refuse(refusal)
        if auto_approvable(request, call.batch) and not request.sampled:  # the routing approves it: unreviewed
            approved = _result(request, Approve(tool=request.tool, status="approve"), located)
            return replace(approved, units=[replace(u, auto=True) for u in approved.units], reviewed=False)
        return request


def _card(call: ToolCall, args: TranslateArgs, located: Located) -> CopilotRequest | ToolResult:
    """The copilot request the reviewer sees: the unit's source and proposal (a plural entry's forms
    checked against its categories), its entry's context, QA warnings, glossary hits and estimate."""
    proposal = entry_proposal(
        located.contexts, args.translate_string, call.batch.target_language, source=located.source
    )
    if isinstance(proposal, str):
        return refuse(proposal)
    text, plural = proposal
    from_memory = is_memory_call(call.call_id)
    first = located.contexts[0] if located.contexts else None
    request = CopilotRequest(
        tool=ToolRef(name=call.name, call_id=call.call_id),
        file_id=located.file_id,
        src_string=located.source,
        translate_string=text,
        start=located.start,
        end=located.end,
        segments=located.segments,
        origin="memory" if from_memory else "model",
        match=memory_match(call.call_id),
        context=(
            EntryContext(
                key=first.key,
                note=first.note,
                refs=first.refs,
                codes=tuple(dict.fromkeys(unit_codes(located.contexts, located.source))),
                flags=first.flags,
            )
            if first
            else None
        ),
        plural=plural,
    )
    return with_findings(request, call.batch, rating=args.rating, key=string_key(located.contexts))


async def with_references(
    request: CopilotRequest, lookup: Callable[[str], Awaitable[Sequence[TmMatch]]]
) -> CopilotRequest:
    """The model's proposal with the similar sources of the owner's translation memory on its card
    (`lookup`: a source's matches, best first); a proposal from memory needs none."""
    if request.origin != "model" or request.tool.name != "Translate":
        return request
    found: list[TmMatch] = list(await lookup(request.src_string))
    references = tuple(
        Reference(score=round(m.score), source=m.entry.source, target=m.entry.target, diff=_diff(m)) for m in found
    )
    return request.model_copy(update={"references": references})


def _diff(match: TmMatch) -> tuple[tuple[Literal["equal", "delete", "insert"], str], ...]:
    return tuple((part.op, part.text) for part in match.diff)


def _approved(final: str, proposal: str, reason: str | None, origin: str) -> str | dict[str, str]:
    content = {"status": "approve"}
    if origin == "memory":
        content["origin"] = "memory"  # the history says who proposed it (the model is not sent these)
    if final != proposal:
        content["translated_string"] = final
    if reason:
        content["reason"] = reason
    return APPROVED if content == {"status": "approve"} else content


def _result(request: CopilotRequest, response: Verdict, located: Located) -> ToolResult:
    """The reviewed unit: the model's answer, the unit to write, the correction to remember."""
    match response:
        case Approve():
            final = response.translated_string or request.proposal_text
            return ToolResult(
                # Approved as proposed: the call's own translate_string is the final text, not repeated.
                content=_approved(final, request.proposal_text, response.reason, request.origin),
                units=[_unit(request, located, final, "approve", response.by)],
                reviewed=True,
            )
        case Refined():
            final = response.translated_string
            content = {"translated_string": final, "status": "refined", "reason": response.reason}
            return ToolResult(
                content={**content, "origin": request.origin},
                units=[_unit(request, located, final, "refined", response.by)],
                corrections=[_correction(request, response, final)],
                reviewed=True,
            )
        case Reject():
            reason = response.reason or "The reviewer rejected this translation."
            return ToolResult(
                content={"translated_string": "", "status": "reject", "reason": reason},
                corrections=[_correction(request, response, None)],
                reviewed=True,
            )
        case _:
            assert_never(response)


def _unit(
    request: CopilotRequest, located: Located, text: str, status: Literal["approve", "refined"], by: str | None
) -> UnitWrite:
    """The unit written with the reviewed text (its coverage runs on over the whitespace after it), by the
    verdict's person."""
    return UnitWrite(
        file_id=request.file_id,
        start=request.start,
        end=located.end,
        cover_end=located.cover_end,
        text=text,
        call_id=request.tool.call_id,
        status=status,
        origin=request.origin,
        estimate=request.estimate,
        by=by,
        sampled=request.sampled,
    )


def _correction(request: CopilotRequest, response: Refined | Reject, final: str | None) -> Correction:
    """The reviewer's edit (`final`) or rejection (None), for the owner's memory."""
    return Correction(
        file_id=request.file_id,
        status="refined" if final is not None else "reject",
        source=request.src_string,
        proposal=request.proposal_text,
        final=final,
        reason=response.reason,
        start=request.start,
        issue=response.issue,
        by=response.by,
    )
