"""MQM issues, the scorecard and a unit's history in the web UI (issue 30), in a real browser.

The real service (SQLite, the offline `pseudo` model) and the system Chromium, as in test_ui.py: an edit
and a rejection are given MQM issues on their cards, a written segment is revised with one, each unit's
history opens in the segment list, and the Scorecard view counts the issues, scores the file and
passes or fails it as its threshold says. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, get_json, start_translation

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOTS = ROOT / "test-artifacts" / "screenshots"
DOC = (
    "# Release notes\n\nThe client now retries a request once.\n\nTimeouts are shorter by default.\n\n"
    "Headers keep their case.\n\nThe proxy setting moved to the client.\n"
)

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]


VIEWPORT = (1280, 900)


def _review_to_the_end(page: Page) -> None:
    """Approve every card of every batch until the document is done."""
    while page.evaluate("() => document.body.dataset.phase") == "review":
        ids = page.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
        page.focus("#cards .card.current")
        page.keyboard.press("Shift+A" if len(ids) > 1 else "a")
        page.wait_for_function(
            """(seen) => document.body.dataset.phase === 'done' || (document.body.dataset.phase === 'review'
               && [...document.querySelectorAll('#cards .card')].some(c => !seen.includes(c.dataset.callId)))""",
            arg=ids,
        )


def test_issues_on_cards_a_units_history_and_the_scorecard(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    session_id = start_translation(page, server, DOC, "notes.md")
    assert page.locator("#cards .card").count() >= 3

    # The first card: edited, with a Terminology issue (major).
    page.focus("#cards .card.current")
    page.keyboard.press("e")
    editor = page.locator("#cards .card.current .edit-text")
    editor.wait_for()
    edited = "# Notes de version"  # no bracket: the envelope it replaces had none of the source's either
    editor.fill(edited)
    picker = page.locator("#cards .card.current .card-editor .mqm-picker")
    assert picker.locator(".mqm-severity").is_disabled(), "no severity without an error type"
    picker.locator(".mqm-category").select_option("Terminology")
    picker.locator(".mqm-severity").select_option("major")
    page.locator("#cards .card.current").screenshot(path=str(SHOTS / "mqm-issue-on-edit.png"))
    page.click("#cards .card.current [data-action=save-edit]")
    first = page.locator("#cards .card").nth(0)
    assert "Terminology (major)" in first.locator(".card-verdict").inner_text()

    # The second card: rejected with an Accuracy › Omission issue (minor).
    page.wait_for_selector("#cards .card:nth-child(2).current")
    page.focus("#cards .card.current")
    page.keyboard.press("r")
    page.locator("#cards .card.current .reason-text").fill("A word is missing.")
    reject = page.locator("#cards .card.current .card-reject .mqm-picker")
    reject.locator(".mqm-category").select_option("Accuracy/Omission")
    page.locator("#cards .card.current").screenshot(path=str(SHOTS / "mqm-issue-on-reject.png"))
    page.click("#cards .card.current [data-action=save-reject]")
    second = page.locator("#cards .card").nth(1)
    assert "Accuracy › Omission (minor)" in second.locator(".card-verdict").inner_text()
    _review_to_the_end(page)
    verdicts = get_json(f"{server}api/sessions/{session_id}")["copilotResponses"]
    issues = sorted((v["status"], v["issue"]["category"], v["issue"]["severity"]) for v in verdicts if v.get("issue"))
    assert issues == [("refined", "Terminology", "major"), ("reject", "Accuracy/Omission", "minor")]

    # The segment list: each written unit's history, and a revision with an issue.
    page.click("#tab-segments")
    refined = page.locator("#seglist .seg[data-status=refined]").first
    refined.locator(".seg-history > summary").click()
    history = refined.locator(".seg-history-list")
    history.wait_for()
    assert "Edited by local" in history.inner_text() and "Terminology (major)" in history.inner_text()
    rejected = page.locator("#seglist .seg").filter(has=page.locator(".seg-event-rejected"))
    assert rejected.count() == 1, "the unit rejected once lists the rejection in its history"
    written = page.locator("#seglist .seg[data-status=approved]").last
    start = written.get_attribute("data-start")
    written.locator(".seg-tgt").click()
    page.locator(".seg-editor textarea").fill("Le réglage du proxy a changé de place.")
    page.locator(".seg-editor .mqm-category").select_option("Linguistic conventions/Grammar")
    page.locator(".seg-editor .mqm-severity").select_option("minor")
    page.locator(".seg-editor").screenshot(path=str(SHOTS / "mqm-issue-on-revision.png"))
    page.click(".seg-editor .button-primary")
    revised = page.locator(f"#seglist .seg[data-start='{start}'][data-status=revised]")
    revised.wait_for()
    revised.locator(".seg-history > summary").click()
    text = revised.locator(".seg-history-list").inner_text()
    assert "Revised by local" in text and "typed by hand" in text and "Grammar (minor)" in text
    page.locator("#workbench").screenshot(path=str(SHOTS / "segment-history.png"))

    # The scorecard: three issues, 5 + 1 + 1 penalty points over some 25 words, failing at the default threshold.
    page.click("#tab-scorecard")
    page.wait_for_selector("#score-verdict")
    assert page.locator("#score-verdict").inner_text().startswith("Fail")
    rows = page.locator(".score-table tbody tr")
    assert rows.count() == 3
    assert page.locator(".score-table tfoot td").all_inner_texts() == ["2", "1", "0", "7"]
    page.locator("#scorecard").screenshot(path=str(SHOTS / "scorecard-fail.png"))
    page.fill("#score-threshold", "50")
    page.wait_for_function("() => document.querySelector('#score-verdict')?.textContent.startsWith('Pass')")
    page.locator("#scorecard").screenshot(path=str(SHOTS / "scorecard-pass.png"))
    with page.expect_download() as download:
        page.click("#score-csv")
    assert download.value.suggested_filename == "notes.md.scorecard.csv"
    with page.expect_download() as audit:
        page.click("#audit-csv")
    assert audit.value.suggested_filename == "notes.md.audit.csv"
