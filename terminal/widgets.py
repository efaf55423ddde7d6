"""The review screen's parts: one card per proposal, and the edit (text or plural forms), reject and confirm
dialogs."""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static, TextArea

from .entries import context_text, forms_of, forms_text
from .models import CopilotRequest, Verdict
from .stream import FormingAnswer

MARKS = {"approve": "✓ approved", "refined": "✎ edited", "reject": "✗ rejected"}


def _visible(text: str) -> Text:
    """Text shown as is (no markup), with an empty string still taking a line."""
    return Text(text) if text else Text("(empty)", style="dim italic")


def forming_text(forming: FormingAnswer) -> Text:
    """The model's answer as it forms: its text, then each proposal so far."""
    lines = Text()
    if forming.text:
        lines.append(forming.text + "\n", style="italic")
    for n, p in enumerate(forming.proposals.values(), 1):
        lines.append(f"Unit {n} (forming) ", style="bold")
        lines.append(p.src_string)
        lines.append("  →  ", style="dim")
        lines.append(p.translate_string + "▍\n")
    return lines


class Card(Vertical):
    """One copilot request: source and proposal side by side, its warnings and the human's decision."""

    def __init__(self, request: CopilotRequest, index: int, total: int) -> None:
        super().__init__(classes="card")
        self.request = request
        self.decision: Verdict | None = None
        self.stored = False
        """The server holds `decision` already (sent with part of the batch); sent again with the rest."""
        origin = request.origin + (f" {request.match}%" if request.match is not None else "")
        self.border_title = f"{index + 1}/{total} · {request.tool.name} · {origin}"

    def compose(self) -> ComposeResult:
        """A resource string's key and note, source | proposal, then warnings and the decision line."""
        if (context := context_text(self.request)) is not None:
            yield Static(context, classes="context")
        plural = self.request.plural is not None
        with Horizontal(classes="pair"):
            with Vertical(classes="side"):
                yield Label("Source", classes="caption")
                yield Static(_visible(self.request.src_string), classes="source")
            with Vertical(classes="side"):
                yield Label("Proposal", classes="caption")
                shown = forms_text(self.request) if plural else _visible(self.request.translate_string)
                yield Static(shown, classes="proposal")
        if self.request.current_string is not None:
            yield Static(Text(f"Now written: {self.request.current_string}"), classes="current")
        for warning in self.request.warnings:
            yield Static(Text(f"⚠ {warning.message or warning.code}"), classes="warning")
        yield Static("", classes="decision")

    def decide(self, verdict: Verdict | None, *, stored: bool = False) -> None:
        """Record (or clear) the decision and show it; `stored`: the server holds it already."""
        self.decision = verdict
        self.stored = stored and verdict is not None
        for status in MARKS:
            self.set_class(verdict is not None and verdict.status == status, f"-{status}")
        line = self.query_one(".decision", Static)
        if verdict is None:
            line.update("")
            self.border_subtitle = "undecided"
            return
        self.border_subtitle = MARKS[verdict.status] + (" · kept on the server" if self.stored else "")
        if verdict.status == "refined":
            edited = verdict.translated_string or ""
            shown = forms_text(self.request, edited) if self.request.plural else Text(edited)
            line.update(Text("✎ ") + shown)
        elif verdict.status == "reject":
            line.update(Text(f"✗ {verdict.reason}" if verdict.reason else "✗ rejected (no reason given)"))
        else:
            line.update(Text("✓ approved"))

    def on_mount(self) -> None:
        """Cards start undecided."""
        self.border_subtitle = "undecided"


ACCEPT_KEYS = "ctrl+enter,ctrl+j,ctrl+s"
"""Ctrl+Enter as the web UI, however the terminal sends it: as itself (kitty's keyboard protocol,
xterm's modifyOtherKeys) or as Ctrl+J (a line feed, where plain Enter is a carriage return); Ctrl+S
where a terminal sends Ctrl+Enter as plain Enter, which must stay a new line in the edit box."""

KEYS_HINT = (
    "Ctrl+Enter accept (or Ctrl+J, Ctrl+S: a terminal may send Ctrl+Enter as Enter) · Ctrl+A select all · Esc cancel"
)


class EditScreen(ModalScreen[str | None]):
    """Edit a proposal: Ctrl+Enter keeps the text (ACCEPT_KEYS), Ctrl+A selects it all, Esc cancels."""

    BINDINGS = [  # noqa: RUF012  (Textual's own class attribute)
        Binding(ACCEPT_KEYS, "accept", "Accept edit", key_display="Ctrl+Enter", priority=True),
        Binding("ctrl+a", "select_all", "Select all", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, source: str, text: str) -> None:
        super().__init__()
        self._source = source
        self._text = text

    def compose(self) -> ComposeResult:
        """The source for reference and the text to edit."""
        with Vertical(classes="box"):
            yield Static("[b]Edit the translation[/]")
            yield Static(f"[dim]{KEYS_HINT}[/]", classes="keys")
            yield Static(Text(self._source), classes="source")
            yield TextArea(self._text, id="edit-text", soft_wrap=True)

    def on_mount(self) -> None:
        """The cursor starts at the end of the text."""
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)
        area.focus()

    def action_accept(self) -> None:
        """Keep the edited text, less line breaks at its end that the proposal has not (a terminal's Ctrl+Enter
        may arrive as Enter first, which the box takes as a new line)."""
        text = self.query_one(TextArea).text
        kept = len(self._text) - len(self._text.rstrip("\r\n"))
        trimmed = text.rstrip("\r\n")
        self.dismiss(trimmed + text[len(trimmed) :][:kept])

    def action_select_all(self) -> None:
        """Select the whole text (TextArea's own Ctrl+A goes to the line's start)."""
        self.query_one(TextArea).select_all()

    def action_cancel(self) -> None:
        """Leave the card as it was."""
        self.dismiss(None)


class RejectScreen(ModalScreen[str | None]):
    """Reject a proposal with a reason for the model: Enter (or Ctrl+Enter) rejects, Esc cancels."""

    BINDINGS = [  # noqa: RUF012
        Binding(ACCEPT_KEYS, "reject", "Reject", key_display="Ctrl+Enter", priority=True),
        Binding("ctrl+a", "select_all", "Select all", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, source: str) -> None:
        super().__init__()
        self._source = source

    def compose(self) -> ComposeResult:
        """The source for reference and the reason input."""
        with Vertical(classes="box"):
            yield Static("[b]Why reject it?[/] The model reads this.")
            yield Static("[dim]Enter or Ctrl+Enter reject · Ctrl+A select all · Esc cancel[/]", classes="keys")
            yield Static(Text(self._source), classes="source")
            yield Input(placeholder="e.g. too literal; keep the product name", id="reason")

    def on_mount(self) -> None:
        """The cursor starts in the reason."""
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Reject with the typed reason (it may be empty)."""
        event.stop()
        self.dismiss(event.value.strip())

    def action_reject(self) -> None:
        """Reject with the typed reason, as Enter does."""
        self.dismiss(self.query_one(Input).value.strip())

    def action_select_all(self) -> None:
        """Select the whole reason."""
        self.query_one(Input).select_all()

    def action_cancel(self) -> None:
        """Leave the card as it was."""
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y confirms, n or Esc declines."""

    BINDINGS = [  # noqa: RUF012
        Binding("y", "answer(True)", "Yes", priority=True),
        Binding("n,escape", "answer(False)", "No", priority=True),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        """The question and the keys."""
        with Vertical(classes="box"):
            yield Static(Text(self._question))
            yield Label("[b]y[/] yes   [b]n[/] no")

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)


FORMS_HINT = "Ctrl+Enter accept (or Ctrl+J, Ctrl+S) · Tab next form · Esc cancel"


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
