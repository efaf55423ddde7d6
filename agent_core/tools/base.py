"""What a tool is: a definition the model sees and a two-phase executor.

A tool's execution may span two requests: without the human's verdict it answers a copilot request;
given the verdict (a later request) it answers its result. Executors are pure with respect to
storage: what they want written comes back as effects that the step commits with its messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_ai.messages import ToolReturnPart
from pydantic_ai.tools import ToolDefinition

from ..copilot import CopilotRequest, Verdict
from ..document import FileState, Spans, file_handle, find_file, handle
from ..effects import Correction, UnitWrite
from ..inline_codes import code_problems
from ..languages import ANY
from ..memory import NO_LESSONS, GlossaryEntry, Lessons
from ..ports import StepIO
from ..qa_profiles import QaProfile

MAX_UNIT_CHARS = 300
"""The longest source text one translation unit may have."""
MAX_CALLS_PER_RESPONSE = 40
"""The most tool calls of one model response that are executed (the rest are answered to call again)."""
MEMORY_CALL_PREFIX = "memory_"
"""Tool calls the translation memory made (no model request): their proposals say `origin: "memory"`."""
CONTEXT_CALL_PREFIX = f"{MEMORY_CALL_PREFIX}context_"
"""The translation memory's calls whose entry was written from a string of the unit's own key (`match` 101)."""


def codes_refusal(state: FileState, source: str, text: str) -> str | None:
    """Why a proposal for an XLIFF file cannot be exported (its inline-code placeholders), or None.

    Only XLIFF sources have inline codes; elsewhere `{1}` is text, and QA only warns of it."""
    if not state.name.lower().endswith((".xlf", ".xliff")):
        return None
    problems = code_problems(source, text)
    if not problems:
        return None
    return "translate_string breaks the inline codes of src_string: " + " ".join(problems)


PROPOSING_TOOLS = frozenset({"Translate", "Revise"})
"""The tools whose calls propose a text for the reviewer."""
NOT_REVIEWED = "Not reviewed: "
"""How the reason of a proposal the tools refused begins (it never reached the reviewer)."""


def refuse(reason: str) -> ToolResult:
    """A proposal the tool's own checks refused: it never reached the reviewer, and the reason says so."""
    return ToolResult(content={"status": "reject", "reason": NOT_REVIEWED + reason})


def is_refusal(part: ToolReturnPart) -> bool:
    """True for the return of a call the tools refused (`refuse`) or could not run (a failed call)."""
    content = part.content
    if part.outcome == "failed":
        return True
    return isinstance(content, dict) and str(content.get("reason", "")).startswith(NOT_REVIEWED)


ArgsT = TypeVar("ArgsT", bound=BaseModel)


def parse_args(schema: type[ArgsT], call: ToolCall, needs: str) -> ArgsT | ToolResult:
    """The call's arguments as `schema` reads them, or the refusal naming the fields that are wrong
    (`needs`: what the model must give, e.g. "file_id, start and translate_string")."""
    try:
        return schema.model_validate(call.args)
    except ValidationError as exc:
        fields = ", ".join(str(e["loc"][0]) for e in exc.errors() if e["loc"])
        return refuse(f"Invalid arguments ({fields}): give {needs}.")


def file_named(batch: BatchState, name: str) -> FileState | ToolResult:
    """The file a call names (its handle or id), or the refusal listing the session's files."""
    state = batch.find(name)
    return state if state is not None else refuse(f"Unknown file {name!r}. {file_list(batch.files)}")


def is_memory_call(call_id: str) -> bool:
    """True for a call the translation memory made, not the model (agent_core.ahead names them)."""
    return call_id.startswith(MEMORY_CALL_PREFIX)


def memory_match(call_id: str) -> int | None:
    """The match a call's proposal is: 101 for the memory's context match, 100 for its other exact
    matches (agent_core.ahead names their calls), None for the model's."""
    if call_id.startswith(CONTEXT_CALL_PREFIX):
        return 101
    return 100 if is_memory_call(call_id) else None


@dataclass(frozen=True, slots=True)
class Routing:
    """A session's auto-approval: proposals whose estimate reaches `threshold` with QA clean are written
    without a review (None: every proposal is reviewed), except a share `sample` (0 to 1) of them, chosen
    by the unit (`sampled`), which goes to a person anyway so that the rule can be measured. With
    `pretranslate` every Translate proposal is written without a card, QA findings and all, for a
    reviewer to decide later (the session reviews as `pretranslate`: the units are `translated`)."""

    threshold: int | None = None
    sample: float = 0.0
    pretranslate: bool = False


@dataclass(slots=True)
class BatchState:
    """State shared by the calls of one model response: each unit follows the previous one."""

    files: Mapping[str, FileState]
    io: StepIO
    """The step's reads: the files' text and segments, written units (Revise, and Read's list of them)."""
    coverage: dict[str, Spans] = field(default_factory=dict)
    """Coverage including the units proposed earlier in this response."""
    glossary: Sequence[GlossaryEntry] = ()
    """The owner's glossary entries for the session's language pair (quality checks)."""
    revised: set[tuple[str, int]] = field(default_factory=set)
    """Units revised earlier in this response (each once)."""
    corrections: Sequence[Correction] = ()
    """The reviewer's corrections the model has seen: the memory's recent ones (what Remember checks
    against; a response's own proposals are reviewed after it is made, so their verdicts are not)."""
    languages: str = ANY
    """The session's language pair, for what Remember keeps."""
    routing: Routing = field(default_factory=Routing)
    """The batch's auto-approval (the one in force when it was proposed)."""
    qa_profile: QaProfile | None = None
    """The session's QA profile (None: each file's kind's built-in one)."""
    target_language: str | None = None
    """The target language's BCP 47 tag (the session's, else the one its task names): a plural
    entry's unit gives a form for each of its CLDR categories; None while it is not known."""

    def find(self, name: str) -> FileState | None:
        """The file a call's `file_id` names (its handle or its id)."""
        return find_file(list(self.files.values()), name)

    def handle(self, file_id: str) -> str:
        """The handle the model knows the file by."""
        return file_handle(list(self.files.values()), file_id)

    def covered(self, file_id: str) -> Spans:
        """The coverage the next unit of `file_id` must follow."""
        if file_id in self.coverage:
            return self.coverage[file_id]
        return self.files[file_id].covered


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call to execute, with the context it runs in."""

    name: str
    call_id: str
    args: Mapping[str, Any]
    batch: BatchState


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """A finished execution: what the model is told, and what the step must write."""

    content: Any
    """JSON-able content of the tool return."""
    outcome: Literal["success", "failed"] = "success"
    units: Sequence[UnitWrite] = ()
    revisions: Sequence[UnitWrite] = ()
    """New texts of units already written (Revise)."""
    corrections: Sequence[Correction] = ()
    reviewed: bool = False
    """True when the result applies the human's verdict (the call was one the human had to review)."""
    lessons: Lessons = NO_LESSONS
    """What the owner's memory keeps once the step commits this result (Remember)."""


ToolOutcome = CopilotRequest | ToolResult
"""An execution answers either a copilot request (first phase) or a result."""


class Tool(Protocol):
    """A tool the model may call."""

    @property
    def definition(self) -> ToolDefinition:
        """The name, description and JSON schema the model sees."""
        ...

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        """Run the call; `response` is the human's verdict once there is one."""
        ...


_INVISIBLE = {"\r": "\\r", "\t": "\\t", "\u00a0": "\\u00a0", "\u200b": "\\u200b", "\ufeff": "\\ufeff"}


APPROVED = "approve"
"""A Translate result approved as proposed: the bare status (the call has the text), not a JSON object."""


def result_status(content: Any) -> str | None:
    """The status a Translate or Revise result reports (`approve`, `refined`, `reject`), if any."""
    if content == APPROVED:
        return APPROVED
    return str(content.get("status")) if isinstance(content, dict) and "status" in content else None


def snippet(text: str, limit: int = 80) -> str:
    """`text` shortened for a message to the model: a line break shown as ⏎ (the message says so),
    and characters a reader cannot see (CR, tab, no-break space, zero-width space, BOM) escaped."""
    flat = "".join("⏎" if ch == "\n" else _INVISIBLE.get(ch, ch) for ch in text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


LINE_BREAK_NOTE = "(⏎ stands for a line break; \\r, \\t and \\u00a0 for a carriage return, tab, no-break space.)"


def file_list(files: Mapping[str, FileState]) -> str:
    """The session's files, for an error message to the model."""
    if not files:
        return "The session has no files."
    return "Files: " + ", ".join(f"{handle(k)} ({f.name})" for k, f in enumerate(files.values())) + "."
