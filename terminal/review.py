"""The review screen: the doNext loop in a Textual app, from the first message (or a resume) to the file written."""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Label, ProgressBar, RichLog, Static

from .api import ApiClient, ApiError, Turn
from .batch import Batch, batch_of
from .editor_context import string_context
from .editor_screens import ContextScreen
from .keeping import Job, keep_on_quit, restore_drafts
from .models import CopilotRequest, FileInfo, Step
from .review_keys import BatchReview
from .stream import Delta, FormingAnswer
from .styles import CSS
from .widgets import forming_text

__all__ = ["Job", "ReviewApp"]


class ReviewApp(BatchReview):
    """Review a translation in the terminal; quitting keeps every verdict given (docs/ui.md, "terminal")."""

    CSS = CSS
    TITLE = "translation-agent"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("i", "context", "Context")]
    """`i` for the string's context (the web UI's `c` is its concordance)."""

    def __init__(self, client: ApiClient, job: Job) -> None:
        super().__init__()
        self.client = client
        self.job = job
        self.session_id = job.session_id
        self.file_id = job.file_id
        self.complete = False
        self.forming = FormingAnswer()
        """The model's answer as it streams in, until its step arrives."""
        self.farewell = ""
        """What became of the verdicts of the batch on quitting, for the command to print."""
        self.sub_title = f"{job.session_id} → {job.output}"
        self._countdown: Timer | None = None
        """The clock shown while a provider's Retry-After is waited out."""

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
            self._stop_countdown()
            self._clear_forming()
            self._set_busy(False)
        if "copilotResponses" in body:
            self.job.keep_drafts(())  # the server has them now
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
        restored = restore_drafts(self.job, self.cards)
        kept = sum(1 for c in self.cards if c.stored)
        said = [f"{kept} kept on the server"] if kept else []
        said += [f"{restored} restored from {self.job.state.path}"] if restored and self.job.state else []
        self._focus_next(after=-1)
        self._review_status(f"Resumed with the verdicts given before ({', '.join(said)}). " if said else "")

    def _run(self, body: dict[str, Any]) -> None:
        self.run_worker(self._drive(body), exclusive=True, group="api")

    def _on_delta(self, delta: Delta) -> None:
        """The model's answer forming: its text and proposals, shown above the cards until the step arrives."""
        if not self.forming.apply(delta):
            return
        forming = self.query_one("#forming", Static)
        forming.update(forming_text(self.forming))
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
        if step.agentResponse.notice:
            self._log_text(f"Note: {step.agentResponse.notice}")
        self._progress(step.progress)

    def _on_retry(self, error: ApiError, wait: float) -> None:
        """The wait before the next attempt, counted down each second."""
        self._stop_countdown()
        deadline = time.monotonic() + wait

        def tick() -> None:
            left = max(0, math.ceil(deadline - time.monotonic()))
            self._status(f"{error} Retrying in {wait_text(left)}…", "warn")
            if not left:
                self._stop_countdown()

        tick()
        self._countdown = self.set_interval(1.0, tick)

    def _stop_countdown(self) -> None:
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

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
        if not self.complete or not await self._finish():
            self._status("The agent waits for your message (type it below; Ctrl+Q quits).", "idle")
        box = self.query_one("#message", Input)
        box.disabled = False
        box.focus()

    async def _finish(self) -> bool:
        """Write the translation (every time the document is complete: a later message may revise it)."""
        if self.file_id is None:
            return False
        try:
            # The file in its own format (a Markdown file's translation; a strings.xml as strings.xml).
            download = await self.client.download(self.job.session_id, self.file_id, "original")
            self.job.output.parent.mkdir(parents=True, exist_ok=True)
            self.job.output.write_bytes(download.data)
        except ApiError as exc:
            self._failed(exc, None)
            return True
        except OSError as exc:
            self._status(f"Error: could not write {self.job.output}: {exc.strerror or exc}. q quits.", "error")
            return True
        message = f"Translation complete: written to {self.job.output}."
        self._status(f"{message} Ctrl+Q quits; or write to the agent below.", "done")
        self._log_text(message)
        return True

    async def action_quit(self) -> None:
        """Quit, keeping every verdict given: stored on the server as part of the batch, or kept here."""
        if any(c.decision is not None and not c.stored for c in self.cards):
            sending = self.busy
            self._set_busy(True, "Saving your verdicts…")
            self.farewell = await keep_on_quit(self.client, self.job, self.cards, sending=sending)
        self.exit()

    def action_context(self) -> None:
        """Show the current card's string in its context (the server's, where it has the route)."""
        if (card := self._card()) is not None:
            self.run_worker(self._show_context(card.request), group="context")

    async def _show_context(self, request: CopilotRequest) -> None:
        found = None
        if request.segments and request.file_id:
            try:
                found = await string_context(self.client, self.session_id, request.file_id, request.segments[0])
            except ApiError as exc:
                self.notify(f"No context: {exc}", severity="warning")
        await self.push_screen(ContextScreen(request, found))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A message to the agent, when it waits for one."""
        text = event.value.strip()
        if not text or self.busy:
            return
        event.input.value = ""
        event.input.disabled = True
        self._log_text(f"You: {text}")
        self._run({"sessionId": self.job.session_id, "userInput": text})

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


def wait_text(seconds: int) -> str:
    """A wait as a person reads it: `45 s`, `12 min 05 s`."""
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 120 else f"{seconds} s"
