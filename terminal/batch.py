"""The batch under review as a resumed session has it: its proposals in the model's order, and the
verdicts the server already holds for some of them (a batch may be answered in part, docs/api.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .models import CopilotRequest, Part, SessionView, ToolRef, Verdict

REVIEWED_TOOLS = ("Translate", "Revise")
"""The tools whose calls the human reviews; other calls (Read) never make a card."""


@dataclass(frozen=True, slots=True)
class Batch:
    """The cards of a batch: every reviewed call, with the verdict the server holds for it, if any."""

    requests: tuple[CopilotRequest, ...]
    stored: dict[str, Verdict] = field(default_factory=dict)
    """callId → the verdict already stored on the server (sent before the reviewer quit)."""


def _args(part: Part) -> dict[str, object]:
    args = part.args
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {}
    return args if isinstance(args, dict) else {}


def _stored_request(part: Part) -> CopilotRequest:
    """A card for a call the server no longer lists as pending: its proposal as the model made it."""
    args = _args(part)
    return CopilotRequest(
        tool=ToolRef(name=part.tool_name, callId=part.tool_call_id),
        src_string=str(args.get("src_string", "")),
        translate_string=str(args.get("translate_string", "")),
    )


def batch_of(view: SessionView) -> Batch:
    """The batch of `view`: its pending requests, and the calls of the same model answer already decided."""
    pending = {r.tool.callId: r for r in view.pendingCopilotRequests}
    if not pending:
        return Batch(())
    latest = next((m for m in reversed(view.messages) if m.kind == "response"), None)
    calls = latest.tool_calls() if latest is not None else []
    if not any(c.tool_call_id in pending for c in calls):
        return Batch(view.pendingCopilotRequests)  # the answer is outside the view's window: pending only
    verdicts = {v.tool.callId: v for v in view.copilotResponses}  # oldest first: the latest one stays
    requests: list[CopilotRequest] = []
    stored: dict[str, Verdict] = {}
    for call in calls:
        if call.tool_call_id in pending:
            requests.append(pending.pop(call.tool_call_id))
        elif call.tool_name in REVIEWED_TOOLS and (verdict := verdicts.get(call.tool_call_id)) is not None:
            requests.append(_stored_request(call))
            stored[call.tool_call_id] = verdict
    return Batch((*requests, *pending.values()), stored)
