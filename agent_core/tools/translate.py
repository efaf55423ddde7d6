"""Translate: one reviewed unit of a file, one segment or several consecutive ones, never skipping or
repeating text.

A unit names the segments it covers by id (the ids the state note marks); the model never copies the
source. Rules, each checked here and answered to the model at once (`status: "reject"`, with a reason
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

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_ai.tools import ToolDefinition

from ..ahead import untranslated_segments
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
from ..document import FileState, add_span, first_gap
from ..effects import Correction, UnitWrite
from ..segment import SegmentContext, segment_id, segment_index, segment_names
from ..tm import TmMatch
from .base import (
    APPROVED,
    LINE_BREAK_NOTE,
    MAX_UNIT_CHARS,
    BatchState,
    ToolCall,
    ToolOutcome,
    ToolResult,
    codes_refusal,
    file_list,
    is_memory_call,
    snippet,
)
from .card import auto_approvable, forbidden_refusal, with_findings
from .entries import entry_proposal

DESCRIPTION = f"""\
Propose the translation of the next unit of a file; a person reviews every unit.

- A unit is one segment, or several consecutive ones of a paragraph joined, at most {MAX_UNIT_CHARS} characters
  together: `segments` names them by the ids the next text marks (⟦s12⟧ begins segment "s12"), in
  order. The first is the next untranslated segment (in one response, the one after the previous
  unit's last); never skip one, never name one twice.
- `translate_string` is your translation of exactly those segments (without the ⟦…⟧ marks),
  keeping their Markdown, code, URLs and placeholders. Do not send the source.
- Only for text you read with `Read` (it has no ids): give `src_string` instead of `segments`, copied
  exactly from the file, beginning at the first untranslated character.
- A string of a resource file may have locked codes (placeholders such as `%1$s`, `{{name}}`, `{{{{n}}}}`,
  tags): keep every one exactly, as often as the source has it.
- A plural entry (its note says `plural`) is a unit of its own: `translate_string` is a JSON object
  with one form for each plural category the note names, e.g. {{"one": "…", "other": "…"}}.
- The result is the reviewed text: `approve` (as proposed) or `refined` (`translated_string` is the
  final text) means the unit is written; `reject` means it was not: translate that unit again,
  following `reason`."""


class TranslateArgs(BaseModel):
    """Arguments of Translate."""

    model_config = ConfigDict(extra="ignore")
    file_id: str = Field(description="The file being translated: its handle (f1, f2, …) or id.")
    segments: list[str] | None = Field(
        default=None, description='The ids of the consecutive segments the unit covers, in order: ["s12", "s13"].'
    )
    translate_string: str | dict[str, str] = Field(
        description="Your translation of those segments (for a plural entry, an object of forms by category)."
    )
    src_string: str | None = Field(
        default=None, description="Only for text without segment ids (a Read result): the source, copied exactly."
    )
    rating: int | None = Field(default=None, description="Optional: your confidence in it, 0-100.")

    @field_validator("rating", mode="before")
    @classmethod
    def _rating(cls, value: Any) -> Any:
        """A rating is a hint: one that is not a number is dropped, one outside 0–100 is clamped."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
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


def _reject(reason: str) -> ToolResult:
    """A unit the tool's own checks refused: it never reached the reviewer, and the reason says so."""
    return ToolResult(content={"status": "reject", "reason": f"Not reviewed: {reason}"})


class TranslateTool:
    """Checks a proposed unit, asks the human, and writes what the human approved."""

    @property
    def definition(self) -> ToolDefinition:
        """Translate's definition for the model."""
        return ToolDefinition(
            name="Translate",
            description=DESCRIPTION,
            parameters_json_schema=TranslateArgs.model_json_schema(),
        )

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Validate the unit; answer a copilot request, or the result once reviewed."""
        try:
            args = TranslateArgs.model_validate(call.args)
        except ValidationError as exc:
            fields = ", ".join(str(e["loc"][0]) for e in exc.errors() if e["loc"])
            return _reject(f"Invalid arguments ({fields}): give file_id, segments and translate_string.")
        located = await _locate(call, args)
        if isinstance(located, ToolResult):
            return located
        proposal = entry_proposal(
            located.contexts, args.translate_string, call.batch.target_language, source=located.source
        )
        if isinstance(proposal, str):
            return _reject(proposal)
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
            match=100 if from_memory else None,
            context=EntryContext(key=first.key, note=first.note, refs=first.refs) if first else None,
            plural=plural,
        )
        request = with_findings(request, call.batch, rating=args.rating)
        if response is None:
            if plural is not None:
                return request  # the forms were checked above (categories, locked codes)
            if refusal := forbidden_refusal(request):
                return _reject(refusal)
            if auto_approvable(request, call.batch):
                approved = _result(
                    request, Approve(tool=request.tool, status="approve"), end=located.end, cover_end=located.cover_end
                )
                units = [replace(u, auto=True) for u in approved.units]
                return replace(approved, units=units, reviewed=False)
            return request
        return _result(request, response, end=located.end, cover_end=located.cover_end)


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


class _Located(BaseModel):
    """Where a valid unit lies: its file, source span, segments and the coverage it adds."""

    file_id: str
    start: int
    end: int
    cover_end: int
    source: str
    segments: tuple[str, ...]
    contexts: tuple[SegmentContext, ...] = ()
    """The context of each segment the unit covers, in a resource file (else none)."""


async def _locate(call: ToolCall, args: TranslateArgs) -> _Located | ToolResult:
    """The unit's place in its file, or the rejection the model is told."""
    batch = call.batch
    state = batch.find(args.file_id)
    if state is None:
        return _reject(f"Unknown file {args.file_id!r}. {file_list(batch.files)}")
    if isinstance(args.translate_string, str) and not args.translate_string.strip():
        return _reject("translate_string is empty: give your translation of the segments.")
    covered = batch.covered(state.file_id)
    gap = first_gap(covered, state.chars)
    if gap is None:
        return _reject(f"{state.name} is already completely translated; there is nothing left.")
    start, gap_end = gap
    at = await batch.reader.segments(state.file_id, start, start + 1)
    next_id = at[0].id if at else None

    async def where() -> str:  # where the text goes on, for a rejection (a unit that fits never needs it)
        ahead = snippet(await batch.reader.read_text(state.file_id, start, min(gap_end, start + 120)))
        named = f"segment {next_id}, " if next_id else ""
        return f"The next untranslated text of {state.name} is {named}at character {start}: «{ahead}»."

    if args.segments:
        end = await _segments_end(batch, state, args.segments, start, where)
        if isinstance(end, ToolResult):
            return end
        # The untranslated text may begin with whitespace, and a segment cut by a unit written from its
        # middle may end in it: the unit holds neither.
        raw = await batch.reader.read_text(state.file_id, start, end)
        source, end = raw.strip(), start + len(raw.rstrip())
        lead = len(raw) - len(raw.lstrip())
        if args.src_string is not None and args.src_string.strip() != source:
            hint = _mismatch_hint(source, args.src_string.strip(), _common_prefix(source, args.src_string.strip()))
            return _reject(
                f"src_string is not the source of segments {', '.join(args.segments)}. {hint}{await where()}"
            )
    elif args.src_string is not None and args.src_string.strip():
        source = args.src_string.strip()
        if len(source) > MAX_UNIT_CHARS:
            return _reject(
                f"src_string has {len(source)} characters; a unit has at most {MAX_UNIT_CHARS}. "
                f"Split it at a sentence or line end. {await where()} {LINE_BREAK_NOTE}"
            )
        actual = await batch.reader.read_text(state.file_id, start, start + len(source))
        if actual != source:
            hint = _mismatch_hint(actual, source, _common_prefix(actual, source))
            return _reject(
                f"src_string does not begin at the next untranslated text. {hint}{await where()} {LINE_BREAK_NOTE}"
            )
        end, lead = start + len(source), 0
    else:
        return _reject(f"Name the unit's segments: give segments, their ids. {await where()}")
    if state.name.lower().endswith((".xlf", ".xliff")) and "\n\n" in source:
        # An XLIFF file's segments are joined by a blank line: a unit lies inside one segment.
        return _reject(
            "In an XLIFF file a unit is one segment (segments are separated by a blank line); "
            f"end the unit before character {start + source.index(chr(10) * 2)}. {await where()}"
        )
    if isinstance(args.translate_string, str) and (refusal := codes_refusal(state, source, args.translate_string)):
        return _reject(refusal)
    if end > gap_end:
        tail = await batch.reader.read_text(state.file_id, gap_end, gap_end + 60)
        return _reject(
            f"The unit runs into text that is already translated, from character {gap_end} "
            f"(«{snippet(tail, 40)}»). End the unit before it. {await where()}"
        )
    cover_end = await _whitespace_end(call, state.file_id, end, gap_end)
    batch.coverage[state.file_id] = add_span(covered, start, cover_end)
    first = start + lead
    covered_segments = await batch.reader.segments(state.file_id, first, end)
    ids = tuple(s.id for s in covered_segments)
    contexts = tuple(s.context for s in covered_segments if s.context is not None)
    return _Located(
        file_id=state.file_id,
        start=first,
        end=end,
        cover_end=cover_end,
        source=source,
        segments=ids,
        contexts=contexts,
    )


async def _segments_end(
    batch: BatchState, state: FileState, names: list[str], start: int, where: Any
) -> int | ToolResult:
    """Where the unit the segment ids name ends, or the rejection: the first must be the segment the
    untranslated text begins in, the others the ones after it, within the unit cap."""
    indexes = [segment_index(name) for name in names]
    if None in indexes:
        unknown = names[indexes.index(None)]
        return _reject(
            f"{unknown!r} is not a segment id: ids are s1, s2, … as the next text marks them (⟦s12⟧). {await where()}"
        )
    wanted = [i for i in indexes if i is not None]
    for a, b in pairwise(wanted):
        if b != a + 1:
            return _reject(
                f"The segments of a unit are consecutive: {segment_id(a)} is followed by {segment_id(a + 1)}, "
                f"not {segment_id(b)}. {await where()}"
            )
    gap_end = first_gap(batch.covered(state.file_id), state.chars)
    limit = gap_end[1] if gap_end else state.chars
    found = {
        s.index: s
        for s in await untranslated_segments(batch.reader, state.file_id, start, start + MAX_UNIT_CHARS + 1, limit)
    }
    first = min(found) if found else None
    if first is None:
        return _reject(f"{state.name} has no segment there; give src_string. {await where()}")
    if wanted[0] != first:
        done = "is translated already" if wanted[0] < first else f"would skip {segment_id(first)}"
        return _reject(
            f"A unit begins at the next untranslated segment; {segment_id(wanted[0])} {done}. {await where()}"
        )
    # A locked segment is written at upload; one still untranslated (the upload kept nothing verbatim)
    # is translated as any other.
    if len(wanted) == 1 and found[first].end - start > MAX_UNIT_CHARS:
        return _reject(
            f"Segment {segment_id(first)} has {found[first].end - start} characters, more than a unit holds: give "
            f"its first part as src_string (at most {MAX_UNIT_CHARS} characters, ending at a line end). {await where()}"
        )
    end = found[wanted[-1]].end if wanted[-1] in found else start + MAX_UNIT_CHARS + 1
    if end - start > MAX_UNIT_CHARS:
        return _reject(
            f"Joined, segments {segment_id(wanted[0])} to {segment_id(wanted[-1])} have more than {MAX_UNIT_CHARS} "
            f"characters; a unit has at most {MAX_UNIT_CHARS}: name fewer. {await where()}"
        )
    return end


async def _whitespace_end(call: ToolCall, file_id: str, end: int, limit: int) -> int:
    """`end` moved past the whitespace that follows it, but not beyond `limit`."""
    position = end
    while position < limit:
        text = await call.batch.reader.read_text(file_id, position, min(limit, position + 256))
        stripped = len(text) - len(text.lstrip())
        position += stripped
        if stripped < len(text) or not text:
            break
    return min(position, limit)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _mismatch_hint(actual: str, src: str, common: int) -> str:
    if common == 0:
        return "Its first characters differ from the source there. "
    return (
        f"The first {common} characters match, then the source has «{snippet(actual[common : common + 20], 30)}» "
        f"where src_string has «{snippet(src[common : common + 20], 30)}» (check spaces and line breaks). "
    )


def _approved(final: str, proposal: str, reason: str | None, origin: str) -> str | dict[str, str]:
    content = {"status": "approve"}
    if origin == "memory":
        content["origin"] = "memory"  # the history says who proposed it (the model is not sent these)
    if final != proposal:
        content["translated_string"] = final
    if reason:
        content["reason"] = reason
    return APPROVED if content == {"status": "approve"} else content


def _result(
    request: CopilotRequest,
    response: Verdict,
    *,
    end: int,
    cover_end: int,
) -> ToolResult:
    """The reviewed unit: the model's answer, the unit to write, the correction to remember."""
    call_id = request.tool.call_id

    def write(text: str, status: Literal["approve", "refined"]) -> UnitWrite:
        return UnitWrite(
            file_id=request.file_id,
            start=request.start,
            end=end,
            cover_end=cover_end,
            text=text,
            call_id=call_id,
            status=status,
            origin=request.origin,
            estimate=request.estimate,
        )

    match response:
        case Approve():
            final = response.translated_string or request.proposal_text
            return ToolResult(
                # Approved as proposed: the call's own translate_string is the final text, not repeated.
                content=_approved(final, request.proposal_text, response.reason, request.origin),
                units=[write(final, "approve")],
                reviewed=True,
            )
        case Refined():
            final = response.translated_string
            correction = Correction(
                file_id=request.file_id,
                status="refined",
                source=request.src_string,
                proposal=request.proposal_text,
                final=final,
                reason=response.reason,
                start=request.start,
                issue=response.issue,
            )
            return ToolResult(
                content={
                    "translated_string": final,
                    "status": "refined",
                    "reason": response.reason,
                    "origin": request.origin,
                },
                units=[write(final, "refined")],
                corrections=[correction],
                reviewed=True,
            )
        case Reject():
            correction = Correction(
                file_id=request.file_id,
                status="reject",
                source=request.src_string,
                proposal=request.proposal_text,
                final=None,
                reason=response.reason,
                start=request.start,
                issue=response.issue,
            )
            reason = response.reason or "The reviewer rejected this translation."
            return ToolResult(
                content={"translated_string": "", "status": "reject", "reason": reason},
                corrections=[correction],
                reviewed=True,
            )
        case _:
            assert_never(response)
