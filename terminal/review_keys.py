"""The batch under review: its cards and the web UI's keys for them (approve, edit, reject, move, send)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Input, RichLog, Static

from .api import ApiError, verdicts_body
from .batch import Batch
from .models import ToolRef, Verdict
from .widgets import MARKS, Card, ConfirmScreen, EditScreen, FormsEditScreen, RejectScreen

CARD_ACTIONS = frozenset({"approve", "edit", "reject", "move", "approve_all", "context"})
"""The keys that act on a card: shown in the footer only while there is a batch to review."""


class BatchReview(App[None]):
    """The cards of one batch and the keys on them; the subclass runs the loop that sends them (`_run`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("e", "edit", "Edit"),
        Binding("r", "reject", "Reject"),
        Binding("j", "move(1)", "Next"),
        Binding("k", "move(-1)", "Previous"),
        Binding("A", "approve_all", "Approve all"),
        Binding("s,enter", "send", "Send"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[Card] = []
        self.current = 0
        self.busy = False
        self.error: ApiError | None = None
        self._retry: dict[str, Any] | None = None
        self.session_id = ""
        self.file_id: str | None = None
        """The file followed (progress, the download): the first batch's when not known at the start."""

    def _run(self, body: dict[str, Any]) -> None:
        """Send `body` and go on to the human's turn (the doNext loop)."""
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A card's keys only with cards to act on (else hidden); Send only when there is something to send."""
        if action in CARD_ACTIONS:
            return bool(self.cards) and not self.busy
        if action == "send":
            return not self.busy and (bool(self.cards) or (self.error is not None and self._retry is not None))
        return True

    # ---------- the cards ----------

    async def _clear_cards(self) -> None:
        self.cards = []
        self.refresh_bindings()
        await self.query_one("#cards", VerticalScroll).remove_children()

    async def _show_batch(self, batch: Batch) -> None:
        await self._clear_cards()
        requests = batch.requests
        self.cards = [Card(r, i, len(requests)) for i, r in enumerate(requests)]
        await self.query_one("#cards", VerticalScroll).mount_all(self.cards)
        for card in self.cards:
            if (verdict := batch.stored.get(card.request.tool.callId)) is not None:
                card.decide(verdict, stored=True)
        if self.file_id is None:
            self.file_id = next((r.file_id for r in requests if r.file_id), None)
        self.query_one("#message", Input).disabled = True
        self.refresh_bindings()
        self._focus_card(0)
        self._review_status()

    def _focus_card(self, index: int) -> None:
        if not self.cards:
            return
        self.current = max(0, min(index, len(self.cards) - 1))
        for i, card in enumerate(self.cards):
            card.set_class(i == self.current, "-current")
        self.query_one("#cards", VerticalScroll).scroll_to_widget(self.cards[self.current], animate=False)

    def _review_status(self, before: str = "") -> None:
        left = sum(1 for c in self.cards if c.decision is None)
        warned = sum(1 for c in self.cards if c.request.warnings)
        note = f" · {warned} with warnings" if warned else ""
        if left:
            self._status(f"{before}Review: {left} of {len(self.cards)} undecided{note}.", "review")
        else:
            self._status(f"{before}Every proposal is decided: press s to send the verdicts.", "review")

    def _focus_next(self, after: int | None = None) -> None:
        """Focus the next undecided card after `after` (default: the current one), wrapping around."""
        after = self.current if after is None else after
        undecided = [i for i, c in enumerate(self.cards) if c.decision is None]
        later = [i for i in undecided if i > after]
        self._focus_card(later[0] if later else undecided[0] if undecided else self.current)

    def _decide(self, card: Card, verdict: Verdict) -> None:
        card.decide(verdict)
        if all(c.decision is not None for c in self.cards):
            self._send()
            return
        self._focus_next()
        self._review_status()

    def _verdict(self, card: Card, status: str, **fields: str) -> Verdict:
        tool = ToolRef(name=card.request.tool.name, callId=card.request.tool.callId)
        return Verdict.model_validate({"tool": tool, "status": status, **fields})

    def _send(self) -> None:
        verdicts = [c.decision for c in self.cards if c.decision is not None]
        if self.busy or not self.cards or len(verdicts) < len(self.cards):
            return
        for card in self.cards:
            if card.decision is not None:
                self._log_text(f"{MARKS[card.decision.status]}: {card.request.src_string[:60]!r}")
        self._run(verdicts_body(self.session_id, verdicts))

    def _card(self) -> Card | None:
        return None if self.busy or not self.cards else self.cards[self.current]

    # ---------- keys ----------

    def action_approve(self) -> None:
        """Approve the current proposal as it is."""
        if (card := self._card()) is not None:
            self._decide(card, self._verdict(card, "approve"))

    def action_edit(self) -> None:
        """Edit the current proposal; the edited text is the final one."""
        if (card := self._card()) is None:
            return
        decided = card.decision
        text = decided.translated_string if decided is not None and decided.translated_string else None
        current = text or card.request.translate_string
        codes = card.request.context.codes if card.request.context else ()
        screen: EditScreen | FormsEditScreen = (
            FormsEditScreen(card.request, current)
            if card.request.plural
            else EditScreen(card.request.src_string, current, codes=codes)
        )

        def done(result: str | None) -> None:
            if result is not None:
                self._decide(card, self._verdict(card, "refined", translated_string=result))

        self.push_screen(screen, done)

    def action_reject(self) -> None:
        """Reject the current proposal with a reason for the model."""
        if (card := self._card()) is None:
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                fields = {"reason": reason} if reason else {}
                self._decide(card, self._verdict(card, "reject", **fields))

        self.push_screen(RejectScreen(card.request.src_string), done)

    def action_move(self, step: int) -> None:
        """Go to the next or previous card."""
        self._focus_card(self.current + step)

    def action_approve_all(self) -> None:
        """Approve every undecided card; asks first when one of them has warnings."""
        if self.busy:
            return
        undecided = [c for c in self.cards if c.decision is None]
        if not undecided:
            return

        def approve(yes: bool | None) -> None:
            if yes:
                for card in undecided:
                    card.decide(self._verdict(card, "approve"))
                self._send()

        warned = sum(1 for c in undecided if c.request.warnings)
        if warned:
            n = len(undecided)
            which = "The undecided proposal has" if n == 1 else f"{warned} of the {n} undecided proposals have"
            question = f"{which} QA warnings. Approve {'it' if n == 1 else 'all of them'} anyway?"
            self.push_screen(ConfirmScreen(question), approve)
        else:
            approve(True)

    def action_send(self) -> None:
        """Send the decided batch, or try the failed call again."""
        if self.busy:
            return
        if self.error is not None and self._retry is not None:
            self._run(self._retry)
        elif self.cards and any(c.decision is None for c in self.cards):
            left = sum(1 for c in self.cards if c.decision is None)
            which = "1 proposal is" if left == 1 else f"{left} proposals are"
            self.notify(f"{which} still undecided: a approves, e edits, r rejects.", severity="warning")
        else:
            self._send()

    def _set_busy(self, busy: bool, message: str = "") -> None:
        self.busy = busy
        self.refresh_bindings()
        if message:
            self._status(message, "busy")

    def _status(self, message: str, kind: str) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(message))
        status.set_classes(f"-{kind}")

    def _log_text(self, text: str) -> None:
        self.query_one("#log", RichLog).write(Text(text))
