"""The conversation: the session's history (as loaded) and what the model is sent of it.

The full history stays in storage for the record and the UI; a step loads only its latest window.
The model is sent the system prompt, the user's task, a compact progress note and that bounded
window of the latest exchanges, cut so that a tool call is never separated from its return.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from .copilot import Verdict
from .tools.base import is_memory_call


class Context:
    """The session's loaded messages and verdicts, and the model's view of them."""

    def __init__(
        self,
        window: Sequence[ModelMessage],
        *,
        complete: bool,
        first_index: int = 0,
        hidden_messages: int = 0,
        user_inputs: Sequence[str] = (),
        copilot_responses: Sequence[Verdict] = (),
        queued_inputs: Sequence[str] = (),
    ) -> None:
        self._loaded: list[ModelMessage] = list(window)
        self._first_index = 0 if complete else first_index
        # The model-visible messages before the window: the history's hidden ones outside it are
        # `hidden_messages` less those inside (0 for a complete window).
        hidden_outside = hidden_messages - sum(map(is_hidden, self._loaded))
        self._visible_before = max(0, self._first_index - max(0, hidden_outside))
        self._new: list[ModelMessage] = []
        self._complete = complete
        self._user_inputs = list(user_inputs)
        self._responses: dict[str, Verdict] = {r.tool.call_id: r for r in copilot_responses}
        self._deferred: list[UserPromptPart] = []
        self._queued = list(queued_inputs)
        self.queue_delivered = False
        """True once this step has handed the queued inputs to the model (the queue is then empty)."""

    @property
    def messages(self) -> list[ModelMessage]:
        """The loaded window followed by this step's new messages."""
        return self._loaded + self._new

    @property
    def new_messages(self) -> list[ModelMessage]:
        """The messages this step added."""
        return list(self._new)

    @property
    def hidden_new_messages(self) -> int:
        """How many of this step's messages the model is never shown (`is_hidden`)."""
        return sum(map(is_hidden, self._new))

    @property
    def user_inputs(self) -> list[str]:
        """The user's framing inputs, including this step's."""
        return list(self._user_inputs)

    def add_messages(self, messages: Sequence[ModelMessage]) -> None:
        """Append messages to the history (they are committed with the step)."""
        self._new.extend(messages)

    def add_user_input(self, text: str) -> None:
        """Record the user's new input; it joins the next request sent to the model."""
        self._user_inputs = _framing([*self._user_inputs, text])
        if self.unprocessed_tool_calls():
            # Joins the tool returns: every call must be answered in the very next request.
            self._deferred.append(UserPromptPart(text))
        else:
            self._new.append(ModelRequest(parts=[UserPromptPart(text)]))

    def take_deferred_input(self) -> list[UserPromptPart]:
        """User input that waits for the next model request: the queued inputs (in order), then this step's."""
        queued = [UserPromptPart(t) for t in self._queued]
        if self._queued:
            self._user_inputs = _framing([*self._user_inputs, *self._queued])
            self._queued, self.queue_delivered = [], True
        deferred, self._deferred = self._deferred, []
        return [*queued, *deferred]

    def deliver_queued_input(self) -> None:
        """The queued inputs as a request of their own, when no tool returns are due to carry them."""
        if self._queued:
            self._new.append(ModelRequest(parts=self.take_deferred_input()))

    def add_copilot_responses(self, responses: Sequence[Verdict]) -> None:
        """Record the human's verdicts on pending calls."""
        self._responses.update((r.tool.call_id, r) for r in responses)

    def copilot_response(self, call_id: str) -> Verdict | None:
        """The verdict on a call, if the human has given one."""
        return self._responses.get(call_id)

    def latest_response(self) -> ModelResponse | None:
        """The latest model response, if the history ends with one (or with its returns)."""
        for message in reversed(self.messages):
            if isinstance(message, ModelResponse):
                return message
        return None

    def unprocessed_tool_calls(self) -> list[ToolCallPart]:
        """Tool calls of the latest model response that have no tool return yet."""
        messages = self.messages
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if isinstance(message, ModelResponse):
                answered = {
                    part.tool_call_id
                    for later in messages[index + 1 :]
                    if isinstance(later, ModelRequest)
                    for part in later.parts
                    if isinstance(part, ToolReturnPart)
                }
                return [c for c in message.tool_calls if c.tool_call_id not in answered]
        return []

    def awaiting_user(self) -> bool:
        """True when the model has answered and nothing new has come since."""
        messages = self.messages
        return bool(messages) and isinstance(messages[-1], ModelResponse) and not messages[-1].tool_calls

    def to_model_messages(self, system: str, state: str, *, window: int, chunk: int = 1) -> list[ModelMessage]:
        """What the model is sent: system prompt and task, the latest exchanges, the state note last.

        The window's first message moves in steps of `chunk` messages (keeping at least `window`),
        so from one request to the next everything before the newest turn is byte-identical and a
        provider's prompt cache serves it. The translation memory's own proposals are left out (the
        model did not make them; the state note shows where the text goes on), and the window counts
        only the messages the model is shown: between two model requests only the model's latest
        exchange is new, however many memory batches came between, and the boundary moves every
        `chunk` of the model's own messages. When the loaded history does not reach back to the
        boundary (many memory batches in a row), the window starts at the earliest loaded message.
        """
        messages = self.messages
        hidden = [is_hidden(m) for m in messages]
        visible = self._visible_before + hidden.count(False)
        first = max(0, (visible - window) // max(chunk, 1) * max(chunk, 1)) if window > 0 else visible
        start, number = len(messages), self._visible_before
        for k, concealed in enumerate(hidden):
            if concealed:
                continue
            if number >= first:
                start = k
                break
            number += 1
        recent = messages[start:]
        whole = self._complete and len(recent) == len(messages)
        recent = _without_memory_proposals(recent, hidden[start:])
        if not whole:
            # Never start on a tool return: begin at a model response, after the framing request.
            while recent and not isinstance(recent[0], ModelResponse):
                recent = recent[1:]
        framing: list[SystemPromptPart | UserPromptPart] = [SystemPromptPart(system)]
        if not whole:
            shown = {
                p.content
                for m in recent
                if isinstance(m, ModelRequest)
                for p in m.parts
                if isinstance(p, UserPromptPart)
            }
            framing += [UserPromptPart(t) for t in self._user_inputs if t not in shown]
        merged = _merge_requests([ModelRequest(parts=framing), *_elide_old_reads(_without_decided_units(recent))])
        return with_state(merged, state)


def with_state(messages: list[ModelMessage], state: str) -> list[ModelMessage]:
    """The messages with the state note last (in the final request, or a request of its own)."""
    if not state:
        return messages
    last = messages[-1]
    if isinstance(last, ModelRequest):
        return [*messages[:-1], ModelRequest(parts=[*last.parts, UserPromptPart(state)])]
    return [*messages, ModelRequest(parts=[UserPromptPart(state)])]


def reviews_shown(messages: Sequence[ModelMessage]) -> frozenset[str]:
    """What the messages already show of the reviewer's corrections: the final text of each unit the
    reviewer edited (a result's `translated_string`) and each proposal the reviewer rejected (the
    call's `translate_string`). The state note leaves out the corrections these repeat."""
    shown: set[str] = set()
    rejected: set[str] = set()
    for m in messages:
        if not isinstance(m, ModelRequest):
            continue
        for p in m.parts:
            if not isinstance(p, ToolReturnPart) or not isinstance(p.content, dict):
                continue
            final = p.content.get("translated_string")
            if isinstance(final, str) and final:
                shown.add(final)
            elif p.content.get("status") == "reject":
                rejected.add(p.tool_call_id)
    if rejected:  # only the rejected calls' arguments are parsed
        for m in messages:
            if isinstance(m, ModelResponse):
                for c in m.tool_calls:
                    proposal = c.args_as_dict().get("translate_string") if c.tool_call_id in rejected else None
                    if isinstance(proposal, str):
                        shown.add(proposal)
    return frozenset(shown)


def is_hidden(message: ModelMessage) -> bool:
    """True for a message the model is never shown: a translation memory proposal (a response whose
    every call is the memory's), or a request holding only the returns of such calls."""
    if isinstance(message, ModelResponse):
        calls = message.tool_calls
        return bool(calls) and all(is_memory_call(c.tool_call_id) for c in calls)
    return bool(message.parts) and all(_memory_part(p) for p in message.parts)


def _memory_part(part: object) -> bool:
    call_id = getattr(part, "tool_call_id", None)
    return isinstance(call_id, str) and is_memory_call(call_id)


def _without_memory_proposals(messages: list[ModelMessage], hidden: Sequence[bool]) -> list[ModelMessage]:
    """The messages without the translation memory's proposals and the returns of their calls (a
    request that also carries other parts keeps those); `hidden` tells which are `is_hidden`."""
    out: list[ModelMessage] = []
    for message, concealed in zip(messages, hidden, strict=True):
        if concealed:
            continue
        if isinstance(message, ModelRequest) and any(map(_memory_part, message.parts)):
            message = replace(message, parts=[p for p in message.parts if not _memory_part(p)])
        out.append(message)
    return out


def _without_decided_units(messages: list[ModelMessage]) -> list[ModelMessage]:
    """The messages without the Translate calls that have their return, and those returns: a decided
    unit's outcome is in the state note (agent_core.tools.outcomes), and the screens go on from
    where the written text ends, so the model's earlier proposals would cost every later request
    their tokens again and tell it nothing the note does not. A call that failed (its arguments
    were not JSON: no unit to decide) stays with its return, which says why. What is left of the
    history (the user's messages, the model's text, its other tools' calls and returns) stays
    byte-identical from request to request. A message left with no part is dropped."""
    decided = {
        p.tool_call_id
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "Translate" and p.outcome != "failed"
    }
    if not decided:
        return messages
    out: list[ModelMessage] = []
    for message in messages:
        parts = [p for p in message.parts if _decided_unit(p) not in decided]
        if len(parts) == len(message.parts):
            out.append(message)
        elif parts:
            out.append(replace(message, parts=parts))  # type: ignore[arg-type]
    return out


def _decided_unit(part: object) -> str | None:
    """The call id of a Translate call or return (None for any other part)."""
    if isinstance(part, ToolCallPart | ToolReturnPart) and part.tool_name == "Translate":
        return part.tool_call_id
    return None


def _elide_old_reads(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Every Read return but the latest shortened: a later Read shows the same text, further on."""
    latest = None
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest) and any(
            isinstance(p, ToolReturnPart) and p.tool_name == "Read" for p in message.parts
        ):
            latest = index
    out: list[ModelMessage] = []
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest) and index != latest:
            parts = [
                _elided(p) if isinstance(p, ToolReturnPart) and p.tool_name == "Read" else p for p in message.parts
            ]
            message = replace(message, parts=parts)
        out.append(message)
    return out


def _elided(part: ToolReturnPart) -> ToolReturnPart:
    content = part.content
    if not isinstance(content, dict) or "text" not in content:
        return part
    kept = {k: v for k, v in content.items() if k != "text"}
    kept["text"] = "(omitted: a later Read shows the current text)"
    return replace(part, content=kept)


def _framing(inputs: list[str], keep_latest: int = 4) -> list[str]:
    """The first input (the task) and the latest few; older ones fall out of the model's view."""
    if len(inputs) <= keep_latest + 1:
        return inputs
    return [inputs[0], *inputs[-keep_latest:]]


def _merge_requests(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Consecutive requests merged into one, as providers expect alternating turns."""
    merged: list[ModelMessage] = []
    for message in messages:
        previous = merged[-1] if merged else None
        if isinstance(message, ModelRequest) and isinstance(previous, ModelRequest):
            merged[-1] = ModelRequest(parts=[*previous.parts, *message.parts])
        else:
            merged.append(message)
    return merged
