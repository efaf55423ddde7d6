"""Identifiers with 128 bits of randomness, prefixed by what they name."""

from __future__ import annotations

import re
import secrets

_ID = re.compile(r"^[sfmj]_[0-9a-f]{32}$")


def new_id(prefix: str) -> str:
    """A fresh id such as `s_9f…` (session), `f_3a…` (file), `m_07…` (memory entry) or `j_5c…` (job)."""
    return f"{prefix}_{secrets.token_hex(16)}"


def is_id(value: str, prefix: str) -> bool:
    """True when `value` has the shape of an id with this prefix."""
    return bool(_ID.match(value)) and value.startswith(prefix + "_")
