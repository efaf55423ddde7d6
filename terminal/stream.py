"""A streamed step as the terminal client reads it (docs/api.md "Streaming"): SSE events and the answer forming."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

EVENT_STREAM = "text/event-stream"


@dataclass(frozen=True, slots=True)
class Event:
    """One Server-Sent Event."""

    event: str
    data: str


class SseParser:
    """Splits an event stream into events, text chunk by text chunk (a chunk may end anywhere)."""

    def __init__(self) -> None:
        self._buffer = ""
        self._data: list[str] = []
        self._event = ""

    def push(self, chunk: str) -> list[Event]:
        """The events `chunk` completes."""
        self._buffer += chunk
        events: list[Event] = []
        while True:
            cut = min((i for i in (self._buffer.find("\n"), self._buffer.find("\r")) if i != -1), default=-1)
            if cut == -1 or (self._buffer[cut] == "\r" and cut == len(self._buffer) - 1):
                break  # no whole line yet (a final "\r" may be half of "\r\n")
            line = self._buffer[:cut]
            end = cut + 2 if self._buffer.startswith("\r\n", cut) else cut + 1
            self._buffer = self._buffer[end:]
            if (done := self._line(line)) is not None:
                events.append(done)
        return events

    def _line(self, line: str) -> Event | None:
        if not line:
            done = Event(self._event or "message", "\n".join(self._data)) if self._data else None
            self._data, self._event = [], ""
            return done
        if line.startswith(":"):
            return None  # a comment (a keep-alive)
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        return None


class _Delta(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class FormingProposal(_Delta):
    """A Translate proposal as far as the model has written it."""

    callId: str
    src_string: str = ""
    translate_string: str = ""


class Delta(_Delta):
    """One `event: delta`: the model's text so far, or one proposal so far."""

    text: str | None = None
    proposal: FormingProposal | None = None


@dataclass(slots=True)
class FormingAnswer:
    """What a streamed step has shown so far."""

    text: str = ""
    proposals: dict[str, FormingProposal] = field(default_factory=dict)

    def apply(self, delta: Delta) -> bool:
        """Take one delta in; whether what is shown changed."""
        changed = False
        if delta.text is not None and delta.text != self.text:
            self.text, changed = delta.text, True
        if (p := delta.proposal) is not None and self.proposals.get(p.callId) != p:
            self.proposals[p.callId] = p
            changed = True
        return changed
