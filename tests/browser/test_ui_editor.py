"""The translator's editor in the web UI (issue 44): locked codes as chips, an edit box that keeps them
whole, the keys that insert the next missing code and copy the source, the line that says which codes
are missing or extra before the verdict, concordance from a card, and the string's context.

Real files with tags and placeholders (tests/formats/data: an HTML page, an Android strings.xml, an
i18next JSON with ICU plurals and numbered tags, a SubRip file with `<font>` and `<i>`), the real
service (uvicorn, SQLite, the offline pseudo model) and the system Chromium, as tests/browser/test_ui.py.
Screenshots go to test-artifacts/screenshots/editor-*.png.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, start_translation

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

DATA = ROOT / "tests" / "formats" / "data"
SHOTS = ROOT / "test-artifacts" / "screenshots"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

CARD_WITH = """(selector) => [...document.querySelectorAll('#cards .card')].findIndex(c => c.querySelector(selector))"""
BOX = "#cards .card.current textarea.code-locked"


VIEWPORT = (1280, 900)


def _sample(name: str) -> str:
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path.read_text(encoding="utf-8")


def _start(page: Page, server: str, path: Path | str, text: str, language: str = "French") -> None:
    start_translation(page, server, text, str(path), language)


def _open_card(page: Page, selector: str) -> Locator:
    """Make the first card holding `selector` current and return it."""
    index = page.evaluate(CARD_WITH, selector)
    assert index >= 0, f"no card has {selector}"
    card = page.locator("#cards .card").nth(index)
    card.locator(".card-head").click()
    page.wait_for_selector(f"#cards .card.current[data-index='{index}']")
    return card


def _edit(page: Page, card: Locator) -> None:
    page.focus("#cards .card.current")
    page.keyboard.press("e")
    page.wait_for_selector(f"{BOX}:focus")


def _value(page: Page) -> str:
    value: str = page.input_value(BOX)
    return value


def _caret(page: Page, at: int, end: int | None = None) -> None:
    select = "(box, [s, e]) => { box.focus(); box.setSelectionRange(s, e); }"
    page.eval_on_selector(BOX, select, [at, at if end is None else end])


def _selection(page: Page) -> list[int]:
    selection: list[int] = page.eval_on_selector(BOX, "box => [box.selectionStart, box.selectionEnd]")
    return selection


def _undo_to(page: Page, text: str) -> None:
    """Ctrl+Z until the box holds `text` again (the browser's own undo; a few steps at most)."""
    for _ in range(4):
        if _value(page) == text:
            return
        page.keyboard.press("Control+z")
    assert _value(page) == text


def _line(page: Page) -> Locator:
    return page.locator("#cards .card.current .codes-line").first


def _chips(card: Locator, where: str) -> list[list[str | None]]:
    chips = card.locator(f"{where} .code-chip")
    return [[c.get_attribute("data-code"), c.get_attribute("data-pair")] for c in chips.all()]


def test_html_tags_are_chips_typing_cannot_break_one_and_the_keys_restore_them(server: str, page: Page) -> None:
    """An HTML page's `<b>` and `<a href>`: chips on the card (each pair's ends share a colour); typing
    inside a tag lands after it; the first Backspace after a tag only selects it, the second deletes it,
    and the line says it is missing before anything is sent; F9 puts it back; Ctrl+Shift+S copies the
    source, which undo takes back; Save asks first while a code is missing."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    _start(page, server, "backbone.html", _sample("html_backbone.html"))
    card = _open_card(page, ".card-source .code-chip.code-open")
    source_chips = _chips(card, ".card-source")
    opens = {pair for code, pair in source_chips if pair is not None and not str(code).startswith("</")}
    closes = {pair for code, pair in source_chips if pair is not None and str(code).startswith("</")}
    assert opens and opens == closes, source_chips  # every open has its close, by the same pair number
    card.screenshot(path=str(SHOTS / "editor-html-card.png"))

    _edit(page, card)
    original = _value(page)
    first = page.evaluate(
        "(v) => { const m = /<[a-z][^>]*>/.exec(v); return [m.index, m.index + m[0].length]; }", original
    )
    start, end = first
    # Typing with the caret inside the tag: the tag stays whole, the text lands after it.
    _caret(page, start + 1)
    page.keyboard.type("xyz")
    assert _value(page) == original[:end] + "xyz" + original[end:]
    assert page.locator("#cards .card.current .codes-line[data-state=ok]").count() >= 1
    _undo_to(page, original)

    # Backspace after the tag: the first press selects it, the second deletes it.
    _caret(page, end)
    page.keyboard.press("Backspace")
    assert _value(page) == original and _selection(page) == [start, end]
    assert "again" in _line(page).inner_text()
    page.screenshot(path=str(SHOTS / "editor-html-armed.png"))
    page.keyboard.press("Backspace")
    assert _value(page) == original[:start] + original[end:]
    line = page.locator("#cards .card.current .codes-line[data-state=off]")
    assert original[start:end] in (line.locator(".codes-missing .code-chip").first.get_attribute("data-code") or "")
    card.screenshot(path=str(SHOTS / "editor-html-missing.png"))

    # Save while a code is missing: asked first; no, and the box is still open.
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("dialog#confirm[open]")
    assert "Codes missing or extra" in page.inner_text("#confirm-title")
    page.screenshot(path=str(SHOTS / "editor-html-save-asks.png"))
    page.click("dialog#confirm button[value=cancel]")
    page.wait_for_selector(f"{BOX}:focus")

    # F9 puts the missing tag back at the caret.
    _caret(page, start)
    page.keyboard.press("F9")
    assert _value(page) == original
    assert _line(page).get_attribute("data-state") == "ok"

    # Ctrl+Shift+S: the source, codes and all; undo takes it back.
    page.keyboard.press("Control+Shift+S")
    assert _value(page) == _request(server, page, card)["src_string"]
    assert _line(page).get_attribute("data-state") == "ok"
    _undo_to(page, original)
    card.screenshot(path=str(SHOTS / "editor-html-edit.png"))

    # An input method's text, begun with the caret inside the tag, is written after it.
    _caret(page, start + 1)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.imeSetComposition", {"text": "か", "selectionStart": 1, "selectionEnd": 1})
    cdp.send("Input.insertText", {"text": "家"})
    assert _value(page) == original[:end] + "家" + original[end:]
    assert _line(page).get_attribute("data-state") == "ok"


def test_copy_source_in_a_box_without_codes(server: str, page: Page) -> None:
    """A Markdown paragraph has no codes: its box is a plain one, and Ctrl+Shift+S still copies the
    source into it, which undo takes back."""
    _start(page, server, "notes.md", "# Notes\n\nRun the tool every day.\n")
    card = page.locator("#cards .card.current")
    page.keyboard.press("e")
    box = card.locator("textarea.edit-text")
    box.wait_for()
    assert card.locator("textarea.code-locked").count() == 0
    proposal = box.input_value()
    page.keyboard.press("Control+Shift+S")
    assert box.input_value() == _request(server, page, card)["src_string"] != proposal
    page.keyboard.press("Control+z")
    assert box.input_value() == proposal


def test_android_placeholders_and_xliff_g_stay_whole(server: str, page: Page) -> None:
    """An Android strings.xml: an `<xliff:g …>%1$s</xliff:g>` element is one locked code, one chip;
    typing inside it lands after it, and typing over a selection that holds part of it keeps it whole."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    _start(page, server, "strings.xml", _sample("android_thunderbird_strings.xml"))
    card = _open_card(page, '.card-source .code-chip[data-code^="<xliff:g"]')
    chips = _chips(card, ".card-source")
    xliff = [code for code, pair in chips if str(code).startswith("<xliff:g") and pair is None]
    assert xliff and all(str(c).endswith("</xliff:g>") and "%" in str(c) for c in xliff), chips
    card.screenshot(path=str(SHOTS / "editor-android-card.png"))

    _edit(page, card)
    original = _value(page)
    code = str(xliff[0])
    at = original.index(code)
    _caret(page, at + code.index("%") + 1)
    page.keyboard.type("Q")
    assert _value(page) == original[: at + len(code)] + "Q" + original[at + len(code) :]
    # A selection from the text before a tag into the tag, typed over: the tag is kept after the text.
    _undo_to(page, original)
    tag = original.index("<xliff:g")
    _caret(page, max(0, tag - 3), tag + 4)
    page.keyboard.type("Z")
    value = _value(page)
    assert value.count("<xliff:g") == original.count("<xliff:g") and "Z" in value
    assert _line(page).get_attribute("data-state") == "ok"
    # A paste over part of a code: the plain text goes in, the code stays whole after it.
    _undo_to(page, original)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("() => navigator.clipboard.writeText('collé')")
    _caret(page, tag + 2, tag + 6)
    page.keyboard.press("Control+v")
    assert _value(page) == original[:tag] + "collé" + code + original[tag + len(code) :]
    card.screenshot(path=str(SHOTS / "editor-android-edit.png"))


def test_i18next_icu_numbered_tags_and_copy_source(server: str, page: Page) -> None:
    """An i18next JSON with ICU plurals inside react-i18next's numbered tags: `<0>`…`</0>` one pair;
    Ctrl+Shift+S copies the source, codes and all, and the line says every code is in place."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    _start(page, server, "translations.json", _sample("react-i18next-icu.json"))
    card = _open_card(page, '.card-source .code-chip[data-code="<0>"]')
    chips = _chips(card, ".card-source")
    assert ["<0>", "0"] in chips and ["</0>", "0"] in chips, chips
    card.screenshot(path=str(SHOTS / "editor-i18next-card.png"))
    _edit(page, card)
    # Typing over the whole text keeps its codes (after the new text): a script's text shows the line off.
    page.fill(BOX, "Nous avons invité")
    assert _value(page).startswith("Nous avons invité<0>")
    page.eval_on_selector(BOX, "box => { box.value = 'Nous avons invité'; box.dispatchEvent(new Event('input')); }")
    line = _line(page)
    assert line.get_attribute("data-state") == "off"
    assert "<0>" in [c.get_attribute("data-code") for c in line.locator(".codes-missing .code-chip").all()]
    # A missing code's chip, clicked: inserted at the caret (the end), and no longer missing.
    line.locator('.codes-missing .code-chip[data-code="<0>"]').click()
    assert _value(page) == "Nous avons invité<0>"
    assert "<0>" not in [c.get_attribute("data-code") for c in line.locator(".codes-missing .code-chip").all()]
    page.keyboard.press("Control+Shift+S")
    forms = _request(server, page, card)["plural"]["source"]
    assert _value(page) == forms.get("one", forms["other"])  # the first form box: the source's form
    assert line.get_attribute("data-state") == "ok"
    card.screenshot(path=str(SHOTS / "editor-i18next-copied.png"))


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en" creationtool="test"
        creationtoolversion="1" o-tmf="test"/>
<body><tu>
<tuv xml:lang="en"><seg>Some normal coloured text</seg></tuv>
<tuv xml:lang="fr"><seg>Du texte coloré normal</seg></tuv>
</tu></body></tmx>
"""


def test_subtitle_tags_extra_code_and_concordance(server: str, page: Page) -> None:
    """A SubRip file's `<font color>` and `<i>`: two pairs in two colours; typing a tag the text already
    has shows it as extra before anything is sent; a word selected in the source and C find a translation
    memory entry, a typed query a glossary term, each with the match marked."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    _post(f"{server}api/memory/import", {"format": "tmx", "content": TMX})
    _post(f"{server}api/memory/glossary", {"source": "italic", "target": "italique", "languages": "fr"})
    _start(page, server, "styles2.srt", _sample("subtitles_styles2.srt"))
    card = _open_card(page, '.card-source .code-chip[data-code="<i>"]')
    chips = _chips(card, ".card-source")
    italic = [pair for code, pair in chips if code in ("<i>", "</i>")]
    assert len(italic) == 2 and italic[0] == italic[1] and italic[0] is not None, chips
    assert any(str(code).startswith("<font") for code, _ in chips), chips
    colours = page.eval_on_selector_all(
        "#cards .card.current .card-source .code-chip", "chips => chips.map(c => getComputedStyle(c).backgroundColor)"
    )
    assert len(set(colours)) == 2, colours

    _edit(page, card)
    original = _value(page)
    _caret(page, len(original))
    page.keyboard.type(" <i>")
    line = _line(page)
    assert line.get_attribute("data-state") == "off"
    assert [c.get_attribute("data-code") for c in line.locator(".codes-extra .code-chip").all()] == ["<i>"]
    card.screenshot(path=str(SHOTS / "editor-srt-extra.png"))
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert _value(page) == original + " "
    assert line.get_attribute("data-state") == "ok"
    page.keyboard.press("Escape")

    # Concordance: a word selected in the source, then C.
    page.evaluate(
        """() => {
          const source = document.querySelector('#cards .card.current .card-source');
          const walker = document.createTreeWalker(source, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const at = n.data.indexOf('coloured');
            if (at === -1) continue;
            const range = document.createRange();
            range.setStart(n, at);
            range.setEnd(n, at + 'coloured'.length);
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            return;
          }
          throw new Error('no "coloured" in the source');
        }"""
    )
    page.focus("#cards .card.current")
    page.keyboard.press("c")
    memory = card.locator(".conc-memory .conc-row")
    memory.first.wait_for()
    assert card.locator(".conc-query").input_value() == "coloured"
    assert memory.first.locator(".conc-source .conc-hit").inner_text() == "coloured"
    assert "Du texte coloré normal" in memory.first.locator(".conc-target").inner_text()
    card.screenshot(path=str(SHOTS / "editor-concordance-memory.png"))
    card.locator(".conc-query").fill("italic")
    card.locator(".conc-query").press("Enter")
    term = card.locator(".conc-glossary .conc-row")
    term.first.wait_for()
    assert term.first.locator(".conc-source .conc-hit").inner_text().lower() == "italic"
    assert "italique" in term.first.locator(".conc-target").inner_text()
    card.screenshot(path=str(SHOTS / "editor-concordance-glossary.png"))
    # At a phone's width the card, its chips and the concordance fit without sideways scrolling.
    page.set_viewport_size({"width": 390, "height": 844})
    page.focus("#cards .card.current")
    page.keyboard.press("e")
    page.wait_for_selector(f"{BOX}:focus")
    fits = (
        "c => [c, ...c.querySelectorAll('*')].every(e => e.scrollWidth <= e.clientWidth + 1 || !e.clientWidth"
        " || getComputedStyle(e).textOverflow === 'ellipsis')"
    )
    card.screenshot(path=str(SHOTS / "editor-narrow.png"))
    assert card.evaluate(fits), "something in the card scrolls sideways at 390 px"
    page.keyboard.press("Escape")
    page.set_viewport_size({"width": 1280, "height": 900})

    # The segment list's revision box keeps the codes the same way, once the batch is sent.
    page.focus("#cards .card.current")
    page.keyboard.press("Shift+A")
    page.wait_for_selector("dialog#confirm[open]")
    page.click("dialog#confirm button[value=ok]")
    page.wait_for_selector("body[data-phase=done]")
    page.click("#tab-segments")
    row = page.locator("#seglist .seg", has_text="Some italic")
    row.locator(".seg-src").click()
    editor = page.locator(".seg-editor")
    editor.wait_for()
    shown = [c.get_attribute("data-code") for c in editor.locator(".seg-editor-source .code-chip").all()]
    assert shown[-2:] == ["<i>", "</i>"], shown
    box = editor.locator("textarea.code-locked")
    written = box.input_value()
    close = written.index("</i>")
    box.evaluate("(b, at) => { b.focus(); b.setSelectionRange(at, at); }", close + 2)
    page.keyboard.type("x")
    assert box.input_value() == written[: close + 4] + "x" + written[close + 4 :]
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert box.input_value() == written[:close] + written[close + 4 :]
    assert editor.locator(".codes-line").get_attribute("data-state") == "off"
    editor.screenshot(path=str(SHOTS / "editor-segment-list.png"))
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("dialog#confirm[open]")
    page.click("dialog#confirm button[value=cancel]")
    page.keyboard.press("F9")
    assert box.input_value() == written


CONTEXT = {
    "id": "s9",
    "key": "message_view_sender_label",
    "note": None,
    "refs": [],
    "flags": [],
    "codes": ["%1$s"],
    "plural": None,
    "before": [
        {"id": "s7", "key": "message_list_title", "source": "Messages", "target": "Messages", "status": "approved"},
        {"id": "s8", "key": "message_view_from", "source": "From", "target": None, "status": "untranslated"},
    ],
    "after": [{"id": "s10", "key": "message_view_to", "source": "To", "target": "À", "status": "refined"}],
    "otherLanguages": [
        {"language": "de", "sessionId": "x", "fileId": "y", "target": "über %1$s", "status": "approved"},
        {"language": "pl", "sessionId": "z", "fileId": "w", "target": "przez %1$s", "status": "approved"},
    ],
}


def test_context_box_shows_neighbours_and_other_languages_from_the_server_and_the_contract(
    server: str, page: Page
) -> None:
    """A resource string's card: its key on the card; "Context" loads the neighbours and the same key in
    other languages from the server (the file translated into German first, in another session), and
    renders every field of docs/api.md's contract (the route stubbed for the second card)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    text = _sample("android_thunderbird_strings.xml")
    german = _post(f"{server}api/sessions", {"targetLanguage": "de"})["id"]
    _post(f"{server}api/sessions/{german}/files", {"name": "strings.xml", "content": text})
    agent = _post(f"{server}api/next", {"sessionId": german, "userInput": "Translate into German."})["agentResponse"]
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
    assert verdicts
    _post(f"{server}api/next", {"sessionId": german, "copilotResponses": verdicts})

    _start(page, server, "strings.xml", text)
    first = page.locator("#cards .card").nth(0)
    first.locator(".card-head").click()
    first.locator(".card-strctx summary").click()
    languages = first.locator(".ctx-languages .ctx-row")
    languages.first.wait_for()
    assert languages.first.inner_text().startswith("de"), "the German session's text for the same key"
    assert first.locator(".ctx-neighbours .ctx-row").count() >= 2
    first.screenshot(path=str(SHOTS / "editor-context-server.png"))

    page.route(
        "**/segments/*/context",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(CONTEXT)),
    )
    card = page.locator("#cards .card").nth(1)
    card.locator(".card-head").click()
    assert card.locator(".context-key").inner_text()
    card.locator(".card-strctx summary").click()
    rows = card.locator(".ctx-neighbours .ctx-row")
    rows.first.wait_for()
    assert rows.count() == 4
    assert card.locator(".ctx-this").count() == 1
    assert card.locator(".ctx-languages .ctx-row").all_inner_texts() == ["de\nüber %1$s", "pl\nprzez %1$s"]
    card.screenshot(path=str(SHOTS / "editor-context.png"))


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _request(server: str, page: Page, card: Locator) -> Any:
    """The copilot request `card` shows, as the server has it."""
    session = _get(f"{server}api/sessions/{page.evaluate('() => location.hash.slice(1)')}")
    call = card.get_attribute("data-call-id")
    return next(r for r in session["pendingCopilotRequests"] if r["tool"]["callId"] == call)
