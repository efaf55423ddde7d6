"""The translator's editor in the review screen, on real files with placeholders and tags (an Android
strings.xml with `%1$s`, `<b>` and `<xliff:g>`; a PO with `#:` references and a plural), the offline
pseudo model proposing: the codes in their looks on the cards, kept whole in the edit box, restored by
the insert key, the source copied, the context view with the server's route and without it."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from lxml import etree
from textual.widgets import Static

from terminal.api import ApiClient
from terminal.asgi import StreamingASGITransport
from terminal.codes import PALETTE
from terminal.editor import CodeArea
from terminal.editor_screens import ContextScreen, EditScreen, FormsEditScreen
from terminal.local import LOCAL_URL, local_app
from terminal.review import Job, ReviewApp
from terminal.widgets import Card
from tests.terminal.test_terminal_review import SIZE, approve_every_batch, settle

XLIFF = '<xliff:g id="name" example="Ann">%1$s</xliff:g>'
STRINGS = f"""<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <!-- Shown on the home screen after sign-in -->
    <string name="welcome">Welcome back, {XLIFF}!</string>
    <string name="files_left">%1$d files left on <b>%2$s</b></string>
    <string name="plain">Settings</string>
    <plurals name="new_messages">
        <item quantity="one">%d new message from <b>%s</b></item>
        <item quantity="other">%d new messages from <b>%s</b></item>
    </plurals>
</resources>
"""
FILES_LEFT = "%1$d files left on <b>%2$s</b>"

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. The greeting on the start page
#: src/start.c:42 src/menu.c:7
msgid "Hello, %s!"
msgstr ""

#: src/inbox.c:88
msgid "%d file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""
"""


def looks(static: Static) -> dict[str, object]:
    """Each styled piece of a Static's text and its style."""
    text = static.content
    assert not isinstance(text, str)
    return {text.plain[s.start : s.end]: s.style for s in text.spans}  # type: ignore[attr-defined]


async def start(client: ApiClient, tmp_path: Path, name: str, content: str, language: str) -> Job:
    session_id = await client.create_session(target_language=language)
    info = await client.upload(session_id, name, content)
    return Job(session_id, info.fileId, tmp_path / "out" / name, first_input=f"Translate {name}.")


@pytest.mark.slow
async def test_codes_kept_whole_restored_and_the_source_copied_in_a_real_android_file(
    local_client: ApiClient, tmp_path: Path
) -> None:
    pytest.importorskip("interchange.formats.android")
    job = await start(local_client, tmp_path, "strings.xml", STRINGS, "fr")
    app = ReviewApp(local_client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        welcome, files_left, _plain, plural = app.cards
        assert welcome.request.context is not None and welcome.request.context.codes == (XLIFF,)
        assert looks(welcome.query_one(".source", Static))[XLIFF] == PALETTE[0]  # the element is one code
        source = looks(files_left.query_one(".source", Static))
        proposal = looks(files_left.query_one(".proposal", Static))
        assert source["<b>"] == source["</b>"] == proposal["<b>"] == proposal["</b>"] == PALETTE[1]  # a pair
        assert source["%2$s"] == proposal["%2$s"] == PALETTE[2] != PALETTE[1]
        assert "one: %d new message from <b>%s</b>\nother: %d new messages" in str(
            plural.query_one(".source", Static).render()
        )

        await pilot.press("j", "e")
        await pilot.pause()
        assert isinstance(app.screen, EditScreen)
        area = app.screen.query_one(CodeArea)
        proposed = area.text
        area.move_cursor((0, proposed.index("<b>") + 1))
        await pilot.press("x", "backspace")  # inside a tag: typing refused; Backspace on its edge selects it
        assert area.text == proposed and area.selected_text == "<b>"
        area.move_cursor((0, proposed.index("</b>") + len("</b>")))
        await pilot.press("backspace", "backspace")  # select </b>, then remove it
        assert area.text == proposed.replace("</b>", "", 1)
        assert str(app.screen.query_one("#check-edit-text", Static).content) == "⚠ Codes: </b> is missing"
        await pilot.press("ctrl+t")
        assert area.text == proposed
        await pilot.press("ctrl+o", "home", *"Encore ", "ctrl+s")
        await settle(pilot)
        edited = "Encore " + FILES_LEFT
        assert files_left.decision is not None and files_left.decision.translated_string == edited

        assert app.current == 2  # the next undecided card
        await pilot.press("j", "e")  # the plural one
        await pilot.pause()
        assert isinstance(app.screen, FormsEditScreen)
        boxes = list(app.screen.query(CodeArea))
        assert [b.id for b in boxes] == ["form-one", "form-many", "form-other"]
        assert boxes[0].source == "%d new message from <b>%s</b>" and boxes[1].source.startswith("%d new messages")
        boxes[1].text = "%d nouveaux messages"
        await pilot.pause()
        check = str(app.screen.query_one("#check-form-many", Static).content)
        assert check == "⚠ Codes: <b> is missing · %s is missing · </b> is missing"
        boxes[1].focus()
        await pilot.press("end", "space", "ctrl+t", "ctrl+t", "ctrl+t")
        assert boxes[1].text == "%d nouveaux messages <b>%s</b>"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await approve_every_batch(pilot)
        await pilot.press("q")
    written = job.output.read_text(encoding="utf-8")
    etree.fromstring(written.encode())  # well-formed: the tags the edit kept are the file's markup
    assert f'name="files_left">{edited}</string>' in written
    assert '<item quantity="many">%d nouveaux messages <b>%s</b></item>' in written


@pytest.mark.slow
async def test_a_po_card_shows_its_references_and_both_source_forms_and_i_opens_a_quiet_context(
    local_client: ApiClient, tmp_path: Path
) -> None:
    job = await start(local_client, tmp_path, "app.po", PO, "pl")
    app = ReviewApp(local_client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hello, files = app.cards
        context = str(hello.query_one(".context", Static).render())
        assert "Hello, %s!" in context and "The greeting on the start page" in context
        assert "#: src/start.c:42 src/menu.c:7" in context and "codes: %s" in context
        assert "one: %d file\nother: %d files" in str(files.query_one(".source", Static).render())
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        view = str(app.screen.query_one("#context-view", Static).render())
        assert "src/start.c:42" in view
        assert "Around it" in view or "This server gives no more context for the string." in view
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ContextScreen)
        assert isinstance(app.query(Card).first(), Card)


class ContextRoute(httpx.AsyncBaseTransport):
    """The app in-process, with a fixed answer for the string-context route (its contract, docs/api.md)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.asked: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/context"):
            return await self.inner.handle_async_request(request)
        self.asked.append(request.url.path)
        segment = request.url.path.split("/")[-2]
        neighbour = {"id": "s3", "key": "plain", "source": "Settings", "target": None, "status": "pending"}
        other = {"language": "de", "sessionId": "s_de", "fileId": "f1", "target": "Willkommen, …!", "status": "approve"}
        body = {
            "id": segment,
            "key": "files_left",
            "note": None,
            "refs": [],
            "flags": [],
            "codes": ["%1$d", "<b>", "%2$s", "</b>"],
            "plural": None,
            "before": [],
            "after": [neighbour],
            "otherLanguages": [other],
        }
        return httpx.Response(200, content=json.dumps(body).encode(), headers={"content-type": "application/json"})


@pytest.mark.slow
async def test_i_shows_the_neighbours_and_other_languages_the_server_gives(local_env: Path, tmp_path: Path) -> None:
    pytest.importorskip("interchange.formats.android")
    route = ContextRoute(StreamingASGITransport(local_app(local_env, tmp_path / "app.log")))
    client = ApiClient(httpx.AsyncClient(transport=route, base_url=LOCAL_URL, timeout=httpx.Timeout(300.0)))
    try:
        job = await start(client, tmp_path, "strings.xml", STRINGS, "fr")
        app = ReviewApp(client, job)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("j", "i")
            await settle(pilot)
            assert isinstance(app.screen, ContextScreen)
            assert route.asked == [f"/api/sessions/{job.session_id}/files/{job.file_id}/segments/s2/context"]
            view = str(app.screen.query_one("#context-view", Static).render())
            assert "Around it" in view and "▶ " + FILES_LEFT in view and "plain: Settings" in view
            assert "de (approve): Willkommen, …!" in view
            await pilot.press("escape")
    finally:
        await client.aclose()
