"""Review quality of a file (API.md "Jobs, scorecards"): its MQM scorecard and its audit trail, as JSON or CSV."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from service.report_schemas import Scorecard

from ..deps import OwnerDep, ServicesDep
from .files import content_disposition

router = APIRouter()


@router.get(
    "/api/sessions/{session_id}/files/{file_id}/scorecard",
    response_model=Scorecard,
    responses={200: {"content": {"text/csv": {}}}},
)
async def get_scorecard(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    format: Annotated[Literal["json", "csv"], Query(description="json (default) or csv (a download)")] = "json",
    threshold: Annotated[float | None, Query(ge=0, le=100, description="the score to pass (default 95)")] = None,
) -> Response | Scorecard:
    """The file's MQM issues by category and severity, its score per 1,000 words, pass or fail, post-edit distance."""
    from service.blocking import blocking
    from service.reviews import DEFAULT_THRESHOLD, Reviews, scorecard_csv, scorecard_of

    reviews = await blocking(Reviews(services.sessions).file, owner, session_id, file_id)
    card = await blocking(
        lambda: scorecard_of(reviews, threshold=DEFAULT_THRESHOLD if threshold is None else threshold)
    )
    if format == "json":
        return card
    name = f"{reviews.state.name}.scorecard.csv"
    return Response(
        scorecard_csv(card), media_type="text/csv", headers={"Content-Disposition": content_disposition(name)}
    )


@router.get(
    "/api/sessions/{session_id}/files/{file_id}/audit",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}, "application/json": {}}}},
)
async def get_audit(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    format: Annotated[Literal["csv", "json"], Query(description="csv (default) or json")] = "csv",
) -> Response:
    """Who approved, edited, rejected or revised each written unit, when, from which proposal: a download."""
    from service.blocking import blocking
    from service.reviews import Reviews, audit_csv, audit_json, audit_rows

    reviews = await blocking(Reviews(services.sessions).file, owner, session_id, file_id)
    rows = await blocking(audit_rows, reviews)
    body, media = (audit_csv(rows), "text/csv") if format == "csv" else (audit_json(rows), "application/json")
    name = f"{reviews.state.name}.audit.{format}"
    return Response(body, media_type=media, headers={"Content-Disposition": content_disposition(name)})
