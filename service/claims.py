"""One driver at a time: a project's session is claimed by the member whose step it runs.

A step of a project's session takes or renews its claim for CLAIM_SECONDS before the model is asked,
after the step's load, so a refused step changes nothing stored and costs no model request. The load
already shows the claim: a driver's own with more than half of it left costs nothing more, another's
that lasts refuses the step at once (409, `ClaimedError`, with who holds it and until when), and
otherwise the claim's own conditional write takes or renews it. A manager may take it over
(`takeOver`). A personal session has one driver anyway and no claim: nothing is read or written for it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from agent_core.errors import ClaimedError, NotFoundError
from agent_core.ids import is_id
from storage.interface import Storage
from storage.records import SessionClaim, SessionRecord

from .access import decide, project_of
from .blocking import blocking

CLAIM_SECONDS = 300
"""How long a step's claim on a project's session lasts (5 minutes); each of the holder's steps renews it."""


def utc_now() -> datetime:
    """The time claims are measured by (tests replace `Claims.clock`)."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A claim's time as stored: ISO 8601 in UTC to the second, so that stored times compare as strings."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


class Claims:
    """Takes, renews, shows and releases the claims on projects' sessions."""

    def __init__(self, storage: Storage, clock: Callable[[], datetime] = utc_now) -> None:
        self.storage = storage
        self.clock = clock

    async def take(
        self,
        session_id: str,
        project_id: str,
        caller: str,
        *,
        take_over: bool = False,
        held: SessionClaim | None = None,
    ) -> SessionClaim:
        """Claim the session for `caller` for CLAIM_SECONDS (renewing their own), or ClaimedError while
        another member's lasts; `take_over` (a manager's: 403 for anyone else) claims it whatever holds it.
        `held`: the claim as the step's own read of the session found it, which spares a write: the
        caller's own with more than half of it left is kept as it is (a driver's steps renew it every
        CLAIM_SECONDS / 2, not at every step), another's that lasts refuses the step at once."""
        if take_over:
            decide(await blocking(self.storage.get_project, project_id), caller, "manage")
        now = self.clock()
        if held is not None and not take_over and held.until > stamp(now):
            if held.by != caller:
                raise ClaimedError(held.by, held.until)
            if held.until > stamp(now + timedelta(seconds=CLAIM_SECONDS / 2)):
                return held
        claim = SessionClaim(by=caller, until=stamp(now + timedelta(seconds=CLAIM_SECONDS)))
        stored = await blocking(self.storage.claim_session, session_id, claim, now=stamp(now), take_over=take_over)
        if stored.by != caller:
            raise ClaimedError(stored.by, stored.until)
        return stored

    def current(self, record: SessionRecord) -> SessionClaim | None:
        """The session's claim while it lasts (None: none, or over)."""
        claim = record.claim
        return claim if claim is not None and claim.until > stamp(self.clock()) else None

    async def release(self, owner: str, session_id: str, caller: str) -> None:
        """End the session's claim before its time (`DELETE /api/sessions/{id}/claim`): the holder's own,
        or anyone's by a manager (403 for another member); nothing when none lasts. `owner`: what the
        caller acts as on the route (a session not theirs to act on is NotFoundError)."""
        if not is_id(session_id, "s"):
            raise NotFoundError(f"No session {session_id[:80]}.")
        record = await blocking(self.storage.get_session, session_id)
        if record.owner != owner:
            raise NotFoundError(f"No session {session_id}.")
        claim, pid = self.current(record), project_of(record.owner)
        if claim is None or pid is None:
            return
        if claim.by != caller:
            decide(await blocking(self.storage.get_project, pid), caller, "manage")
        await blocking(self.storage.release_claim, session_id, None if claim.by != caller else caller)
