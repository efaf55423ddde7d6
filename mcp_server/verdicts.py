"""A person's verdicts, bound to the exact proposals they were shown.

The API binds a verdict to a proposal by its `callId` (a verdict for a call that is not pending is
`409`). The MCP tool binds it to the text as well: each decision quotes the proposal it answers, and
the whole request is refused, with nothing sent, when a call is no longer pending (decided
meanwhile, in the web UI or by another client) or its proposal is not the text quoted. So an agent
can only relay a verdict on what the person actually saw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field, model_validator

from terminal.models import ToolRef, Verdict

from .api import Session


class Decision(BaseModel):
    """A person's verdict on one proposal, as they gave it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    call_id: str = Field(description="The proposal's `call_id`, as `read_session` listed it.")
    proposal: str = Field(description="The proposed text exactly as shown to the person (the proposal's `proposal`).")
    verdict: Literal["approve", "edit", "reject"] = Field(
        description="`approve`: write the proposal; `edit`: write the person's `text` instead; `reject`: write "
        "nothing, the model proposes again with the `reason`."
    )
    text: str | None = Field(default=None, description="For `edit`: the person's final text, exactly.")
    reason: str | None = Field(
        default=None,
        description="The person's reason, in their words; it is sent to the model (required for `reject`).",
    )

    @model_validator(mode="after")
    def _complete(self) -> Decision:
        if self.verdict == "edit" and not (self.text and self.text.strip()):
            raise ValueError(f"{self.call_id}: an `edit` needs the person's final `text`.")
        if self.verdict == "reject" and not (self.reason and self.reason.strip()):
            raise ValueError(f"{self.call_id}: a `reject` needs the person's `reason` (the model reads it).")
        return self


class StaleVerdict(Exception):
    """A decision that does not answer the proposal pending now: nothing was sent."""


def bind(session: Session, decisions: Sequence[Decision]) -> list[Verdict]:
    """The API verdicts for `decisions`, each checked against what `session` has pending now.

    Raises StaleVerdict naming every decision that is not for a pending call, or quotes another text
    than the call's proposal, and what the person should be shown instead.
    """
    if not decisions:
        raise StaleVerdict("No decision was given.")
    pending = {p.tool.callId: p for p in session.pendingCopilotRequests}
    decided = {v.tool.callId: v.status for v in session.copilotResponses}
    problems = [
        f"{call_id}: given more than once" for call_id, n in Counter(d.call_id for d in decisions).items() if n > 1
    ]
    for d in decisions:
        shown = pending.get(d.call_id)
        if shown is None:
            if d.call_id in decided:
                problems.append(f"{d.call_id}: already decided ({decided[d.call_id]}), not pending any more")
            else:
                problems.append(f"{d.call_id}: not pending in this session (decided and written, or never proposed)")
        elif shown.translate_string != d.proposal:
            problems.append(
                f"{d.call_id}: the proposal pending is «{shown.translate_string}», not «{d.proposal}»; "
                "show the person this one and ask again"
            )
    if problems:
        raise StaleVerdict(
            "Refused, nothing was sent: " + "; ".join(problems) + ". `read_session` shows what is pending now."
        )
    return [_verdict(pending[d.call_id].tool, d) for d in decisions]


def _verdict(tool: ToolRef, d: Decision) -> Verdict:
    match d.verdict:
        case "approve":
            return Verdict(tool=tool, status="approve", reason=d.reason)
        case "edit":
            return Verdict(tool=tool, status="refined", translated_string=d.text, reason=d.reason)
        case "reject":
            return Verdict(tool=tool, status="reject", reason=d.reason)
        case _:
            assert_never(d.verdict)
