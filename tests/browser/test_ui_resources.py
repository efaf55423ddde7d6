"""A resource file in the web UI (issue 29): each card shows its string's key and the developer's note,
and a plural entry is one card with one field per CLDR category of the target language (Polish: one,
few, many, other), each editable; the reviewed file exports as itself.

The real service (uvicorn, SQLite, the offline pseudo model) in a subprocess and the system Chromium,
as tests/browser/test_ui.py. Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from lxml import etree

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, chromium_page, start_translation

SHOTS = ROOT / "test-artifacts" / "screenshots"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <!-- The title of the inbox screen -->
    <string name="inbox_title">Inbox</string>
    <!-- Shown above the message list; the number is how many messages are new -->
    <plurals name="new_messages">
        <item quantity="one"><xliff:g id="count">%d</xliff:g> new message</item>
        <item quantity="other"><xliff:g id="count">%d</xliff:g> new messages</item>
    </plurals>
    <string name="app_name" translatable="false">Mailbox</string>
    <string name="greeting">Hello, %1$s!</string>
</resources>
"""
NEW_BATCH_OR_DONE = """(seen) => {
  const phase = document.body.dataset.phase;
  if (phase === 'done') return true;
  const ids = [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId);
  return phase === 'review' && ids.length > 0 && ids.some(id => !seen.includes(id));
}"""
EDITED_FEW = '<xliff:g id="count">%d</xliff:g> nowe wiadomości'


def test_key_note_and_plural_forms_on_the_card(server: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as page:
        start_translation(page, server, STRINGS, "strings.xml", "Polish")
        cards = page.locator("#cards .card")
        sources = cards.locator(".card-source").all_text_contents()
        assert "Mailbox" not in sources  # translatable="false": never proposed
        first = cards.nth(0)
        assert first.locator(".context-key").text_content() == "inbox_title"
        assert first.locator(".context-note").text_content() == "The title of the inbox screen"

        plural = page.locator("#cards .card", has=page.locator(".card-forms"))
        assert plural.count() == 1
        assert plural.locator(".context-key").text_content() == "new_messages"
        assert plural.locator(".card-proposal dt").all_text_contents() == ["one", "few", "many", "other"]
        assert plural.locator(".card-source dt").all_text_contents() == ["one", "other"]
        plural.locator(".card-head").click()  # the current card opens whole
        page.wait_for_selector("#cards .card.current .card-forms")
        plural.screenshot(path=str(SHOTS / "resource-plural-card.png"))

        page.keyboard.press("e")
        boxes = plural.locator("textarea.edit-form")
        assert boxes.count() == 4
        assert [b.get_attribute("data-category") for b in boxes.all()] == ["one", "few", "many", "other"]
        assert all("%d" in b.input_value() for b in boxes.all())
        boxes.nth(1).fill(EDITED_FEW)
        page.screenshot(path=str(SHOTS / "resource-plural-edit.png"), full_page=True)
        plural.locator('[data-action="save-edit"]').click()
        page.wait_for_selector('#cards .card[data-verdict="refined"]')

        while page.evaluate("() => document.body.dataset.phase") == "review":
            ids = page.eval_on_selector_all("#cards .card", "cards => cards.map(c => c.dataset.callId)")
            page.focus("#cards .card.current")
            page.keyboard.press("Shift+A")
            page.wait_for_timeout(300)
            if page.locator("dialog#confirm[open]").count():
                page.click("dialog#confirm button[value=ok]")
            if page.locator("#send-verdicts:not([hidden])").count():
                page.click("#send-verdicts")
            page.wait_for_function(NEW_BATCH_OR_DONE, arg=ids)
        page.wait_for_selector("body[data-phase=done]")
        session_id = page.evaluate("() => location.hash.slice(1)")
        assert "format=original" in (page.get_attribute("#download", "href") or "")  # strings.xml as itself
        page.screenshot(path=str(SHOTS / "resource-done.png"))

    files = _get(f"{server}api/sessions/{session_id}")
    file_id = files["files"][0]["fileId"]
    with urllib.request.urlopen(f"{server}api/sessions/{session_id}/files/{file_id}/export?format=original") as r:
        exported = etree.fromstring(r.read())
    items = {i.get("quantity"): "".join(i.itertext()) for i in exported.find("plurals")}
    assert list(items) == ["one", "few", "many", "other"]
    assert items["few"] == "%d nowe wiadomości"
    assert exported.find("string[@name='app_name']").text == "Mailbox"


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)
