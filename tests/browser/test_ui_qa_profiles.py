"""QA profiles on the card, in a real browser (issue 44): a string over the limit its file states
(`[CHAR LIMIT=5]`) and a subtitle line over 42 characters are flagged as errors of the file kind's
built-in profile (strings, subtitles), shown apart from plain warnings, and kept out of approving all.

The real service (uvicorn, SQLite, the offline pseudo model: its translation is longer than the source)
and the system Chromium. Screenshots go to test-artifacts/screenshots/qa-*.png.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, start_translation

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOTS = ROOT / "test-artifacts" / "screenshots"
SUBTITLES = ROOT / "tests" / "formats" / "data" / "subtitles_styles2.srt"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]
VIEWPORT = (1280, 900)

STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The save button [CHAR LIMIT=5] -->
    <string name="button_save">Save</string>
    <string name="title">Settings</string>
</resources>
"""


def _start(page: Page, server: str, name: str, text: str) -> None:
    start_translation(page, server, text, name)


def test_a_string_over_its_stated_limit_is_an_error_on_its_card(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    _start(page, server, "strings.xml", STRINGS)
    card = page.locator("#cards .card:has-text('button_save')")
    error = card.locator(".card-warnings .qa-error")
    assert error.count() == 1 and "5" in error.inner_text(), error.all_inner_texts()
    assert page.locator("#cards .card:has-text('title') .card-warnings .qa-error").count() == 0
    assert "Estimate 75" in card.inner_text(), "an error takes 15 off the estimate: the riskiest sort first"
    card.screenshot(path=str(SHOTS / "qa-max-length.png"))


def test_a_subtitle_line_over_42_characters_is_an_error_on_its_card(server: str, page: Page) -> None:
    if not SUBTITLES.exists():
        pytest.skip(f"{SUBTITLES} is absent")
    _start(page, server, "movie.srt", SUBTITLES.read_text(encoding="utf-8"))
    card = page.locator("#cards .card:has-text('Some italic')")
    errors = card.locator(".card-warnings .qa-error").all_inner_texts()
    assert any("42" in e for e in errors), errors
    assert "Estimate 75" in card.inner_text()
    card.screenshot(path=str(SHOTS / "qa-line-length.png"))
