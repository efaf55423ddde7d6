"""A string's locked codes in the terminal: found in a text, a pair in one look, what a translation lacks;
and the edit box that keeps them whole, driven by Textual's pilot."""

from __future__ import annotations

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from terminal.codes import EXTRA, PALETTE, check_line, code_spans, expected_codes, next_missing, styled
from terminal.editor import CodeArea
from terminal.editor_screens import ConfirmScreen, EditScreen

SOURCE = "%1$d files left on <b>%2$s</b>"
CODES = ("%1$d", "<b>", "%2$s", "</b>")
PROPOSAL = "[%1$d ƒíĺéš ĺéƒţ óñ <b>%2$s</b> ~~~]"
XLIFF = '<xliff:g id="name" example="Ann">%1$s</xliff:g>'


def test_a_pair_shares_its_opener_look_and_a_code_the_source_lacks_is_extra() -> None:
    spans = code_spans("<b>%2$s</b> and %1$d, <i>x</i> %3$s", CODES)
    assert [(s.code, s.colour) for s in spans] == [
        ("<b>", 1),
        ("%2$s", 2),
        ("</b>", 1),
        ("%1$d", 0),
        ("<i>", -1),
        ("</i>", -1),
        ("%3$s", -1),
    ]
    text = styled(PROPOSAL, CODES)
    looks = {text.plain[s.start : s.end]: s.style for s in text.spans}
    assert looks == {"%1$d": PALETTE[0], "<b>": PALETTE[1], "%2$s": PALETTE[2], "</b>": PALETTE[1]}
    assert styled("%9$s", CODES).spans[0].style == EXTRA
    assert [(s.start, s.code) for s in code_spans("100%%d, then %d", ("%s",))] == [(13, "%d")]  # %% is a percent


def test_a_whole_xliff_element_is_one_code_not_its_inner_placeholder() -> None:
    text = f"Welcome back, {XLIFF}!"
    assert [(s.start, s.code) for s in code_spans(text, (XLIFF,))] == [(14, XLIFF)]
    assert expected_codes(text, (XLIFF,)) == (XLIFF,)
    assert next_missing((XLIFF,), "Bon retour, %1$s !", (XLIFF,)) == XLIFF


def test_the_next_missing_code_follows_the_source_order_and_counts_repeats() -> None:
    expected = expected_codes("<b>%s</b> or <b>%s</b>", ("<b>", "%s", "</b>"))
    assert expected == ("<b>", "%s", "</b>", "<b>", "%s", "</b>")
    assert next_missing(expected, "<b>%s</b> ou %s", ("<b>", "%s", "</b>")) == "<b>"
    assert next_missing(expected, "<b>%s</b> ou <b>%s</b>", ("<b>", "%s", "</b>")) is None
    assert str(check_line(expected, "<b>%s</b> ou %s")) == "⚠ Codes: <b> is missing (1 of 2) · </b> is missing (1 of 2)"
    assert str(check_line(expected, "<b>%s</b> ou <b>%s</b>")) == "✓ Every code kept (6)."
    assert str(check_line((), "anything")) == "No codes in this string."


class Editing(App[str | None]):
    """The edit dialog alone, for one string."""

    def __init__(self, source: str, text: str, codes: tuple[str, ...]) -> None:
        super().__init__()
        self.screen_args = (source, text, codes)
        self.result: str | None = None

    def on_mount(self) -> None:
        source, text, codes = self.screen_args

        def done(result: str | None) -> None:
            self.result = result

        self.push_screen(EditScreen(source, text, codes=codes), done)


def area_of(pilot: Pilot[str | None]) -> CodeArea:
    area = pilot.app.screen.query_one(TextArea)
    assert isinstance(area, CodeArea)
    return area


def note(pilot: Pilot[str | None]) -> str:
    return str(pilot.app.screen.query_one("#code-note", Static).content)


def check(pilot: Pilot[str | None]) -> str:
    return str(pilot.app.screen.query_one("#check-edit-text", Static).content)


async def test_typing_inside_a_code_or_deleting_part_of_it_changes_nothing() -> None:
    app = Editing(SOURCE, PROPOSAL, CODES)
    async with app.run_test(size=(110, 30)) as pilot:
        area = area_of(pilot)
        area.move_cursor((0, PROPOSAL.index("%2$s") + 2))
        await pilot.press("x")
        assert area.text == PROPOSAL
        assert note(pilot) == "Typing inside %2$s would break it: codes are kept whole."
        area.move_cursor((0, PROPOSAL.index("</b>")))
        await pilot.press("ctrl+k")  # to the end of the line: would take </b> with it
        assert area.text == PROPOSAL and "would take </b>" in note(pilot)
        area.move_cursor((0, 1))
        await pilot.press("delete")  # the % of %1$d: a code's edge selects it whole
        assert area.selected_text == "%1$d" and area.text == PROPOSAL
        await pilot.press("a")  # typing over a selected whole code is the person's explicit act
        assert area.text == PROPOSAL.replace("%1$d", "a") and check(pilot) == "⚠ Codes: %1$d is missing"


async def test_backspace_twice_removes_a_code_and_the_insert_key_restores_it() -> None:
    app = Editing(SOURCE, PROPOSAL, CODES)
    async with app.run_test(size=(110, 30)) as pilot:
        area = area_of(pilot)
        area.move_cursor((0, PROPOSAL.index("</b>") + 4))
        await pilot.press("backspace")
        assert area.selected_text == "</b>" and area.text == PROPOSAL and "</b> selected" in note(pilot)
        await pilot.press("backspace")
        assert area.text == PROPOSAL.replace("</b>", "") and check(pilot) == "⚠ Codes: </b> is missing"
        area.move_cursor((0, PROPOSAL.index("%2$s") + 2))
        await pilot.press("ctrl+t")  # the cursor inside %2$s: the code goes after it
        assert area.text == PROPOSAL and check(pilot) == "✓ Every code kept (4)."
        await pilot.press("f9")
        assert area.text == PROPOSAL and note(pilot) == "No code is missing."


async def test_copy_source_replaces_the_text_and_undo_brings_it_back_then_accept_keeps_it() -> None:
    app = Editing(SOURCE, PROPOSAL, CODES)
    async with app.run_test(size=(110, 30)) as pilot:
        area = area_of(pilot)
        await pilot.press("ctrl+o")
        assert area.text == SOURCE and check(pilot) == "✓ Every code kept (4)."
        await pilot.press("ctrl+z")
        assert area.text == PROPOSAL
        await pilot.press("f8", "home")
        await pilot.press(*"Il reste ")
        assert area.text == "Il reste " + SOURCE
        await pilot.press("ctrl+s")
    assert app.result == "Il reste " + SOURCE


async def test_left_and_right_step_over_a_whole_code_and_shift_selects_by_character() -> None:
    app = Editing(SOURCE, PROPOSAL, CODES)
    async with app.run_test(size=(110, 30)) as pilot:
        area = area_of(pilot)
        after = PROPOSAL.index("</b>") + len("</b>")
        area.move_cursor((0, after))
        await pilot.press("left")
        assert area.cursor_location == (0, after - len("</b>"))
        await pilot.press("left")
        assert area.cursor_location == (0, PROPOSAL.index("%2$s"))
        await pilot.press("right", "right", "right")  # over %2$s, over </b>, then one character
        assert area.cursor_location == (0, after + 1)
        await pilot.press("left", "shift+left", "x")  # a partial selection of </b>: typing over it is refused
        assert area.text == PROPOSAL and "would break </b>" in note(pilot)


async def test_accepting_a_text_with_a_code_missing_asks_first() -> None:
    app = Editing(SOURCE, PROPOSAL, CODES)
    async with app.run_test(size=(110, 30)) as pilot:
        area = area_of(pilot)
        area.move_cursor((0, PROPOSAL.index("%1$d") + len("%1$d")))
        await pilot.press("backspace", "backspace", "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one(Static).content)
        assert question.startswith("The codes of your text do not match the source's (%1$d is missing).")
        await pilot.press("n")  # back to the text, as it was
        assert isinstance(app.screen, EditScreen) and area.text == PROPOSAL.replace("%1$d", "")
        await pilot.press("ctrl+s", "y")
    assert app.result == PROPOSAL.replace("%1$d", "")
