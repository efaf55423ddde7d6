"""`POST /api/next`: exactly one AgentLoop step."""

from __future__ import annotations

from fastapi import APIRouter, Header, Response

from service.schemas import NextRequest, StepResponse

from ..deps import OwnerDep, ServicesDep, TimeLeftDep
from ..logging import logger
from ..metrics import record_step
from ..tracing import annotate

router = APIRouter()


@router.post("/api/next", response_model=StepResponse, responses={200: {"headers": {"Idempotent-Replayed": {}}}})
async def next_step(
    body: NextRequest,
    owner: OwnerDep,
    services: ServicesDep,
    time_left: TimeLeftDep,
    idempotency_key: str | None = Header(default=None, alias="Idempotency-Key"),
) -> Response | StepResponse:
    """Perform exactly one AgentLoop step and return what it added."""
    answer = await services.steps.next(owner, body, idempotency_key=idempotency_key, time_left=time_left)
    if answer.replayed is not None:
        headers = {"Idempotent-Replayed": "true"}
        return Response(answer.replayed, media_type="application/json", headers=headers)
    assert answer.body is not None and answer.outcome is not None
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
    return answer.body
