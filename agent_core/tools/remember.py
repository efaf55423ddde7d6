"""Remember: the model keeps what the reviewer's corrections teach, in the response it makes anyway.

Learning costs no request of its own: the model sees the reviewer's edits and rejections (in its
calls' results and among the memory's recent corrections) and may call `Remember` beside its next
`Translate` calls. Nothing is kept on the model's word: a glossary entry's source term must occur in
the prose of a corrected unit's source, and its target in the reviewer's own words (in the prose of
an edited text, and not in that unit's proposal), so nothing is learned from a proposal; neither
term nor target may be code, a URL, a path, a @handle or a number. A style note is kept short. The
result tells the model what was kept and why the rest was not; the lessons go to the owner's memory
when the step that answers the call commits (`StepResult.lessons`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_ai.tools import ToolDefinition

from ..copilot import Verdict
from ..distill import MAX_NOTE_CHARS, is_prose
from ..effects import Correction
from ..markdown_structure import prose_only
from ..memory import GlossaryEntry, Lessons, StyleNote, occurs
from .base import ToolCall, ToolOutcome, ToolResult

MAX_TERM_CHARS = 100
MAX_GLOSSARY = 5
MAX_NOTES = 3

DESCRIPTION = """\
Keep for later documents what the reviewer's corrections teach: `glossary` maps a term of a
corrected source to the reviewer's translation of it, as they wrote it; `style_notes` are short
general rules. Call it beside Translate; skip one-off fixes."""


class RememberArgs(BaseModel):
    """Arguments of Remember."""

    model_config = ConfigDict(extra="ignore")
    glossary: dict[str, str] = Field(default_factory=dict, max_length=2 * MAX_GLOSSARY)
    style_notes: list[str] = Field(default_factory=list, max_length=2 * MAX_NOTES)


SCHEMA = {
    "type": "object",
    "properties": {
        "glossary": {"type": "object", "additionalProperties": {"type": "string"}},
        "style_notes": {"type": "array", "items": {"type": "string"}},
    },
}
"""What the model sees of RememberArgs: its shape without titles and bounds (fewer tokens in every request;
the bounds are checked, and said, when a call passes them)."""


class RememberTool:
    """Checks the model's lessons against the reviewer's corrections and keeps those they support."""

    @property
    def definition(self) -> ToolDefinition:
        """Remember's definition for the model."""
        return ToolDefinition(name="Remember", description=DESCRIPTION, parameters_json_schema=SCHEMA)

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Remember never needs the human; it answers at once."""
        try:
            args = RememberArgs.model_validate(call.args)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            return ToolResult(content=f"Nothing kept: {problems}.", outcome="failed")
        lessons, refused = check_lessons(args, call.batch.corrections, languages=call.batch.languages)
        kept = [f"«{g.source}» → «{g.target}»" for g in lessons.glossary]
        if lessons.style_notes:
            kept.append(f"{len(lessons.style_notes)} style note{'s' if len(lessons.style_notes) > 1 else ''}")
        message = "Kept: " + "; ".join(kept) + "." if kept else "Nothing kept."
        if refused:
            message += " Not kept: " + "; ".join(refused) + "."
        return ToolResult(content=message, outcome="success" if lessons else "failed", lessons=lessons)


def check_lessons(
    args: RememberArgs, corrections: Sequence[Correction], *, languages: str
) -> tuple[Lessons, list[str]]:
    """The lessons `corrections` support, and why each other one is not kept."""
    sources = [prose_only(c.source) for c in corrections]
    edits = [(prose_only(c.final), c.proposal) for c in corrections if c.status != "reject" and c.final]
    glossary: list[GlossaryEntry] = []
    refused: list[str] = []
    for term, translation in args.glossary.items():
        source, target = " ".join(term.split()), " ".join(translation.split())
        why = _why_not(source, target, sources, edits)
        if why is None and any(g.source.casefold() == source.casefold() for g in glossary):
            why = "named twice"
        if why is None and len(glossary) >= MAX_GLOSSARY:
            why = f"at most {MAX_GLOSSARY} terms a call"
        if why:
            refused.append(f"«{source[:MAX_TERM_CHARS]}» → «{target[:MAX_TERM_CHARS]}» ({why})")
        else:
            glossary.append(GlossaryEntry(source=source, target=target, languages=languages, origin="learned"))
    notes: list[StyleNote] = []
    for text in args.style_notes:
        note = " ".join(text.split())
        if not note:
            continue
        if len(note) > MAX_NOTE_CHARS or len(notes) >= MAX_NOTES:
            why = f"over {MAX_NOTE_CHARS} characters" if len(note) > MAX_NOTE_CHARS else f"at most {MAX_NOTES} a call"
            refused.append(f"a style note ({why})")
            continue
        notes.append(StyleNote(text=note, languages=languages, origin="learned"))
    return Lessons(glossary=tuple(glossary), style_notes=tuple(notes)), refused


def _why_not(source: str, target: str, sources: Sequence[str], edits: Sequence[tuple[str, str]]) -> str | None:
    """Why the pair (`source`, `target`) is not a lesson of these corrections, or None when it is."""
    if not source or not target or len(source) > MAX_TERM_CHARS or len(target) > MAX_TERM_CHARS:
        return f"each side must have 1 to {MAX_TERM_CHARS} characters"
    if not is_prose(source) or not is_prose(target):
        return "code, URLs, paths, handles and numbers are not terms"
    if not any(occurs(source, s) for s in sources):
        return "the term is not in the source of a corrected unit"
    if not any(occurs(target, final) and not occurs(target, proposal) for final, proposal in edits):
        return "the reviewer did not write this target"
    return None
