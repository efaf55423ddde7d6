"""What becomes of a batch's verdicts when the reviewer leaves before deciding it all: none is lost.

The API takes part of a batch (docs/api.md: the verdicts are stored, the rest stays pending), so
quitting sends the decided part. What cannot be sent (the server unreachable, or the whole batch
decided, which would start the model's next request) is kept in the drafts of `LocalState` and put
back on its cards on resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .api import ApiClient, ApiError, new_key, verdicts_body
from .local_state import LocalState
from .widgets import Card


@dataclass(frozen=True, slots=True)
class Job:
    """What the review starts with: the session, the file to follow, where the translation goes."""

    session_id: str
    file_id: str | None
    output: Path
    first_input: str | None = None
    """A message to send first (a new translation); None: resume the session as the server has it."""
    state: LocalState | None = None
    """Where verdicts that cannot be sent when the reviewer quits are kept (None: nowhere but the server)."""
    pretranslate: bool = False
    """The session pre-translates: the model proposes the whole file with no card, reviewed afterwards."""

    def keep_drafts(self, cards: Sequence[Card]) -> None:
        """Keep the cards' decisions here (none: forget the ones kept)."""
        if self.state is not None:
            self.state.keep_drafts(self.session_id, [c.decision for c in cards if c.decision is not None])


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


async def keep_on_quit(client: ApiClient, job: Job, cards: Sequence[Card], *, sending: bool) -> str:
    """Store the decided, unsent verdicts of `cards` on the server, else in the drafts; say what was done.

    `sending`: the whole batch is on its way (its answer will not be waited for), so it is kept here too.
    """
    unsent = [c.decision for c in cards if c.decision is not None and not c.stored]
    if not unsent:
        return ""
    given = _count(len(unsent), "verdict")
    left = sum(1 for c in cards if c.decision is None)
    why = "they were on their way when you quit" if sending else "every proposal is decided: send them with s"
    if not sending and left:
        try:
            step = await client.step(verdicts_body(job.session_id, unsent), new_key())
        except ApiError as exc:
            why = str(exc)
        else:
            still = {r.tool.callId for r in step.agentResponse.copilotRequests}
            if not still & {v.tool.callId for v in unsent}:
                job.keep_drafts(())
                return f"{given} of this batch saved on the server; {_count(left, 'proposal')} left to review."
            why = "the server did not take them"
    if job.state is None:
        return f"{given} of this batch were not sent ({why})."
    job.keep_drafts(cards)
    return f"{given} kept in {job.state.path} ({why}); they come back when you resume."


def restore_drafts(job: Job, cards: Sequence[Card]) -> int:
    """Put the verdicts kept here back on their cards (still pending ones only); how many changed."""
    drafts = {v.tool.callId: v for v in job.state.drafts(job.session_id)} if job.state else {}
    restored = 0
    for card in cards:
        if (draft := drafts.get(card.request.tool.callId)) is not None and draft != card.decision:
            card.decide(draft)
            restored += 1
    return restored
