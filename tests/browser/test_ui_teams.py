"""The web UI's teams (issue 43) in a real browser: a manager, a French translator and a French reviewer.

The real service (SQLite, the offline `pseudo` model, local mode) and the system Chromium, as in
test_ui.py. Three tabs of one browser act as three people with the UI's "act as" field (the
`X-Act-As` header, honoured in local mode only): the manager (the local user) creates a project,
adds the translator and the reviewer (a refusal in the server's words on the way), and starts a
French translation in it; the translator picks the project, sees their role's view, drives the
session and comments on a card; the reviewer sees who holds the session, and a step of theirs is
refused with the holder and the time; the manager takes it over. Then, in a project with two review
steps, the translator's approvals wait in the reviewer's queue, where one is edited, the reviewed-only
export holds it alone, and the rest are approved in one request. Screenshots go to the test's tmp
folder (printed with `-s`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.launcher import (
    REQUIRES_BROWSER,
    SMALL_SCREENS,
    get_json,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

TEXT = "# Widgets\n\n" + "".join(
    f"The widget number {n} saves your work in the background, and its menu offers to rename, copy or delete it.\n\n"
    for n in range(1, 19)
)
"""Eighteen paragraphs of about 100 characters: several batches of a few cards on the smallest screens."""


SERVICE_ENV = SMALL_SCREENS


NEW_CARDS = """(seen) => document.body.dataset.phase === 'review'
  && [...document.querySelectorAll('#cards .card')].some(c => !seen.includes(c.dataset.callId))"""
"""A new batch shows: a card whose call the list `seen` does not hold."""

PAST_BATCH = """(seen) => ['review', 'done', 'idle'].includes(document.body.dataset.phase)
  && ![...document.querySelectorAll('#cards .card')].some(c => seen.includes(c.dataset.callId))"""
"""The batch `seen` is gone: the verdicts went through."""

REVIEW_OR_END = "body[data-phase=review] #cards .card.current, body[data-phase=done], body[data-phase=idle]"


def act_as(page: Page, sub: str) -> None:
    """Type `sub` into the top bar's "Act as" field (local mode) and apply it."""
    page.fill("#act-as-input", sub)
    page.press("#act-as-input", "Enter")


def choose_workspace(page: Page, name: str) -> None:
    """Open the switcher (it asks for the projects then) and pick `name`."""
    page.click("#workspace-summary")
    page.click(f"#workspace-list .workspace-item:has-text('{name}')")
    page.wait_for_function("(n) => document.querySelector('#workspace-name').textContent === n", arg=name)


def test_a_team_translates_comments_and_hands_over(page: Page, server: str, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    print(f"screenshots: {shots}")
    manager = page
    manager.goto(server)
    manager.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    assert manager.is_visible("#act-as"), "local mode offers the act-as field"

    # The manager creates a project and adds a French translator and a French reviewer.
    manager.click("#workspace-summary")
    manager.wait_for_selector("#workspace-list .workspace-item")  # Personal, at least
    manager.fill("#project-new-name", "Docs FR")
    manager.click("#project-new button[type=submit]")
    manager.wait_for_function("() => document.querySelector('#workspace-name').textContent === 'Docs FR'")
    assert manager.inner_text("#workspace-role") == "Manager · all languages"
    manager.wait_for_selector("#project-admin[open] #members .member[data-sub=local]")
    assert manager.input_value("#project-name") == "Docs FR"
    for sub, role in (("tina", "translator"), ("rita", "reviewer")):
        manager.fill("#member-sub", sub)
        manager.select_option("#member-role", role)
        manager.fill("#member-langs", "French")
        manager.click("#member-add button[type=submit]")
        manager.wait_for_selector(f"#members .member[data-sub={sub}]")
    assert manager.input_value("#members .member[data-sub=tina] input") == "fr", "the server names French fr"
    assert manager.input_value("#members .member[data-sub=rita] select") == "reviewer"
    # A language typed wrong is said before anything is sent.
    manager.fill("#members .member[data-sub=tina] input", "fr, *")
    manager.click("#members .member[data-sub=tina] button:has-text('Save')")
    manager.wait_for_function("() => document.querySelector('#members-error').textContent.includes('alone')")
    manager.fill("#members .member[data-sub=tina] input", "fr")
    # Refusals are said as the server words them: the last manager cannot go.
    manager.click("#members .member[data-sub=local] button:has-text('Remove')")
    words = "A project keeps at least one manager: make another member a manager first."
    manager.wait_for_function("(w) => document.querySelector('#members-error').textContent === w", arg=words)
    assert manager.is_visible("#members .member[data-sub=local]"), "a refusal changes nothing"
    manager.screenshot(path=str(shots / "teams-members.png"))
    manager.locator("#project-admin").screenshot(path=str(shots / "teams-members-panel.png"))

    # The manager starts a French translation in the project: the session is the project's.
    manager.fill("#doc-text", TEXT)
    manager.fill("#doc-name", "widgets.md")
    manager.fill("#target-lang", "French")
    assert manager.inner_text("#start-heading") == "New translation in Docs FR"
    manager.click("#start")
    manager.wait_for_selector("body[data-phase=review] #cards .card")
    manager.wait_for_function("() => document.querySelector('#team-badge').textContent.startsWith('Docs FR · Manager')")
    session = manager.evaluate("() => location.hash.slice(1)")
    assert session.startswith("s_")
    manager.click("#home-link")  # leaving lets the session go (DELETE …/claim)
    manager.wait_for_selector(f"#session-list [data-session-id={session}]")
    assert "French" in manager.inner_text(f"#session-list [data-session-id={session}]")

    # The translator, in a tab of their own: the project, their role's view, the session of their language.
    translator = manager.context.new_page()
    translator.goto(server)
    translator.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    act_as(translator, "tina")
    translator.wait_for_selector("#session-list[data-loaded=true]", state="attached")
    choose_workspace(translator, "Docs FR")
    assert translator.inner_text("#workspace-role") == "Translator · fr"
    assert translator.is_hidden("#start-form"), "only managers start a project's sessions"
    assert "translate into fr" in translator.inner_text("#project-note-text")
    assert translator.is_hidden("#project-admin")
    translator.wait_for_selector(f"#session-list [data-session-id={session}]")
    translator.screenshot(path=str(shots / "teams-translator-home.png"))
    translator.click(f"#session-list [data-session-id={session}] .session-link")
    translator.wait_for_selector("body[data-phase=review] #cards .card.current")
    translator.wait_for_function("() => document.querySelector('#team-badge').textContent.includes('Translator')")
    assert translator.is_hidden("#held-by"), "the manager let it go"
    # The memory panel is the project's; a translator may read it, not change it (the server's words).
    translator.wait_for_function("() => document.querySelector('#memory-title').textContent === \"Docs FR's memory\"")
    translator.fill("#memory-source", "widget")
    translator.fill("#memory-target", "gadget")
    translator.click("#memory-add-button")
    translator.wait_for_selector("#memory-error:not([hidden])")
    assert "you are a translator" in translator.inner_text("#memory-error")
    translator.fill("#memory-source", "")
    translator.fill("#memory-target", "")

    # A comment on the card's segment, then the translator drives: a verdict is a step, the hold theirs.
    translator.click("#cards .card.current .card-comments")
    translator.fill("#cards .card.current .thread-text", "Is «widget» a product name? Keep it?")
    translator.press("#cards .card.current .thread-text", "Control+Enter")
    translator.wait_for_selector("#cards .card.current .thread .comment:has-text('product name')")
    assert "tina" in translator.inner_text("#cards .card.current .comment .comment-head")
    translator.screenshot(path=str(shots / "teams-card-comment.png"))
    translator.press("#cards .card.current .thread-text", "Escape")  # back to the card's keys
    seen = translator.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
    for _ in seen:
        translator.keyboard.press("a")
    translator.wait_for_function(NEW_CARDS, arg=seen)

    # The segment list counts the open thread; its thread opens under the row.
    translator.click("#tab-segments")
    translator.wait_for_selector("#seglist .seg-comments-open")
    assert "1 open" in translator.inner_text("#seglist .seg-comments-open")
    translator.click("#threads > summary")
    translator.wait_for_selector("#threads-list .thread-link")
    assert "tina: Is «widget» a product name?" in translator.inner_text("#threads-list")
    translator.click("#threads-list .thread-link")
    translator.wait_for_selector("#seglist .seg .thread .comment")
    translator.screenshot(path=str(shots / "teams-segment-thread.png"))

    # The reviewer sees who holds the session; a step of theirs is refused with the holder and the time.
    reviewer = manager.context.new_page()
    reviewer.goto(server)
    reviewer.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    act_as(reviewer, "rita")
    choose_workspace(reviewer, "Docs FR")
    assert reviewer.inner_text("#workspace-role") == "Reviewer · fr"
    held = f"#session-list [data-session-id={session}] .session-held"
    reviewer.wait_for_selector(held)
    assert reviewer.inner_text(held).startswith("Held by tina until "), "the project's list says who holds it"
    reviewer.screenshot(path=str(shots / "teams-reviewer-home.png"))
    reviewer.click(f"#session-list [data-session-id={session}] .session-link")
    reviewer.wait_for_selector("body[data-phase=review] #cards .card.current")
    reviewer.wait_for_selector("#held-by:not([hidden])")
    assert reviewer.inner_text("#held-by").startswith("Held by tina until ")
    # A reviewer changes the project's glossary: the term is the project's, for every member.
    reviewer.fill("#memory-source", "widget")
    reviewer.fill("#memory-target", "gadget")
    reviewer.click("#memory-add-button")
    reviewer.wait_for_selector("#memory-glossary .memory-item:has-text('gadget')")
    # Resolve the translator's question from the segment list, as the reviewer.
    reviewer.click("#tab-segments")
    reviewer.click("#seglist .seg-comments-open")
    reviewer.click("#seglist .thread .comment button:has-text('Resolve')")
    reviewer.wait_for_selector("#seglist .thread .comment-resolved")
    assert "resolved by rita" in reviewer.inner_text("#seglist .thread .comment-resolved")
    reviewer.keyboard.press("Escape")
    reviewer.click("#cards .card.current")
    for _ in reviewer.query_selector_all("#cards .card"):
        reviewer.keyboard.press("a")
    reviewer.wait_for_selector("#claimed:not([hidden])")
    assert reviewer.inner_text("#claimed-text").startswith("Held by tina until ")
    assert reviewer.is_hidden("#claimed-take"), "only a manager takes a session over"
    reviewer.screenshot(path=str(shots / "teams-held-reviewer.png"))

    # The manager opens it too: held by tina; their step offers to take it over, which goes through.
    manager.click(f"#session-list [data-session-id={session}] .session-link")
    manager.wait_for_selector("body[data-phase=review] #cards .card.current")
    manager.wait_for_selector("#held-by:not([hidden])")
    for _ in manager.query_selector_all("#cards .card"):
        manager.keyboard.press("a")
    manager.wait_for_selector("#claimed:not([hidden]) #claimed-take:visible")
    manager.screenshot(path=str(shots / "teams-take-over.png"))
    before = manager.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
    manager.click("#claimed-take")
    manager.wait_for_function(PAST_BATCH, arg=before)
    assert manager.is_hidden("#claimed")
    assert manager.is_hidden("#held-by"), "the manager holds it now"
    # The translator's next step is refused in turn, naming the manager.
    translator.click("#cards .card.current")
    for _ in translator.query_selector_all("#cards .card"):
        translator.keyboard.press("a")
    translator.wait_for_selector("#claimed:not([hidden])")
    assert translator.inner_text("#claimed-text").startswith("Held by local until ")
    translator.screenshot(path=str(shots / "teams-held-translator.png"))


SHORT = "# Widgets\n\nThe widget saves your work.\n\nOpen the widget menu.\n\nClose it when done.\n"


def add_member(page: Page, sub: str, role: str, languages: str) -> None:
    """Add `sub` with `role` and `languages` from the members panel."""
    page.fill("#member-sub", sub)
    page.select_option("#member-role", role)
    page.fill("#member-langs", languages)
    page.click("#member-add button[type=submit]")
    page.wait_for_selector(f"#members .member[data-sub='{sub}']")


def open_as(page: Page, server: str, sub: str, project: str, session: str, role: str) -> None:
    """Load the UI, act as `sub`, choose `project` and open `session` from its list, where `role` is shown."""
    page.goto(server)
    page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    act_as(page, sub)
    choose_workspace(page, project)
    page.click(f"#session-list [data-session-id={session}] .session-link")
    page.wait_for_function("(r) => document.querySelector('#team-badge').textContent.includes(r)", arg=role)


def test_double_review_the_reviewers_queue(page: Page, server: str, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    print(f"screenshots: {shots}")
    manager = page
    manager.goto(server)
    manager.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    manager.click("#workspace-summary")
    manager.wait_for_selector("#workspace-list .workspace-item")
    manager.fill("#project-new-name", "Docs in two steps")
    manager.select_option("#project-new-review", "double")
    manager.click("#project-new button[type=submit]")
    manager.wait_for_selector("#project-admin[open] #members .member[data-sub=local]")
    assert manager.input_value("#project-review") == "double"
    add_member(manager, "tina", "translator", "fr")
    add_member(manager, "rita", "reviewer", "fr")
    manager.fill("#doc-text", SHORT)
    manager.fill("#doc-name", "widgets.md")
    manager.fill("#target-lang", "French")
    manager.click("#start")
    manager.wait_for_selector("body[data-phase=review] #cards .card")
    session = manager.evaluate("() => location.hash.slice(1)")
    manager.click("#home-link")
    manager.wait_for_selector(f"#session-list [data-session-id={session}]")

    # The translator approves every proposal: the units are translated, waiting for the second step.
    translator = manager.context.new_page()
    open_as(translator, server, "tina", "Docs in two steps", session, "Translator")
    assert "two review steps" in translator.inner_text("#team-badge")
    while True:
        translator.wait_for_selector(REVIEW_OR_END)
        if translator.evaluate("() => document.body.dataset.phase") != "review":
            break
        translator.keyboard.press("Shift+A" if translator.locator("#cards .card").count() > 1 else "a")
        translator.wait_for_selector("body:not([data-phase=review])")
    translator.click("#tab-segments")
    translator.wait_for_selector("#seglist .seg-status-translated")
    assert translator.is_hidden("#seg-queue"), "a translator has no review queue"
    translator.click("#home-link")  # lets the session go

    # The reviewer's queue: the translated units; one edited (reviewed), the rest approved in one request.
    reviewer = manager.context.new_page()
    open_as(reviewer, server, "rita", "Docs in two steps", session, "Reviewer")
    reviewer.click("#tab-segments")
    reviewer.wait_for_selector("#seg-queue:visible")
    waiting = reviewer.locator("#seglist .seg-status-translated").count()
    assert waiting >= 3
    assert reviewer.inner_text("#seg-queue") == f"Review queue ({waiting})"
    reviewer.click("#seg-queue")
    assert reviewer.input_value("#seg-status") == "translated"
    assert reviewer.locator("#seglist .seg").count() == waiting
    reviewer.screenshot(path=str(shots / "teams-review-queue.png"))
    row = "#seglist .seg-status-translated:has-text('Open the widget menu')"
    reviewer.click(f"{row} .seg-src")
    reviewer.fill(".seg-editor textarea", "Ouvrez le menu du widget.")
    reviewer.keyboard.press("Control+Enter")
    reviewer.wait_for_function("() => document.querySelector('#status').textContent.includes('Edited and reviewed')")
    reviewer.select_option("#seg-status", "reviewed")
    reviewer.wait_for_selector("#seglist .seg-status-reviewed:has-text('Ouvrez le menu du widget.')")
    # Only what a reviewer passed is in the reviewed export.
    reviewer.click("#export-menu summary")
    assert reviewer.is_visible("#export-reviewed")
    with reviewer.expect_download() as info:
        reviewer.click("#export-reviewed")
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    reviewed_only = SHORT.replace("Open the widget menu.", "Ouvrez le menu du widget.")
    assert exported == reviewed_only, "the rest awaits the reviewer: the source is kept there"
    reviewer.click("#seg-queue")
    shown = reviewer.inner_text("#seg-approve-shown")
    assert shown == f"Approve all shown as reviewed ({waiting - 1})"
    reviewer.click("#seg-approve-shown")
    reviewer.wait_for_function(
        "(n) => document.querySelector('#status').textContent.startsWith(`${n} approved`)", arg=waiting - 1
    )
    reviewer.wait_for_function("() => document.querySelector('#seg-queue').textContent === 'Review queue (0)'")
    reviewer.select_option("#seg-status", "reviewed")
    assert reviewer.locator("#seglist .seg-status-reviewed").count() == waiting
    reviewer.screenshot(path=str(shots / "teams-reviewed.png"))


def test_the_team_views_fit_a_phone_width_window(page: Page, server: str, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(server)
    page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    page.click("#workspace-summary")
    page.wait_for_selector("#workspace-list .workspace-item")
    page.fill("#project-new-name", "Phone project")
    page.click("#project-new button[type=submit]")
    page.wait_for_selector("#project-admin[open] #members .member[data-sub=local]")
    add_member(page, "someone-with-a-long-identity@example.com", "translator", "fr, de")
    page.locator("#project-admin").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "teams-narrow-members.png"))
    for box in page.locator("#members .member-sub").all():
        shown = box.bounding_box()
        assert shown is not None and shown["width"] > 40, "each member's identity stays readable"
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 390, f"the home screen scrolls sideways ({wide} px)"
    page.click("#workspace-summary")
    page.wait_for_selector("#workspace-list .workspace-item")
    page.screenshot(path=str(tmp_path / "teams-narrow-menu.png"))
    menu = page.locator("#workspace-menu").bounding_box()
    assert menu is not None and menu["x"] >= 0 and menu["x"] + menu["width"] <= 390, "the menu fits the window"
    page.keyboard.press("Escape")
    page.wait_for_selector("#workspace-menu", state="hidden")
    assert page.evaluate("() => document.activeElement.id") == "workspace-summary", "Esc goes back to the switcher"


def test_auto_approval_sampled_cards_and_the_report(page: Page, server: str, tmp_path: Path) -> None:
    manager = page
    manager.goto(server)
    manager.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    manager.click("#workspace-summary")
    manager.wait_for_selector("#workspace-list .workspace-item")
    manager.fill("#project-new-name", "Docs sampled")
    manager.click("#project-new button[type=submit]")
    manager.wait_for_selector("#project-admin[open] #members .member[data-sub=local]")
    assert manager.is_disabled("#project-sample"), "a sample needs a threshold"
    manager.select_option("#project-auto", "85")
    manager.select_option("#project-sample", "0.2")
    manager.click("#project-settings button[type=submit]")
    manager.wait_for_function("() => document.querySelector('#members-status').textContent === 'Settings saved.'")
    assert manager.input_value("#project-sample") == "0.2"

    # Every proposal passes the threshold (the pseudo model estimates 90): only the sample comes as cards.
    manager.fill("#doc-text", TEXT)
    manager.fill("#doc-name", "widgets.md")
    manager.fill("#target-lang", "French")
    manager.click("#start")
    sampled = 0
    while True:
        manager.wait_for_selector(REVIEW_OR_END)
        if manager.evaluate("() => document.body.dataset.phase") != "review":
            break
        cards = manager.locator("#cards .card")
        assert cards.count() == manager.locator("#cards .card .badge-sampled").count(), "a card only for the sample"
        if not sampled:
            manager.screenshot(path=str(tmp_path / "teams-sampled-card.png"))
        sampled += cards.count()
        seen = manager.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
        manager.keyboard.press("Shift+A" if cards.count() > 1 else "a")
        manager.wait_for_function(PAST_BATCH, arg=seen)
    assert sampled > 0, "a fifth of 19 units: some were sampled"
    # The session's threshold changed in the top bar keeps the project's sample.
    session = manager.evaluate("() => location.hash.slice(1)")
    manager.select_option("#auto-approve", "90")
    manager.wait_for_function("() => document.querySelector('#status').textContent.includes('estimate of 90')")
    assert get_json(f"{server}api/sessions/{session}")["autoApprove"] == {"minEstimate": 90, "sample": 0.2}

    # The report counts them in their band, beside what the rule approved alone.
    manager.click("#home-link")
    manager.wait_for_selector("#project-admin")
    if not manager.evaluate("() => document.querySelector('#project-admin').open"):
        manager.click("#project-admin > summary")
    manager.fill("#quality-lang", "French")
    manager.click("#quality-form button[type=submit]")
    manager.wait_for_selector("#quality table")
    row = manager.locator("#quality tbody tr", has_text="90-100")
    cells = row.locator("td").all_inner_texts()
    assert int(cells[2]) == sampled, f"the report's sampled units: {cells}"
    assert int(cells[0]) > 0, "the rule approved the rest"
    manager.locator("#quality").scroll_into_view_if_needed()
    manager.screenshot(path=str(tmp_path / "teams-quality.png"))
