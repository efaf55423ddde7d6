"""A plural entry's forms as the terminal reads them from a proposal's text (its JSON object: API.md
CopilotRequest `plural`)."""

from __future__ import annotations

import json


def forms_of(text: str) -> dict[str, str]:
    """The forms a plural text holds (its JSON object); empty when it holds none."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
