"""The web UI as a translator uses it (issue 27): what a reviewer sees at each step, in a real browser.

The real service (SQLite, the offline `pseudo` model) and the system Chromium, as in test_ui.py: the
current card is never under the sticky review header, long table lines stay inside their pane, a style
note says what it was learned from, a term to keep is named as such, and the segment count is stable.
Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.launcher import (
    REQUIRES_BROWSER,
    ROOT,
    SMALL_SCREENS,
    get_json,
    start_translation,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

GUIDE = ROOT / "tests" / "data" / "guide.md"
SHOTS = ROOT / "test-artifacts" / "screenshots"

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

NEW_BATCH_OR_DONE = """(seen) => {
  const phase = document.body.dataset.phase;
  if (phase === 'done') return true;
  if (phase !== 'review') return false;
  const ids = [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId);
  return ids.length > 0 && ids.some(id => !seen.includes(id));
}"""

CURRENT_CARD_CLEAR = """() => {
  const card = document.querySelector('#cards .card.current').getBoundingClientRect();
  const head = document.querySelector('.review-head').getBoundingClientRect();
  const review = document.querySelector('#review').getBoundingClientRect();
  const fits = card.height <= review.bottom - head.bottom;
  return card.top >= head.bottom - 0.5 && (!fits || card.bottom <= review.bottom + 0.5);
}"""
"""The current card lies below the sticky header, and (when it fits) above the review's bottom."""

OUTSIDE_PANE = """(id) => {
  const pane = document.getElementById(id);
  const box = pane.getBoundingClientRect();
  const right = box.left + pane.clientLeft + pane.clientWidth - parseFloat(getComputedStyle(pane).paddingRight);
  const range = document.createRange();
  range.selectNodeContents(pane);
  const worst = Math.max(0, ...[...range.getClientRects()].map(r => r.right - right));
  const marks = [...pane.querySelectorAll('span')].flatMap(s => [...s.getClientRects()]);
  return Math.max(worst, 0, ...marks.map(r => r.right - right));
}"""
"""How far (px) the text or a highlighted span of pane `id` reaches past the pane's content box."""

NO_SIDEWAYS_SCROLL = "(id) => { const p = document.getElementById(id); return p.scrollWidth <= p.clientWidth; }"


SERVICE_ENV = SMALL_SCREENS


def _call_ids(page: Page) -> list[str]:
    ids: list[str] = page.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
    return ids


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def _delete(url: str) -> None:
    urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=10).close()


def test_the_current_card_is_below_the_sticky_header_after_every_batch(server: str, page: Page) -> None:
    """Card by card with the keyboard in a short window: every new batch's first card, and each next one,
    shows whole below the sticky review header (it used to land under it once the review had scrolled)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 620})
    start_translation(page, server, GUIDE.read_text(encoding="utf-8"), "guide.md")
    seen: list[str] = []
    batches = scrolled = 0
    while page.evaluate("() => document.body.dataset.phase") == "review":
        batches += 1
        ids = _call_ids(page)
        seen.extend(ids)
        for n in range(len(ids)):
            page.wait_for_function(CURRENT_CARD_CLEAR, timeout=3_000)
            if n == 0 and page.evaluate("() => document.querySelector('#review').scrollTop") > 0:
                scrolled += 1
                page.screenshot(path=str(SHOTS / "new-batch-scrolled.png"))
            page.focus("#cards .card.current")
            page.keyboard.press("a")
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=seen)
    assert batches >= 2  # a new batch after one reviewed with the page scrolled
    assert scrolled >= 1, "a batch began with the review scrolled (the case that hid the card)"


def _row(*cells: str) -> str:
    widths = (34, 64, 24)
    return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |\n"


TABLE = (
    "# Options\n\nEvery option, aligned as editors write tables.\n\n"
    + _row("option", "what it does", "default")
    + _row("-" * 34, "-" * 64, "-" * 24)
    + "".join(_row(f"`--option-{i}`", "turns the feature on when the other one is off", "`auto`") for i in range(3))
    + _row("`--" + "x" * 60 + "`", "a-single-unbreakable-word-" * 4, "`none`")
    + "\nThe end.\n"
)


def test_long_table_lines_stay_inside_their_pane(server: str, page: Page) -> None:
    """Side by side, an aligned table's long lines (runs of spaces, a long word) wrap inside the source pane
    and the translation pane: no text and no highlight reaches past a pane's content box."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    start_translation(page, server, TABLE, "options.md")
    page.click("#tab-both")
    page.wait_for_selector("#source-pane .seg-pending")
    assert page.evaluate(OUTSIDE_PANE, "source-pane") <= 0.5, "the source's table spills out of its pane"
    while page.evaluate("() => document.body.dataset.phase") == "review":
        ids = _call_ids(page)
        page.focus("#cards .card.current")
        page.keyboard.press("Shift+A" if len(ids) > 1 else "a")
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=ids)
    page.wait_for_selector("#translation-pane .seg-done")
    page.wait_for_function("() => document.querySelector('#translation-pane').textContent.includes('|')")
    page.screenshot(path=str(SHOTS / "table-side-by-side.png"))
    for pane in ("source-pane", "translation-pane"):
        assert page.evaluate(OUTSIDE_PANE, pane) <= 0.5, f"the table spills out of #{pane}"
        assert page.evaluate(NO_SIDEWAYS_SCROLL, pane), f"#{pane} scrolls sideways"


def test_a_style_note_from_a_rejection_says_it_was_learned_from_a_review(server: str, page: Page) -> None:
    """A rejection whose reason states a rule becomes a style note labelled "learned from your reviews", not
    "from your edits": no edit was made."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    start_translation(page, server, "# Notes\n\nRun the tool every day.\n\nThe end.\n", "notes.md")
    page.focus("#cards .card.current")
    page.keyboard.press("r")
    page.wait_for_selector(".card.current .reason-text:focus")
    page.keyboard.type("Always use the formal register.")
    page.keyboard.press("Control+Enter")
    page.focus("#cards .card.current")
    page.keyboard.press("Shift+A")
    note = page.locator("#memory-notes .memory-item[data-origin=learned]").first
    note.wait_for()
    assert "Always use the formal register." in note.inner_text()
    meta = note.locator(".memory-meta").inner_text()
    assert "learned from your reviews" in meta and "edits" not in meta, meta
    note.screenshot(path=str(SHOTS / "memory-note-from-rejection.png"))
    for item in get_json(f"{server}api/memory")["styleNotes"]:
        _delete(f"{server}api/memory/{item['id']}")


def test_a_term_to_keep_is_named_as_such_and_a_kept_one_draws_no_warning(server: str, page: Page) -> None:
    """A glossary entry whose translation is its term (Clippy → Clippy) is a term to keep: a proposal that
    changes it says "keep «Clippy» as it is", never "should be translated as «Clippy»"; an edit that keeps
    it draws no warning, so the batch goes out without asking."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    keep = {"source": "Clippy", "target": "Clippy", "languages": "auto>french"}
    entry = _post_json(f"{server}api/memory/glossary", keep)
    try:
        start_translation(page, server, "# Lints\n\nRun Clippy before every commit.\n", "lints.md")
        card = page.locator("#cards .card:has(.card-source:has-text('Clippy'))")
        warnings = card.locator(".card-warnings").inner_text()
        assert "keep «Clippy» as it is" in warnings and "should be translated" not in warnings, warnings
        assert card.locator("mark.term").get_attribute("title") == "Glossary: keep Clippy as it is"
        card.screenshot(path=str(SHOTS / "keep-term-warning.png"))
        page.focus("#cards .card.current")
        page.keyboard.press("a")  # the heading
        page.wait_for_selector("#cards .card.current:has(.card-source:has-text('Clippy'))")
        page.keyboard.press("e")
        page.wait_for_selector(".card.current .edit-text:focus")
        page.fill(".card.current .edit-text", "Lancez Clippy avant chaque commit.")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("body[data-phase=done]")
        assert page.locator("#send-verdicts:visible").count() == 0, "no warning held the batch"
    finally:
        _delete(f"{server}api/memory/{entry['id']}")


def _progress(page: Page) -> str:
    text: str = page.inner_text("#seg-progress")
    return text


def test_the_segment_count_is_right_before_any_review_and_stable_after(server: str, page: Page) -> None:
    """guide.md's code blocks are written as they are at upload: before any review the count says 0 units
    translated and 3 kept as is (it said "3 of 15 written"), and as batches are reviewed the translated
    count only grows, the kept count stays, and no total of units is claimed that later drifts."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    start_translation(page, server, GUIDE.read_text(encoding="utf-8"), "guide.md")
    page.wait_for_selector("#seglist .seg[data-status=pending]")
    first = _progress(page)
    assert first.startswith("0 units translated · 3 kept as is (code, URLs) · "), first
    page.locator("#seg-progress").screenshot(path=str(SHOTS / "segment-count-start.png"))
    counts = [0]
    seen: list[str] = []
    while page.evaluate("() => document.body.dataset.phase") == "review":
        ids = _call_ids(page)
        seen.extend(ids)
        page.focus("#cards .card.current")
        page.keyboard.press("Shift+A" if len(ids) > 1 else "a")
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=seen)
        page.wait_for_function(
            "(n) => parseInt(document.querySelector('#seg-progress').textContent) > n", arg=counts[-1]
        )
        text = _progress(page)
        assert " of " not in text.split("·")[0], f"a total of units is claimed: {text}"
        assert "3 kept as is (code, URLs)" in text, text
        counts.append(int(text.split(" ")[0]))
    assert counts == sorted(counts) and counts[-1] > 0
    final = _progress(page)
    assert final.endswith(" units translated · 3 kept as is (code, URLs) · 1,087 / 1,087 characters"), final
    assert "to translate" not in final and "in review" not in final

    # Back home, the form offers a new document (not the one just translated again), in the same language.
    page.click("#home-link")
    page.wait_for_selector("body[data-phase=home] #session-list .session-item")
    assert page.input_value("#doc-text") == "" and page.input_value("#doc-name") == "document.md"
    assert page.input_value("#target-lang") == "French"


def test_the_source_language_is_shown_and_changed_from_the_top_bar(server: str, page: Page) -> None:
    """The top bar shows the session's source language (detected from the first file) and sets another
    with Enter; what is not a tag is refused before it is sent."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    doc = "# Notes\n\nRun the tool every day, and read what it tells you before you change anything.\n"
    session_id = start_translation(page, server, doc, "lang.md")
    assert get_json(f"{server}api/sessions/{session_id}")["sourceLanguage"] == "en"
    field = page.locator("#source-lang")
    page.wait_for_function("() => document.querySelector('#source-lang').value === 'English (en)'")

    # Not a tag: refused in the page, nothing sent.
    patches: list[str] = []
    page.on("request", lambda r: patches.append(r.url) if r.method == "PATCH" else None)
    field.fill("the usual one")
    field.press("Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert "is not a language tag" in page.inner_text("#error-text") and not patches
    assert field.input_value() == "English (en)"
    page.click("#error-dismiss")

    field.fill("de")
    field.press("Enter")
    page.wait_for_function("() => document.querySelector('#source-lang').value === 'German (de)'")
    assert "Source language set to German (de)." in page.inner_text("#status")
    assert get_json(f"{server}api/sessions/{session_id}")["sourceLanguage"] == "de"
    page.reload()
    page.wait_for_function("() => document.querySelector('#source-lang').value === 'German (de)'")
    assert len(patches) == 1
    page.locator(".topbar").screenshot(path=str(SHOTS / "source-language.png"))
