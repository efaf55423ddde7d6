"""Translate: one reviewed unit of a file, located by position, never skipping or repeating text.

Rules, each checked here and answered to the model at once (`status: "reject"`, with a reason
that says what the next untranslated text begins with), so a faulty unit never reaches the human:
the file exists; `src_string` is 1 to 300 characters; it begins at the first untranslated
non-whitespace character (in one response, right after the previous unit); it matches the source
exactly there; it does not run into text already translated. A valid unit answers a copilot
request first (with the warnings of `agent_core.qa`, which the reviewer weighs), and its result
once the human's verdict is given.
"""

from __future__ import annotations

from typing import Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_ai.tools import ToolDefinition

from ..copilot import Approve, CopilotRequest, QaFinding, Reference, Refined, Reject, ToolRef, Verdict
from ..document import add_span, first_gap
from ..effects import Correction, UnitWrite
from ..qa import proposal_checks
from ..tm import TmMatch
from .base import (
    APPROVED,
    LINE_BREAK_NOTE,
    MAX_UNIT_CHARS,
    ToolCall,
    ToolOutcome,
    ToolResult,
    codes_refusal,
    file_list,
    is_memory_call,
    snippet,
)

DESCRIPTION = f"""\
Propose the translation of the next unit of a file; a person reviews every unit.

- A unit is one paragraph-sized piece (a heading, a paragraph, a list, a table, a code block) of at
  most {MAX_UNIT_CHARS} characters; split longer blocks at sentence ends. Keep Markdown blocks whole.
- `src_string` begins exactly at the first untranslated character (the next text's `start`) and is
  copied from the file exactly, spaces and line breaks included; each unit of a response begins
  right after the previous one. Never include translated text, never skip text (identical passages
  elsewhere in the file do not matter: the position locates the unit).
- `translate_string` is your best translation of `src_string`, keeping its Markdown, code, URLs and
  placeholders.
- The result is the reviewed text: `approve` (as proposed) or `refined` (`translated_string` is the
  final text) means the unit is written; `reject` means it was not: translate that unit again,
  following `reason`."""


class TranslateArgs(BaseModel):
    """Arguments of Translate."""

    model_config = ConfigDict(extra="ignore")
    file_id: str = Field(description="The file being translated: its handle (f1, f2, …) or id.")
    src_string: str = Field(description="The unit's source text, copied exactly from the file.")
    translate_string: str = Field(description="Your translation of src_string.")


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
            return _reject(f"Invalid arguments ({fields}): give file_id, src_string and translate_string.")
        located = await _locate(call, args)
        if isinstance(located, ToolResult):
            return located
        file_id, start, end, cover_end = located
        src = args.src_string.strip()
        from_memory = is_memory_call(call.call_id)
        request = CopilotRequest(
            tool=ToolRef(name=call.name, call_id=call.call_id),
            file_id=file_id,
            src_string=src,
            translate_string=args.translate_string,
            start=start,
            end=end,
            origin="memory" if from_memory else "model",
            match=100 if from_memory else None,
        )
        if response is None:
            checks = proposal_checks(src, args.translate_string, glossary=call.batch.glossary)
            warnings = tuple(QaFinding(code=w.code, message=w.message) for w in checks)
            found = await call.batch.references(src) if call.batch.references and not from_memory else ()
            references = tuple(
                Reference(score=round(m.score), source=m.entry.source, target=m.entry.target, diff=_diff(m))
                for m in found
            )
            return request.model_copy(update={"warnings": warnings, "references": references})
        return _result(request, response, end=end, cover_end=cover_end)


def _diff(match: TmMatch) -> tuple[tuple[Literal["equal", "delete", "insert"], str], ...]:
    return tuple((part.op, part.text) for part in match.diff)


async def _locate(call: ToolCall, args: TranslateArgs) -> tuple[str, int, int, int] | ToolResult:
    """The unit's `(file id, start, end, cover_end)`, or the rejection the model is told."""
    batch = call.batch
    state = batch.find(args.file_id)
    if state is None:
        return _reject(f"Unknown file {args.file_id!r}. {file_list(batch.files)}")
    src = args.src_string.strip()
    if not src:
        return _reject("src_string is empty: copy the next untranslated text of the file.")
    if not args.translate_string.strip():
        return _reject("translate_string is empty: give your translation of src_string.")
    covered = batch.covered(state.file_id)
    gap = first_gap(covered, state.chars)
    if gap is None:
        return _reject(f"{state.name} is already completely translated; there is nothing left.")
    start, gap_end = gap

    async def where() -> str:  # where the text goes on, for a rejection (a unit that fits never needs it)
        ahead = snippet(await batch.reader.read_text(state.file_id, start, min(gap_end, start + 120)))
        note = LINE_BREAK_NOTE
        return f"The next untranslated text of {state.name} begins at character {start} with «{ahead}». {note}"

    if len(src) > MAX_UNIT_CHARS:
        return _reject(
            f"src_string has {len(src)} characters; a unit has at most {MAX_UNIT_CHARS}. "
            f"Split it at a sentence or line end. {await where()}"
        )
    actual = await batch.reader.read_text(state.file_id, start, start + len(src))
    if actual != src:
        hint = _mismatch_hint(actual, src, _common_prefix(actual, src))
        return _reject(f"src_string does not begin at the next untranslated text. {hint}{await where()}")
    end = start + len(src)
    if state.name.lower().endswith((".xlf", ".xliff")) and "\n\n" in src:
        # An XLIFF file's segments are joined by a blank line: a unit lies inside one segment.
        return _reject(
            "In an XLIFF file a unit lies inside one segment (segments are separated by a blank line); "
            f"end the unit before character {start + src.index(chr(10) * 2)}. {await where()}"
        )
    if refusal := codes_refusal(state, src, args.translate_string):
        return _reject(refusal)
    if end > gap_end:
        tail = await batch.reader.read_text(state.file_id, gap_end, gap_end + 60)
        return _reject(
            f"src_string runs into text that is already translated, from character {gap_end} "
            f"(«{snippet(tail, 40)}»). End the unit before it. {await where()}"
        )
    cover_end = await _whitespace_end(call, state.file_id, end, gap_end)
    batch.coverage[state.file_id] = add_span(covered, start, cover_end)
    return state.file_id, start, end, cover_end


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
        )

    match response:
        case Approve():
            final = response.translated_string or request.translate_string
            return ToolResult(
                # Approved as proposed: the call's own translate_string is the final text, not repeated.
                content=_approved(final, request.translate_string, response.reason, request.origin),
                units=[write(final, "approve")],
                reviewed=True,
            )
        case Refined():
            final = response.translated_string
            correction = Correction(
                file_id=request.file_id,
                status="refined",
                source=request.src_string,
                proposal=request.translate_string,
                final=final,
                reason=response.reason,
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
                proposal=request.translate_string,
                final=None,
                reason=response.reason,
            )
            reason = response.reason or "The reviewer rejected this translation."
            return ToolResult(
                content={"translated_string": "", "status": "reject", "reason": reason},
                corrections=[correction],
                reviewed=True,
            )
        case _:
            assert_never(response)
