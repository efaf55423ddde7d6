"""One step against the ports, as named stages: load → accept → advance → commit → learn.

This is the seeds' AgentRuntime written against `SessionStore` and `MemoryStore`, so the HTTP API,
the terminal client or a test reuse it unchanged. It owns the per-session rules of what may run
when. A caller that must keep the answer with the step (an idempotency key) splits the step in two:
`prepare` (load, accept, advance: nothing is written) and `finish` (commit, learn), rendering the
answer in between; `step` does both.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import cast

from pydantic_ai.settings import ModelSettings

from .ahead import BATCH_CHARS
from .budget import BudgetGuard, Price
from .catalog import ModelCatalog
from .context import Context
from .copilot import CopilotRequest
from .deltas import DeltaSink
from .distill import Distiller, distiller_for
from .document import FileState
from .effects import (
    SessionSnapshot,
    StepEffects,
    StepToken,
    StoredAnswer,
    Telemetry,
    UnitWrite,
    Verdict,
    awaiting_review,
    check_queue,
    files_after,
)
from .errors import (
    ConflictError,
    InvalidRequestError,
    ModelAnswerTooLargeError,
    NotFoundError,
    ReviewMismatchError,
    TooLargeError,
)
from .estimate import estimate_tokens
from .ids import new_id
from .languages import task_languages
from .learning import Learner
from .loop import Actor, AgentLoop, AgentLoopOptions, StepResult
from .memory import NO_LESSONS, Lessons, Memory
from .ports import MemoryStore, SessionStore, StepIO, TranslationMemoryPort
from .prompts import system_prompt
from .qa_profiles import stored_profile
from .stall import STALLED, stalled
from .step_io import PortsStepIO
from .tools.base import Routing, Tool
from .tools.read import ReadTool
from .tools.remember import RememberTool
from .tools.revise import ReviseTool
from .tools.translate import TranslateTool

logger = logging.getLogger(__name__)
UNKNOWN_OWNER = ""
"""`memory_owner` when the session is likely another owner's, not known whose (`_load`)."""
REBASES = 3
"""How many times a step's commit is made again over requests that changed nothing it read (`_commit`)."""


def default_tools() -> dict[str, Tool]:
    """The translator's tools: Read, Translate, Revise and Remember."""
    return {"Read": ReadTool(), "Translate": TranslateTool(), "Revise": ReviseTool(), "Remember": RememberTool()}


@dataclass(frozen=True, kw_only=True)
class StepInput:
    """What the client sent with this step (at most one of the two)."""

    user_input: str | None = None
    copilot_responses: Sequence[Verdict] = ()
    time_left: Callable[[], float] | None = None
    """Seconds left in the invocation; None when unbounded."""
    on_delta: DeltaSink | None = None
    """Where the model's answer goes while it forms (a streamed request); None: not streamed."""
    expect_version: int | None = None
    """The session's version the request was made against (ConflictError, before anything runs, if it moved)."""
    resume: bool = False
    """Ask the model even though its latest answers were all refused (`agent_core.stall`): a person changed
    the session's settings since it stopped."""
    by: str | None = None
    """The person deciding the step's verdicts when the step runs as the session's owner on their behalf
    (a project's member); None: the step's caller. Kept with their verdicts, and so with the units and
    corrections the verdicts make, whichever step executes them."""


@dataclass(frozen=True, kw_only=True)
class StepOutcome:
    """The step's result, with the session's id and its files after the step."""

    session_id: str
    result: StepResult
    files: Sequence[FileState]
    language: str | None = None
    """The session's target language (BCP 47), for metrics per language."""
    cost_micro_usd: int = 0
    """What the step's model request cost, at its model's price."""


@dataclass(frozen=True, kw_only=True)
class PreparedStep:
    """A step that has run but not committed: what it will write and what it will answer."""

    outcome: StepOutcome
    token: StepToken
    effects: StepEffects
    languages: str
    time_left: Callable[[], float] | None
    queued: bool = False
    """The user's input was queued: reviews are pending."""
    lessons: Lessons = NO_LESSONS
    """What the step's Remember calls keep, for the owner's memory once the step commits."""
    io: StepIO | None = None
    """The step's I/O: its distiller learns from the step's corrections after the commit (what it
    distilled before the model request, not distilled again)."""
    basis: tuple[object, ...] = ()
    """What the step read of the session besides its token (`_basis`): a commit lost to another
    request is made again over it only while this is unchanged."""


Admit = Callable[[SessionSnapshot], Awaitable[None]]
"""Lets a caller into a session that is not their own, or raises (NotFoundError, or the service's own
refusal): the step then acts for the session's owner, with that owner's memory."""


@dataclass(frozen=True, kw_only=True)
class _Loaded:
    snapshot: SessionSnapshot
    memory: Memory


class AgentRuntime:
    """Runs one step of a session against the ports; learns from its corrections after the commit.

    With a `memory` port, what a step's committed `Remember` calls keep goes to the owner's memory
    right after the commit, with what `distiller` (if any: the rules, for the offline `pseudo`
    model, which calls no Remember) learns from the step's corrections. Learning makes no model
    request of its own.
    """

    def __init__(
        self,
        store: SessionStore,
        *,
        models: ModelCatalog,
        memory: MemoryStore,
        tm: TranslationMemoryPort | None = None,
        tools: Mapping[str, Tool] | None = None,
        settings: ModelSettings | None = None,
        window: int = 2,
        chunk: int = 8,
        batch_chars: int = BATCH_CHARS,
        distiller: Distiller | None = None,
        min_model_seconds: float = 20.0,
        memory_proposals: bool = True,
    ) -> None:
        self.store = store
        self.memory = memory
        self.tm = tm
        """Where reviewed units are remembered."""
        self.lookups = tm if memory_proposals else None
        """Where remembered units are proposed from and similar ones shown (None: `memory_proposals`
        off; units are remembered either way)."""
        self.models = models
        """The configured models; each session translates with its own (`SessionSnapshot.model`)."""
        self.tools = dict(tools) if tools is not None else default_tools()
        self.definitions = [tool.definition for tool in self.tools.values()]
        """Built once: byte-identical in every request, the start of the cacheable prefix."""
        self._definition_tokens = estimate_tokens(json.dumps([dataclasses.asdict(d) for d in self.definitions]))
        self.settings = settings
        self.window = window
        self.chunk = chunk
        self.batch_chars = batch_chars
        self.min_model_seconds = min_model_seconds
        self.distiller = distiller
        """Learns from corrections without a model request; None: the rules for the `pseudo` model,
        nothing for a real one (it learns with Remember)."""
        self.learner = Learner(memory=memory)

    def distiller_of(self, model: str | None) -> Distiller | None:
        """What learns from corrections without a model request in a session of `model`: the one
        given, else the rules for the `pseudo` model (a real one learns with Remember)."""
        return self.distiller or distiller_for(self.models.model(model))

    async def step(self, owner: str, session_id: str | None, request: StepInput) -> StepOutcome:
        """Exactly one step; a failure commits nothing."""
        prepared = await self.prepare(owner, session_id, request)
        await self.finish(prepared)
        return prepared.outcome

    async def prepare(
        self,
        owner: str,
        session_id: str | None,
        request: StepInput,
        *,
        admit: Admit | None = None,
        memory_owner: str | None = None,
    ) -> PreparedStep:
        """Load, accept the request, advance the loop: the step's effects and answer, nothing written.
        A session that is not `owner`'s is not found, unless `admit` lets the caller in (`Admit`);
        `memory_owner`: whose memory to read beside the session (its owner, when the caller knows it)."""
        loaded = await self._load(owner, session_id, admit=admit, memory_owner=memory_owner)
        if request.expect_version is not None and loaded.snapshot.token.version != request.expect_version:
            raise ConflictError("The session changed since the reviews were read; reload them and try again.")
        languages = _languages(loaded.snapshot, request)
        loop = self._loop(loaded, languages, request.time_left, request.on_delta)
        calls_pending = bool(loop.context.unprocessed_tool_calls())
        snapshot = loaded.snapshot
        if request.user_input is None and not calls_pending and not request.resume and stalled(loop.context.messages):
            return self._stopped(snapshot, languages)
        person = request.by if request.by is not None else owner
        verdicts = _accept(loop.context, loaded.snapshot, request, person)
        advanced = await loop.next()
        return await self._prepared(loop, snapshot, request, languages, verdicts, advanced, calls_pending)

    async def _prepared(
        self,
        loop: AgentLoop,
        snapshot: SessionSnapshot,
        request: StepInput,
        languages: str,
        verdicts: Sequence[Verdict],
        advanced: StepResult,
        calls_pending: bool,
    ) -> PreparedStep:
        """The advanced loop's effects and answer; the verdicts must each have answered a review it executed."""
        for verdict in verdicts:
            if verdict.tool.call_id not in advanced.reviewed:
                raise ReviewMismatchError(f"No pending review has callId {verdict.tool.call_id!r}; reload the session.")
        # The step's messages include the user's input it committed, not only the model's answer.
        result = replace(advanced, messages=loop.context.new_messages)
        if result.called_model and stalled(loop.context.messages):
            result = replace(result, actor="user", notice=STALLED, stalled=True)
        if request.user_input is not None and calls_pending and result.copilot_requests:
            return self._queued(snapshot, request.user_input, result, languages)
        if snapshot.second_review:
            result = replace(result, units=awaiting_review(result.units), revisions=awaiting_review(result.revisions))
        files = files_after(snapshot.files, result.units)
        effects = _effects(snapshot, files, loop.context, result, list(verdicts), self.models.price(snapshot.model))
        # What nobody reviewed (approved by the session's routing) is not remembered as the owner's.
        entries, added = await loop.io.admit([u for u in [*result.units, *result.revisions] if not u.auto])
        if entries:
            effects = replace(effects, memory=entries, memory_added=added)
        return PreparedStep(
            outcome=StepOutcome(
                session_id=snapshot.token.session_id,
                result=result,
                files=files,
                language=snapshot.target_language,
                cost_micro_usd=effects.telemetry.cost_micro_usd,
            ),
            token=snapshot.token,
            effects=effects,
            languages=languages,
            time_left=request.time_left,
            lessons=result.lessons,
            io=loop.io,
            basis=_basis(snapshot),
        )

    def _queued(self, snapshot: SessionSnapshot, text: str, result: StepResult, languages: str) -> PreparedStep:
        """User input while reviews are pending: kept for the next model request, the reviews unchanged
        (InvalidRequestError past the queue's cap: check_queue)."""
        check_queue(snapshot.queued_inputs, text)
        shown = replace(result, actor="user", messages=[], units=(), revisions=(), corrections=(), called_model=False)
        return PreparedStep(
            outcome=StepOutcome(session_id=snapshot.token.session_id, result=shown, files=snapshot.files),
            token=snapshot.token,
            effects=StepEffects(queued_inputs=[*snapshot.queued_inputs, text], telemetry=Telemetry(steps=1)),
            languages=languages,
            time_left=None,
            queued=True,
        )

    def _stopped(self, snapshot: SessionSnapshot, languages: str) -> PreparedStep:
        """A step of a session whose model keeps breaking the rules: no model request, nothing written,
        the turn the user's with the reason (`agent_core.stall`)."""
        result = StepResult(
            actor="user", messages=[], unprocessed_tool_calls=[], copilot_requests=[], notice=STALLED, stalled=True
        )
        return PreparedStep(
            outcome=StepOutcome(session_id=snapshot.token.session_id, result=result, files=snapshot.files),
            token=snapshot.token,
            effects=StepEffects(),
            languages=languages,
            time_left=None,
        )

    async def finish(self, prepared: PreparedStep, *, answer: StoredAnswer | None = None) -> None:
        """Commit the prepared step (with `answer`, in the same transaction), then learn from it."""
        token, effects = prepared.token, prepared.effects
        if token.version > 0 and effects.empty:
            if answer is not None:  # nothing to commit, but the retry must still find its answer
                await self.store.keep_answer(token.session_id, answer)
            return
        try:
            token = await self._commit(prepared, answer)
        except ConflictError:
            if prepared.outcome.result.called_model:  # another step committed first: this one's request is billed
                await self._spent_anyway(token, effects.telemetry)
            raise
        except TooLargeError as exc:
            if not prepared.outcome.result.called_model:
                raise
            detail = str(exc).split(";", 1)[0]  # the store's words without its advice to the caller
            raise ModelAnswerTooLargeError(detail, batch_chars=self.batch_chars) from exc
        if self.tm is not None and effects.memory:
            self.tm.kept(token.owner, effects.memory)
        if effects.corrections or prepared.lessons:
            io = prepared.io
            await self.learner.after_commit(
                io if io is not None and io.distils else None,
                token.owner,
                effects.corrections,
                lessons=prepared.lessons,
                languages=prepared.languages,
                time_left=prepared.time_left,
            )

    async def _commit(self, prepared: PreparedStep, answer: StoredAnswer | None) -> StepToken:
        """Commit the step; the token it committed over. A commit that lost to a request that changed
        nothing the step read (a member's revision or review of written units beside it: the version
        moved, the messages, verdicts, coverage and settings did not) is made again over it, REBASES
        times at most, so a reviewer at work never costs the driver's step its model request."""
        token = prepared.token
        for attempt in range(REBASES + 1):
            try:
                await self.store.commit(token, prepared.effects, answer=answer)
                return token
            except ConflictError:
                if attempt == REBASES or token.version == 0 or not prepared.basis:
                    raise
                fresh = await self.store.load(token.session_id, window=self.window + self.chunk + 2)  # as a step
                moved = fresh.token
                if moved.version == token.version or replace(moved, version=token.version) != token:
                    raise
                if _basis(fresh) != prepared.basis:
                    raise
                token = moved
        raise AssertionError("unreachable")

    async def _spent_anyway(self, token: StepToken, spent: Telemetry) -> None:
        """A step that lost its commit (another step of the session committed first) still paid for its
        model request: that is added to the session's spending, so a budget counts what the provider
        billed under parallel steps. Best effort: the commit's own error is the answer."""
        if token.version == 0:
            return  # the session was never created: there is nothing to count against
        try:
            await self.store.add_spent(token.session_id, replace(spent, steps=0))
        except Exception:
            logger.warning("a lost step's spending was not recorded", exc_info=True)

    async def pending_reviews(
        self, owner: str, session_id: str, *, snapshot: SessionSnapshot | None = None
    ) -> tuple[Actor, list[CopilotRequest]]:
        """Whose turn it is and the copilot requests the human must answer now (to restore a view);
        `snapshot` is the session as the caller loaded it (a window at least a step's), not read again."""
        actor, requests, _ = await self.pending_and_decided(owner, session_id, snapshot=snapshot)
        return actor, requests

    async def pending_and_decided(
        self, owner: str, session_id: str, *, snapshot: SessionSnapshot | None = None
    ) -> tuple[Actor, list[CopilotRequest], list[UnitWrite]]:
        """`pending_reviews`, and the units of the batch already decided (a verdict given, or approved by the
        session's routing) that are written with the batch's last verdict."""
        loaded = await self._load(owner, session_id, snapshot)
        loop = self._loop(loaded, _languages(loaded.snapshot, StepInput()), None)
        requests, decided = await loop.pending_and_decided()
        if loaded.snapshot.second_review:
            decided = awaiting_review(decided)
        context = loop.context
        waiting = requests or context.awaiting_user() or not context.messages or stalled(context.messages)
        return ("user" if waiting else "agent"), requests, (decided if requests else [])

    # -- stages ------------------------------------------------------------------------------

    async def _load(
        self,
        owner: str,
        session_id: str | None,
        loaded: SessionSnapshot | None = None,
        *,
        admit: Admit | None = None,
        memory_owner: str | None = None,
    ) -> _Loaded:
        """The session (a new one when no id is given; `loaded` when the caller read it), the owner's
        memory: the session's read beside the owner's (its memory, then its
        translation memory's). A session of another owner that `admit` lets in is the session's
        owner's, with that owner's memory: read beside the session when `memory_owner` named that
        owner, else beside the admission; `memory_owner` UNKNOWN_OWNER: the caller knows the session
        is likely another's but not whose, so no memory is read beside it (a read that would be
        wasted), only after it."""
        guess = memory_owner or owner
        speculate = memory_owner != UNKNOWN_OWNER

        async def owners(whose: str = guess) -> Memory:
            memory = await self.memory.recall(whose)
            if self.lookups is not None:
                await self.lookups.refresh(whose)
            return memory

        if session_id is None:
            session_id = new_id("s")
            token = StepToken(session_id=session_id, owner=owner, version=0, created_at=_now(), message_count=0)
            snapshot = SessionSnapshot(
                token=token, window=[], window_complete=True, user_inputs=[], copilot_responses=[], files=[]
            )
            memory = await owners()
        elif loaded is not None:  # the step's window of it: what a load of that window reads
            size = self.window + self.chunk + 2
            snapshot = replace(
                loaded,
                window=loaded.window[-size:],
                window_complete=loaded.window_complete and len(loaded.window) <= size,
            )
            memory = await owners()
        elif speculate:  # the session's read and the owner's side by side (reading the caller's is harmless)
            snapshot, memory = await asyncio.gather(
                self.store.load(session_id, window=self.window + self.chunk + 2), owners()
            )
        else:
            snapshot, memory = await self.store.load(session_id, window=self.window + self.chunk + 2), None
        if snapshot.token.owner != owner:  # another caller's session is not found, like a missing one
            if admit is None:
                raise NotFoundError(f"No session {session_id}.")
            if snapshot.token.owner == guess and memory is not None:
                await admit(snapshot)
            else:
                _, memory = await asyncio.gather(admit(snapshot), owners(snapshot.token.owner))
        elif guess != owner or memory is None:  # the guess was another's: the caller's own memory, after all
            memory = await owners(owner)
        assert memory is not None
        return _Loaded(snapshot=snapshot, memory=memory)

    def _loop(
        self, loaded: _Loaded, languages: str, time_left: Callable[[], float] | None, on_delta: DeltaSink | None = None
    ) -> AgentLoop:
        """The step's loop over its context, with its I/O (`StepIO`) bound to the session and its owner."""
        snapshot = loaded.snapshot
        session_id, owner = snapshot.token.session_id, snapshot.token.owner
        io = PortsStepIO(
            store=self.store,
            reader=self.store.reader(session_id),
            session_id=session_id,
            owner=owner,
            languages=languages,
            tm=self.tm,
            lookups=self.lookups,
            distiller=self.distiller_of(snapshot.model),
            batch_chars=self.batch_chars,
        )
        budget = (
            BudgetGuard(
                budget=snapshot.budget,
                spent=snapshot.telemetry,
                price=self.models.price(snapshot.model),
                definition_tokens=self._definition_tokens,
            )
            if snapshot.budget
            else None
        )
        options = AgentLoopOptions(
            model=self.models.model(snapshot.model),
            tools=self.tools,
            definitions=self.definitions,
            system_prompt=system_prompt(snapshot.files),
            batch_chars=self.batch_chars,
            settings=self._settings(session_id),
            window=self.window,
            chunk=self.chunk,
            time_left=time_left,
            min_model_seconds=self.min_model_seconds,
            on_delta=on_delta,
            budget=budget,
        )
        context = Context(
            snapshot.window,
            complete=snapshot.window_complete,
            first_index=snapshot.token.message_count - len(snapshot.window),
            hidden_messages=snapshot.token.hidden_messages,
            user_inputs=snapshot.user_inputs,
            copilot_responses=snapshot.copilot_responses,
            queued_inputs=snapshot.queued_inputs,
        )
        return AgentLoop(
            options,
            context,
            io,
            files=snapshot.files,
            memory=loaded.memory.for_languages(languages),
            languages=languages,
            routing=Routing(snapshot.auto_approve, snapshot.auto_sample, snapshot.review == "pretranslate"),
            qa_profile=stored_profile(snapshot.qa_profile),
            target_language=snapshot.target_language or language_tag(languages),
        )

    def _settings(self, session_id: str) -> ModelSettings:
        """The model settings with prompt caching on: pydantic-ai's `cache`, and OpenAI's cache key."""
        settings: dict[str, object] = {"cache": True, "openai_prompt_cache_key": session_id}
        settings.update(self.settings or {})
        return cast(ModelSettings, settings)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def language_tag(languages: str) -> str | None:
    """The BCP 47 tag of a language pair's target (`auto>french` → `fr`), or None when it is not named."""
    from langfacts import bcp47

    target = languages.partition(">")[2]
    return None if target in ("", "*", "unknown") else bcp47(target)


def _languages(snapshot: SessionSnapshot, request: StepInput) -> str:
    """The session's language pair, from its first user input (this step's, for a new session), else its
    target language: a task that names none ("Translate.") is still the session's language's."""
    first = snapshot.user_inputs[0] if snapshot.user_inputs else request.user_input or ""
    return task_languages(first, snapshot.target_language)


def _accept(context: Context, snapshot: SessionSnapshot, request: StepInput, person: str) -> list[Verdict]:
    """The request applied to the context: the new verdicts (checked by call and tool), or the input. Each
    verdict names `person` (`by`) when they are not the session's owner, so the units and corrections it
    makes are theirs even when another member's verdicts complete the response."""
    if request.user_input is not None:
        context.add_user_input(request.user_input)
        return []
    responses = request.copilot_responses
    ids = [r.tool.call_id for r in responses]
    if len(ids) != len(set(ids)):
        raise InvalidRequestError("copilotResponses names the same callId more than once.")
    stored = {r.tool.call_id: r for r in [*snapshot.previous_verdicts, *snapshot.copilot_responses]}
    unprocessed = {c.tool_call_id: c.tool_name for c in context.unprocessed_tool_calls()}
    by = None if person == snapshot.token.owner else person
    accepted: list[Verdict] = []
    for given in responses:
        if given.by is not None and given.by != person:
            raise InvalidRequestError("A verdict's `by` is the caller who sends it; leave it out.")
        response = given.model_copy(update={"by": by})
        call_id = response.tool.call_id
        kept = stored.get(call_id)
        if kept is not None and kept.model_copy(update={"by": by}) == response:
            continue  # sending the identical verdict again is harmless (whoever gave it first)
        if call_id not in unprocessed:
            raise ReviewMismatchError(f"No pending review has callId {call_id!r}; reload the session.")
        if unprocessed[call_id] != response.tool.name:
            raise ReviewMismatchError(f"Call {call_id!r} is a {unprocessed[call_id]} call, not {response.tool.name}.")
        accepted.append(response)
    context.add_copilot_responses(accepted)
    return accepted


def _basis(snapshot: SessionSnapshot) -> tuple[object, ...]:
    """What a step read of the session that its token does not name: the settings and the queue."""
    settings = (snapshot.budget, snapshot.model, snapshot.target_language, snapshot.qa_profile)
    routing = (snapshot.auto_approve, snapshot.auto_sample, snapshot.second_review)
    return (*settings, *routing, tuple(snapshot.queued_inputs), tuple(snapshot.user_inputs))


def _effects(
    snapshot: SessionSnapshot,
    files: Sequence[FileState],
    context: Context,
    result: StepResult,
    verdicts: list[Verdict],
    price: Price | None,
) -> StepEffects:
    coverage = {f.file_id: f.covered for f in files}
    touched = {u.file_id for u in result.units}
    inputs = context.user_inputs
    return StepEffects(
        messages=context.new_messages,
        hidden_messages=context.hidden_new_messages,
        verdicts=verdicts,
        units=result.units,
        revisions=result.revisions,
        corrections=result.corrections,
        coverage={fid: coverage[fid] for fid in touched},
        user_inputs=inputs if list(inputs) != list(snapshot.user_inputs) else None,
        queued_inputs=[] if context.queue_delivered else None,
        telemetry=_telemetry(result, price),
    )


def _telemetry(result: StepResult, price: Price | None) -> Telemetry:
    """What the step cost: its model request's usage, at its model's price."""
    usage = result.usage
    return Telemetry(
        steps=1,
        model_requests=int(result.called_model),
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        model_ms=result.model_ms,
        cached_tokens=usage.cache_read_tokens if usage else 0,
        cost_micro_usd=round(price.cost(usage.input_tokens, usage.output_tokens) * 1e6) if usage and price else 0,
    )
