"""The review screen: the doNext loop in a Textual app, with the web UI's keys."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Header, Input, Label, ProgressBar, RichLog, Static

from .api import ApiClient, ApiError, Turn, new_key, verdicts_body
from .batch import Batch, batch_of
from .local_state import LocalState
from .models import FileInfo, Step, ToolRef, Verdict
from .stream import Delta, FormingAnswer
from .styles import CSS
from .widgets import Card, ConfirmScreen, EditScreen, RejectScreen


@dataclass(frozen=True, slots=True)
class Job:
    """What the review starts with: the session, the file to follow, where the translation goes."""

    session_id: str
    file_id: str | None
    output: Path
    first_input: str | None = None
    """A message to send first (a new translation); None: resume the session as the server has it."""
    state: LocalState | None = None
    """Where verdicts that cannot be sent when the reviewer quits are kept (None: nowhere but the server)."""


class ReviewApp(App[None]):
    """Review a translation in the terminal; quitting keeps every verdict given (docs/ui.md, "terminal")."""

    CSS = CSS
    TITLE = "translation-agent"
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

    def __init__(self, client: ApiClient, job: Job) -> None:
        super().__init__()
        self.client = client
        self.job = job
        self.file_id = job.file_id
        self.cards: list[Card] = []
        self.current = 0
        self.busy = False
        self.complete = False
        self.error: ApiError | None = None
        self._retry: dict[str, Any] | None = None
        self.forming = FormingAnswer()
        """The model's answer as it streams in, until its step arrives."""
        self.farewell = ""
        """What became of the verdicts of the batch on quitting, for the command to print."""
        self.sub_title = f"{job.session_id} → {job.output}"

    def compose(self) -> ComposeResult:
        """Progress on top, the cards, the model's answers, a message box, the keys."""
        yield Header()
        with Horizontal(id="top"):
            yield Label("", id="file")
            yield ProgressBar(id="progress", show_eta=False)
            yield Label("", id="chars")
        yield Static("", id="status")
        yield Static("", id="forming")
        yield VerticalScroll(id="cards")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(placeholder="Message to the agent (Enter sends)", id="message", disabled=True)
        yield Footer()

    async def on_mount(self) -> None:
        """Start the translation, or restore the session as the server has it."""
        forming = self.query_one("#forming", Static)
        forming.display = False
        forming.styles.padding = (0, 1)
        if self.job.first_input is not None:
            self._run({"sessionId": self.job.session_id, "userInput": self.job.first_input})
        else:
            self.run_worker(self._restore(), exclusive=True, group="api")

    # ---------- the loop ----------

    def _run(self, body: dict[str, Any]) -> None:
        self.run_worker(self._drive(body), exclusive=True, group="api")

    async def _drive(self, body: dict[str, Any]) -> None:
        self._set_busy(True, "Sending your verdicts…" if "copilotResponses" in body else "The agent is working…")
        try:
            turn = await self.client.do_next(
                body, on_step=self._on_step, on_retry=self._on_retry, on_delta=self._on_delta
            )
        except ApiError as exc:
            self._failed(exc, body)
            return
        finally:
            self._clear_forming()
            self._set_busy(False)
        if "copilotResponses" in body:
            self._keep_drafts([])  # the server has them now
        await self._show_turn(turn)

    async def _restore(self) -> None:
        self._set_busy(True, "Loading the session…")
        try:
            view = await self.client.session(self.job.session_id)
        except ApiError as exc:
            self._failed(exc, None)
            return
        finally:
            self._set_busy(False)
        for message in view.messages:
            for text in message.texts():
                self._log_text(text)
        if not view.pendingCopilotRequests and view.actor == "agent":
            self._run({"sessionId": view.id})  # an interrupted loop: go on where the server is
            return
        self._progress(view.files)
        if view.pendingCopilotRequests:
            await self._resume_batch(batch_of(view))
            return
        await self._show_turn(Turn(view.id, view.actor, (), view.files))

    async def _resume_batch(self, batch: Batch) -> None:
        """The batch's cards with the verdicts the server holds, and those kept here when sending failed."""
        await self._show_batch(batch)
        drafts = {v.tool.callId: v for v in self.job.state.drafts(self.job.session_id)} if self.job.state else {}
        restored = 0
        for card in self.cards:
            if (draft := drafts.get(card.request.tool.callId)) is not None and draft != card.decision:
                card.decide(draft)
                restored += 1
        kept = sum(1 for c in self.cards if c.stored)
        said = [f"{kept} kept on the server"] if kept else []
        said += [f"{restored} restored from {self.job.state.path}"] if restored and self.job.state else []
        self._focus_next()
        self._review_status(f"Resumed with the verdicts given before ({', '.join(said)}). " if said else "")

    def _on_delta(self, delta: Delta) -> None:
        """The model's answer forming: its text and proposals, shown above the cards until the step arrives."""
        if not self.forming.apply(delta):
            return
        lines = Text()
        if self.forming.text:
            lines.append(self.forming.text + "\n", style="italic")
        for n, p in enumerate(self.forming.proposals.values(), 1):
            lines.append(f"Unit {n} (forming) ", style="bold")
            lines.append(p.src_string)
            lines.append("  →  ", style="dim")
            lines.append(p.translate_string + "▍\n")
        forming = self.query_one("#forming", Static)
        forming.update(lines)
        forming.display = True

    def _clear_forming(self) -> None:
        self.forming = FormingAnswer()
        forming = self.query_one("#forming", Static)
        forming.update("")
        forming.display = False

    def _on_step(self, step: Step) -> None:
        self._clear_forming()
        for message in step.agentResponse.messages:
            for text in message.texts():
                self._log_text(text)
        self._progress(step.progress)

    def _on_retry(self, error: ApiError, wait: float) -> None:
        self._status(f"{error} Retrying in {wait:.0f} s…", "warn")

    def _failed(self, error: ApiError, body: dict[str, Any] | None) -> None:
        self.error = error
        self._retry = body
        hint = "Press s to try again." if body is not None else ""
        if error.status in (401, 404):
            hint = "Check the session id, the API URL and the token."
        elif error.status == 502:
            hint = "Check AGENT_MODEL and the provider's key; the session is unchanged."
        self._status(f"Error: {error} {hint} q quits; the session is kept (resume with --session).", "error")

    async def _show_turn(self, turn: Turn) -> None:
        self.error = None
        self._progress(turn.files)
        if turn.copilot_requests:
            await self._show_batch(Batch(turn.copilot_requests))
            return
        await self._clear_cards()
        if self.complete:
            await self._finish()
            return
        self._status("The agent waits for your message (type it below).", "idle")
        box = self.query_one("#message", Input)
        box.disabled = False
        box.focus()

    async def _finish(self) -> None:
        if self.file_id is None:
            return
        try:
            download = await self.client.download(self.job.session_id, self.file_id)
        except ApiError as exc:
            self._failed(exc, None)
            return
        self.job.output.parent.mkdir(parents=True, exist_ok=True)
        self.job.output.write_text(download.content, encoding="utf-8")
        self._status(f"Translation complete: written to {self.job.output}. Press q to quit.", "done")
        self._log_text(f"Translation complete: {self.job.output}")

    # ---------- the cards ----------

    async def _clear_cards(self) -> None:
        self.cards = []
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

    def _focus_next(self) -> None:
        undecided = [i for i, c in enumerate(self.cards) if c.decision is None]
        later = [i for i in undecided if i > self.current]
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
            self._log_text(f"{card.border_subtitle}: {card.request.src_string[:60]!r}")
        self._run(verdicts_body(self.job.session_id, verdicts))

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
        screen = EditScreen(card.request.src_string, text or card.request.translate_string)

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
            self.notify(f"{left} proposal(s) still undecided.", severity="warning")
        else:
            self._send()

    async def action_quit(self) -> None:
        """Quit, keeping every verdict given: stored on the server as part of the batch, or kept here."""
        unsent = [c.decision for c in self.cards if c.decision is not None and not c.stored]
        if unsent:
            self.farewell = await self._keep_unsent(unsent)
        self.exit()

    async def _keep_unsent(self, unsent: list[Verdict]) -> str:
        """Send part of a batch (docs/api.md: the rest stays pending); what cannot be sent goes to drafts."""
        given = f"{len(unsent)} verdict{'' if len(unsent) == 1 else 's'}"
        left = sum(1 for c in self.cards if c.decision is None)
        why = "they were on their way when you quit"
        if not self.busy and left:
            self._set_busy(True, f"Saving {given} on the server…")
            try:
                step = await self.client.step(verdicts_body(self.job.session_id, unsent), new_key())
            except ApiError as exc:
                why = str(exc)
            else:
                still = {r.tool.callId for r in step.agentResponse.copilotRequests}
                if not still & {v.tool.callId for v in unsent}:
                    self._keep_drafts([])
                    return f"{given} of this batch saved on the server; {left} proposal(s) left to review."
                why = "the server did not take them"
            finally:
                self._set_busy(False)
        if self.job.state is None:
            return f"{given} of this batch were not sent ({why})."
        self._keep_drafts([c.decision for c in self.cards if c.decision is not None])
        return f"{given} kept in {self.job.state.path} ({why}); they come back when you resume."

    def _keep_drafts(self, verdicts: list[Verdict]) -> None:
        if self.job.state is not None:
            self.job.state.keep_drafts(self.job.session_id, verdicts)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A message to the agent, when it waits for one."""
        text = event.value.strip()
        if not text or self.busy:
            return
        event.input.value = ""
        event.input.disabled = True
        self._log_text(f"You: {text}")
        self._run({"sessionId": self.job.session_id, "userInput": text})

    # ---------- what is shown ----------

    def _set_busy(self, busy: bool, message: str = "") -> None:
        self.busy = busy
        if message:
            self._status(message, "busy")

    def _status(self, message: str, kind: str) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(message))
        status.set_classes(f"-{kind}")

    def _log_text(self, text: str) -> None:
        self.query_one("#log", RichLog).write(Text(text))

    def _progress(self, files: tuple[FileInfo, ...]) -> None:
        info = next((f for f in files if f.fileId == self.file_id), files[0] if files else None)
        if info is None:
            return
        self.file_id = self.file_id or info.fileId
        done, total = info.progress.translatedChars, info.progress.totalChars or info.chars
        self.complete = info.progress.complete
        self.query_one("#file", Label).update(Text(info.name))
        self.query_one("#progress", ProgressBar).update(total=max(total, 1), progress=done)
        self.query_one("#chars", Label).update(f"{done}/{total} chars")
