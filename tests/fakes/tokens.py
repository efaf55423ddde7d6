"""Token counts of what a provider received, with o200k (the `bpe-openai` tables ship with the package)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Protocol


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@lru_cache(maxsize=1)
def _encoding() -> _Encoding:
    import bpe_openai  # type: ignore[import-untyped]

    encoding: _Encoding = bpe_openai.get_encoding("o200k_base")
    return encoding


def encode(text: str) -> list[int]:
    """The o200k tokens of `text` (special-token text is counted as ordinary text)."""
    return _encoding().encode_ordinary(text)


def prompt_text(body: dict[str, Any]) -> str:
    """What a request asks the model to read, in the order providers render it: tools, then the conversation."""
    parts = [body.get("tools") or [], body.get("instructions") or "", body.get("messages") or body.get("input") or []]
    return "\n".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) for p in parts)


def prompt_tokens(body: dict[str, Any]) -> list[int]:
    """The tokens of a request's input (tool definitions and messages)."""
    return encode(prompt_text(body))


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens two requests share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
