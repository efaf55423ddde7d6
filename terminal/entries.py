"""A resource file's strings in the terminal: the key and the developer's note on a card, and a plural
entry's forms, one edit box per CLDR category of the target language (API.md CopilotRequest `plural`)."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TextArea

from .models import CopilotRequest
from .widgets import ACCEPT_KEYS

FORMS_HINT = "Ctrl+Enter accept (or Ctrl+J, Ctrl+S) · Tab next form · Esc cancel"


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


class FormsEditScreen(ModalScreen[str | None]):
    """Edit a plural proposal: one box per category; Ctrl+Enter keeps the forms, Esc cancels."""

    BINDINGS = [  # noqa: RUF012  (Textual's own class attribute)
        Binding(ACCEPT_KEYS, "accept", "Accept edit", key_display="Ctrl+Enter", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, request: CopilotRequest, text: str) -> None:
        super().__init__()
        self._request = request
        self._forms = forms_of(text)

    def compose(self) -> ComposeResult:
        """The source's forms for reference, then a labelled box per target category."""
        categories = self._request.plural.categories if self._request.plural else tuple(self._forms)
        source = self._request.plural.source if self._request.plural else {}
        with Vertical(classes="box"):
            yield Static("[b]Edit the plural forms[/]")
            yield Static(f"[dim]{FORMS_HINT}[/]", classes="keys")
            yield Static(Text("\n".join(f"{c}: {t}" for c, t in source.items()) or self._request.src_string))
            with VerticalScroll():
                for category in categories:
                    yield Label(category, classes="caption")
                    yield TextArea(self._forms.get(category, ""), id=f"form-{category}", classes="form", soft_wrap=True)

    def on_mount(self) -> None:
        """The first box has the cursor."""
        self.query(TextArea).first().focus()

    def action_accept(self) -> None:
        """Keep the forms, as their JSON text (a terminal's Ctrl+Enter may add a line break first)."""
        forms = {str(a.id).removeprefix("form-"): a.text.rstrip("\r\n") for a in self.query(TextArea)}
        self.dismiss(json.dumps(forms, ensure_ascii=False))

    def action_cancel(self) -> None:
        """Leave the card as it was."""
        self.dismiss(None)
