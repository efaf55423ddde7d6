"""When a session stops asking the model: its latest responses made no progress.

A model whose proposals the tools keep refusing (rule-breaking units: a wrong segment, a bad
argument), or whose calls keep failing (an unknown tool), would be asked again forever, each request
billed. After `MAX_REFUSED_RESPONSES` model
responses in a row whose every proposal was refused (none reached the reviewer, none was written),
the step answers the user with `STALLED` instead, and the session asks the model nothing more until a
person acts: new input (it ends the run of refusals in the history), or a change of the session's
settings (the service lets one more request through).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart, UserPromptPart

from .tools.base import PROPOSING_TOOLS, is_memory_call, is_refusal

MAX_REFUSED_RESPONSES = 3
"""How many model responses in a row may have every proposal refused before the session stops."""
STALLED = (
    f"The model's last {MAX_REFUSED_RESPONSES} answers proposed only units the rules refused (nothing reached "
    "you or was written), so the session stopped asking it. Send a message (for example to point out what "
    "goes wrong), or change the session's model, to go on."
)


def refused_in_a_row(messages: Sequence[ModelMessage]) -> int:
    """How many of the latest model responses had every proposal refused and every other call fail, back
    to the user's latest input or the latest response that made progress (a proposal reviewed, written
    or still pending). Responses whose calls only ran (a Read) neither count nor end the run."""
    returns: dict[str, ToolReturnPart] = {}
    count = 0
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            if any(isinstance(p, UserPromptPart) for p in message.parts):
                break
            returns.update((p.tool_call_id, p) for p in message.parts if isinstance(p, ToolReturnPart))
            continue
        if not isinstance(message, ModelResponse):
            continue
        if not message.tool_calls:
            break  # the model answered in words: the user's turn
        # Proposals, and calls that failed whatever their tool (an unknown tool, arguments cut off).
        tried = [
            c
            for c in message.tool_calls
            if c.tool_name in PROPOSING_TOOLS
            or (c.tool_call_id in returns and returns[c.tool_call_id].outcome == "failed")
        ]
        if not tried:
            continue
        if any(is_memory_call(c.tool_call_id) for c in tried):
            break
        if not all(c.tool_call_id in returns and is_refusal(returns[c.tool_call_id]) for c in tried):
            break
        count += 1
    return count


def stalled(messages: Sequence[ModelMessage]) -> bool:
    """True when the session must not ask the model again before a person acts."""
    return refused_in_a_row(messages) >= MAX_REFUSED_RESPONSES
