"""How agent values are stored as text: messages only through pydantic-ai's ModelMessagesTypeAdapter."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ConfigDict, TypeAdapter
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_core import PydanticSerializationError

from agent_core.copilot import CopilotResponseAdapter
from agent_core.effects import Verdict
from agent_core.errors import InvalidRequestError

_MESSAGE: TypeAdapter[ModelMessage] = TypeAdapter(ModelMessage, config=ConfigDict(defer_build=True))


def dump_message(message: ModelMessage) -> str:
    """One message as stored JSON (None fields dropped; they round-trip)."""
    try:
        return _MESSAGE.dump_json(message, exclude_none=True).decode()
    except (PydanticSerializationError, UnicodeError) as exc:
        raise InvalidRequestError("The text cannot be stored: it is not valid Unicode (a lone surrogate?).") from exc


def load_messages(data: Sequence[str]) -> list[ModelMessage]:
    """Stored messages back as pydantic-ai messages."""
    if not data:
        return []
    return ModelMessagesTypeAdapter.validate_json("[" + ",".join(data) + "]")


def dump_verdict(verdict: Verdict) -> str:
    """A verdict as stored JSON (API.md's shape: `callId`)."""
    return CopilotResponseAdapter.dump_json(verdict, by_alias=True, exclude_none=True).decode()


def load_verdict(data: str) -> Verdict:
    """A stored verdict back."""
    return CopilotResponseAdapter.validate_json(data)
