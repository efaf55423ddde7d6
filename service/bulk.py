"""Approve all shown (API.md "Files": `POST …/files/{fileId}/approve`): every pending proposal of a
file that the segment list's filter shows and whose QA is clean, approved in one request.

It is built on the verdict path: the approvals are the verdicts `POST /api/next` would carry, run as
one step of the agent runtime, so the units, corrections, translation memory and the step's one
model request behave exactly as they do there. The step is made against the session's version the
pending reviews were read at (409 when another step or a revision moved it meanwhile), and an
`Idempotency-Key` keeps the answer, one that approved nothing included: a retry with the same key
and body answers it again and approves nothing more. Proposals QA warned on are `skipped` (left
pending for a card); so are the ones the filter does not show. When none is left pending, the step
goes on to the model like any verdict step (time allowing), and the answer carries the next reviews.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable

from agent_core.copilot import Approve, CopilotRequest
from agent_core.errors import ConflictError, InvalidRequestError
from agent_core.runtime import StepInput
from storage import deadline

from .blocking import blocking
from .idempotency import IdempotencyKey, replay
from .schemas import ApproveBody, ApproveResult
from .segments import SegmentQuery, parse_statuses
from .steps import StepService
from .views import step_response
from .workbench import Workbench, check_if_match

MAX_KEY = 255
"""The longest Idempotency-Key (as on `POST /api/next`)."""


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
    ) -> ApproveResult | str:
        """Approve what the filter shows with QA clean; the answer, or the kept answer's JSON on a retry.
        `by`: the person approving, when `owner` is a project they act in (recorded with the units)."""
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
            clean = [r for r in shown if not r.warnings]
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
    wanted = body.filter
    query = SegmentQuery(statuses=parse_statuses(wanted.status), q=wanted.q or "", min_estimate=wanted.minEstimate)
    return [
        r
        for r in pending
        if r.tool.name == "Translate" and query.shows(r.src_string, r.proposal_text, "pending", r.estimate)
    ]
