"""The reviewer's queue over HTTP: a file's `translated` units page after page, and the bulk review step
repeated while units remain (docs/api.md "The second review")."""

from __future__ import annotations

from dataclasses import dataclass

from .api import ApiClient, ApiError
from .second_review_models import Segment

PAGE = 500
"""Segments asked for in one page of the queue."""
MAX_ROUNDS = 100
"""The most bulk requests one approval of all shown makes (each approves at most 500 units)."""


@dataclass(slots=True)
class BulkOutcome:
    """What the bulk review step did over its requests, and the error that stopped it, if one did."""

    approved: int = 0
    skipped: int = 0
    error: ApiError | None = None


async def approve_all_shown(client: ApiClient, session_id: str, file_id: str, *, q: str = "") -> BulkOutcome:
    """The bulk review step, one request after another while QA-clean units remain (each approves at
    most 500); an error stops it and is kept with what was approved before it."""
    done = BulkOutcome()
    try:
        for _ in range(MAX_ROUNDS):
            answer = await client.approve_review(session_id, file_id, q=q or None)
            done.approved += answer.approved
            done.skipped = answer.skipped
            if answer.remaining == 0 or answer.approved == 0:
                break
    except ApiError as exc:
        done.error = exc
    return done


async def translated_queue(
    client: ApiClient, session_id: str, file_id: str, *, q: str = "", most: int | None = None
) -> tuple[list[Segment], bool]:
    """The file's `translated` units the text filter shows, in source order, page after page (the first
    `most` when given), and whether more remain."""
    units: list[Segment] = []
    cursor: str | None = None
    while True:
        page = await client.segments(session_id, file_id, status="translated", q=q or None, cursor=cursor, limit=PAGE)
        units += page.segments
        cursor = page.nextCursor
        if cursor is None or (most is not None and len(units) >= most):
            cut = units if most is None else units[:most]
            return cut, cursor is not None or len(cut) < len(units)
