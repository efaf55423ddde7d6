"""The step as the API runs it: an idempotency key's replay, one AgentRuntime step, its answer."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from agent_core.budget import spent_of
from agent_core.deltas import DeltaSink
from agent_core.effects import SessionSnapshot
from agent_core.errors import (
    AgentError,
    BudgetExceededError,
    ConflictError,
    ModelRefusedError,
    ModelUnavailableError,
    NotFoundError,
)
from agent_core.runtime import UNKNOWN_OWNER, AgentRuntime, StepInput, StepOutcome
from agent_core.stall import STALLED
from storage import deadline
from storage.interface import SessionStorageInterface
from storage.records import SessionClaim, SessionHold

from .access import may_be_projects, project_of
from .blocking import blocking
from .claims import Claims
from .idempotency import IdempotencyKey, replay
from .owners import OwnerGate
from .schemas import AutoApproveBody, NextRequest, SessionView, StepResponse, Telemetry
from .sessions import session_id
from .standing import segments_left, standing
from .views import file_summary, messages_json, step_response
from .workbench import target_tag

log = logging.getLogger(__name__)

SESSION_VIEW_MESSAGES = 200
"""A session view carries at most this many of the latest messages; the messages route pages all."""
VIEW_VERDICTS = 1000
"""A session view carries at most this many verdicts."""


@dataclass(frozen=True, kw_only=True)
class StepAnswer:
    """A step's answer: a fresh step (with its outcome) or the kept answer to a retried key."""

    body: StepResponse | None = None
    outcome: StepOutcome | None = None
    replayed: str | None = None
    """The kept answer's JSON, when the request repeats an idempotency key."""


class StepService:
    """Runs `POST /api/next` against the agent runtime, keeping answers for idempotency keys."""

    def __init__(
        self, runtime: AgentRuntime, storage: SessionStorageInterface, *, gate: OwnerGate | None = None
    ) -> None:
        self.runtime = runtime
        self.storage = storage
        self.gate = gate
        """Lets a project's member step its sessions (their role and languages allowing); None: owners only."""
        self.claims = Claims(gate.storage) if gate is not None else None
        """One driver at a time for a project's sessions (None without a gate: no project's session steps)."""

    async def next(
        self,
        owner: str,
        body: NextRequest,
        *,
        idempotency_key: str | None = None,
        time_left: Callable[[], float] | None = None,
        on_delta: DeltaSink | None = None,
    ) -> StepAnswer:
        """Exactly one step (or the first answer again, for a retried key); `on_delta` hears the model as it answers.

        Cancelled (a streaming client went away) before the commit, the step commits nothing; once
        the commit has begun it completes, so the session never holds half a step. Its storage calls
        honour `time_left` (storage.deadline): one that could not finish in time is not started (504).
        """
        with deadline.within(time_left):
            try:
                return await self._next(owner, body, idempotency_key, time_left, on_delta)
            except (ModelUnavailableError, ModelRefusedError, BudgetExceededError) as exc:
                if body.sessionId is not None:
                    await self._hold(body.sessionId, exc)
                raise

    async def _hold(self, sid: str, exc: AgentError | str) -> None:
        """Record on the session what stopped its step (a provider's throttle: `waiting` until the time it
        gave; a refusal, the budget, or a model whose answers the rules keep refusing (`exc`: the words the
        step answered with): `failed`), so every client sees it in the Session view. Best effort: the
        step's own answer is the answer whatever happens here."""
        now = datetime.now(UTC)
        if isinstance(exc, ModelUnavailableError):  # else a refusal, the budget, or the stall's words
            after = exc.retry_after if exc.retry_after is not None else 1.0
            due = now + timedelta(seconds=after)  # to the second, never before the provider's time:
            retry_at = (due.replace(microsecond=0) + timedelta(seconds=due.microsecond > 0)).isoformat()
            hold = SessionHold(state="waiting", error=str(exc), at=now.isoformat(timespec="seconds"), retry_at=retry_at)
        else:
            hold = SessionHold(state="failed", error=str(exc), at=now.isoformat(timespec="seconds"))
        try:
            await blocking(self.storage.hold_session, session_id(sid), hold)
        except AgentError:
            log.warning("the hold of session %s was not recorded", sid[:40], exc_info=True)

    async def _next(
        self,
        owner: str,
        body: NextRequest,
        idempotency_key: str | None,
        time_left: Callable[[], float] | None,
        on_delta: DeltaSink | None,
    ) -> StepAnswer:
        key = IdempotencyKey(owner, idempotency_key, body) if idempotency_key is not None else None
        if key is not None and (kept := await replay(self.storage, key)) is not None:
            return StepAnswer(replayed=kept)
        request = StepInput(
            user_input=body.userInput,
            copilot_responses=body.copilotResponses or (),
            time_left=time_left,
            on_delta=on_delta,
        )
        sid = session_id(body.sessionId) if body.sessionId is not None else None
        gate = self.gate
        known = gate.known_owner(sid) if gate is not None and sid is not None else None
        if known is None and sid is not None and may_be_projects(sid):
            known = UNKNOWN_OWNER  # a project's, not known which: its memory is read after the session
        admit = self._admit(owner, body.takeOver, known) if gate is not None else None
        prepared = await self.runtime.prepare(owner, sid, request, admit=admit, memory_owner=known)
        if gate is not None and sid is not None:
            gate.met(sid, prepared.token.owner)
        if sid is not None and prepared.outcome.result.stalled and not prepared.outcome.result.called_model:
            record = await blocking(self.storage.get_session, sid)
            if record.hold is None:  # the settings changed since the session stopped: one more request
                again = replace(request, resume=True)
                prepared = await self.runtime.prepare(owner, sid, again, admit=admit, memory_owner=known)
        response = step_response(prepared.outcome).model_copy(update={"queued": prepared.queued})
        answer = key.answer(response.model_dump_json(by_alias=True)) if key is not None else None
        try:
            await asyncio.shield(self.runtime.finish(prepared, answer=answer))
        except ConflictError:
            # A concurrent retry of the same request may have committed first: answer as it did.
            if key is not None and (kept := await replay(self.storage, key)) is not None:
                return StepAnswer(replayed=kept)
            raise
        if sid is not None and prepared.outcome.result.stalled:
            await self._hold(sid, STALLED)
        return StepAnswer(body=response, outcome=prepared.outcome)

    def _admit(self, caller: str, take_over: bool, known: str | None) -> Callable[[SessionSnapshot], Awaitable[None]]:
        """The gate's check of a project's session the step loaded, then the caller's claim on it (409
        while another member's lasts), both before the model is asked."""
        assert self.gate is not None and self.claims is not None
        check, claims = self.gate.admit(caller, "drive", known=known), self.claims

        async def admit(snapshot: SessionSnapshot) -> None:
            await check(snapshot)
            pid = project_of(snapshot.token.owner)
            assert pid is not None  # the gate lets in a project's session only
            held = SessionClaim(by=snapshot.held_by, until=snapshot.held_until or "") if snapshot.held_by else None
            await claims.take(snapshot.token.session_id, pid, caller, take_over=take_over, held=held)

        return admit

    async def view(self, owner: str, sid: str) -> SessionView:
        """Everything a client needs to restore its view after a lost response or a reload."""
        record, snapshot = await blocking(self.storage.load_view, session_id(sid), window=SESSION_VIEW_MESSAGES)
        if record.owner != owner:
            raise NotFoundError(f"No session {sid}.")
        verdicts = await blocking(self.storage.list_verdicts, sid, cursor=None, limit=VIEW_VERDICTS)
        actor, pending = await self.runtime.pending_reviews(owner, sid, snapshot=snapshot)
        left = await segments_left(self.runtime.store, sid, snapshot.files)
        state, retry_at, error = standing(record, snapshot.files, left)
        spent = record.telemetry
        claim = self.claims.current(record) if self.claims is not None else None
        return SessionView(
            id=sid,
            messages=messages_json(snapshot.window),
            messagesComplete=snapshot.window_complete,
            messageCount=record.message_count,
            copilotResponses=[v.model_dump(mode="json", by_alias=True, exclude_none=True) for v in verdicts.items],
            copilotResponsesComplete=verdicts.next_cursor is None,
            createdAt=record.created_at,
            updatedAt=record.updated_at,
            pendingCopilotRequests=pending,
            actor=actor,
            files=[file_summary(f) for f in snapshot.files],
            queuedInputs=list(snapshot.queued_inputs),
            budget=record.budget.as_dict() if record.budget else None,
            spent=spent_of(record.budget, record.telemetry) if record.budget else None,
            model=record.model or self.runtime.models.default,
            autoApprove=AutoApproveBody(minEstimate=record.auto_approve, sample=record.auto_sample)
            if record.auto_approve is not None
            else None,
            project=project_of(record.owner),
            review=record.review,
            qaProfile=json.loads(record.qa_profile) if record.qa_profile else None,
            heldBy=claim.by if claim is not None else None,
            until=claim.until if claim is not None else None,
            sourceLanguage=record.source_language,
            targetLanguage=record.target_language or target_tag(snapshot),
            state=state,
            retryAt=retry_at,
            error=error,
            segmentsLeft=left,
            telemetry=Telemetry(
                steps=spent.steps,
                modelRequests=spent.model_requests,
                inputTokens=spent.input_tokens,
                outputTokens=spent.output_tokens,
                modelMs=spent.model_ms,
                cachedInputTokens=spent.cached_tokens,
                usd=round(spent.cost_micro_usd / 1e6, 6),
            ),
        )
