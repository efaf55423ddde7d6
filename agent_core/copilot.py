"""Copilot types: what the agent asks the human to review, and the human's verdicts.

A copilot request is not an HTTP request: it is a proposal the model made that a person must
approve, edit ("refined") or reject before the tool that made it can finish.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter

from .mqm import MqmIssue
from .text import Filled, Text, check_filled, check_text

MAX_TEXT = 5_000
"""The longest translated text or reason a verdict may carry."""


def _forms_as_text(value: object) -> object:
    """A plural entry's forms sent as an object are the unit's text: their JSON object."""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return value


# The limit comes before the check: pydantic then says "at most 5000 characters" of an optional field.
_Final = Annotated[str, BeforeValidator(_forms_as_text), Field(max_length=MAX_TEXT), AfterValidator(check_filled)]
_Note = Annotated[str, Field(max_length=MAX_TEXT), AfterValidator(check_text)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ToolRef(_Strict):
    """The tool call a copilot request or response belongs to."""

    name: Text = Field(min_length=1, max_length=64)
    """The tool's name, e.g. `Translate`."""
    call_id: Text = Field(alias="callId", min_length=1, max_length=256)
    """The model's id for the tool call."""


class QaFinding(_Strict):
    """A quality check the proposal failed (agent_core.qa, or its file's QA profile: agent_core.qa_profiles):
    a stable code, words for the reviewer and the level."""

    code: str
    message: str
    level: Literal["warning", "error"] = "warning"
    """`error`: a profile check at that level; the unit is left out of bulk and automatic approvals."""


class GlossaryMatch(_Strict):
    """A glossary entry whose term the unit's source has (agent_core.qa.GlossaryHit), as the card shows it."""

    term: str
    kind: Literal["preferred", "forbidden", "keep"]
    expected: str
    """The preferred translation, the term to keep, or the forbidden translation."""
    found: bool
    """Whether the proposal has `expected` (wrong only for `forbidden`)."""


class Reference(_Strict):
    """A similar source the owner's translation memory holds, shown beside a proposal."""

    score: int
    """How similar the sources are, 0 to 100."""
    source: str
    target: str
    diff: tuple[tuple[Literal["equal", "delete", "insert"], str], ...] = ()
    """From the remembered source to this unit's source, word by word."""


class EntryContext(_Strict):
    """What a resource file says about a unit's string: its key, the developer's note, where the
    program uses it (PO `#:` references), its locked codes and the format's flags on it."""

    key: str
    note: str | None = None
    refs: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    """The string's locked codes (placeholders, directives, markup; `langfacts.codes`), each distinct one
    once in source order: a translation keeps each as often as the source holds it, so clients find
    their occurrences in the source and the text and show them as atomic chips."""
    flags: tuple[str, ...] = ()
    """The format's flags on the string (PO `#,` flags such as `c-format`, `fuzzy`), for the reviewer."""


class PluralInfo(_Strict):
    """A plural entry's unit: the target language's CLDR categories the translation gives a form for,
    and the source's forms by category."""

    categories: tuple[str, ...]
    source: dict[str, str] = Field(default_factory=dict)


class CopilotRequest(_Strict):
    """A translation unit proposed (by the model or the translation memory), waiting for the human's verdict."""

    tool: ToolRef
    """The pending tool call."""
    file_id: str
    """The file the unit belongs to."""
    src_string: str
    """The source text of the unit, exactly as it stands in the file."""
    translate_string: str | dict[str, str]
    """The model's proposed translation; for a plural entry its forms by CLDR category."""
    current_string: str | None = None
    """For a revision (`tool.name` "Revise"): the unit's written text the proposal would replace."""
    start: int = 0
    """Where the unit begins in the source file (characters)."""
    end: int = 0
    """Where it ends (exclusive)."""
    segments: tuple[str, ...] = ()
    """The ids of the segments the unit covers, in order."""
    origin: Literal["model", "memory"] = "model"
    """`memory`: an exact match of a source the owner already approved, proposed with no model request."""
    match: int | None = None
    """The translation memory's score (100) for a proposal from memory."""
    warnings: tuple[QaFinding, ...] = ()
    """Quality checks the proposal failed; the reviewer still decides."""
    references: tuple[Reference, ...] = ()
    """Similar sources from the owner's translation memory (75% or more), best first."""
    glossary: tuple[GlossaryMatch, ...] = ()
    """The entries of the session's language pair whose term the source has, and what the proposal does with them."""
    estimate: int | None = None
    """The quality estimate, 0–100 (agent_core.estimate_quality)."""
    estimate_reasons: tuple[str, ...] = Field(default=(), alias="estimateReasons")
    """What lowered the estimate, the largest first."""
    context: EntryContext | None = None
    """The key and the developer's note of the unit's string, in a resource file."""
    plural: PluralInfo | None = None
    """For a plural entry: the categories `translate_string` gives forms for (the target language's)."""
    sampled: bool = False
    """The session's routing would have approved it without a review, and its sample sent it to a person
    instead (what the project's quality report measures the rule by)."""

    @property
    def proposal_text(self) -> str:
        """The proposal as a unit's text: a plural entry's forms as their JSON object (`agent_core.plural`)."""
        if isinstance(self.translate_string, str):
            return self.translate_string
        return json.dumps(self.translate_string, ensure_ascii=False)


class Approve(_Strict):
    """The proposal is right; it is written as proposed (or as `translated_string` if given)."""

    tool: ToolRef
    status: Literal["approve"]
    translated_string: _Final | None = None
    """Optional; when absent the proposal is the final text (never blank)."""
    reason: _Note | None = None
    """Optional note."""
    by: str | None = None
    """Who gave the verdict when not the session's owner (a project's member): set by the step, never by
    the client (the runtime refuses another's name)."""


class Refined(_Strict):
    """The human edited the proposal; the edited text is written."""

    tool: ToolRef
    status: Literal["refined"]
    translated_string: Annotated[Filled, BeforeValidator(_forms_as_text)] = Field(min_length=1, max_length=MAX_TEXT)
    """The human's final text (required, never blank)."""
    reason: _Note | None = None
    """Optional note on what was wrong."""
    issue: MqmIssue | None = None
    """Optional: the MQM issue the reviewer found in the proposal (category and severity)."""
    by: str | None = None
    """Who gave the verdict when not the session's owner (a project's member): set by the step, never by
    the client (the runtime refuses another's name)."""


class Reject(_Strict):
    """The proposal is wrong; nothing is written and the unit is translated again."""

    tool: ToolRef
    status: Literal["reject"]
    reason: _Note | None = None
    """Why, in the reviewer's words; the model reads it."""
    translated_string: _Note | None = None
    """Ignored; allowed so clients can send one shape."""
    issue: MqmIssue | None = None
    """Optional: the MQM issue the reviewer found in the proposal (category and severity)."""
    by: str | None = None
    """Who gave the verdict when not the session's owner (a project's member): set by the step, never by
    the client (the runtime refuses another's name)."""


Verdict = Approve | Refined | Reject
"""The human's verdict on one copilot request."""

CopilotResponse = Annotated[Verdict, Field(discriminator="status")]
"""A verdict as the API receives it, discriminated by `status`."""

CopilotResponseAdapter: TypeAdapter[Verdict] = TypeAdapter(CopilotResponse)
"""Validates and serialises copilot responses (by alias: `callId`)."""
