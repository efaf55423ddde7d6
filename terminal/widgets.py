"""The review screen's parts: one card per proposal, and the reject and confirm dialogs (the edit dialogs
are terminal/editor_screens.py's)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from .editor_context import card_context, proposal_text, source_text
from .editor_screens import ACCEPT_KEYS, ConfirmScreen, EditScreen, FormsEditScreen
from .models import CopilotRequest, Verdict
from .stream import FormingAnswer

__all__ = ["MARKS", "Card", "ConfirmScreen", "EditScreen", "FormsEditScreen", "RejectScreen", "forming_text"]

MARKS = {"approve": "✓ approved", "refined": "✎ edited", "reject": "✗ rejected"}


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
        if (context := card_context(self.request)) is not None:
            yield Static(context, classes="context")
        with Horizontal(classes="pair"):
            with Vertical(classes="side"):
                yield Label("Source", classes="caption")
                yield Static(source_text(self.request), classes="source")
            with Vertical(classes="side"):
                yield Label("Proposal", classes="caption")
                yield Static(proposal_text(self.request), classes="proposal")
        if self.request.current_string is not None:
            yield Static(Text(f"Now written: {self.request.current_string}"), classes="current")
        for warning in self.request.warnings:
            error = warning.level == "error"
            shown = Text(f"{'✖ Error' if error else '⚠'} {warning.message or warning.code}")
            yield Static(shown, classes="warning -error" if error else "warning")
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
            line.update(Text("✎ ") + proposal_text(self.request, edited))
        elif verdict.status == "reject":
            line.update(Text(f"✗ {verdict.reason}" if verdict.reason else "✗ rejected (no reason given)"))
        else:
            line.update(Text("✓ approved"))

    def on_mount(self) -> None:
        """Cards start undecided."""
        self.border_subtitle = "undecided"


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
