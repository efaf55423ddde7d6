"""The edit box of a string with locked codes: the codes shown in their looks and kept whole.

Textual's TextArea sends every edit made from the keyboard (typing, paste, Backspace, Delete, the
word and line deletions, cut) through `_replace_via_keyboard` or `_delete_via_keyboard`; `CodeArea`
checks each there against the codes of the text before it:

- an edit that would split or alter a code (typing inside it, deleting part of it) is refused with
  a message, and the text stays as it was;
- Backspace or Delete against a code's edge selects the whole code; pressing it again removes it;
- a selection the person made may be deleted or typed over with whole codes in it (an explicit act),
  but a word or line deletion that would take a code with it is refused;
- Left and Right step over a whole code (Shift+arrows still select by character).

The keys' own edits (insert the next missing code, copy the source) go through the public `insert`
and `replace`, unchecked, and Ctrl+Z undoes them like any edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Document, EditResult, Location, Selection, TextAreaTheme

from .codes import EXTRA, PALETTE, CodeSpan, code_spans, expected_codes, next_missing

INSERT_CODE_KEYS = "f9,alt+insert,ctrl+t"
"""Insert the next missing code at the cursor: F9 and Alt+Insert as the web UI (memoQ's F9); Ctrl+T
("tag") where a terminal keeps F9 for itself."""
COPY_SOURCE_KEYS = "ctrl+shift+s,f8,ctrl+o"
"""Replace the text with the source: Ctrl+Shift+S as the web UI, where the terminal tells it from Ctrl+S
(kitty's keyboard protocol; elsewhere it arrives as Ctrl+S, which accepts the edit); F8 and Ctrl+O
("original") in any terminal. The box's own Ctrl+Z undoes it."""
_THEME = TextAreaTheme(
    name="codes",
    syntax_styles={f"code.{n}": style for n, style in enumerate(PALETTE)} | {"code.extra": EXTRA},
)


class CodeArea(TextArea):
    """A TextArea whose text keeps the source's codes whole (module docstring)."""

    BINDINGS = [  # noqa: RUF012  (Textual's own class attribute)
        Binding(INSERT_CODE_KEYS, "insert_code", "Insert next code", key_display="F9"),
        Binding(COPY_SOURCE_KEYS, "copy_source", "Copy source", key_display="F8"),
    ]

    class Refused(Message):
        """An edit the box did not make (or a key that had nothing to do), in words for the person."""

        def __init__(self, area: CodeArea, message: str) -> None:
            super().__init__()
            self.area = area
            self.message = message

    def __init__(
        self, text: str, *, source: str, codes: Sequence[str], id: str | None = None, classes: str | None = None
    ) -> None:
        # Set before TextArea's own setup, which draws the text (and so its codes) already.
        self.source = source
        """The source text the box's text translates (what Ctrl+O copies)."""
        self.codes = tuple(codes)
        """The string's codes, each once (the card's `context.codes`)."""
        self.expected = expected_codes(source, self.codes)
        """Each occurrence of a code in the source, in order: what the text should hold."""
        super().__init__(text, id=id, classes=classes, soft_wrap=True)
        self.register_theme(_THEME)
        self.theme = _THEME.name

    # ---------- the guard on keyboard edits ----------

    def _delete_via_keyboard(self, start: Location, end: Location) -> EditResult | None:
        if self._refuses(start, end, ""):
            return None
        return super()._delete_via_keyboard(start, end)

    def _replace_via_keyboard(self, insert: str, start: Location, end: Location) -> EditResult | None:
        if self._refuses(start, end, insert):
            return None
        return super()._replace_via_keyboard(insert, start, end)

    def _refuses(self, start: Location, end: Location, insert: str) -> bool:
        """Whether replacing `start`–`end` by `insert` is refused (and the person told, or the code selected)."""
        index = self._index
        low, high = sorted((index(start), index(end)))
        selected = sorted((index(self.selection.start), index(self.selection.end))) == [low, high] and low < high
        for span in self.spans():
            if span.colour < 0:
                continue  # a code the source has not is plain text to edit
            inside = low < span.end and span.start < high
            if low == high and span.start < low < span.end:
                self._refuse(f"Typing inside {span.code} would break it: codes are kept whole.")
                return True
            if not inside or (selected and span.start >= low and span.end <= high):
                continue
            if not insert and not selected and high - low == 1 and low in (span.start, span.end - 1):
                at = self._location
                self.selection = Selection(at(span.start), at(span.end))
                self._refuse(f"{span.code} selected: Backspace or Delete again removes it (Ctrl+Z brings it back).")
                return True
            whole = span.start >= low and span.end <= high
            how = "would take" if whole else "would break"
            self._refuse(f"That edit {how} {span.code}: select a whole code to delete it, or press Backspace on it.")
            return True
        return False

    def _index(self, location: Location) -> int:
        """The offset in `text` of a location."""
        assert isinstance(self.document, Document)  # a TextArea without a language has a plain Document
        return self.document.get_index_from_location(location)

    def _location(self, index: int) -> Location:
        """The location of an offset in `text`."""
        assert isinstance(self.document, Document)
        return self.document.get_location_from_index(index)

    def _refuse(self, message: str) -> None:
        self.post_message(self.Refused(self, message))

    def spans(self) -> tuple[CodeSpan, ...]:
        """The codes in the text now."""
        return code_spans(self.text, self.codes)

    # ---------- the codes' looks ----------

    def _build_highlight_map(self) -> None:
        super()._build_highlight_map()
        at = self._location
        for span in self.spans():
            (row, first), (last_row, last) = at(span.start), at(span.end)
            line = self.document.get_line(row)
            end = len(line[:last].encode()) if last_row == row else None  # a code does not span lines
            name = "code.extra" if span.colour < 0 else f"code.{span.colour}"
            self._highlights[row].append((len(line[:first].encode()), end, name))

    # ---------- the keys ----------

    def action_cursor_left(self, select: bool = False) -> None:
        """One character left, or over the whole code that ends at the cursor."""
        if not self._step_over(forward=False, select=select):
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        """One character right, or over the whole code that starts at the cursor."""
        if not self._step_over(forward=True, select=select):
            super().action_cursor_right(select)

    def _step_over(self, *, forward: bool, select: bool) -> bool:
        if select or not self.selection.is_empty:
            return False
        at = self._index(self.cursor_location)
        for span in self.spans():
            if span.colour >= 0 and at == (span.start if forward else span.end):
                self.move_cursor(self._location(span.end if forward else span.start))
                return True
        return False

    def action_insert_code(self) -> None:
        """Insert the next code the text lacks, in source order, at the cursor (after a code it is in)."""
        code = next_missing(self.expected, self.text, self.codes)
        if code is None:
            self._refuse("No code is missing." if self.expected else "This string has no codes.")
            return
        at = self._index(self.cursor_location)
        at = next((s.end for s in self.spans() if s.start < at < s.end), at)
        result = self.insert(code, self._location(at))
        self.move_cursor(result.end_location)

    def action_copy_source(self) -> None:
        """Replace the whole text with the source (Ctrl+Z undoes it)."""
        result = self.replace(self.source, (0, 0), self.document.end)
        self.move_cursor(result.end_location)
