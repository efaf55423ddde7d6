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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import cast

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse
from pydantic_ai.settings import ModelSettings

from .ahead import BATCH_CHARS, first_block, memory_proposals, next_texts, screen_segments
from .budget import Price, check_budget
from .catalog import ModelCatalog
from .context import Context
from .copilot import CopilotRequest
from .deltas import DeltaSink
from .distill import Distiller, distiller_for
from .document import FileState, add_span
from .effects import (
    Correction,
    SessionSnapshot,
    StepEffects,
    StepToken,
    StoredAnswer,
    Telemetry,
    UnitWrite,
    Verdict,
    check_queue,
)
from .errors import (
    ConflictError,
    InvalidRequestError,
    ModelAnswerTooLargeError,
    NotFoundError,
    ReviewMismatchError,
    TooLargeError,
)
from .estimate import OUTPUT_TOKENS_PER_TOKEN, estimate_tokens
from .ids import new_id
from .languages import task_languages
from .learning import Learner
from .loop import Actor, AgentLoop, AgentLoopOptions, StepResult
from .memory import NO_LESSONS, GlossaryEntry, Lessons, Memory, StyleNote, render_memory
from .ports import FileReader, MemoryStore, SessionStore, TranslationMemoryPort
from .prompts import state_note, system_prompt
from .tm import TmMatch, TmOrigin
from .tools.base import Tool
from .tools.read import ReadTool
from .tools.remember import RememberTool
from .tools.revise import ReviseTool
from .tools.translate import TranslateTool

logger = logging.getLogger(__name__)


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
    distiller: Distiller | None = None
    """What learns from the step's corrections after the commit, besides Remember (`distiller_of`)."""


@dataclass(frozen=True, kw_only=True)
class _Loaded:
    snapshot: SessionSnapshot
    memory: Memory
    reader: FileReader


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

    async def prepare(self, owner: str, session_id: str | None, request: StepInput) -> PreparedStep:
        """Load, accept the request, advance the loop: the step's effects and answer, nothing written."""
        loaded = await self._load(owner, session_id)
        if request.expect_version is not None and loaded.snapshot.token.version != request.expect_version:
            raise ConflictError("The session changed since the reviews were read; reload them and try again.")
        languages = _languages(loaded.snapshot, request)
        loop = await self._loop(loaded, languages, request.time_left, request.on_delta)
        calls_pending = bool(loop.context.unprocessed_tool_calls())
        verdicts = _accept(loop.context, loaded.snapshot, request)
        result = await self._advance(loop, verdicts, request)
        snapshot = loaded.snapshot
        if request.user_input is not None and calls_pending and result.copilot_requests:
            return self._queued(snapshot, request.user_input, result, languages)
        effects = _effects(snapshot, loop.context, result, verdicts, self.models.price(snapshot.model))
        # What nobody reviewed (approved by the session's routing) is not remembered as the owner's.
        reviewed = [u for u in [*result.units, *result.revisions] if not u.auto]
        if self.tm is not None and reviewed:
            remembered = [
                (await loaded.reader.read_text(u.file_id, u.start, u.end), u.text, _tm_origin(u.status))
                for u in reviewed
            ]
            entries, added = await self.tm.admit(snapshot.token.owner, languages, remembered)
            effects = replace(effects, memory=entries, memory_added=added)
        return PreparedStep(
            outcome=StepOutcome(
                session_id=snapshot.token.session_id,
                result=result,
                files=_files_after(snapshot.files, result),
                language=snapshot.target_language,
                cost_micro_usd=effects.telemetry.cost_micro_usd,
            ),
            token=snapshot.token,
            effects=effects,
            languages=languages,
            time_left=request.time_left,
            lessons=result.lessons,
            distiller=self.distiller_of(snapshot.model),
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

    async def finish(self, prepared: PreparedStep, *, answer: StoredAnswer | None = None) -> None:
        """Commit the prepared step (with `answer`, in the same transaction), then learn from it."""
        token, effects = prepared.token, prepared.effects
        if token.version > 0 and effects.empty:
            if answer is not None:  # nothing to commit, but the retry must still find its answer
                await self.store.keep_answer(token.session_id, answer)
            return
        try:
            await self.store.commit(token, effects, answer=answer)
        except TooLargeError as exc:
            if not prepared.outcome.result.called_model:
                raise
            detail = str(exc).split(";", 1)[0]  # the store's words without its advice to the caller
            raise ModelAnswerTooLargeError(detail, batch_chars=self.batch_chars) from exc
        if self.tm is not None and effects.memory:
            self.tm.kept(token.owner, effects.memory)
        if effects.corrections or prepared.lessons:
            await self.learner.after_commit(
                prepared.distiller,
                token.owner,
                effects.corrections,
                lessons=prepared.lessons,
                languages=prepared.languages,
                time_left=prepared.time_left,
            )

    async def pending_reviews(self, owner: str, session_id: str) -> tuple[Actor, list[CopilotRequest]]:
        """Whose turn it is and the copilot requests the human must answer now (to restore a view)."""
        actor, requests, _ = await self.pending_and_decided(owner, session_id)
        return actor, requests

    async def pending_and_decided(
        self, owner: str, session_id: str
    ) -> tuple[Actor, list[CopilotRequest], list[UnitWrite]]:
        """`pending_reviews`, and the units of the batch already decided (a verdict given, or approved by the
        session's routing) that are written with the batch's last verdict."""
        loaded = await self._load(owner, session_id)
        loop = await self._loop(loaded, _languages(loaded.snapshot, StepInput()), None)
        requests, decided = await loop.pending_and_decided()
        context = loop.context
        waiting = requests or context.awaiting_user() or not context.messages
        return ("user" if waiting else "agent"), requests, (decided if requests else [])

    # -- stages ------------------------------------------------------------------------------

    async def _load(self, owner: str, session_id: str | None) -> _Loaded:
        """The session (a new one when no id is given), the owner's memory, a reader of its files: the
        session's read beside the owner's (its memory, then its translation memory's)."""

        async def owners() -> Memory:
            memory = await self.memory.recall(owner)
            if self.lookups is not None:
                await self.lookups.refresh(owner)
            return memory

        if session_id is None:
            session_id = new_id("s")
            token = StepToken(session_id=session_id, owner=owner, version=0, created_at=_now(), message_count=0)
            snapshot = SessionSnapshot(
                token=token, window=[], window_complete=True, user_inputs=[], copilot_responses=[], files=[]
            )
            memory = await owners()
        else:  # the session's read and the owner's side by side (reading the caller's own memory is harmless)
            snapshot, memory = await asyncio.gather(
                self.store.load(session_id, window=self.window + self.chunk + 2), owners()
            )
            if snapshot.token.owner != owner:  # another caller's session is not found, like a missing one
                raise NotFoundError(f"No session {session_id}.")
        return _Loaded(snapshot=snapshot, memory=memory, reader=self.store.reader(session_id))

    async def _advance(self, loop: AgentLoop, verdicts: Sequence[Verdict], request: StepInput) -> StepResult:
        """One `AgentLoop.next()`; the verdicts must each have answered a review it executed."""
        result = await loop.next()
        for verdict in verdicts:
            if verdict.tool.call_id not in result.reviewed:
                raise ReviewMismatchError(f"No pending review has callId {verdict.tool.call_id!r}; reload the session.")
        # The step's messages include the user's input it committed, not only the model's answer.
        return replace(result, messages=loop.context.new_messages)

    async def _loop(
        self, loaded: _Loaded, languages: str, time_left: Callable[[], float] | None, on_delta: DeltaSink | None = None
    ) -> AgentLoop:
        snapshot = loaded.snapshot
        memory = loaded.memory.for_languages(languages)
        target = snapshot.target_language or language_tag(languages)

        learned: list[GlossaryEntry] = []
        noted: list[StyleNote] = []

        async def lessons(corrections: Sequence[Correction], remembered: Lessons) -> Sequence[GlossaryEntry]:
            # What the step commits reaches its own model request: the lessons of its Remember calls,
            # and the distiller's (deterministic rules; no distiller makes a model request).
            distiller = self.distiller_of(snapshot.model)
            found = remembered
            if distiller is not None and corrections:
                try:
                    found += await distiller.distill(corrections, languages=languages)
                except Exception as exc:  # learning never fails a step; the corrections are kept
                    logger.warning("distillation failed", extra={"error": f"{type(exc).__name__}: {exc}"})
            learned[:0] = found.glossary
            noted[:0] = found.style_notes
            return found.glossary

        async def state(files: Sequence[FileState], reviewed: frozenset[str]) -> str:
            screen = screen_segments(snapshot.window, files)
            shown = await next_texts(
                loaded.reader, files, batch_chars=self.batch_chars, segments=screen, target_language=target
            )
            # A correction the window shows (the reviewer's text in a result) is not repeated.
            corrections = tuple(c for c in memory.corrections if (c.final or c.proposal) not in reviewed)
            current = replace(
                memory,
                glossary=_newest_first([*learned, *memory.glossary]),
                style_notes=(*noted, *(n for n in memory.style_notes if n not in noted)),
                corrections=corrections,
            )
            rendered = render_memory(current, text="\n".join(t.text for pieces in shown.values() for t in pieces))
            first = next(iter(shown.values()), [None])[0]
            similar = (
                await self.lookups.similar(snapshot.token.owner, languages, first_block(first.text))
                if (self.lookups and first)
                else []
            )
            return state_note(
                files, shown, memory=rendered, references=[(m.entry.source, m.entry.target, m.score) for m in similar]
            )

        owner = snapshot.token.owner

        async def recall(files: Sequence[FileState]) -> ModelResponse | None:
            return (
                await memory_proposals(
                    self.lookups, owner, languages, loaded.reader, files, batch_chars=self.batch_chars
                )
                if self.lookups
                else None
            )

        found: dict[str, Sequence[TmMatch]] = {}  # a batch executed again in the step asks once

        async def references(source: str) -> Sequence[TmMatch]:
            if self.lookups is None:
                return []
            if source not in found:
                found[source] = await self.lookups.similar(owner, languages, source)
            return found[source]

        async def prefetch(sources: Sequence[str]) -> None:
            # One lookup for the whole batch's cards, not one per card.
            wanted = [s for s in dict.fromkeys(sources) if s not in found]
            if self.lookups is not None and wanted:
                found.update(await self.lookups.similar_many(owner, languages, wanted))

        units: dict[str, Sequence[UnitWrite]] = {}  # read once per step

        async def written(file_id: str) -> Sequence[UnitWrite]:
            if file_id not in units:
                units[file_id] = await self.store.units(snapshot.token.session_id, file_id)
            return units[file_id]

        options = AgentLoopOptions(
            model=self.models.model(snapshot.model),
            tools=self.tools,
            definitions=self.definitions,
            system_prompt=system_prompt(snapshot.files),
            state=state,
            recall=recall,
            references=references,
            prefetch=prefetch,
            lessons=lessons,
            written=written,
            settings=self._settings(snapshot.token.session_id),
            window=self.window,
            chunk=self.chunk,
            time_left=time_left,
            min_model_seconds=self.min_model_seconds,
            on_delta=on_delta,
            budget=self._budget_check(snapshot) if snapshot.budget else None,
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
            files=snapshot.files,
            reader=loaded.reader,
            glossary=memory.glossary,
            corrections=memory.corrections,
            languages=languages,
            auto_approve=snapshot.auto_approve,
            target_language=target,
        )

    def _budget_check(self, snapshot: SessionSnapshot) -> Callable[[Sequence[ModelMessage], str], None]:
        """The check of a model request against the session's budget: its input estimated from its
        messages and the tools, its output from its state note (the text it asks to translate)."""

        def check(messages: Sequence[ModelMessage], state: str) -> None:
            sent = ModelMessagesTypeAdapter.dump_json(list(messages)).decode()
            check_budget(
                snapshot.budget,
                snapshot.telemetry,
                self.models.price(snapshot.model),
                input_tokens=estimate_tokens(sent) + self._definition_tokens,
                output_tokens=round(estimate_tokens(state) * OUTPUT_TOKENS_PER_TOKEN),
            )

        return check

    def _settings(self, session_id: str) -> ModelSettings:
        """The model settings with prompt caching on: pydantic-ai's `cache`, and OpenAI's cache key."""
        settings: dict[str, object] = {"cache": True, "openai_prompt_cache_key": session_id}
        settings.update(self.settings or {})
        return cast(ModelSettings, settings)


def _newest_first(entries: Sequence[GlossaryEntry]) -> tuple[GlossaryEntry, ...]:
    """One entry per term (ignoring case), the first given winning; forbidden translations beside it."""
    seen: set[str] = set()
    kept: list[GlossaryEntry] = []
    for entry in entries:
        key = entry.source.casefold() + (f"\x00{entry.target.casefold()}" if entry.kind == "forbidden" else "")
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return tuple(kept)


def _tm_origin(status: str) -> TmOrigin:
    return "refined" if status == "refined" else "revised" if status == "revised" else "approved"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def language_tag(languages: str) -> str | None:
    """The BCP 47 tag of a language pair's target (`auto>french` → `fr`), or None when it is not named."""
    from langfacts import bcp47

    target = languages.partition(">")[2]
    return None if target in ("", "*", "unknown") else bcp47(target)


def _languages(snapshot: SessionSnapshot, request: StepInput) -> str:
    """The session's language pair, from its first user input (this step's, for a new session)."""
    first = snapshot.user_inputs[0] if snapshot.user_inputs else request.user_input or ""
    return task_languages(first)


def _accept(context: Context, snapshot: SessionSnapshot, request: StepInput) -> list[Verdict]:
    """The request applied to the context: the new verdicts (checked by call and tool), or the input."""
    if request.user_input is not None:
        context.add_user_input(request.user_input)
        return []
    responses = request.copilot_responses
    ids = [r.tool.call_id for r in responses]
    if len(ids) != len(set(ids)):
        raise InvalidRequestError("copilotResponses names the same callId more than once.")
    stored = {r.tool.call_id: r for r in [*snapshot.previous_verdicts, *snapshot.copilot_responses]}
    unprocessed = {c.tool_call_id: c.tool_name for c in context.unprocessed_tool_calls()}
    accepted: list[Verdict] = []
    for response in responses:
        call_id = response.tool.call_id
        if stored.get(call_id) == response:
            continue  # sending the identical verdict again is harmless
        if call_id not in unprocessed:
            raise ReviewMismatchError(f"No pending review has callId {call_id!r}; reload the session.")
        if unprocessed[call_id] != response.tool.name:
            raise ReviewMismatchError(f"Call {call_id!r} is a {unprocessed[call_id]} call, not {response.tool.name}.")
        accepted.append(response)
    context.add_copilot_responses(accepted)
    return accepted


def _effects(
    snapshot: SessionSnapshot, context: Context, result: StepResult, verdicts: list[Verdict], price: Price | None
) -> StepEffects:
    coverage = {f.file_id: f.covered for f in _files_after(snapshot.files, result)}
    touched = {u.file_id for u in result.units}
    usage = result.usage
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
        telemetry=Telemetry(
            steps=1,
            model_requests=int(result.called_model),
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            model_ms=result.model_ms,
            cached_tokens=usage.cache_read_tokens if usage else 0,
            cost_micro_usd=round(price.cost(usage.input_tokens, usage.output_tokens) * 1e6) if usage and price else 0,
        ),
    )


def _files_after(files: Sequence[FileState], result: StepResult) -> list[FileState]:
    updated = {f.file_id: f for f in files}
    for unit in result.units:
        f = updated[unit.file_id]
        updated[unit.file_id] = replace(f, covered=add_span(f.covered, unit.start, unit.cover_end))
    return [updated[f.file_id] for f in files]
