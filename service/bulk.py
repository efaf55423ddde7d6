"""Approve all shown (API.md "Files": `POST …/files/{fileId}/approve`): every pending proposal of a
file that the segment list's filter shows and whose QA is clean, approved in one request.

It is built on the verdict path: the approvals are the verdicts `POST /api/next` would carry, run as
one step of the agent runtime, so the units, corrections, translation memory and the step's one
model request behave exactly as they do there. The step is made against the session's version the
pending reviews were read at (409 when another step or a revision moved it meanwhile), and an
`Idempotency-Key` keeps the answer, one that approved nothing included: a retry with the same key
and body answers it again and approves nothing more. Proposals QA warned on are `skipped` (left
pending for a card; a QA profile's finding at `warning` level alone skips none:
agent_core.qa_unit.blocks); so are the ones the filter does not show. When none is left pending, the step
goes on to the model like any verdict step (time allowing), and the answer carries the next reviews.

With `"step": "review"` (a session with a second review, service.review_step) a reviewer approves the
`translated` units the filter shows instead: each written again as it is, `reviewed` and theirs, in
one commit of at most MAX_REVIEWED (the answer's `remaining` counts the rest); QA warnings skip a unit
as they skip a proposal (and a QA profile's check at `error` level: service.qa_profiles.blocked_units);
a unit a pending proposal covers waits for the session's driver. No model request is made, and a
retry approves nothing twice: what it approved is reviewed.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from dataclasses import replace

from agent_core.copilot import Approve, CopilotRequest
from agent_core.effects import StepEffects, UnitWrite
from agent_core.errors import ConflictError, InvalidRequestError
from agent_core.qa import text_warnings
from agent_core.qa_profiles import stored_profile
from agent_core.qa_unit import blocks
from agent_core.runtime import StepInput
from agent_core.tm import TmOrigin, string_key
from storage import deadline

from .access import ForbiddenError
from .blocking import blocking
from .idempotency import IdempotencyKey, replay
from .qa_profiles import blocked_units
from .segment_schemas import ApproveBody, ApproveResult
from .segments import SegmentQuery, contexts_finder, key_finder, parse_statuses
from .steps import StepService
from .views import step_response
from .workbench import FileView, Workbench, check_if_match, session_languages, target_tag

MAX_KEY = 255
"""The longest Idempotency-Key (as on `POST /api/next`)."""
MAX_REVIEWED = 500
"""The most translated units one review approval writes (one commit's revisions record stays small)."""


class BulkApproval:
    """Approves the pending proposals a filter shows, through the step service's runtime."""

    def __init__(self, workbench: Workbench, steps: StepService) -> None:
        self.workbench = workbench
        self.steps = steps

    async def approve(
        self,
        owner: str,
        sid: str,
        fid: str,
        body: ApproveBody,
        *,
        if_match: str | None = None,
        idempotency_key: str | None = None,
        time_left: Callable[[], float] | None = None,
        by: str | None = None,
        reviewer: bool = True,
    ) -> ApproveResult | str:
        """Approve what the filter shows with QA clean; the answer, or the kept answer's JSON on a retry.
        `by`: the person approving, when `owner` is a project they act in (recorded with the units);
        `reviewer`: whether they may take the review step (403 for `"step": "review"` otherwise)."""
        if body.step == "review":
            if not reviewer:
                raise ForbiddenError("Approving translated units is a reviewer's step: a manager can make you one.")
            with deadline.within(time_left):
                return await self._review(owner, sid, fid, body, if_match=if_match, by=by)
        with deadline.within(time_left):
            key = None
            if idempotency_key is not None:
                if not 1 <= len(idempotency_key) <= MAX_KEY:
                    raise InvalidRequestError(f"Idempotency-Key must be 1 to {MAX_KEY} characters.")
                # Scoped to the route's session and file: the same key elsewhere is another request.
                scoped = hashlib.sha256(f"approve:{sid}:{fid}:{idempotency_key}".encode()).hexdigest()
                key = IdempotencyKey(owner, f"approve:{scoped}", body)
                if (kept := await replay(self.steps.storage, key)) is not None:
                    return kept
            view = await self.workbench.view(owner, sid, fid)
            version = view.snapshot.token.version
            check_if_match(if_match, version)
            shown = _shown(view.pending, body)
            clean = [r for r in shown if not any(blocks(w.code, w.level) for w in r.warnings)]
            result = ApproveResult(approved=len(clean), skipped=len(shown) - len(clean))
            if not clean:
                return await self._keep(key, view.snapshot.token.session_id, result)
            verdicts = [Approve(tool=r.tool, status="approve") for r in clean]
            request = StepInput(copilot_responses=verdicts, time_left=time_left, expect_version=version, by=by)
            runtime = self.steps.runtime
            prepared = await runtime.prepare(owner, view.snapshot.token.session_id, request)
            step = step_response(prepared.outcome)
            answered = result.model_copy(
                update={"sessionId": step.sessionId, "agentResponse": step.agentResponse, "progress": step.progress}
            )
            answer = key.answer(answered.model_dump_json(by_alias=True)) if key is not None else None
            try:
                await asyncio.shield(runtime.finish(prepared, answer=answer))
            except ConflictError:
                if key is not None and (kept := await replay(self.steps.storage, key)) is not None:
                    return kept
                raise
            return answered

    async def _review(
        self, owner: str, sid: str, fid: str, body: ApproveBody, *, if_match: str | None, by: str | None
    ) -> ApproveResult:
        """The review step: the translated units the filter shows, QA-clean, written `reviewed` by `by`."""
        view = await self.workbench.view(owner, sid, fid)
        token = view.snapshot.token
        check_if_match(if_match, token.version)
        shown = _translated_shown(view, body)
        if not view.snapshot.second_review and not shown:
            raise InvalidRequestError(
                'This session reviews once: approve its proposals without "step": "review" (a manager may set '
                '"review": "double" on it).'
            )
        languages = session_languages(view.snapshot)
        glossary = (await self.workbench.memory.recall(owner)).for_languages(languages).glossary

        def clean() -> list[UnitWrite]:
            target = view.snapshot.target_language or target_tag(view.snapshot)
            chosen = stored_profile(view.snapshot.qa_profile)
            blocked = blocked_units(
                view.state.name, view.stored, shown, view.source, target_language=target, chosen=chosen
            )
            return [
                u
                for u in shown
                if u.start not in blocked and not text_warnings(view.source[u.start : u.end], u.text, glossary)
            ]

        passed = await blocking(clean)
        chosen = passed[:MAX_REVIEWED]
        left = len(passed) - len(chosen)
        result = ApproveResult(approved=len(chosen), skipped=len(shown) - len(passed), remaining=left)
        if not chosen:
            return result
        person = by if by != token.owner else None
        approved = [replace(u, by=person, stage="reviewed", auto=False) for u in chosen]
        pairs: list[tuple[str, str, TmOrigin]] = [(view.source[u.start : u.end], u.text, "approved") for u in chosen]
        contexts = contexts_finder(view.stored)
        keys = [string_key(contexts(u.start, u.end)) for u in chosen]  # each string's, for a context match
        remembered, added = await self.workbench.tm.admit(owner, languages, pairs, keys=keys)  # a person's now
        effects = StepEffects(revisions=approved, memory=remembered, memory_added=added)
        await self.workbench.commit_revisions(token, effects, chosen, if_match)
        self.workbench.tm.kept(owner, remembered)
        return result

    async def _keep(self, key: IdempotencyKey | None, session_id: str, result: ApproveResult) -> ApproveResult | str:
        """An answer that committed nothing, kept for its key all the same: a retry with the key must not
        approve proposals shown after the first call (the kept answer of a concurrent twin wins)."""
        if key is None:
            return result
        try:
            await blocking(
                self.steps.storage.keep_answer,
                session_id,
                key.answer(result.model_dump_json(by_alias=True)),
                now=int(time.time()),
            )
        except ConflictError:
            if (kept := await replay(self.steps.storage, key)) is not None:
                return kept
            raise
        return result


def _shown(pending: list[CopilotRequest], body: ApproveBody) -> list[CopilotRequest]:
    """The pending proposals (new units, as the segment list shows them) that the filter shows."""
    query = _query(body)
    return [
        r
        for r in pending
        if r.tool.name == "Translate"
        and query.shows(r.src_string, r.proposal_text, "pending", r.estimate, r.context.key if r.context else None)
    ]


def _query(body: ApproveBody) -> SegmentQuery:
    wanted = body.filter
    statuses = parse_statuses(wanted.status)
    return SegmentQuery(statuses=statuses, q=wanted.q or "", min_estimate=wanted.minEstimate, key=wanted.key or "")


def _translated_shown(view: FileView, body: ApproveBody) -> list[UnitWrite]:
    """The written `translated` units the filter shows that no pending proposal covers, in source order."""
    query = _query(body)
    key = key_finder(view.stored)
    proposed = [(r.start, r.end) for r in view.pending]
    return [
        u
        for u in view.units
        if u.stage == "translated"
        and query.shows(view.source[u.start : u.end], u.text, "translated", u.estimate, key(u.start))
        and not any(a < u.end and u.start < b for a, b in proposed)
    ]
