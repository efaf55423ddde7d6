"""The start form's documents and where a session stands, in a real browser against the real service.

A Word document (built here with python-docx) is uploaded from the file picker as its bytes and a unit
of it reviewed; a document the server cannot read is refused in plain words and leaves no session
behind; a PO file's cards show a message's context apart from its text and every source form of a
plural entry; changing the auto-approval threshold while cards show leaves the screen as the server
has it; a model whose proposals keep being refused is paused by the client after a bounded number of
steps, and a session the server stopped is shown with what a person can do, without going on by
itself. Screenshots go to test-artifacts/screenshots/ (upload-*.png, hold-*.png, po-*.png).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, get_json

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

SHOTS = ROOT / "test-artifacts" / "screenshots"
FLAKY = "python:tests.browser.flaky_model:flaky_model"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]
SETTLED = """() => ['review', 'done', 'idle'].includes(document.body.dataset.phase)
  && !document.body.classList.contains('busy')"""

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. The button that opens a message
#: src/inbox.c:42 src/list.c:7
msgctxt "inbox"
msgid "Open"
msgstr ""

#: src/inbox.c:50
msgid "%d new message"
msgid_plural "%d new messages"
msgstr[0] ""
msgstr[1] ""
"""


SERVICE_ENV = {"AGENT_MODEL": "pseudo", "AGENT_MODELS": FLAKY}
"""The pseudo model and, offered second, a provider whose Italian is always refused."""


def _session_ids(server: str) -> set[str]:
    return {s["id"] for s in get_json(server + "api/sessions?limit=100")["sessions"]}


def _word_document(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    document.add_paragraph("Sales grew in every region. The team shipped two releases.")
    run = document.add_paragraph("Read the ").add_run("full figures")
    run.bold = True
    document.save(str(path))
    return path


def _start(page: Page, language: str) -> None:
    page.fill("#target-lang", language)
    page.click("#start")


def test_a_word_document_is_uploaded_as_its_bytes_and_a_unit_reviewed(server: str, page: Page, tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = _session_ids(server)
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    assert "Word" in page.inner_text("#doc-formats") and "gettext PO" in page.inner_text("#doc-formats")
    assert ".docx" in (page.get_attribute("#doc-file", "accept") or "").split(",")
    page.locator("#start-form").screenshot(path=str(SHOTS / "upload-home-form.png"))

    uploads: list[dict[str, Any]] = []
    page.on("request", lambda r: uploads.append(json.loads(r.post_data or "{}")) if r.url.endswith("/files") else None)
    page.set_input_files("#doc-file", str(_word_document(tmp_path / "report.docx")))
    page.wait_for_selector("#doc-chosen:not([hidden])")
    assert page.inner_text("#doc-chosen-name") == "report.docx"
    assert "Word document" in page.inner_text("#doc-chosen-note")
    assert page.is_hidden("#doc-text") and page.input_value("#doc-name") == "report.docx"
    page.fill("#target-lang", "German")
    page.locator("#start-form").screenshot(path=str(SHOTS / "upload-docx-chosen.png"))
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    assert len(uploads) == 1 and set(uploads[0]) == {"name", "contentBase64"}, "the bytes, not text"
    sources = " ".join(page.locator("#cards .card .card-source").all_text_contents())
    assert "Sales grew in every region." in sources and "PK" not in sources
    page.focus("#cards .card.current")
    page.keyboard.press("a")
    page.wait_for_selector('#cards .card[data-verdict="approve"]')
    page.screenshot(path=str(SHOTS / "upload-docx-review.png"))
    assert len(_session_ids(server) - before) == 1


def test_a_document_the_server_cannot_read_is_refused_in_plain_words_and_leaves_no_session(
    server: str, page: Page, tmp_path: Path
) -> None:
    before = _session_ids(server)
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 this is not a Word document at all" * 20)
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.set_input_files("#doc-file", str(broken))
    page.wait_for_selector("#doc-chosen:not([hidden])")
    _start(page, "German")
    page.wait_for_selector("#start-error:not([hidden])")
    said = page.inner_text("#start-error")
    assert said.startswith("broken.docx could not be read"), said
    assert "contentBase64" not in said and "rejected the request" not in said
    page.locator("#start-form").screenshot(path=str(SHOTS / "upload-refused.png"))
    page.wait_for_timeout(500)  # the draft session's DELETE is sent without waiting for it
    assert _session_ids(server) == before, "no empty session is left behind"
    # Back to the text box: a pasted document starts as before.
    page.click("#doc-chosen-clear")
    page.fill("#doc-text", "Hello world.\n")
    page.fill("#doc-name", "hello.md")
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    assert len(_session_ids(server) - before) == 1


def test_po_cards_show_the_context_apart_and_every_source_form(server: str, page: Page) -> None:
    # A glossary term: the cards mark it once the memory is read, which must keep a plural entry's forms.
    _post(f"{server}api/memory/glossary", {"source": "message", "target": "wiadomość"})
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", PO)
    page.fill("#doc-name", "messages.po")
    _start(page, "Polish")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    keys = page.locator("#cards .card .context-key").all_text_contents()
    assert "inbox | Open" in keys, keys
    assert not any("\x04" in k for k in keys)
    assert "The button that opens a message" in page.inner_text("#cards")
    page.wait_for_selector("#cards .card .card-proposal.card-forms")
    plural = page.locator("#cards .card", has=page.locator(".card-proposal.card-forms"))
    assert plural.locator(".card-source dt").all_text_contents() == ["one", "other"]
    assert plural.locator(".card-source dd").all_text_contents() == ["%d new message", "%d new messages"]
    assert plural.locator(".card-proposal dt").all_text_contents() == ["one", "few", "many", "other"]
    page.wait_for_selector("#cards .card .card-source dd mark.term")
    assert plural.locator(".card-source dt").all_text_contents() == ["one", "other"], "still every form once marked"
    assert plural.locator(".card-source dd mark.term").first.text_content() == "message"
    plural.locator(".card-head").click()
    plural.screenshot(path=str(SHOTS / "po-plural-card.png"))
    page.locator("#cards .card").first.screenshot(path=str(SHOTS / "po-context-card.png"))


def test_a_threshold_change_while_cards_show_leaves_the_screen_as_the_server_has_it(server: str, page: Page) -> None:
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", "The first sentence is here.\n\nA second paragraph follows.\n\nThe end.\n")
    page.fill("#doc-name", "short.md")
    _start(page, "French")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    sid = page.evaluate("() => location.hash.slice(1)")
    page.select_option("#auto-approve", "80")
    page.wait_for_function("() => !document.querySelector('#auto-approve').disabled")
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(800)  # the segment list is read again after the change
    view = get_json(f"{server}api/sessions/{sid}")
    shown = page.eval_on_selector_all("#cards .card", "cs => cs.map(c => c.dataset.callId)")
    assert shown == [r["tool"]["callId"] for r in view["pendingCopilotRequests"]]
    file_id = view["files"][0]["fileId"]
    listed = get_json(f"{server}api/sessions/{sid}/files/{file_id}/segments")["segments"]
    rows = page.eval_on_selector_all("#seglist .seg", "rs => rs.map(r => r.dataset.status)")
    assert rows == [s["status"] for s in listed], "the segment list is the server's, not a stale one"
    assert "No proposal in review is shown" not in page.inner_text("#status")


def test_a_model_whose_proposals_keep_being_refused_is_stopped_by_the_server_and_the_page_waits(
    server: str, page: Page
) -> None:
    steps: list[str] = []
    page.on("request", lambda r: steps.append(r.post_data or "") if r.url.endswith("/api/next") else None)
    page.goto(server)
    page.wait_for_selector("#model-field:not([hidden])")
    page.select_option("#model", FLAKY)
    page.fill("#doc-text", "Hello world.\n\nA second paragraph.\n")
    page.fill("#doc-name", "hello.md")
    _start(page, "Italian")
    # The server stops asking a model whose last 3 answers were all refused: the third step answers the
    # user, the session is `failed` with the server's words, and the page spends nothing more.
    page.wait_for_selector("#hold[data-kind=failed]", timeout=60_000)
    assert len(steps) == 3, "the first input, then two steps: three refused answers in all"
    assert "proposed only units the rules refused" in page.inner_text("#hold")
    assert page.is_visible("#hold-instruct") and page.is_visible("#hold-continue") and page.is_visible("#hold-switch")
    assert page.input_value("#hold-model-select") == "pseudo", "another model than the one not getting anywhere"
    page.wait_for_timeout(1000)
    assert len(steps) == 3, "nothing more is spent until the human acts"
    page.screenshot(path=str(SHOTS / "hold-stalled.png"))
    page.locator("#hold").screenshot(path=str(SHOTS / "hold-stalled-note.png"))
    page.click("#hold-instruct")
    assert page.evaluate("() => document.activeElement.id") == "composer-text"

    # The server stopped the session (its own bound): shown with its error, and nothing goes on by itself.
    sid = page.evaluate("() => location.hash.slice(1)")

    def stopped(route: Route) -> None:
        response = route.fetch()
        view = response.json()
        view.update(state="stopped", error="12 proposals in a row were refused: the model could not place them.")
        route.fulfill(response=response, json=view)

    page.route(f"**/api/sessions/{sid}", stopped)
    steps.clear()
    page.reload()
    page.wait_for_selector("#hold[data-kind=stopped]")
    assert "The session was stopped" in page.inner_text("#hold")
    assert "12 proposals in a row were refused" in page.inner_text("#hold")
    assert page.is_visible("#hold-instruct") and page.is_visible("#hold-continue")
    assert page.is_hidden("#continue") and "nothing more is spent" in page.inner_text("#status")
    assert page.input_value("#hold-model-select") == "pseudo", "another model than the session's"
    page.wait_for_timeout(1000)
    assert steps == [], "a stopped session is not continued by itself"
    page.screenshot(path=str(SHOTS / "hold-stopped.png"))
    page.unroute(f"**/api/sessions/{sid}")
    # A person acts: an instruction goes to the agent (one step; the flaky model is still refused).
    page.fill("#composer-text", "Use the segment ids the document gives.")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#hold[data-kind=failed]", timeout=60_000)
    assert "Use the segment ids" in steps[0] and len(steps) == 3, "the run of refusals starts again from the input"


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)
