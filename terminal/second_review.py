"""The second review's screen: a file's `translated` units, approved or edited one by one or all at once
by a reviewer (docs/terminal.md and docs/api.md, "The second review"). The server is the truth: after each
action the queue is read again."""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Input, Static

from .api import ApiClient, ApiError
from .codes import styled
from .second_review_models import RevisedSegment, Segment
from .second_review_queue import approve_all_shown, translated_queue
from .styles import CSS
from .widgets import EditScreen

MAX_SHOWN = 5000
"""The most units the screen lists; `A` approves all the filter shows, listed or not."""

SECOND_CSS = """
#queue { height: 1fr; }
#detail { height: auto; max-height: 12; padding: 0 1; border-top: solid $panel; }
#entry { dock: bottom; margin-bottom: 1; }
#entry.-hidden { display: none; }
"""

Mode = Literal["edit", "filter"]


class SecondReviewApp(App[None]):
    """A reviewer's queue of one file: the `translated` units, their translator, and the keys on them."""

    CSS = CSS + SECOND_CSS
    TITLE = "translation-agent · second review"
    ENABLE_COMMAND_PALETTE = False  # the footer's room goes to the review's keys
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "Next"),
        Binding("k", "move(-1)", "Previous"),
        Binding("a", "approve", "Approve"),
        Binding("e", "edit", "Edit"),
        Binding("A", "approve_all", "Approve all shown"),
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("r", "reload", "Reload"),
        Binding("q", "quit", "Quit"),
        Binding("escape", "cancel", "Cancel", key_display="Esc"),
    ]

    def __init__(self, client: ApiClient, session_id: str, file_id: str, *, name: str = "") -> None:
        super().__init__()
        self.client = client
        self.session_id = session_id
        self.file_id = file_id
        self.units: list[Segment] = []
        """The queue as the server last listed it."""
        self.more = False
        """True when the queue holds more units than the screen lists."""
        self.q = ""
        """The text filter (`q`): a case-insensitive part of the source or the target."""
        self.busy = False
        self.mode: Mode | None = None
        self.said = ""
        """What the last action did, kept above the queue's count until the next action."""
        self.sub_title = f"{name or file_id} · session {session_id}"

    def compose(self) -> ComposeResult:
        """The status line, the queue, the current unit in full, the entry box, the keys."""
        yield Header()
        yield Static("", id="status")
        table: DataTable[str | Text] = DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="detail")
        yield Input(id="entry", classes="-hidden", select_on_focus=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """The columns, then the queue."""
        self._columns()
        self._table().focus()
        self.action_reload()

    def on_resize(self) -> None:
        """Source and translation share the width the other columns leave."""
        if self._table().columns:
            self._columns()
            self._show(self.current.start if self.current else None)

    def _columns(self) -> None:
        table = self._table()
        table.clear(columns=True)
        fixed = {"id": 6, "estimate": 4, "by": 12}
        # Each column has a cell's padding on both sides; the table's scrollbar takes two more.
        text = max(12, (self.size.width - sum(fixed.values()) - 2 * 5 - 2) // 2)
        table.add_column("#", key="id", width=fixed["id"])
        table.add_column("Source", key="source", width=text)
        table.add_column("Translation", key="target", width=text)
        table.add_column("Est.", key="estimate", width=fixed["estimate"])
        table.add_column("Translator", key="by", width=fixed["by"])

    def _table(self) -> DataTable[str | Text]:
        return self.query_one("#queue", DataTable)

    @property
    def current(self) -> Segment | None:
        """The unit under the cursor."""
        row = self._table().cursor_row
        return self.units[row] if 0 <= row < len(self.units) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A unit's keys only with units to act on and nothing under way (else hidden)."""
        if action in ("approve", "edit", "approve_all", "move"):
            return bool(self.units) and not self.busy and self.mode is None
        if action in ("filter", "reload"):
            return not self.busy and self.mode is None
        if action == "cancel":
            return self.mode is not None
        return True

    # ---------- the queue ----------

    def action_reload(self) -> None:
        """Read the queue again (the server's `translated` units the filter shows)."""
        self.said = ""
        self.run_worker(self._reload(), exclusive=True, group="api")

    async def _reload(self) -> None:
        keep = self.current.start if self.current else None
        self._set_busy("Reading the queue…")
        try:
            units, more = await self._queue()
        except ApiError as exc:
            self._done()
            self._status(f"Error: {exc} (r reads again, q quits)", "error")
            return
        self._done()
        self.units, self.more = units, more
        self._show(keep)

    async def _queue(self) -> tuple[list[Segment], bool]:
        return await translated_queue(self.client, self.session_id, self.file_id, q=self.q, most=MAX_SHOWN)

    def _show(self, keep: int | None) -> None:
        """The queue in the table, the cursor on the unit it was on (or where it was)."""
        table = self._table()
        row = table.cursor_row
        table.clear()
        for unit in self.units:
            table.add_row(*_cells(unit), key=str(unit.start))
        starts = [u.start for u in self.units]
        if keep is not None and keep in starts:
            row = starts.index(keep)
        if self.units:
            table.move_cursor(row=max(0, min(row, len(self.units) - 1)), animate=False)
        self._detail()
        self._count()
        self.refresh_bindings()

    def _count(self) -> None:
        """The status line: what the last action did, then what the queue holds now."""
        shown = f" (showing “{self.q}”: / then Enter on an empty box shows all)" if self.q else ""
        n = len(self.units)
        if self.more:
            what = f"The first {n} of more translated units await your review{shown}."
        elif n:
            what = f"{n} translated unit{' awaits' if n == 1 else 's await'} your review{shown}."
        else:
            what = f"Nothing awaits review{shown}."
        tone = "error" if "rror: " in self.said else "done" if self.said else "review"
        self._status(f"{self.said} {what}".strip(), tone)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The unit under the cursor in full below the list."""
        self._detail()

    def _detail(self) -> None:
        unit = self.current
        detail = self.query_one("#detail", Static)
        detail.display = unit is not None
        if unit is None:
            return
        lines = Text()
        if unit.context is not None:
            lines.append(f"{unit.context.key}" + (f" · {unit.context.note}" if unit.context.note else ""), "dim")
            lines.append("\n")
        codes = unit.context.codes if unit.context is not None else ()
        lines.append("Source  ", "italic dim")
        lines.append(styled(unit.source.strip("\n"), codes))
        lines.append("\nTarget  ", "italic dim")
        lines.append(styled((unit.target or "").strip("\n"), codes, style="bold"))
        trail = " → ".join(f"{e.action} by {e.by or 'the routing'}" for e in unit.history or ())
        lines.append(f"\n{unit.id} · {trail or 'no trail'}", "dim")
        if unit.comments:
            lines.append(f" · {unit.comments} comment(s), {unit.openComments} open", "yellow")
        detail.update(lines)

    def action_move(self, by: int) -> None:
        """The next (1) or previous (-1) unit."""
        table = self._table()
        table.move_cursor(row=max(0, min(table.cursor_row + by, len(self.units) - 1)), animate=False)

    # ---------- the actions ----------

    def action_approve(self) -> None:
        """Approve the unit under the cursor: its text, as it is, sent back by the reviewer."""
        if (unit := self.current) is not None:
            self.run_worker(self._put(unit, unit.target or ""), exclusive=True, group="api")

    def action_edit(self) -> None:
        """Edit the unit under the cursor: a line in the box below (Enter sends), several in the edit screen."""
        unit = self.current
        if unit is None:
            return
        text = unit.target or ""
        if "\n" in text:
            codes = unit.context.codes if unit.context is not None else ()
            self.push_screen(EditScreen(unit.source, text, codes=codes), lambda edited: self._edited(unit, edited))
            return
        self._open("edit", text, f"The new translation of {unit.id} (Enter sends, Esc cancels)")

    def _edited(self, unit: Segment, text: str | None) -> None:
        if text is not None:
            self.run_worker(self._put(unit, text), exclusive=True, group="api")

    async def _put(self, unit: Segment, text: str) -> None:
        approval = text == unit.target
        self._set_busy("Approving…" if approval else "Sending the edit…")
        try:
            answer = await self.client.revise(self.session_id, self.file_id, unit.start, text)
        except ApiError as exc:
            self.said = f"Error: {exc}"
        else:
            self.said = _put_said(unit, answer, approval=approval)
        self._done()
        await self._reload()

    def action_approve_all(self) -> None:
        """Approve every unit the filter shows (QA-clean), a request at a time while some remain."""
        self.run_worker(self._approve_all(), exclusive=True, group="api")

    async def _approve_all(self) -> None:
        self._set_busy("Approving all shown…")
        done = await approve_all_shown(self.client, self.session_id, self.file_id, q=self.q)
        if done.error is not None:
            self.said = (
                f"Approved {done.approved}; then error: {done.error}" if done.approved else f"Error: {done.error}"
            )
        else:
            warned = (
                f"; {done.skipped} left for you: QA warns on them (a approves one, e edits it)" if done.skipped else ""
            )
            self.said = f"Approved {done.approved} unit{'' if done.approved == 1 else 's'}{warned}."
        self._done()
        await self._reload()

    def action_filter(self) -> None:
        """Show only the units whose source or translation contains a text (Enter applies; empty clears)."""
        self._open("filter", self.q, "Show units containing… (Enter applies, empty shows all, Esc cancels)")

    def _open(self, mode: Mode, value: str, placeholder: str) -> None:
        self.mode = mode
        entry = self.query_one("#entry", Input)
        entry.placeholder = placeholder
        entry.border_title = placeholder
        entry.value = value
        entry.remove_class("-hidden")
        entry.focus()
        entry.cursor_position = len(value)
        self.refresh_bindings()

    def _close(self) -> None:
        self.mode = None
        entry = self.query_one("#entry", Input)
        entry.add_class("-hidden")
        self._table().focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the box: send the edit, or apply the filter."""
        event.stop()
        mode, unit = self.mode, self.current
        self._close()
        if mode == "filter":
            self.q = event.value.strip()
            self.said = ""
            self.action_reload()
        elif mode == "edit" and unit is not None:
            self.run_worker(self._put(unit, event.value), exclusive=True, group="api")

    def action_cancel(self) -> None:
        """Leave the box without sending."""
        if self.mode is not None:
            self._close()

    # ---------- the status line ----------

    def _set_busy(self, message: str) -> None:
        self.busy = True
        self._status(message, "busy")
        self.refresh_bindings()

    def _done(self) -> None:
        self.busy = False
        self.refresh_bindings()

    def _status(self, message: str, tone: str) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(message))
        for each in ("error", "warn", "done", "busy", "review"):
            status.set_class(each == tone, f"-{each}")


def _cells(unit: Segment) -> tuple[str | Text, ...]:
    """A unit's row: its segment (• with open comments), source, translation, estimate, translator (✎ when a
    person's text)."""
    estimate = "" if unit.estimate is None else str(unit.estimate)
    by = unit.translator + (" ✎" if unit.edited else "")
    marked = Text(unit.id) + (Text(" •", "yellow") if unit.openComments else Text())
    return (
        marked,
        Text(_line(unit.source), overflow="ellipsis", no_wrap=True),
        Text(_line(unit.target or ""), overflow="ellipsis", no_wrap=True),
        Text(estimate, justify="right"),
        Text(by, style="dim" if unit.translator == "auto" else ""),
    )


def _line(text: str) -> str:
    """A text on one line of the table (its line breaks shown as ⏎)."""
    return text.strip("\n").replace("\n", " ⏎ ")


def _put_said(unit: Segment, answer: RevisedSegment, *, approval: bool) -> str:
    """What a reviewer's PUT did, by the unit's status the server answered."""
    warned = f" QA: {'; '.join(w.message or w.code for w in answer.warnings)}." if answer.warnings else ""
    if answer.status == "reviewed":
        return f"{'Approved' if approval else 'Edited and approved'} {unit.id}.{warned}"
    # A translator's own unit: the server takes the PUT but it stays for a reviewer.
    done = "Unchanged" if approval else "Edited"
    return f"{done}: {unit.id} is still {answer.status} (only a reviewer or a manager reviews it).{warned}"
