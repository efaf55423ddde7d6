"""Revise: the agent proposes a new text for a unit already written; a person reviews it.

After a document is complete (or any time), "use the formal register throughout" or "change the
heading" becomes Revise calls: each names a written unit by its position and proposes its new text.
The human approves, edits or rejects each, as with Translate; nothing changes unreviewed. Checked
at once (answered to the model with `status: "reject"`, never shown to the human): the file exists,
a written unit begins at `start`, the unit is not revised twice in one response, the text is new.
"""

from __future__ import annotations

from typing import Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai.tools import ToolDefinition

from ..copilot import Approve, CopilotRequest, Refined, Reject, ToolRef, Verdict
from ..effects import Correction, UnitWrite
from .base import ToolCall, ToolOutcome, ToolResult, codes_refusal, file_named, parse_args, refuse, snippet
from .card import forbidden_refusal, with_findings

DESCRIPTION = """\
Propose a new translation of a written unit when the user asks for a change; a person reviews it.
`start`: where the unit begins (`Read` with `written: true` lists them); `translate_string`: its
whole new text. Result: `approve` or `refined` (`translated_string` is then written), or `reject`."""

SCHEMA = {
    "type": "object",
    "properties": {"file_id": {"type": "string"}, "start": {"type": "integer"}, "translate_string": {"type": "string"}},
    "required": ["file_id", "start", "translate_string"],
}
"""What the model sees of ReviseArgs: its shape without titles."""


class ReviseArgs(BaseModel):
    """Arguments of Revise."""

    model_config = ConfigDict(extra="ignore")
    file_id: str = Field(description="The file: its handle (f1, f2, …) or id.")
    start: int = Field(ge=0, description="Where the written unit begins in the file (characters).")
    translate_string: str = Field(description="The unit's new translation.")


class ReviseTool:
    """Checks a proposed revision, asks the human, and writes what the human approved."""

    @property
    def definition(self) -> ToolDefinition:
        """Revise's definition for the model."""
        return ToolDefinition(name="Revise", description=DESCRIPTION, parameters_json_schema=SCHEMA)

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Validate the revision; answer a copilot request, or the result once reviewed."""
        args = parse_args(ReviseArgs, call, "file_id, start and translate_string")
        if isinstance(args, ToolResult):
            return args
        batch = call.batch
        state = file_named(batch, args.file_id)
        if isinstance(state, ToolResult):
            return state
        units = await batch.io.units(state.file_id)
        unit = next((u for u in units if u.start == args.start), None)
        if unit is None:
            near = ", ".join(str(u.start) for u in units if abs(u.start - args.start) < 2_000)[:200]
            return refuse(
                f"No written unit of {state.name} begins at character {args.start}."
                + (f" Written units begin at: {near}." if near else " Read with written=true lists them.")
            )
        if (state.file_id, unit.start) in batch.revised:
            return refuse(f"The unit at {unit.start} is already revised in this response; propose it once.")
        if not args.translate_string.strip() or args.translate_string == unit.text:
            return refuse("translate_string is empty or the same as the written text: propose a new text.")
        source = await batch.io.read_text(state.file_id, unit.start, unit.end)
        if refusal := codes_refusal(state, source, args.translate_string):
            return refuse(refusal)
        batch.revised.add((state.file_id, unit.start))
        request = CopilotRequest(
            tool=ToolRef(name=call.name, call_id=call.call_id),
            file_id=state.file_id,
            src_string=source,
            translate_string=args.translate_string,
            current_string=unit.text,
            start=unit.start,
            end=unit.end,
        )
        if response is None:
            request = with_findings(request, batch)
            if refusal := forbidden_refusal(request):
                batch.revised.discard((state.file_id, unit.start))
                return refuse(refusal)
            return request
        return _result(request, unit, response)


def _result(request: CopilotRequest, unit: UnitWrite, response: Verdict) -> ToolResult:
    """The reviewed revision: the model's answer, the new text, the correction to remember."""

    def revised(text: str, origin: str) -> UnitWrite:
        return UnitWrite(
            file_id=unit.file_id,
            start=unit.start,
            end=unit.end,
            cover_end=unit.cover_end,
            text=text,
            call_id=request.tool.call_id,
            status="revised",
            origin="human" if origin == "human" else "model",
            by=response.by,
        )

    def lesson(status: Literal["revised", "reject"], final: str | None) -> Correction:
        return Correction(
            file_id=unit.file_id,
            status=status,
            source=request.src_string,
            proposal=request.proposal_text,
            final=final,
            reason=response.reason,
            start=unit.start,
            issue=None if isinstance(response, Approve) else response.issue,
            by=response.by,
        )

    match response:
        case Approve():
            final = response.translated_string or request.proposal_text
            return ToolResult(content={"status": "approve"}, revisions=[revised(final, "model")], reviewed=True)
        case Refined():
            final = response.translated_string
            return ToolResult(
                content={"status": "refined", "translated_string": final, "reason": response.reason},
                revisions=[revised(final, "human")],
                corrections=[lesson("revised", final)],
                reviewed=True,
            )
        case Reject():
            reason = response.reason or "The reviewer kept the written text."
            return ToolResult(
                content={"status": "reject", "reason": reason, "kept": snippet(unit.text, 200)},
                corrections=[lesson("reject", None)],
                reviewed=True,
            )
        case _:
            assert_never(response)
