"""The reviewer's web UI in a real browser (Playwright, sync API) against the real service.

The service runs in a subprocess (uvicorn, SQLite storage, the offline `pseudo` model). The test
uploads tests/data/guide.md, reviews every proposal with the keyboard only (approve, edit, reject,
approve all, next/previous), reloads half-way and resumes, downloads the translation and checks it
against what was approved. Screenshots go to test-artifacts/screenshots/.

Needs the `playwright` package and a Chromium at /usr/bin/chromium (or $CHROMIUM_PATH); skipped
when either is missing. `playwright install` is never needed: the system browser is used.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

from tests.browser.launcher import (
    REQUIRES_BROWSER,
    ROOT,
    SMALL_SCREENS,
    WAIT_MS,
    chromium_page,
    free_port,
    get_json,
    running_service,
    start_translation,
)

GUIDE = ROOT / "tests" / "data" / "guide.md"
SHOTS = ROOT / "test-artifacts" / "screenshots"

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

EDITED = "Ce guide explique comment installer l’outil et le lancer pour la première fois. Comptez cinq minutes."
REASON = "Too literal: rephrase it naturally."


SERVICE_ENV = SMALL_SCREENS


READ_CARDS = """() => [...document.querySelectorAll('#cards .card')].map(c => ({
  callId: c.dataset.callId,
  start: Number(c.dataset.start),
  src: c.querySelector('.card-source').textContent,
  proposal: c.querySelector('.card-proposal').textContent,
  verdict: c.dataset.verdict || '',
}))"""

NEW_BATCH_OR_DONE = """(seen) => {
  const phase = document.body.dataset.phase;
  if (phase === 'done') return true;
  if (phase !== 'review') return false;
  const ids = [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId);
  return ids.length > 0 && ids.some(id => !seen.includes(id));
}"""
SENT_OR_OFFERED = (
    """(seen) => document.activeElement && document.activeElement.id === 'send-verdicts'
  || ("""
    + NEW_BATCH_OR_DONE
    + """)(seen)"""
)
"""After the last verdict of a batch: it went out, or Send is offered (an edit drew a warning)."""


def _cards(page: Page) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = page.evaluate(READ_CARDS)
    return cards


def _focused_call_id(page: Page) -> str | None:
    value: str | None = page.evaluate("() => document.activeElement?.closest('.card')?.dataset.callId ?? null")
    return value


def _splice(source: str, finals: dict[int, tuple[str, str]]) -> str:
    """The source with each approved or edited unit replaced by its final text, by position."""
    out: list[str] = []
    pos = 0
    for start in sorted(finals):
        src, final = finals[start]
        assert source[start : start + len(src)] == src, f"card at {start} does not match the source"
        assert start >= pos, "units overlap"
        out.append(source[pos:start])
        out.append(final)
        pos = start + len(src)
    out.append(source[pos:])
    return "".join(out)


def test_review_a_whole_document_with_the_keyboard(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    source = GUIDE.read_text(encoding="utf-8")
    keys = page.keyboard

    # Start: upload, language, instructions; Ctrl+Enter submits the form.
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.set_input_files("#doc-file", str(GUIDE))
    page.wait_for_function("() => document.querySelector('#doc-name').value === 'guide.md'")
    page.fill("#target-lang", "French")
    page.fill("#instructions", "Formal tone. Keep code and URLs unchanged.")
    page.screenshot(path=str(SHOTS / "start.png"))
    page.focus("#instructions")
    keys.press("Control+Enter")

    finals: dict[int, tuple[str, str]] = {}
    rejected: list[str] = []
    seen: list[str] = []
    decided = 0
    batches = 0
    reloaded = False
    approved_all = False
    review_shot = False

    while True:
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=seen, timeout=WAIT_MS)
        if page.evaluate("() => document.body.dataset.phase") == "done":
            break
        batches += 1
        cards = _cards(page)
        seen.extend(c["callId"] for c in cards)
        assert all(source[c["start"] : c["start"] + len(c["src"])] == c["src"] for c in cards)
        assert _focused_call_id(page) == cards[0]["callId"], "the first card takes focus"

        if not reloaded and len(cards) >= 2 and decided >= 3:
            # Half-way: decide the first card, reload, and find the same cards (and that verdict) again.
            keys.press("a")
            finals[cards[0]["start"]] = (cards[0]["src"], cards[0]["proposal"])
            decided += 1
            assert _focused_call_id(page) == cards[1]["callId"]
            page.reload()
            page.wait_for_selector("body[data-phase=review] #cards .card")
            again = _cards(page)
            assert [c["callId"] for c in again] == [c["callId"] for c in cards], "pending cards come back"
            assert [c["src"] for c in again] == [c["src"] for c in cards]
            assert again[0]["verdict"] == "approve", "a verdict given before the reload is kept"
            assert _focused_call_id(page) == cards[1]["callId"], "focus returns to the first undecided card"
            reloaded = True
            cards = cards[1:]

        if reloaded and not approved_all and len(cards) >= 2:
            # Next / previous, then approve the whole batch at once.
            keys.press("j")
            assert _focused_call_id(page) == cards[1]["callId"]
            keys.press("k")
            assert _focused_call_id(page) == cards[0]["callId"]
            keys.press("Shift+A")
            for c in cards:
                finals[c["start"]] = (c["src"], c["proposal"])
            decided += len(cards)
            approved_all = True
            continue

        for index, card in enumerate(cards):
            assert _focused_call_id(page) == card["callId"], f"card {index + 1} has focus"
            decided += 1
            if decided == 1:
                # Esc leaves the editor without a verdict.
                keys.press("e")
                page.wait_for_selector(".card.current .edit-text:focus")
                keys.press("Escape")
                page.wait_for_selector(".card.current .card-editor", state="hidden")
                keys.press("a")
                finals[card["start"]] = (card["src"], card["proposal"])
            elif decided == 2:
                keys.press("r")
                page.wait_for_selector(".card.current .reason-text:focus")
                keys.type(REASON)
                keys.press("Control+Enter")
                rejected.append(card["proposal"])
            elif decided == 3:
                keys.press("e")
                page.wait_for_selector(".card.current .edit-text:focus")
                keys.press("Control+a")
                keys.type(EDITED)
                page.wait_for_selector(".card.current .card-live-diff ins")
                if not review_shot:
                    page.screenshot(path=str(SHOTS / "review.png"))
                    review_shot = True
                keys.press("Control+Enter")
                finals[card["start"]] = (card["src"], EDITED)
            else:
                keys.press("a")
                finals[card["start"]] = (card["src"], card["proposal"])
        # An edit with a QA warning (the heading turned into a sentence) holds the batch: Send it.
        page.wait_for_function(SENT_OR_OFFERED, arg=seen, timeout=WAIT_MS)
        if page.evaluate("() => document.activeElement && document.activeElement.id") == "send-verdicts":
            assert "warning" in page.inner_text("#status")
            keys.press("Enter")

    assert reloaded, "the document was long enough to reload half-way"
    assert approved_all, "a batch of several cards was approved at once"
    assert rejected and EDITED

    # Finished: the agent's closing message, full progress, the download.
    page.wait_for_selector(".bubble-agent")
    assert "100%" in page.inner_text("#progress-label")
    page.screenshot(path=str(SHOTS / "finished.png"))

    session_id = page.evaluate("() => location.hash.slice(1)")
    view = get_json(f"{server}api/sessions/{session_id}")
    assert view["pendingCopilotRequests"] == []
    [file] = view["files"]
    assert file["progress"]["complete"] is True
    served = get_json(f"{server}api/sessions/{session_id}/files/{file['fileId']}")["translation"]
    units = get_json(f"{server}api/sessions/{session_id}/files/{file['fileId']}/units")["units"]

    with page.expect_download() as info:
        page.click("#download")
    download = info.value
    assert download.suggested_filename == "guide.translated.md"
    downloaded = Path(download.path()).read_text(encoding="utf-8")

    assert downloaded == served, "the download is the server's assembled translation"
    assert downloaded == _splice(source, finals), "the download is exactly what was approved and edited"
    assert EDITED in downloaded
    unit_texts = [u["text"] for u in units]
    assert EDITED in unit_texts
    for text in rejected:
        assert text not in unit_texts, "a rejected proposal was written"
        assert text not in downloaded

    # The same finished screen in a narrow window.
    page.set_viewport_size({"width": 420, "height": 860})
    page.screenshot(path=str(SHOTS / "finished-narrow.png"), full_page=False)

    # The session is listed on the home screen for resuming.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#home-link")
    page.wait_for_selector(f"[data-session-id='{session_id}']")
    page.screenshot(path=str(SHOTS / "sessions.png"))


def _approve_batch(page: Page) -> None:
    """Approve every card of the visible batch: Shift+A for several, A for one."""
    page.keyboard.press("Shift+A" if page.locator("#cards .card").count() > 1 else "a")


def test_stop_retry_and_delete(server: str, page: Page) -> None:
    """Stop aborts the step in flight; 503 and 409 show plain words and a Retry that recovers."""
    from playwright.sync_api import Route

    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", "# Notes\n\nShort text.\n\nThe end.\n")
    page.fill("#doc-name", "notes.md")
    page.fill("#target-lang", "German")

    # A step that never answers: the Stop button aborts it.
    hung: list[Route] = []
    page.route("**/api/next", lambda route: hung.append(route))
    page.click("#start")
    page.wait_for_selector("body[data-phase=working] #stop:visible")
    page.click("#stop")
    page.wait_for_selector("body[data-phase=stopped] #continue:visible")
    assert "Stopped" in page.inner_text("#status")
    page.unroute("**/api/next")

    # The model is throttled: the client waits out each Retry-After, counting down, and tries again by
    # itself as often as the throttle lasts (four times here, more than other failures are tried).
    calls: list[str] = []

    def throttled(route: Route) -> None:
        calls.append(route.request.post_data or "")
        if len(calls) <= 4:
            route.fulfill(
                status=503,
                headers={"Retry-After": "2" if len(calls) == 1 else "1"},
                content_type="application/json",
                body=json.dumps({"error": "The model provider is throttled."}),
            )
        else:
            route.continue_()

    page.route("**/api/next", throttled)
    page.click("#continue")
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('Trying again in 2 s')")
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('Trying again in 1 s')")
    assert "throttled" in page.inner_text("#status")
    page.wait_for_selector("body[data-phase=review] #cards .card", timeout=WAIT_MS)
    assert len(calls) == 5 and page.is_hidden("#error")
    assert json.loads(calls[0])["userInput"].startswith("Translate notes.md into German.")
    page.unroute("**/api/next")

    # The verdicts meet a conflict once: the client re-reads the session and sends them again itself.
    conflicts: list[str] = []
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET" and r.url.endswith(session_path()) else None)

    def conflict_once(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        if "copilotResponses" in body and not conflicts:
            conflicts.append(route.request.post_data or "")
            route.fulfill(
                status=409,
                content_type="application/json",
                body=json.dumps({"error": "The session advanced concurrently."}),
            )
        else:
            route.continue_()

    def session_path() -> str:
        return "/api/sessions/" + str(page.evaluate("() => location.hash.slice(1)"))

    page.route("**/api/next", conflict_once)
    first = page.evaluate("() => document.querySelector('#cards .card').dataset.callId")
    _approve_batch(page)
    page.wait_for_function(
        """(first) => document.body.dataset.phase === 'done' || (document.body.dataset.phase === 'review'
            && ![...document.querySelectorAll('#cards .card')].some(c => c.dataset.callId === first))""",
        arg=first,
    )
    assert conflicts and reads, "the conflict led to a re-read of the session"
    assert page.is_hidden("#error")
    page.unroute("**/api/next")

    # Finish with the keyboard, then delete the session through the confirmation dialog.
    while page.evaluate("() => document.body.dataset.phase") != "done":
        page.wait_for_selector("body[data-phase=review] #cards .card.current, body[data-phase=done]")
        if page.evaluate("() => document.body.dataset.phase") == "review":
            _approve_batch(page)
            page.wait_for_selector("body:not([data-phase=review])")
    session_id = page.evaluate("() => location.hash.slice(1)")
    page.click(".delete-session summary")
    page.click("#delete-current")
    page.wait_for_selector("dialog#confirm[open]")
    page.click("#confirm-ok")
    page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    assert page.locator(f"[data-session-id='{session_id}']").count() == 0
    with pytest.raises(urllib.error.HTTPError) as gone:
        get_json(f"{server}api/sessions/{session_id}")
    assert gone.value.code == 404


def test_the_memory_panel_shows_what_an_edit_taught(server: str, page: Page) -> None:
    """An edited term is learned at once, listed in the memory panel, and checked on the next card."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    keys = page.keyboard
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    # Enough paragraphs between the two "tool"s that the second comes in a later batch.
    filler = "".join(f"Paragraph {n} says nothing.\n\n" for n in range(1, 21))
    page.fill("#doc-text", f"Install the tool, then run the exporter.\n\n{filler}The tool writes 3 files.\n")
    page.fill("#doc-name", "tool.md")
    page.fill("#target-lang", "French")
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    card = _cards(page)[0]
    assert card["src"] == "Install the tool, then run the exporter."
    assert not any("tool" in c["src"] for c in _cards(page)[1:]), "the second 'tool' is in a later batch"
    assert "ţóóĺ" in card["proposal"], "the pseudo model accents the source's words"

    # Typing in the memory panel's fields never triggers a shortcut.
    page.focus("#memory-source")
    keys.type("aer")
    assert page.input_value("#memory-source") == "aer"
    assert _cards(page)[0]["verdict"] == "" and page.is_hidden(".card.current .card-editor")
    page.fill("#memory-source", "")

    # Edit one word of the proposal: "ţóóĺ" (the source's "tool") becomes "outil".
    page.focus(".card.current")
    keys.press("e")
    page.wait_for_selector(".card.current .edit-text:focus")
    page.fill(".card.current .edit-text", card["proposal"].replace("ţóóĺ", "outil"))
    keys.press("Control+Enter")
    keys.press("Shift+A")  # the rest of the batch: the verdicts go out together

    # The verdict's answer comes after the server learned: the panel lists the entry.
    learned = page.wait_for_selector("#memory-glossary .memory-item[data-origin=learned]")
    assert learned.inner_text().split("\n")[0].replace(" ", "") == "tool→outil"
    assert "French" in learned.inner_text()
    # The next card has "tool" again, proposed as "ţóóĺ": it warns.
    page.wait_for_function("() => document.querySelector('#cards .card .card-warnings')")
    assert "«tool» should be translated as «outil»" in page.inner_text("#cards .card .card-warnings")
    page.locator("#memory").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "memory.png"))

    # Add a term by hand with the form (Enter submits), then delete both entries.
    page.fill("#memory-source", "exporter")
    page.fill("#memory-target", "exportateur")
    page.press("#memory-target", "Enter")
    page.wait_for_selector("#memory-glossary .memory-item[data-origin=user]")
    assert _cards(page)[0]["verdict"] == "", "Enter in the form gave no verdict"
    memory = get_json(f"{server}api/memory")
    assert {(g["source"], g["target"], g["languages"]) for g in memory["glossary"]} >= {
        ("tool", "outil", "auto>french"),
        ("exporter", "exportateur", "auto>french"),
    }
    for target in ("outil", "exportateur"):
        item = f"#memory-glossary .memory-item:has(.memory-target:text-is('{target}'))"
        page.click(f"{item} .memory-delete")
        page.wait_for_selector(item, state="detached")
    assert not [g for g in get_json(f"{server}api/memory")["glossary"] if g["source"] in ("tool", "exporter")]


WIDGET = (
    "# Widget guide 👋\n\nInstall the widget with `pip install widget` today.\n\nThe widget writes 3 files 📁.\n\n"
    # A batch holds 20 units: these put the next paragraph, with its backticks, in a later batch.
    + "".join(f"Note {n}.\n\n" for n in range(1, 21))
    + "Run `make` to build it.\n\nThe end.\n"
)


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_workbench_and_the_fixed_defects(server: str, page: Page) -> None:
    """Segments beside the cards; Send after a reload; confirm before approving warnings; markup-only edits
    are named; counts in code points; a mid-way download says it is incomplete."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    keys = page.keyboard
    entry = _post_json(
        f"{server}api/memory/glossary", {"source": "widget", "target": "gadget", "languages": "auto>french"}
    )

    # The start form counts characters as the server does: an emoji is one.
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", WIDGET)
    page.fill("#doc-name", "widget.md")
    page.fill("#target-lang", "French")
    assert page.inner_text("#doc-stats") == f"{len(WIDGET)} characters"
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    session_id = page.evaluate("() => location.hash.slice(1)")
    [file] = get_json(f"{server}api/sessions/{session_id}")["files"]
    assert file["chars"] == len(WIDGET), "the server's count is the form's"

    # The segment list shows the whole document, the batch in review, progress in units and characters.
    page.wait_for_selector("#seglist .seg[data-status=pending]")
    progress = page.inner_text("#seg-progress")
    assert progress.startswith("0 units translated") and f"/ {len(WIDGET)} characters" in progress
    assert page.locator("#seglist .seg.seg-current").count() == 1, "the current card's segment is outlined"

    # Approve all asks first when a card warns (the glossary says widget → gadget); Cancel changes nothing.
    page.wait_for_selector("#cards .card[data-warned=true]")
    page.focus("#cards .card.current")
    keys.press("Shift+A")
    page.wait_for_selector("dialog#confirm[open]")
    assert "warning" in page.inner_text("#confirm-text")
    page.screenshot(path=str(SHOTS / "confirm-warnings.png"))
    page.click("dialog#confirm button[value=cancel]")
    assert all(c["verdict"] == "" for c in _cards(page)), "Cancel gave no verdict"

    # Decide every card without sending (as if the tab closed first), reload: Send is offered.
    cards = _cards(page)
    page.evaluate(
        "([sid, ids]) => localStorage.setItem('verdicts:' + sid,"
        " JSON.stringify(Object.fromEntries(ids.map(i => [i, {status: 'approve'}]))))",
        [session_id, [c["callId"] for c in cards]],
    )
    page.reload()
    page.wait_for_selector("#send-verdicts:visible")
    assert "All units decided" in page.inner_text("#status")
    assert page.evaluate("() => document.activeElement.id") == "send-verdicts"
    page.screenshot(path=str(SHOTS / "send-after-reload.png"))
    keys.press("Enter")
    page.wait_for_function(
        "(ids) => document.body.dataset.phase === 'done' || (document.body.dataset.phase === 'review' && "
        "![...document.querySelectorAll('#cards .card')].some(c => ids.includes(c.dataset.callId)))",
        arg=[c["callId"] for c in cards],
    )

    # Mid-way, the download says the document is incomplete, and the menu offers the filled version.
    if page.evaluate("() => document.body.dataset.phase") == "review":
        assert "(incomplete)" in page.inner_text("#download")
        page.click("#export-menu summary")
        assert "Incomplete" in page.inner_text("#export-note")
        page.screenshot(path=str(SHOTS / "export-menu.png"))
        page.click("#export-menu summary")
        with page.expect_download():
            page.click("#download")
        page.wait_for_function("() => document.querySelector('#status').textContent.includes('incomplete translation')")

    # An edit that only removes backticks says what changed.
    while page.evaluate("() => document.body.dataset.phase") == "review":
        page.wait_for_selector("#cards .card.current")
        if page.evaluate("() => document.activeElement && document.activeElement.id") == "send-verdicts":
            # The markup edit dropped inline code: its QA warning holds the batch until the human sends it.
            assert "warning" in page.inner_text("#status")
            keys.press("Enter")
            page.wait_for_selector("body:not([data-phase=working])")
            page.wait_for_function("() => !document.body.classList.contains('busy')")
            continue
        current = page.evaluate("() => document.querySelector('.card.current .card-proposal').textContent")
        if "`" in current:
            page.focus(".card.current")
            keys.press("e")
            page.wait_for_selector(".card.current .edit-text:focus")
            page.fill(".card.current .edit-text", current.replace("`", ""))
            page.wait_for_function(
                "() => document.querySelector('.card.current .diff-stats')"
                ".textContent.startsWith('only markup changed')"
            )
            assert "2 characters removed" in (page.text_content(".card.current .diff-stats") or "")
            page.screenshot(path=str(SHOTS / "edit-markup.png"))
            keys.press("Control+Enter")
        else:
            page.focus(".card.current")
            keys.press("a")
        page.wait_for_selector("body:not([data-phase=working])")
        page.wait_for_function("() => !document.body.classList.contains('busy')")

    # Done: filter and search the segments; the list is the whole document, all written.
    page.wait_for_selector("body[data-phase=done]")
    page.wait_for_function("() => document.querySelector('#seg-progress').textContent.includes('characters')")
    total = page.locator("#seglist .seg").count()
    assert total >= 4 and page.locator("#seglist .seg[data-status=untranslated]").count() == 0
    assert page.locator("#seglist .seg[data-status=refined]").count() >= 1, "the markup edit is listed as edited"
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "seg-search"
    keys.type("make")
    page.wait_for_function("(total) => document.querySelectorAll('#seglist .seg').length < total", arg=total)
    assert all("make" in t for t in page.locator("#seglist .seg .seg-src").all_inner_texts())
    keys.press("Enter")
    assert page.evaluate("() => document.activeElement.classList.contains('seg')")
    page.fill("#seg-search", "")
    page.select_option("#seg-status", "refined")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#seglist .seg')].every(s => s.dataset.status === 'refined')"
    )
    page.select_option("#seg-status", "")
    page.screenshot(path=str(SHOTS / "workbench.png"))

    urllib.request.urlopen(urllib.request.Request(f"{server}api/memory/{entry['id']}", method="DELETE"), timeout=10)


FORMING = """() => [...document.querySelectorAll('#forming .card-forming')].map(c => ({
  callId: c.dataset.callId,
  src: c.querySelector('.card-source').textContent,
  proposal: c.querySelector('.card-proposal').textContent,
}))"""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real service with a model that streams its proposals over a few seconds."""
    env = {"AGENT_MODEL": "python:tests.browser.slow_model:slow_model", "SLOW_MODEL_SECONDS": "3"}
    with running_service(tmp_path_factory.mktemp("slow"), free_port(), env) as base:
        yield base


def test_proposals_show_while_the_model_streams_them(slow_server: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page() as page:
        page.goto(slow_server)
        page.wait_for_selector("body[data-phase=home]")
        page.set_input_files("#doc-file", str(GUIDE))
        page.wait_for_function("() => document.querySelector('#doc-name').value === 'guide.md'")
        page.fill("#target-lang", "French")
        page.focus("#instructions")
        page.keyboard.press("Control+Enter")

        # A proposal's text is on screen while the step is still under way (no review card yet).
        page.wait_for_function(
            "() => [...document.querySelectorAll('#forming .card-forming .card-proposal')]"
            ".some(p => p.textContent.length > 0)"
        )
        assert page.evaluate("() => document.body.classList.contains('busy')"), "the step has not answered yet"
        assert page.locator("#cards .card").count() == 0
        page.screenshot(path=str(SHOTS / "streaming.png"))
        # The forming text only grows; it is the model's, not yet reviewed.
        page.wait_for_function(f"() => ({FORMING})().length >= 2")
        forming: list[dict[str, str]] = page.evaluate(FORMING)

        # The step's answer replaces the forming area with the committed proposals as review cards.
        page.wait_for_selector("body[data-phase=review] #cards .card")
        assert page.locator("#forming").count() == 0
        cards = {c["callId"]: c for c in _cards(page)}
        for shown in forming:
            final = cards[shown["callId"]]
            assert final["src"].startswith(shown["src"]) and final["proposal"].startswith(shown["proposal"])
        page.screenshot(path=str(SHOTS / "streamed-review.png"))


FIRST = "## Fixed\n\nOne.\n\nInstall the widget on your computer before the first run.\n"
LATER = "## Fixed\n\nTwo.\n\nInstall the widget on your laptop before the first run.\n"


def _approve_until_done(page: Page) -> None:
    while page.evaluate("() => document.body.dataset.phase") == "review":
        ids = [c["callId"] for c in _cards(page)]
        page.focus("#cards .card.current")
        _approve_batch(page)
        page.wait_for_timeout(300)  # a warned card opens the confirmation, asynchronously
        if page.locator("dialog#confirm[open]").count():
            page.click("dialog#confirm button[value=ok]")
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=ids)
    page.wait_for_selector("body[data-phase=done]")


def test_memory_cards_glossary_terms_and_editing_an_entry(server: str, page: Page) -> None:
    """The heading approved in one session comes back "From memory 100%" in the next; a near-repeat shows its
    reference; glossary terms are marked in the source; an entry is edited inline (Enter saves, Esc cancels)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    glossary = {"source": "widget", "target": "gadget", "languages": "auto>french"}
    entry = _post_json(f"{server}api/memory/glossary", glossary)
    start_translation(page, server, FIRST, "first.md")
    assert page.locator("#cards .card .badge-memory").count() == 0, "nothing is remembered yet"
    # The glossary's term is marked in the source, the preferred translation as its tooltip.
    term = page.locator("#cards .card .card-source mark.term").first
    term.wait_for()
    assert term.inner_text() == "widget" and term.get_attribute("title") == "Glossary: widget → gadget"
    _approve_until_done(page)

    start_translation(page, server, LATER, "later.md")
    remembered = page.locator("#cards .card:has(.badge-memory)").first
    assert remembered.locator(".badge-memory").inner_text() == "From memory 100%"
    assert remembered.locator(".card-source").inner_text() == "## Fixed"

    remembered.screenshot(path=str(SHOTS / "memory-card.png"))
    page.focus("#cards .card.current")
    _approve_batch(page)
    page.wait_for_selector("#cards .card:has(.card-source:text('laptop'))")
    # The near-repeat sentence carries its reference: score, the old source with the difference, its translation.
    near = page.locator("#cards .card:has(.card-source:text('laptop'))")
    refs = near.locator(".card-refs")
    assert refs.count() == 1, "the near-repeat shows a similar remembered unit"
    near.click()
    refs.locator("summary").click()
    ref = refs.locator(".ref").first
    assert ref.locator(".ref-score").inner_text().endswith("%")
    assert "computer" in ref.locator(".ref-source").inner_text()
    assert ref.locator(".ref-source del, .ref-source ins").count() >= 1
    assert ref.locator(".ref-target").inner_text().strip()
    near.scroll_into_view_if_needed()
    near.screenshot(path=str(SHOTS / "memory-references.png"))

    # Edit the glossary entry inline: Esc cancels, Enter saves; the server has the new translation, now "user".
    item = page.locator(f"#memory-glossary .memory-item[data-entry-id='{entry['id']}']")
    item.locator(".memory-edit").click()
    page.wait_for_selector(".memory-edit-target:focus")
    page.keyboard.type("XX")
    page.keyboard.press("Escape")
    assert item.locator(".memory-target").inner_text() == "gadget"
    item.locator(".memory-edit").click()
    page.fill(".memory-edit-target", "machin")
    item.screenshot(path=str(SHOTS / "memory-edit.png"))
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#memory-glossary [data-entry-id='{entry['id']}'] .memory-target:text-is('machin')")
    [stored] = [g for g in get_json(f"{server}api/memory")["glossary"] if g["id"] == entry["id"]]
    assert stored["target"] == "machin" and stored["origin"] == "user"
    page.wait_for_function("() => document.querySelector('#cards mark.term')?.title === 'Glossary: widget → machin'")
    urllib.request.urlopen(urllib.request.Request(f"{server}api/memory/{entry['id']}", method="DELETE"), timeout=10)


def test_qa_on_an_edit_queued_input_and_a_revision_after_the_end(server: str, page: Page) -> None:
    """An edit that drops inline code warns before it is sent; a message sent during review is queued until the
    batch goes; after the end a written segment is revised with the keyboard and the download has the new text."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    keys = page.keyboard
    session_id = start_translation(page, server, "Call `compile` before you ship.\n\nThe end is near.\n", "qa.md")

    # A message typed while reviews are pending is queued.
    page.fill("#composer-text", "Keep the tone formal.")
    page.press("#composer-text", "Control+Enter")
    page.wait_for_selector("#queued:visible .queued-item")
    assert "Keep the tone formal." in page.inner_text("#queued")

    # An edit that drops the inline code: the check's warning shows on the card, nothing sent yet.
    page.wait_for_selector("#cards .card.current")
    page.focus("#cards .card.current")
    keys.press("e")
    page.wait_for_selector(".card.current .edit-text:focus")
    proposal = page.evaluate("() => document.querySelector('.card.current .card-proposal').textContent")
    assert "`" in proposal
    page.fill(".card.current .edit-text", proposal.replace("`compile`", "compile"))
    keys.press("Control+Enter")
    page.wait_for_selector("#cards .card .card-edit-warnings:not([hidden])")
    warned = page.inner_text("#cards .card .card-edit-warnings")
    assert "Your edit" in warned and "`compile`" in warned
    page.screenshot(path=str(SHOTS / "edit-qa-warning.png"))
    assert page.locator("#queued .queued-item").count() == 1, "still queued: the batch is not sent"

    # Sending the batch takes the queued message along.
    _approve_until_done(page)
    assert page.is_hidden("#queued")

    # Revise a written segment with the keyboard: it shows "Revised"; the download has the new text.
    # (once the list shows it written: the list drawn again after the last verdicts would take the focus away)
    written = "#seglist .seg:not([data-status=pending]):not([data-status=untranslated])"
    seg = page.locator(f"{written}:has(.seg-src:text('The end is near.'))")
    seg.wait_for()
    seg.focus()
    keys.press("Enter")
    page.wait_for_selector(".seg-edit:focus")
    page.fill(".seg-edit", "La fin approche.")
    keys.press("Control+Enter")
    page.wait_for_selector("#seglist .seg[data-status=revised]")
    assert "Revised" in page.inner_text("#seglist .seg[data-status=revised]")
    page.screenshot(path=str(SHOTS / "segment-revised.png"))
    [file] = get_json(f"{server}api/sessions/{session_id}")["files"]
    translation = f"{server}api/sessions/{session_id}/files/{file['fileId']}/translation"
    with urllib.request.urlopen(translation, timeout=10) as r:
        assert "La fin approche." in r.read().decode()
    with page.expect_download() as download:
        page.click("#download")
    assert "La fin approche." in Path(download.value.path()).read_text(encoding="utf-8")


def test_analyze_shows_the_counts_and_the_estimate_and_start_reuses_its_upload(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = len(get_json(server + "api/sessions?limit=100")["sessions"])
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.set_input_files("#doc-file", str(GUIDE))
    page.wait_for_function("() => document.querySelector('#doc-name').value === 'guide.md'")
    page.click("#analyze")
    page.wait_for_selector("#start-error:not([hidden])")  # no language yet: the form says so
    assert "language" in page.inner_text("#start-error")
    page.fill("#target-lang", "French")
    page.click("#analyze")
    page.wait_for_selector("#start-analysis:not([hidden])", timeout=WAIT_MS)
    summary = page.inner_text("#analysis-summary")
    assert "segments" in summary and "words" in summary
    rows = page.eval_on_selector_all("#analysis-rows tr", "rows => rows.map(r => r.cells[0].textContent)")
    assert rows[:4] == ["Kept as is (code, URLs)", "Repetitions", "Context match (101%)", "100% match"]
    assert rows[-1] == "No match"
    assert "Estimate with pseudo:" in page.inner_text("#analysis-estimate")
    page.locator("#start-analysis").screenshot(path=str(SHOTS / "analysis.png"))
    page.click("#start")
    page.wait_for_selector("body[data-phase=review]", timeout=WAIT_MS)
    assert page.is_hidden("#start-analysis")
    assert len(get_json(server + "api/sessions?limit=100")["sessions"]) == before + 1  # one session, not two


def test_a_notice_from_the_service_is_shown_in_the_conversation(tmp_path: Path) -> None:
    """A model that answers nothing: the step's `notice` says so, and the UI shows it."""
    env = {"AGENT_MODEL": "python:tests.fakes.empty_model:empty_model"}
    with running_service(tmp_path, free_port(), env) as base, chromium_page() as page:
        page.goto(base)
        page.wait_for_selector("body[data-phase=home]")
        page.fill("#doc-text", "Hello world.\n")
        page.fill("#target-lang", "French")
        page.click("#start")
        page.wait_for_selector("#timeline .bubble-notice", timeout=WAIT_MS)
        assert "The model answered with nothing" in page.inner_text("#timeline .bubble-notice")


def test_the_start_form_offers_the_configured_models_and_the_session_uses_the_one_chosen(tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    env = {"AGENT_MODEL": "pseudo", "AGENT_MODELS": "python:tests.browser.slow_model:slow_model"}
    with running_service(tmp_path, free_port(), env) as base, chromium_page() as page:
        page.goto(base)
        page.wait_for_selector("#model-field:not([hidden])", timeout=WAIT_MS)
        options = page.eval_on_selector_all("#model option", "os => os.map(o => [o.value, o.textContent])")
        slow = "python:tests.browser.slow_model:slow_model"
        assert options == [["pseudo", "pseudo (free), the default"], [slow, f"{slow} (price unknown)"]]
        assert page.input_value("#model") == "pseudo"
        page.fill("#doc-text", "Hello world.\n")
        page.fill("#target-lang", "French")
        page.select_option("#model", slow)
        page.click("#analyze")
        page.wait_for_selector("#start-analysis:not([hidden])", timeout=WAIT_MS)
        assert f"Estimate with {slow}:" in page.inner_text("#analysis-estimate")
        page.locator("#start-form").screenshot(path=str(SHOTS / "start-model.png"))
        page.select_option("#model", "pseudo")  # changed after the analysis: Start makes a session of its own
        page.click("#start")
        page.wait_for_selector("body[data-phase=review]", timeout=WAIT_MS)
        sid = page.evaluate("() => location.hash.slice(1)")
        assert get_json(f"{base}api/sessions/{sid}")["model"] == "pseudo"
