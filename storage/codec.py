"""How agent values are stored as text: messages only through pydantic-ai's ModelMessagesTypeAdapter."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from pydantic import ConfigDict, TypeAdapter
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_core import PydanticSerializationError

from agent_core.copilot import CopilotResponseAdapter
from agent_core.effects import Verdict
from agent_core.errors import InvalidRequestError
from agent_core.mqm import MqmIssue

_MESSAGE: TypeAdapter[ModelMessage] = TypeAdapter(ModelMessage, config=ConfigDict(defer_build=True))


def dump_message(message: ModelMessage) -> str:
    """One message as stored JSON (None fields dropped; they round-trip)."""
    try:
        return _MESSAGE.dump_json(message, exclude_none=True).decode()
    except (PydanticSerializationError, UnicodeError) as exc:
        raise InvalidRequestError("The text cannot be stored: it is not valid Unicode (a lone surrogate?).") from exc


PARSED_MESSAGES = 4_096
"""Parsed messages a process keeps (a step's window is 16 to 20 of a session's)."""
PARSED_CHARS = 16_000_000
"""The most JSON the parsed messages a process keeps came from, in characters."""


class _Parsed:
    """Stored messages already parsed in this process, by their JSON: a step loads the same window
    again and again, and a committed message never changes. Thread-safe, least recently used out
    first, bounded by messages and by characters of JSON. The messages are shared, as pydantic-ai's
    model layer shares a history: nothing here or in agent_core changes a message once made."""

    def __init__(self, messages: int = PARSED_MESSAGES, chars: int = PARSED_CHARS) -> None:
        self._found: OrderedDict[str, ModelMessage] = OrderedDict()
        self._messages, self._budget, self._chars = messages, chars, 0
        self._lock = threading.Lock()

    def load(self, data: Sequence[str]) -> list[ModelMessage]:
        with self._lock:
            found = {d: m for d in data if (m := self._found.get(d)) is not None}
            for d in found:
                self._found.move_to_end(d)
        missing = list(dict.fromkeys(d for d in data if d not in found))
        if missing:
            parsed = ModelMessagesTypeAdapter.validate_json("[" + ",".join(missing) + "]")
            found |= dict(zip(missing, parsed, strict=True))
            with self._lock:
                for d, m in zip(missing, parsed, strict=True):
                    if d not in self._found and len(d) <= self._budget:
                        self._found[d] = m
                        self._chars += len(d)
                while len(self._found) > self._messages or self._chars > self._budget:
                    self._chars -= len(self._found.popitem(last=False)[0])
        return [found[d] for d in data]


_PARSED = _Parsed()


def load_messages(data: Sequence[str]) -> list[ModelMessage]:
    """Stored messages back as pydantic-ai messages (each JSON parsed once per process, `_Parsed`)."""
    return _PARSED.load(data) if data else []


def dump_verdict(verdict: Verdict) -> str:
    """A verdict as stored JSON (API.md's shape: `callId`)."""
    return CopilotResponseAdapter.dump_json(verdict, by_alias=True, exclude_none=True).decode()


def load_verdict(data: str) -> Verdict:
    """A stored verdict back."""
    return CopilotResponseAdapter.validate_json(data)


def dump_issue(issue: MqmIssue | None) -> str | None:
    """An MQM issue as stored JSON (`{"category", "severity"}`), or None."""
    return None if issue is None else issue.model_dump_json()


def load_issue(data: str | None) -> MqmIssue | None:
    """A stored MQM issue back (None for none)."""
    return None if not data else MqmIssue.model_validate_json(data)
