"""`DELETE /api/sessions/{id}/claim`: a member who stops driving a project's session lets it go before its
claim ends (docs/api.md "One driver at a time"); a manager may end anyone's. Who may act on the session
is decided before the route (handlers.deps.get_owner, service.access: `drive`)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ..deps import CallerDep, OwnerDep, ServicesDep

router = APIRouter()


@router.delete("/api/sessions/{session_id}/claim", status_code=204, response_class=Response)
async def release_claim(session_id: str, owner: OwnerDep, caller: CallerDep, services: ServicesDep) -> Response:
    """End the caller's claim on the session (a manager: whoever's); `204` also when none lasts."""
    claims = services.steps.claims
    if claims is not None:
        await claims.release(owner, session_id, caller)
    return Response(status_code=204)
