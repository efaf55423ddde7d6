"""Read: a bounded window of a file, from its first untranslated character."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_ai.tools import ToolDefinition

from ..copilot import Verdict
from ..document import add_span, first_gap
from .base import ToolCall, ToolOutcome, ToolResult, file_list, snippet

DEFAULT_WINDOW = 3_000
MAX_WINDOW = 8_000

DESCRIPTION = """\
A file's untranslated text from `start`, its first untranslated character, up to `max_chars`
(200-8000, default 3000), and its progress; `more`: more text follows. With `written: true`, the
units already written from `from_char` on, for `Revise`."""

SCHEMA = {
    "type": "object",
    "properties": {
        "file_id": {"type": "string"},
        "max_chars": {"type": "integer"},
        "written": {"type": "boolean"},
        "from_char": {"type": "integer"},
    },
    "required": ["file_id"],
}
"""What the model sees of ReadArgs: its shape without titles (the bounds are in the description, and
checked)."""

WRITTEN_LISTED = 40
"""How many written units one Read lists."""


class ReadArgs(BaseModel):
    """Arguments of Read."""

    model_config = ConfigDict(extra="ignore")
    file_id: str = Field(description="The file to read: its handle (f1, f2, …) or id.")
    max_chars: int = Field(default=DEFAULT_WINDOW, ge=200, le=MAX_WINDOW, description="How much text to return.")
    written: bool = Field(default=False, description="List the written units instead of the untranslated text.")
    from_char: int = Field(default=0, ge=0, description="With written: list the units from this character on.")


class ReadTool:
    """Answers a bounded window of a file's untranslated text and the file's progress."""

    @property
    def definition(self) -> ToolDefinition:
        """Read's definition for the model."""
        return ToolDefinition(name="Read", description=DESCRIPTION, parameters_json_schema=SCHEMA)

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Read never needs the human; it answers at once."""
        try:
            args = ReadArgs.model_validate(call.args)
        except ValidationError as exc:
            return ToolResult(content={"error": _errors(exc)}, outcome="failed")
        batch = call.batch
        state = batch.find(args.file_id)
        if state is None:
            message = f"Unknown file {args.file_id!r}. {file_list(batch.files)}"
            return ToolResult(content={"error": message}, outcome="failed")
        result: dict[str, Any] = {
            "file_id": batch.handle(state.file_id),
            "name": state.name,
            "total_chars": state.chars,
            "translated_chars": state.translated_chars,
            "complete": state.complete,
        }
        if args.written:
            return ToolResult(content={**result, **await _written(call, state.file_id, args.from_char)})
        gap = state.next_gap()
        if gap is None:
            result.update(start=state.chars, text="", more=False)
            return ToolResult(content=result)
        start, gap_end = gap
        end = min(gap_end, start + args.max_chars)
        text = await batch.io.read_text(state.file_id, start, end)
        later = first_gap(add_span(state.covered, start, gap_end), state.chars)
        result.update(start=start, text=text, more=end < gap_end or later is not None)
        if end == gap_end and gap_end < state.chars:
            result["translated_from"] = gap_end
        return ToolResult(content=result)


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())


async def _written(call: ToolCall, file_id: str, from_char: int) -> dict[str, Any]:
    """The written units from `from_char` on, with short excerpts (bounded: WRITTEN_LISTED units)."""
    batch = call.batch
    units = [u for u in await batch.io.units(file_id) if u.start >= from_char]
    listed = []
    for u in units[:WRITTEN_LISTED]:
        source = await batch.io.read_text(file_id, u.start, min(u.end, u.start + 60))
        listed.append({"start": u.start, "end": u.end, "source": snippet(source, 60), "text": snippet(u.text, 60)})
    more = len(units) > WRITTEN_LISTED
    return {"units": listed, "next_from_char": units[WRITTEN_LISTED].start if more else None}
