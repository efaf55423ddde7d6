"""`POST /api/next`: exactly one AgentLoop step (as JSON, or as Server-Sent Events while the model answers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fastapi import APIRouter, Header, Request, Response

from service.schemas import NextRequest, StepResponse

from ..deps import OwnerDep, ServicesDep, TimeLeftDep
from ..logging import logger
from ..metrics import record_step
from ..streaming import EVENT_STREAM, step_stream, wants_stream
from ..tracing import annotate

if TYPE_CHECKING:  # the agent loop is imported with the services, on first use (cold start)
    from agent_core.deltas import DeltaSink
    from service.steps import StepAnswer, StepService

router = APIRouter()

_ANSWERS: dict[int | str, dict[str, object]] = {
    200: {
        "headers": {"Idempotent-Replayed": {}},
        "content": {EVENT_STREAM: {"schema": {"type": "string", "description": "With Accept: text/event-stream"}}},
    }
}


@router.post("/api/next", response_model=StepResponse, responses=_ANSWERS)
async def next_step(
    request: Request,
    body: NextRequest,
    owner: OwnerDep,
    services: ServicesDep,
    time_left: TimeLeftDep,
    idempotency_key: str | None = Header(default=None, alias="Idempotency-Key"),
) -> Response | StepResponse:
    """Perform exactly one AgentLoop step and return what it added."""
    steps = services.steps
    if wants_stream(request):

        async def run(on_delta: DeltaSink) -> str:
            answer = await _step(steps, owner, body, idempotency_key, time_left, on_delta)
            if answer.replayed is not None:
                return answer.replayed
            assert answer.body is not None
            return answer.body.model_dump_json(by_alias=True)  # as the idempotent replay keeps it

        return step_stream(run)
    answer = await _step(steps, owner, body, idempotency_key, time_left, None)
    if answer.replayed is not None:
        headers = {"Idempotent-Replayed": "true"}
        return Response(answer.replayed, media_type="application/json", headers=headers)
    assert answer.body is not None
    return answer.body


async def _step(
    steps: StepService,
    owner: str,
    body: NextRequest,
    key: str | None,
    time_left: Callable[[], float] | None,
    on_delta: DeltaSink | None,
) -> StepAnswer:
    answer = await steps.next(owner, body, idempotency_key=key, time_left=time_left, on_delta=on_delta)
    if answer.outcome is None:
        return answer
    result = answer.outcome.result
    record_step(answer.outcome, body.copilotResponses or ())
    logger.append_keys(session_id=answer.outcome.session_id)
    annotate(session_id=answer.outcome.session_id, actor=result.actor)
    logger.info(
        "step",
        extra={
            "actor": result.actor,
            "messages": len(result.messages),
            "copilot_requests": len(result.copilot_requests),
        },
    )
    return answer
