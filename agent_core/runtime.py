"""One step against the ports: load, apply the request, `AgentLoop.next()`, commit.

This is the seeds' AgentRuntime written against `SessionStore`, so the HTTP API, a command-line
client or a test reuse it unchanged. It owns the per-session rules of what may run when.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings

from .context import Context, Verdict
from .copilot import CopilotRequest
from .distill import Distiller, RuleDistiller
from .document import FileState, add_span
from .errors import CopilotMismatchError, InvalidRequestError, ReviewPendingError
from .ids import new_id
from .languages import task_languages
from .learning import Learner
from .loop import Actor, AgentLoop, AgentLoopOptions, StepResult
from .memory import render_memory
from .ports import MemoryStore, Remembered, SessionSnapshot, SessionStore, StepCommit, Telemetry
from .prompts import progress_note, system_prompt
from .tools.base import Tool
from .tools.read import ReadTool
from .tools.translate import TranslateTool

HEAD_CHARS = 80
"""How much of each file's next untranslated text the progress note quotes."""
RELEVANCE_CHARS = 2_000
"""How much of each file's next untranslated text decides which glossary entries the prompt shows."""


def default_tools() -> dict[str, Tool]:
    """The translator's tools: Read and Translate."""
    return {"Read": ReadTool(), "Translate": TranslateTool()}


@dataclass(frozen=True, kw_only=True)
class Idempotency:
    """A request's idempotency key: its answer is rendered and committed with the step."""

    key: str
    request_hash: str
    render: Callable[[StepOutcome], str]
    """Serialises the step's outcome as the client will receive it."""


@dataclass(frozen=True, kw_only=True)
class StepInput:
    """What the client sent with this step (at most one of the two)."""

    user_input: str | None = None
    copilot_responses: Sequence[Verdict] = ()
    time_left: Callable[[], float] | None = None
    idempotency: Idempotency | None = None


@dataclass(frozen=True, kw_only=True)
class StepOutcome:
    """The step's result, with the session's id and its files after the step."""

    session_id: str
    result: StepResult
    files: Sequence[FileState]


class AgentRuntime:
    """Runs one step of a session against a SessionStore; learns from its corrections after the commit.

    With a `memory` port, the corrections a step commits are distilled (by `distiller`, the
    deterministic rules unless another is given) into the owner's memory right after the commit;
    without one, nothing is learned beyond the corrections themselves.
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        model: Model,
        tools: Mapping[str, Tool] | None = None,
        settings: ModelSettings | None = None,
        window: int = 12,
        memory: MemoryStore | None = None,
        distiller: Distiller | None = None,
        min_model_seconds: float = 20.0,
    ) -> None:
        self.store = store
        self.model = model
        self.tools = dict(tools) if tools is not None else default_tools()
        self.settings = settings
        self.window = window
        self.min_model_seconds = min_model_seconds
        self.learner = Learner(memory=memory, distiller=distiller or RuleDistiller()) if memory is not None else None

    async def step(self, owner: str, session_id: str | None, request: StepInput) -> StepOutcome:
        """Load, apply, next, commit: exactly one step; a failure commits nothing."""
        if session_id is None:
            snapshot = await self.store.new_step(owner, new_id("s"))
        else:
            snapshot = await self.store.load_step(owner, session_id)
        loop = await self._loop(snapshot, request)
        reviews = await loop.pending_copilot_requests()
        if request.user_input is not None and reviews:
            raise ReviewPendingError(
                f"{len(reviews)} proposed unit(s) await your review; answer them before sending new input."
            )
        verdicts = _accept_verdicts(loop.context, reviews, snapshot, request.copilot_responses)
        if request.user_input is not None:
            loop.context.add_user_input(request.user_input)
        # The step's messages include the user's input it committed, not only the model's answer.
        result = replace(await loop.next(), messages=loop.context.new_messages)
        outcome = StepOutcome(session_id=snapshot.session_id, result=result, files=_files_after(snapshot.files, result))
        key = request.idempotency
        remembered = Remembered(key=key.key, request_hash=key.request_hash, body=key.render(outcome)) if key else None
        nothing_new = snapshot.version > 0 and not result.messages and not verdicts
        if not nothing_new:
            commit = _commit(snapshot, loop.context, result, verdicts)
            await self.store.commit_step(replace(commit, remembered=remembered))
            if self.learner is not None and result.corrections:
                languages = _languages(snapshot, request)
                await self.learner.after_commit(
                    snapshot.owner, result.corrections, languages=languages, time_left=request.time_left
                )
        elif remembered is not None:
            await self.store.remember(snapshot.owner, remembered)
        return outcome

    async def pending_reviews(self, owner: str, session_id: str) -> tuple[Actor, list[CopilotRequest]]:
        """Whose turn it is and the copilot requests the human must answer now (to restore a view)."""
        snapshot = await self.store.load_step(owner, session_id)
        loop = await self._loop(snapshot, StepInput())
        requests = await loop.pending_copilot_requests()
        context = loop.context
        waiting = requests or context.awaiting_user() or not context.messages
        return ("user" if waiting else "agent"), requests

    async def _loop(self, snapshot: SessionSnapshot, request: StepInput) -> AgentLoop:
        ahead = {
            f.file_id: await snapshot.reader.read_text(f.file_id, gap[0], gap[0] + RELEVANCE_CHARS)
            for f in snapshot.files
            if (gap := f.next_gap()) is not None
        }
        heads = {file_id: text[:HEAD_CHARS] for file_id, text in ahead.items()}
        memory = snapshot.memory.for_languages(_languages(snapshot, request))
        rendered = render_memory(memory, text="\n".join(ahead.values()))
        options = AgentLoopOptions(
            model=self.model,
            tools=self.tools,
            system_prompt=system_prompt(snapshot.files, memory=rendered),
            progress_note=progress_note(snapshot.files, heads),
            settings=self.settings,
            window=self.window,
            time_left=request.time_left,
            min_model_seconds=self.min_model_seconds,
        )
        context = Context(
            snapshot.window,
            complete=snapshot.window_complete,
            user_inputs=snapshot.user_inputs,
            copilot_responses=snapshot.copilot_responses,
        )
        return AgentLoop(options, context, files=snapshot.files, reader=snapshot.reader, glossary=memory.glossary)


def _languages(snapshot: SessionSnapshot, request: StepInput) -> str:
    """The session's language pair, from its first user input (this step's, for a new session)."""
    first = snapshot.user_inputs[0] if snapshot.user_inputs else request.user_input or ""
    return task_languages(first)


def _accept_verdicts(
    context: Context,
    reviews: Sequence[CopilotRequest],
    snapshot: SessionSnapshot,
    responses: Sequence[Verdict],
) -> list[Verdict]:
    """The verdicts to store: each must answer a pending review; an identical repeat is harmless."""
    ids = [r.tool.call_id for r in responses]
    if len(ids) != len(set(ids)):
        raise InvalidRequestError("copilotResponses names the same callId more than once.")
    stored = {r.tool.call_id: r for r in snapshot.copilot_responses}
    unprocessed = {c.tool_call_id: c.tool_name for c in context.unprocessed_tool_calls()}
    reviewable = {r.tool.call_id: r.tool.name for r in reviews}
    reviewable.update((cid, unprocessed[cid]) for cid in stored if cid in unprocessed)
    accepted: list[Verdict] = []
    for response in responses:
        call_id = response.tool.call_id
        if stored.get(call_id) == response:
            continue
        if call_id not in reviewable:
            raise CopilotMismatchError(f"No pending review has callId {call_id!r}; reload the session.")
        if reviewable[call_id] != response.tool.name:
            raise CopilotMismatchError(f"Call {call_id!r} is a {reviewable[call_id]} call, not {response.tool.name}.")
        accepted.append(response)
    context.add_copilot_responses(accepted)
    return accepted


def _commit(snapshot: SessionSnapshot, context: Context, result: StepResult, verdicts: list[Verdict]) -> StepCommit:
    latest = None
    for index in range(len(snapshot.window) - 1, -1, -1):
        if isinstance(snapshot.window[index], ModelResponse):
            latest = snapshot.message_count - len(snapshot.window) + index
            break
    coverage = {f.file_id: f.covered for f in _files_after(snapshot.files, result)}
    touched = {u.file_id for u in result.units}
    return StepCommit(
        session_id=snapshot.session_id,
        owner=snapshot.owner,
        expected_version=snapshot.version,
        created_at=snapshot.created_at or datetime.now(UTC).isoformat(),
        messages=context.new_messages,
        message_count=snapshot.message_count,
        copilot_responses=verdicts,
        response_index=-1 if latest is None else latest,
        units=result.units,
        corrections=result.corrections,
        coverage={fid: coverage[fid] for fid in touched},
        user_inputs=context.user_inputs,
        telemetry=Telemetry(
            steps=1,
            model_requests=int(result.called_model),
            input_tokens=result.usage.input_tokens if result.usage else 0,
            output_tokens=result.usage.output_tokens if result.usage else 0,
            model_ms=result.model_ms,
        ),
    )


def _files_after(files: Sequence[FileState], result: StepResult) -> list[FileState]:
    updated = {f.file_id: f for f in files}
    for unit in result.units:
        f = updated[unit.file_id]
        updated[unit.file_id] = FileState(
            file_id=f.file_id, name=f.name, chars=f.chars, covered=add_span(f.covered, unit.start, unit.cover_end)
        )
    return [updated[f.file_id] for f in files]
