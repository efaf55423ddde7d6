"""A resource file in the terminal client: the card shows the string's key and note, a plural entry is
one card with one edit box per target category, and the finished file is written in its own format."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree
from textual.widgets import Static, TextArea

from terminal.api import ApiClient
from terminal.review import Job, ReviewApp
from terminal.widgets import FormsEditScreen
from tests.terminal.test_terminal_review import SIZE, approve_every_batch, settle

STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The title of the inbox screen -->
    <string name="inbox_title">Inbox</string>
    <plurals name="new_messages">
        <item quantity="one">%d new message</item>
        <item quantity="other">%d new messages</item>
    </plurals>
</resources>
"""


@pytest.mark.slow
async def test_key_note_and_plural_forms_in_the_terminal(local_client: ApiClient, tmp_path: Path) -> None:
    pytest.importorskip("interchange.formats.android")
    session_id = await local_client.create_session(target_language="pl")
    info = await local_client.upload(session_id, "strings.xml", STRINGS)
    output = tmp_path / "values-pl" / "strings.xml"
    app = ReviewApp(local_client, Job(session_id, info.fileId, output, first_input="Translate strings.xml."))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first, plural = app.cards
        context = str(first.query_one(".context", Static).render())
        assert "inbox_title" in context and "The title of the inbox screen" in context
        assert plural.request.plural is not None and plural.request.plural.categories == ("one", "few", "many", "other")
        await pilot.press("a")  # the first card; the plural one is current
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, FormsEditScreen)
        boxes = list(app.screen.query(TextArea))
        assert [b.id for b in boxes] == ["form-one", "form-few", "form-many", "form-other"]
        boxes[1].text = "%d nowe wiadomości"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await approve_every_batch(pilot)
        await pilot.press("q")
    written = etree.fromstring(output.read_bytes())
    items = {i.get("quantity"): i.text for i in written.find("plurals")}
    assert list(items) == ["one", "few", "many", "other"] and items["few"] == "%d nowe wiadomości"
