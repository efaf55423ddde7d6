"""The edit dialogs (one text, or a plural entry's forms) with the codes kept whole and checked as one
types, the yes/no question they ask before keeping a text whose codes do not match the source's, and the
string's context view."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TextArea

from langfacts.codes import code_changes

from .codes import check_line, styled
from .editor import CodeArea
from .editor_context import StringContext, context_view
from .entries import forms_of
from .models import CopilotRequest

ACCEPT_KEYS = "ctrl+enter,ctrl+j,ctrl+s"
"""Ctrl+Enter as the web UI, however the terminal sends it: as itself (kitty's keyboard protocol,
xterm's modifyOtherKeys) or as Ctrl+J (a line feed, where plain Enter is a carriage return); Ctrl+S
where a terminal sends Ctrl+Enter as plain Enter, which must stay a new line in the edit box."""

KEYS_HINT = (
    "Ctrl+Enter accept (or Ctrl+J, Ctrl+S: a terminal may send Ctrl+Enter as Enter) · Ctrl+A select all · Esc cancel"
)
CODE_KEYS_HINT = (
    "F9 (Alt+Insert, Ctrl+T) insert the next missing code · F8 (Ctrl+O, Ctrl+Shift+S) copy the source · "
    "Backspace twice deletes a code · Ctrl+Z undo"
)
"""The code keys (terminal/editor.py)."""


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


class _CodeChecks(ModalScreen[str | None]):
    """What the edit dialogs share: the live code line under each box, the note of a refused edit, and
    accepting (asking first when a box's codes do not match its source's, as the web UI does)."""

    def _value(self) -> str:
        """The text the dialog keeps."""
        raise NotImplementedError

    def action_accept(self) -> None:
        """Keep the text; first ask, when codes are missing or extra (n goes back to the text)."""
        value = self._value()
        problems = [
            (f"{a.id.removeprefix('form-')}: " if a.id and a.id.startswith("form-") else "") + problem
            for a in self.query(CodeArea)
            for problem in code_changes(a.expected, a.text)
        ]
        if not problems:
            self.dismiss(value)
            return
        question = (
            f"The codes of your text do not match the source's ({'; '.join(problems)}). A code left out or "
            "added can break the app or document. Keep it anyway?"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(value)

        self.app.push_screen(ConfirmScreen(question), answered)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Say again what the box's text does to the codes; a refusal's note goes once the text changes."""
        area = event.text_area
        if isinstance(area, CodeArea):
            self.query_one(f"#check-{area.id}", Static).update(check_line(area.expected, area.text))
            self.query_one("#code-note", Static).update("")

    def on_code_area_refused(self, event: CodeArea.Refused) -> None:
        """Show why the box did nothing."""
        self.query_one("#code-note", Static).update(Text(event.message, style="bold"))


class EditScreen(_CodeChecks):
    """Edit a proposal: Ctrl+Enter keeps the text (ACCEPT_KEYS), Ctrl+A selects it all, Esc cancels."""

    BINDINGS = [  # noqa: RUF012  (Textual's own class attribute)
        Binding(ACCEPT_KEYS, "accept", "Accept edit", key_display="Ctrl+Enter", priority=True),
        Binding("ctrl+a", "select_all", "Select all", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, source: str, text: str, *, codes: Sequence[str] = ()) -> None:
        super().__init__()
        self._source = source
        self._text = text
        self._codes = tuple(codes)

    def compose(self) -> ComposeResult:
        """The source for reference, the text to edit, the codes' line and a note for a refused edit."""
        area = CodeArea(self._text, source=self._source, codes=self._codes, id="edit-text")
        with Vertical(classes="box"):
            yield Static("[b]Edit the translation[/]")
            yield Static(f"[dim]{KEYS_HINT}\n{CODE_KEYS_HINT}[/]", classes="keys")
            yield Static(styled(self._source, self._codes), classes="source")
            yield area
            yield Static(check_line(area.expected, self._text), id="check-edit-text", classes="codes")
            yield Static("", id="code-note", classes="note")

    def on_mount(self) -> None:
        """The cursor starts at the end of the text."""
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)
        area.focus()

    def _value(self) -> str:
        """The edited text, less line breaks at its end that the proposal has not (a terminal's Ctrl+Enter
        may arrive as Enter first, which the box takes as a new line)."""
        text = self.query_one(TextArea).text
        kept = len(self._text) - len(self._text.rstrip("\r\n"))
        trimmed = text.rstrip("\r\n")
        return trimmed + text[len(trimmed) :][:kept]

    def action_select_all(self) -> None:
        """Select the whole text (TextArea's own Ctrl+A goes to the line's start)."""
        self.query_one(TextArea).select_all()

    def action_cancel(self) -> None:
        """Leave the card as it was."""
        self.dismiss(None)


FORMS_HINT = "Ctrl+Enter accept (or Ctrl+J, Ctrl+S) · Tab next form · Esc cancel"


class FormsEditScreen(_CodeChecks):
    """Edit a plural proposal: one box per category; Ctrl+Enter keeps the forms, Esc cancels. Each box
    keeps the codes of the source's form of its category (else the source's `other`)."""

    BINDINGS = [  # noqa: RUF012  (Textual's own class attribute)
        Binding(ACCEPT_KEYS, "accept", "Accept edit", key_display="Ctrl+Enter", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, request: CopilotRequest, text: str) -> None:
        super().__init__()
        self._request = request
        self._forms = forms_of(text)

    def compose(self) -> ComposeResult:
        """The source's forms for reference, then a labelled box per target category with its codes' line."""
        categories = self._request.plural.categories if self._request.plural else tuple(self._forms)
        source = self._request.plural.source if self._request.plural else {}
        codes = self._request.context.codes if self._request.context else ()
        shown = Text("\n").join(Text(f"{c}: ").append_text(styled(t, codes)) for c, t in source.items())
        with Vertical(classes="box"):
            yield Static("[b]Edit the plural forms[/]")
            yield Static(f"[dim]{FORMS_HINT}\n{CODE_KEYS_HINT}[/]", classes="keys")
            yield Static(shown or styled(self._request.src_string, codes))
            with VerticalScroll():
                for category in categories:
                    form_source = source.get(category) or source.get("other") or self._request.src_string
                    area = CodeArea(
                        self._forms.get(category, ""),
                        source=form_source,
                        codes=codes,
                        id=f"form-{category}",
                        classes="form",
                    )
                    yield Label(category, classes="caption")
                    yield area
                    yield Static(check_line(area.expected, area.text), id=f"check-form-{category}", classes="codes")
            yield Static("", id="code-note", classes="note")

    def on_mount(self) -> None:
        """The first box has the cursor."""
        self.query(TextArea).first().focus()

    def _value(self) -> str:
        """The forms, as their JSON text (a terminal's Ctrl+Enter may add a line break first)."""
        forms = {str(a.id).removeprefix("form-"): a.text.rstrip("\r\n") for a in self.query(TextArea)}
        return json.dumps(forms, ensure_ascii=False)

    def action_cancel(self) -> None:
        """Leave the card as it was."""
        self.dismiss(None)


class ContextScreen(ModalScreen[None]):
    """A string's whole context (terminal/editor_context.py); Esc, i or q closes it."""

    BINDINGS = [  # noqa: RUF012
        Binding("escape,i,q", "close", "Close", priority=True),
    ]

    def __init__(self, request: CopilotRequest, found: StringContext | None) -> None:
        super().__init__()
        self._request = request
        self._found = found

    def compose(self) -> ComposeResult:
        """The context, scrolled when long."""
        with Vertical(classes="box"):
            yield Static("[b]Context[/]  [dim]Esc closes[/]")
            with VerticalScroll():
                yield Static(context_view(self._request, self._found), id="context-view")

    def action_close(self) -> None:
        """Back to the cards."""
        self.dismiss(None)
