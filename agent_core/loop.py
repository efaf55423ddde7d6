"""AgentLoop: exactly one step of the agent, on pydantic-ai's model layer.

A step executes the pending tool calls of the latest model response (answering copilot requests
when a tool needs the human); when none needs the human and the invocation has time left, it goes
on to the one model request their returns lead to. A step makes at most one model request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pydantic_ai.messages import (
    FinishReason,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from .ahead import BATCH_CHARS
from .budget import BudgetGuard
from .context import Context, reviews_shown, with_state
from .copilot import CopilotRequest
from .deltas import DeltaSink, unique_id
from .document import FileState
from .effects import Correction, UnitWrite, files_after
from .errors import StepTimeoutError
from .languages import ANY
from .memory import NO_LESSONS, GlossaryEntry, Lessons, Memory
from .models import call_model, stream_model
from .ports import StepIO
from .qa_profiles import QaProfile
from .step_note import step_note
from .tools.base import MAX_CALLS_PER_RESPONSE, BatchState, Routing, Tool, ToolCall, ToolResult
from .tools.translate import with_references
from .tools.units import with_unit_calls

logger = logging.getLogger(__name__)

Actor = Literal["agent", "user"]
EMPTY_ANSWER = (
    "The model answered with nothing: no text and no proposal. Send a message (for example "
    "“go on with the translation”) to ask it again."
)


@dataclass(frozen=True, kw_only=True)
class AgentLoopOptions:
    """How the loop runs: model, tools, prompts and the model's window."""

    model: Model
    tools: Mapping[str, Tool]
    definitions: Sequence[ToolDefinition] = ()
    """The tools' definitions as the model sees them (built once per process)."""
    system_prompt: str
    batch_chars: int = BATCH_CHARS
    """How much of the next untranslated text the state note shows."""
    settings: ModelSettings | None = None
    window: int = 8
    """How many of the latest messages the model sees at least."""
    chunk: int = 8
    """The window's start moves in steps of this many messages (a stable, cacheable prefix)."""
    time_left: Callable[[], float] | None = None
    """Seconds left in the invocation; None when unbounded."""
    min_model_seconds: float = 20.0
    """The time a model request and the commit need at least."""
    commit_seconds: float = 3.0
    """Kept back from the model for the commit: a model still answering then is abandoned (504)."""
    on_delta: DeltaSink | None = None
    """Where the model's answer goes while it forms (a streamed request); None: one plain request."""
    budget: BudgetGuard | None = None
    """The session's budget: the model request about to be made (its messages and state note) is checked
    against it, BudgetExceededError instead of the request (None: no budget)."""


@dataclass(frozen=True, kw_only=True)
class StepResult:
    """What one step added and what the client must do next."""

    actor: Actor
    messages: Sequence[ModelMessage]
    unprocessed_tool_calls: Sequence[ToolCallPart]
    copilot_requests: Sequence[CopilotRequest]
    finish_reason: FinishReason | None = None
    units: Sequence[UnitWrite] = ()
    corrections: Sequence[Correction] = ()
    called_model: bool = False
    usage: RequestUsage | None = None
    """The model request's usage, when the step called the model."""
    model_ms: int = 0
    """How long the model request took."""
    reviewed: frozenset[str] = frozenset()
    """The calls whose result applied the human's verdict this step."""
    revisions: Sequence[UnitWrite] = ()
    """New texts of written units the human approved this step (Revise)."""
    notice: str | None = None
    """Why the turn is the human's when the step shows nothing to read or review (the model said nothing)."""
    lessons: Lessons = NO_LESSONS
    """What the step's committed Remember calls keep for the owner's memory."""
    stalled: bool = False
    """The model's latest answers were all refused (`agent_core.stall`): the session asks it nothing more
    until a person acts."""


@dataclass(slots=True)
class _Executed:
    batch: BatchState
    returns: list[ToolReturnPart] = field(default_factory=list)
    requests: list[CopilotRequest] = field(default_factory=list)
    units: list[UnitWrite] = field(default_factory=list)
    revisions: list[UnitWrite] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    reviewed: set[str] = field(default_factory=set)
    lessons: Lessons = NO_LESSONS


class AgentLoop:
    """A single-step agent state machine over a Context and a pydantic-ai Model.

    Everything it reads or writes beyond the context goes through `io` (the step's `StepIO`): the
    files' text and segments, written units, the translation memory and the distiller."""

    def __init__(
        self,
        options: AgentLoopOptions,
        context: Context,
        io: StepIO,
        *,
        files: Sequence[FileState],
        memory: Memory,
        languages: str = ANY,
        routing: Routing | None = None,
        target_language: str | None = None,
        qa_profile: QaProfile | None = None,
    ) -> None:
        self.options = options
        self.context = context
        self.io = io
        self._files = {f.file_id: f for f in files}
        self._memory = memory
        """The owner's memory for the session's language pair (the state note's, and the checks')."""
        self._glossary = tuple(memory.glossary)
        self._learned = NO_LESSONS
        """What the step learned before its model request (its Remember calls, its distilled corrections)."""
        self._languages = languages
        self._routing = routing or Routing()
        """The session's auto-approval (a threshold of None: every proposal is reviewed)."""
        self._target_language = target_language
        self._qa_profile = qa_profile

    async def next(self) -> StepResult:
        """Perform exactly one step: execute pending tool calls, then (time allowing) one model request."""
        if pending := self.context.unprocessed_tool_calls():
            executed = await self._execute_pending(pending, self._pending_routing())
            if executed.actor == "user" or not self._time_for_model():
                return executed
            if executed.corrections or executed.lessons:
                await self._learn(executed.corrections, executed.lessons)
            return await self._ask_model(executed)
        self.context.deliver_queued_input()
        if self.context.awaiting_user() or not self.context.messages:
            return self._result("user", messages=[])
        return await self._ask_model(None)

    async def _learn(self, corrections: Sequence[Correction], remembered: Lessons) -> None:
        """What the reviewer just taught (the step's Remember calls, its distilled corrections) reaches the
        step's own model request and checks its proposals already. The step commits it afterwards."""
        found = remembered
        if corrections and self.io.distils:
            try:
                found += await self.io.distill(corrections, languages=self._languages)
            except Exception as exc:  # learning never fails a step; the corrections are kept
                logger.warning("distillation failed", extra={"error": f"{type(exc).__name__}: {exc}"})
        # Only what the memory will keep checks the next proposals: a learned entry for a term the owner
        # has an entry of their own for (same pair) is refused by the memory (the owner's wins).
        owned = {_term_key(g) for g in self._memory.glossary if g.origin == "user" and g.kind != "forbidden"}
        found = replace(found, glossary=tuple(g for g in found.glossary if _term_key(g) not in owned))
        self._learned = found
        terms = {g.source.casefold() for g in found.glossary}
        kept = (g for g in self._glossary if g.source.casefold() not in terms or g.kind == "forbidden")
        self._glossary = (*found.glossary, *kept)

    def _time_for_model(self) -> bool:
        options = self.options
        return options.time_left is None or options.time_left() >= options.min_model_seconds

    async def _ask_model(self, executed: StepResult | None) -> StepResult:
        """The step's one model request, after the returns (if any) this step committed."""
        files = files_after(list(self._files.values()), executed.units if executed else ())
        recalled = await self._recall(files)
        if recalled is not None:  # the translation memory proposes the next units: no model request
            response, tried = recalled
            response = _stamped(response, self._routing)
            self.context.add_messages([response])
            shown = self._finish_execution(tried)
            result = replace(shown, messages=[response, *shown.messages], reviewed=frozenset())
        else:
            options = self.options
            window = self.context.to_model_messages(
                options.system_prompt, "", window=options.window, chunk=options.chunk
            )
            state = await step_note(
                self.io,
                files,
                self.context.messages,
                memory=self._memory,
                learned=self._learned,
                reviewed=reviews_shown(window),
                batch_chars=options.batch_chars,
                target_language=self._target_language,
            )
            request = with_state(window, state)
            if options.budget is not None:
                options.budget.check(request, state)
            started = time.perf_counter()
            answer = with_unit_calls(_unique_call_ids(await self._request_model(request)))
            response = _stamped(answer, self._routing)
            elapsed = int((time.perf_counter() - started) * 1000)
            self.context.add_messages([response])
            actor: Actor = "agent" if response.tool_calls else "user"
            result = self._result(actor, messages=[response], finish_reason=response.finish_reason, called=True)
            if not response.tool_calls and not (response.text or "").strip():
                result = replace(result, notice=EMPTY_ANSWER)
            if response.tool_calls:  # the proposals' reviews go out with this answer: no second request
                self._files = {f.file_id: f for f in files}
                shown = await self._execute_pending(list(response.tool_calls), self._routing)
                result = replace(shown, messages=[response, *shown.messages], reviewed=frozenset(), called_model=True)
                result = replace(result, finish_reason=response.finish_reason)
            result = replace(result, usage=response.usage, model_ms=elapsed)
        if executed is None:
            return result
        return replace(
            result,
            messages=[*executed.messages, *result.messages],
            units=[*executed.units, *result.units],  # the latter: proposals the session's routing approved
            revisions=executed.revisions,
            corrections=executed.corrections,
            reviewed=executed.reviewed,
            lessons=executed.lessons + result.lessons,
        )

    async def _recall(self, files: list[FileState]) -> tuple[ModelResponse, _Executed] | None:
        """The translation memory's proposals for the next units, executed (once), if any of them
        reaches the reviewer or is written (the session's routing approved it).

        A batch whose every call Translate refuses (a remembered target it cannot propose) is not
        made: committed, it would end the step with nothing asked and no model request, and the
        next step would recall the same batch again, forever. The model translates instead.
        """
        recalled = await self.io.recall(files)
        if recalled is None:
            return None
        before = self._files
        self._files = {f.file_id: f for f in files}  # the units this step wrote come first
        tried = await self._execute(list(recalled.tool_calls), self._routing)
        if tried.requests or tried.units:
            return recalled, tried
        self._files = before
        return None

    async def pending_and_decided(self) -> tuple[list[CopilotRequest], list[UnitWrite]]:
        """The reviews the pending calls need now, and the units their recorded verdicts (or the session's
        routing) will write when the batch's last review is answered (no model request, nothing written)."""
        pending = self.context.unprocessed_tool_calls()
        if not pending:
            return [], []
        executed = await self._execute(pending, self._pending_routing())
        return executed.requests, executed.units

    def _pending_routing(self) -> Routing:
        """The auto-approval of the pending batch: the one in force when it was proposed, so a change of
        the session's routing applies to later proposals only (the shown cards stay cards)."""
        for message in reversed(self.context.messages):
            if isinstance(message, ModelResponse):
                return _routing_of(message, self._routing)
        return self._routing

    async def _execute_pending(self, pending: list[ToolCallPart], routing: Routing) -> StepResult:
        return self._finish_execution(await self._execute(pending, routing))

    def _finish_execution(self, executed: _Executed) -> StepResult:
        """The executed calls' result: the reviews they need, or their returns (committed with the step)."""
        reviewed = frozenset(executed.reviewed)
        if executed.requests:
            # Returns are committed only when every pending call can finish without the human.
            return replace(self._result("user", messages=[], requests=executed.requests), reviewed=reviewed)
        request = _returns_request(executed.returns, self.context)
        self.context.add_messages([request])
        result = self._result("agent", messages=[request], units=executed.units, corrections=executed.corrections)
        return replace(result, revisions=executed.revisions, reviewed=reviewed, lessons=executed.lessons)

    async def _execute(self, calls: list[ToolCallPart], routing: Routing) -> _Executed:
        """Run each call in order; units of one response follow each other (shared batch); `routing` is
        the batch's auto-approval."""
        batch = BatchState(
            files=self._files,
            io=self.io,
            glossary=self._glossary,
            corrections=self._memory.corrections,
            languages=self._languages,
            routing=routing,
            target_language=self._target_language,
            qa_profile=self._qa_profile,
        )
        executed = _Executed(batch=batch)
        for index, call in enumerate(calls):
            outcome = await self._execute_one(call, executed.batch, index)
            if isinstance(outcome, CopilotRequest):
                executed.requests.append(outcome)
                continue
            executed.returns.append(
                ToolReturnPart(call.tool_name, outcome.content, tool_call_id=call.tool_call_id, outcome=outcome.outcome)
            )
            executed.units.extend(outcome.units)
            executed.revisions.extend(outcome.revisions)
            executed.corrections.extend(outcome.corrections)
            executed.lessons += outcome.lessons
            if outcome.reviewed:
                executed.reviewed.add(call.tool_call_id)
        if executed.requests:  # one lookup for the whole batch's cards, not one per card
            await self.io.prefetch([r.src_string for r in executed.requests if r.origin == "model"])
            executed.requests = [await with_references(r, self.io.similar) for r in executed.requests]
        return executed

    async def _execute_one(self, call: ToolCallPart, batch: BatchState, index: int) -> CopilotRequest | ToolResult:
        # A failed call's content is a plain message: the provider adapter encodes it once.
        tool = self.options.tools.get(call.tool_name)
        if tool is None:
            known = ", ".join(self.options.tools)
            return ToolResult(content=f"Unknown tool {call.tool_name!r}. The tools are: {known}.", outcome="failed")
        if index >= MAX_CALLS_PER_RESPONSE:
            message = f"At most {MAX_CALLS_PER_RESPONSE} tool calls per response; call this again."
            return ToolResult(content=message, outcome="failed")
        try:
            args = call.args_as_dict()
        except ValueError:
            args = {"INVALID_JSON": ""}
        if set(args) == {"INVALID_JSON"}:  # pydantic-ai keeps unparsable arguments under this key
            message = (
                f"The arguments of this {call.tool_name} call are not valid JSON (cut off, perhaps: the response "
                "may have reached its length limit). Send the call again, complete; propose fewer units at once."
            )
            return ToolResult(content=message, outcome="failed")
        invocation = ToolCall(name=call.tool_name, call_id=call.tool_call_id, args=args, batch=batch)
        return await tool.execute(invocation, self.context.copilot_response(call.tool_call_id))

    async def _request_model(self, messages: list[ModelMessage]) -> ModelResponse:
        options = self.options
        time_left = options.time_left() if options.time_left else None
        if time_left is not None and time_left < options.min_model_seconds:
            raise StepTimeoutError(
                f"Only {time_left:.0f}s left in this invocation; not enough to call the model "
                "and commit. Nothing changed; send the same request again."
            )
        definitions = list(options.definitions) or [tool.definition for tool in options.tools.values()]
        params = ModelRequestParameters(function_tools=definitions, allow_text_output=True)
        # A model still answering when only the commit's time is left is abandoned: the step then
        # fails cleanly (nothing committed, 504) instead of being cut off by the invocation's end.
        budget = None if time_left is None else max(0.0, time_left - options.commit_seconds)
        try:
            if options.on_delta is None:
                asked = call_model(options.model, messages, options.settings, params, timeout=budget)
            else:
                asked = stream_model(
                    options.model, messages, options.settings, params, on_delta=options.on_delta, timeout=budget
                )
            return await asyncio.wait_for(asked, budget)
        except TimeoutError as error:
            if budget is None:
                raise
            raise StepTimeoutError(
                f"The model did not answer within the {budget:.0f}s this invocation had left. "
                "Nothing changed; send the same request again."
            ) from error

    def _result(
        self,
        actor: Actor,
        *,
        messages: Sequence[ModelMessage],
        requests: Sequence[CopilotRequest] = (),
        finish_reason: FinishReason | None = None,
        units: Sequence[UnitWrite] = (),
        corrections: Sequence[Correction] = (),
        called: bool = False,
    ) -> StepResult:
        return StepResult(
            actor=actor,
            messages=list(messages),
            unprocessed_tool_calls=self.context.unprocessed_tool_calls(),
            copilot_requests=list(requests),
            finish_reason=finish_reason,
            units=units,
            corrections=corrections,
            called_model=called,
        )


AUTO_APPROVE_KEY = "autoApprove"
"""Where a batch's response keeps the auto-approval threshold it was proposed under (its `metadata`,
which is stored with the message and never sent to the model)."""
AUTO_SAMPLE_KEY = "autoSample"
"""Beside it, the share of the approvals that share went to a person instead (absent: none)."""
PRETRANSLATE_KEY = "pretranslate"
"""Beside it, true when the batch was proposed in a pre-translation (every proposal written without a card)."""


def _term_key(entry: GlossaryEntry) -> str:
    """An entry's term, case and spacing ignored: what the memory keeps one entry of per language pair."""
    return " ".join(entry.source.split()).casefold()


def _stamped(response: ModelResponse, routing: Routing) -> ModelResponse:
    """The response with the routing its proposals are routed by (see `AgentLoop._pending_routing`)."""
    stamp: dict[str, object] = {AUTO_APPROVE_KEY: routing.threshold}
    if routing.sample:
        stamp[AUTO_SAMPLE_KEY] = routing.sample
    if routing.pretranslate:
        stamp[PRETRANSLATE_KEY] = True
    return replace(response, metadata={**(response.metadata or {}), **stamp})


def _routing_of(response: ModelResponse, default: Routing) -> Routing:
    """The routing the response was stamped with; `default` for one made without (not by this loop)."""
    metadata = response.metadata or {}
    if AUTO_APPROVE_KEY not in metadata:
        return default
    threshold = metadata[AUTO_APPROVE_KEY]
    sample = metadata.get(AUTO_SAMPLE_KEY, 0.0)
    return Routing(
        threshold=threshold if isinstance(threshold, int) else None,
        sample=float(sample) if isinstance(sample, (int, float)) else 0.0,
        pretranslate=metadata.get(PRETRANSLATE_KEY) is True,
    )


def _unique_call_ids(response: ModelResponse) -> ModelResponse:
    """The response with a repeated tool-call id made unique, so every call gets its own review."""
    seen: set[str] = set()
    parts = []
    for part in response.parts:
        if isinstance(part, ToolCallPart):
            call_id = unique_id(part.tool_call_id, seen)  # as a streamed proposal named it
            if call_id != part.tool_call_id:
                part = replace(part, tool_call_id=call_id)
        parts.append(part)
    return replace(response, parts=parts)


def _returns_request(returns: list[ToolReturnPart], context: Context) -> ModelRequest:
    """All of a step's returns in ONE request, with user input that arrived meanwhile."""
    return ModelRequest(parts=[*returns, *context.take_deferred_input()])
