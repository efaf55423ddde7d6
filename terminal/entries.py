"""A resource file's strings in the terminal, as text: the key and the developer's note on a card, and a
plural entry's forms, one line per CLDR category of the target language (API.md CopilotRequest `plural`)."""

from __future__ import annotations

import json

from rich.text import Text

from .models import CopilotRequest


def context_text(request: CopilotRequest) -> Text | None:
    """`key · note` of a resource string's card, or None for a document's unit."""
    if request.context is None:
        return None
    line = Text(request.context.key, style="bold")
    if request.context.note:
        line.append("  ·  " + request.context.note, style="italic")
    return line


def forms_of(text: str) -> dict[str, str]:
    """The forms a plural text holds (its JSON object); empty when it holds none."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def forms_text(request: CopilotRequest, text: str | None = None) -> Text:
    """A plural proposal (or `text`) as one line per category."""
    forms = forms_of(text if text is not None else request.translate_string)
    shown = Text()
    categories = request.plural.categories if request.plural else tuple(forms)
    for n, category in enumerate(categories):
        shown.append(("\n" if n else "") + f"{category}: ", style="dim")
        shown.append(forms.get(category, ""))
    return shown
