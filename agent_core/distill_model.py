"""Distillation by the configured model: one small request, its JSON answer read defensively.

The model is shown the step's corrections and asked for glossary entries and style notes as JSON.
Whatever it answers is checked before it is kept: a glossary entry's source term must occur in the
prose of a corrected unit's source, and its target in the reviewer's own words (in the prose of an
edited text, and not in that unit's proposal), so nothing is learned from a proposal, and neither
term nor target may be code, a URL, a path, a @handle or a number; notes are kept short. A failed
request or an unreadable answer is logged and yields nothing: the corrections themselves are
already committed.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelRequest, SystemPromptPart, TextPart, UserPromptPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings

from .distill import MAX_NOTE_CHARS, Distiller, RuleDistiller, is_prose
from .effects import Correction
from .errors import AgentError
from .markdown_structure import prose_only
from .memory import GlossaryEntry, Lessons, StyleNote, occurs
from .models import call_model

logger = logging.getLogger(__name__)

MAX_GLOSSARY = 5
MAX_NOTES = 3
MAX_TERM_CHARS = 100
_OBJECT = re.compile(r"\{.*\}", re.S)

INSTRUCTIONS = """\
You keep a translator's memory of one reviewer's preferences. From the reviewer's corrections
below, extract only what should apply to later translations:
- "glossary": terms the reviewer wants translated a certain way. "source" is copied exactly from
  a source text; "target" is copied exactly from the reviewer's text (never from a proposal).
- "style_notes": short, general rules that the edits or reasons show (at most 20 words each).
Leave out one-off fixes. Answer with JSON only, no prose:
{"glossary": [{"source": "...", "target": "..."}], "style_notes": ["..."]}"""


class ModelDistiller:
    """Asks the configured model to distil corrections into glossary entries and style notes."""

    def __init__(self, model: Model, *, settings: ModelSettings | None = None) -> None:
        self.model = model
        self.settings = settings

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        """One model request; its answer checked against the human's text. Failures yield nothing."""
        if not corrections:
            return Lessons()
        prompt = _describe(corrections, languages)
        request = ModelRequest(parts=[SystemPromptPart(INSTRUCTIONS), UserPromptPart(prompt)])
        params = ModelRequestParameters(function_tools=[], allow_text_output=True)
        try:
            response = await call_model(self.model, [request], self.settings, params)
        except AgentError as exc:
            logger.warning("distillation request failed; corrections kept", extra={"error": str(exc)})
            return Lessons()
        text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
        return parse_lessons(text, corrections, languages=languages)


def distiller_for(model: Model, *, settings: ModelSettings | None = None) -> Distiller:
    """The rules for the offline `pseudo` model (it cannot distil); the model itself otherwise."""
    from .pseudo import PseudoModel

    return RuleDistiller() if isinstance(model, PseudoModel) else ModelDistiller(model, settings=settings)


def parse_lessons(text: str, corrections: Sequence[Correction], *, languages: str) -> Lessons:
    """The lessons in a model's answer that the corrections support; nothing when unreadable."""
    data = _json_object(text)
    if data is None:
        logger.warning("distillation answer is not a JSON object; ignored", extra={"answer": text[:200]})
        return Lessons()
    # Terms count only where they stand in prose, not in code, URLs, paths or handles.
    sources = [prose_only(c.source) for c in corrections]
    edits = [(prose_only(c.final), c.proposal) for c in corrections if c.status != "reject" and c.final]
    glossary: list[GlossaryEntry] = []
    for item in _list(data.get("glossary"))[: MAX_GLOSSARY * 2]:
        if not isinstance(item, dict):
            continue
        source, target = _text(item.get("source"), MAX_TERM_CHARS), _text(item.get("target"), MAX_TERM_CHARS)
        if (
            not is_prose(source)
            or not is_prose(target)
            or any(g.source.casefold() == source.casefold() for g in glossary)
        ):
            continue
        # The human wrote it: in an edited text, and not merely kept from that unit's proposal.
        wrote = any(occurs(target, final) and not occurs(target, proposal) for final, proposal in edits)
        if any(occurs(source, s) for s in sources) and wrote:
            glossary.append(GlossaryEntry(source=source, target=target, languages=languages, origin="learned"))
    notes: list[StyleNote] = []
    for item in _list(data.get("style_notes"))[:MAX_NOTES]:
        note = _text(item, MAX_NOTE_CHARS)
        if note:
            notes.append(StyleNote(text=note, languages=languages, origin="learned"))
    return Lessons(glossary=tuple(glossary[:MAX_GLOSSARY]), style_notes=tuple(notes))


def _describe(corrections: Sequence[Correction], languages: str) -> str:
    target = languages.partition(">")[2]
    lines = [f"Target language: {target}.", ""]
    for n, c in enumerate(corrections, 1):
        kind = "edited" if c.status == "refined" else "rejected"
        lines += [f"Correction {n} ({kind}):", f"Source: «{c.source}»", f"Proposal: «{c.proposal}»"]
        if c.final:
            lines.append(f"Reviewer's text: «{c.final}»")
        if c.reason:
            lines.append(f"Reason: «{c.reason}»")
        lines.append("")
    return "\n".join(lines)


def _json_object(text: str) -> dict[str, Any] | None:
    """The answer's JSON object: the whole text, or the outermost braces in it (code fences, prose)."""
    for candidate in (text.strip(), *(m.group() for m in [_OBJECT.search(text)] if m)):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any, limit: int) -> str:
    """A stripped, single-spaced string of at most `limit` characters, or "" for anything else."""
    if not isinstance(value, str):
        return ""
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else ""
