"""Pre-translate, then review, in the web UI (issue 44): the start form's "Pre-translate the whole
document first" runs the model over a real file with no card, then the segment list's Review queue,
sorted by estimate, is worked out of order (the riskiest edited first, a unit from the end approved,
the rest approved in one request), and the reviewed download is the whole file, intact.

The real service (uvicorn, SQLite, the offline pseudo model) and the system Chromium, as
tests/browser/test_ui.py. Screenshots go to test-artifacts/screenshots/pretranslate-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import pytest

from tests.browser.launcher import REQUIRES_BROWSER, ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOTS = ROOT / "test-artifacts" / "screenshots"
SAMPLE = ROOT / "tests" / "formats" / "data" / "android_thunderbird_strings.xml"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]


VIEWPORT = (1280, 900)


def test_a_file_pretranslated_then_reviewed_out_of_order_downloads_intact(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    text = SAMPLE.read_text(encoding="utf-8")
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", text)
    page.fill("#doc-name", "strings.xml")
    page.fill("#target-lang", "French")
    page.check("#pretranslate")
    page.screenshot(path=str(SHOTS / "pretranslate-start.png"))
    page.click("#start")
    page.wait_for_selector("body[data-phase=done]", timeout=60_000)
    assert page.locator("#cards .card").count() == 0, "no card was asked of anyone"
    assert "pre-translated the whole document" in page.inner_text("#idle-text")

    page.click("#tab-segments")
    page.wait_for_selector("#seg-queue:visible")
    page.wait_for_selector("#seglist .seg-status-translated")
    waiting = page.locator("#seglist .seg-status-translated").count()
    assert waiting == text.count("<string ") + text.count("<plurals "), "every string, plurals too"
    assert page.inner_text("#seg-queue") == f"Review queue ({waiting})"
    page.click("#seg-queue")
    page.select_option("#seg-sort", "estimate")
    page.screenshot(path=str(SHOTS / "pretranslate-queue.png"))

    # The riskiest first: the first row sorted by estimate, edited.
    first = page.locator("#seglist .seg").first
    source = first.locator(".seg-src").inner_text()
    first.locator(".seg-src").click()
    page.fill(".seg-editor textarea", "Texte revu.")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('reviewed')")
    # Then one from the end, approved as it is.
    last = page.locator("#seglist .seg-status-translated").last
    last.locator(".seg-src").click()
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "(n) => document.querySelector('#seg-queue').textContent === `Review queue (${n})`", arg=waiting - 2
    )
    page.click("#seg-approve-shown")
    page.wait_for_function("() => document.querySelector('#seg-queue').textContent.startsWith('Review queue (')")
    page.wait_for_function(
        "() => { const t = document.querySelector('#seg-queue').textContent; return t === 'Review queue (0)'; }",
        timeout=20_000,
    )
    page.select_option("#seg-status", "reviewed")
    assert page.locator("#seglist .seg-status-reviewed").count() == waiting
    page.screenshot(path=str(SHOTS / "pretranslate-reviewed.png"))

    page.click("#export-menu summary")
    with page.expect_download() as info:
        page.click("#export-reviewed")
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    assert "Texte revu." in exported and exported.count("<string") == text.count("<string")
    assert f">{source}<" not in exported, "the edited string is the reviewer's text"
    ElementTree.fromstring(exported.encode())  # well-formed: the file's structure intact
