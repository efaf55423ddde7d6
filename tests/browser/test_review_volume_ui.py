"""Review at volume in a real browser (Playwright, the system Chromium) against the real service with the
`pseudo` model: the card's quality estimate and glossary hits, the segment list's estimate filter and
order, "Approve all shown", the memory panel's kinds and the session's auto-approve threshold.
Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

try:
    from playwright.sync_api import Page
except ImportError:  # pragma: no cover - depends on the environment
    Page = Any  # type: ignore[misc,assignment]

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, get_json, start_translation

SHOTS = ROOT / "test-artifacts" / "screenshots"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

DOC = (
    "# Widget settings\n\n"
    "Open the widget settings from the menu.\n\n"
    "Clippy helps you choose a theme.\n\n"
    "Send the e-mail to the widget team.\n\n"
    "Save your work before you close the window.\n\n"
    "Restart the application to apply the changes.\n"
)


def _send(url: str, body: dict[str, Any], method: str = "POST") -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method=method
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def test_estimates_glossary_hits_the_estimate_filter_and_approve_all_shown(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for entry in (
        {"source": "widget", "target": "gadget", "languages": "auto>french"},
        {"source": "Clippy", "target": "Clippy", "languages": "auto>french"},
        {"source": "e-mail", "target": "mél", "kind": "forbidden", "languages": "auto>french"},
    ):
        _send(f"{server}api/memory/glossary", entry)

    sid = start_translation(page, server, DOC, "settings.md")

    # The cards: each with its estimate; a term of the glossary shows whether the proposal follows it.
    widget = page.locator("#cards .card:has(.card-source:text('Open the widget'))")
    assert widget.locator(".badge-estimate").inner_text() == "Estimate 75"
    assert "«widget»: «gadget» missing" in widget.locator(".card-glossary").inner_text()
    assert "gadget" in (widget.locator(".badge-estimate").get_attribute("title") or "")
    clippy = page.locator("#cards .card:has(.card-source:text('Clippy helps'))")
    assert clippy.locator(".glossary-hit[data-kind=keep]").inner_text() == "«Clippy» not kept as it is"
    assert clippy.locator("mark.term").get_attribute("title") == "Glossary: keep Clippy as it is"
    clean = page.locator("#cards .card:has(.card-source:text('Save your work'))")
    assert clean.locator(".badge-estimate").inner_text() == "Estimate 90"
    assert clean.locator(".card-glossary").count() == 0
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(SHOTS / "volume-card-estimate.png"))

    # The memory panel says each entry's kind.
    meta = page.locator("#memory-glossary .memory-item .memory-meta").all_inner_texts()
    assert any("never use" in m for m in meta) and any("do not translate" in m for m in meta)
    page.locator("#memory").screenshot(path=str(SHOTS / "volume-memory-kinds.png"))

    # The segment list: estimates beside the proposals, filtered to 90 and more, then approved at once.
    page.click("#tab-segments")
    page.wait_for_selector("#seglist .seg-status-pending .seg-estimate")
    total = page.locator("#seglist .seg-status-pending").count()
    page.select_option("#seg-estimate", "90")
    shown = page.locator("#seglist .seg")
    assert 0 < shown.count() < total
    assert all(int(t) >= 90 for t in page.locator("#seglist .seg-estimate").all_inner_texts())
    page.select_option("#seg-estimate", "")
    page.select_option("#seg-sort", "estimate")
    ordered = [int(t) for t in page.locator("#seglist .seg-estimate").all_inner_texts()]
    assert ordered == sorted(ordered) and ordered[0] < ordered[-1]
    page.locator("#workbench").screenshot(path=str(SHOTS / "volume-segments-by-estimate.png"))
    page.select_option("#seg-sort", "position")
    page.select_option("#seg-estimate", "90")
    button = page.locator("#seg-approve-shown")
    assert button.is_visible() and button.inner_text() == f"Approve all shown ({shown.count()})"
    page.locator("#workbench").screenshot(path=str(SHOTS / "volume-approve-all-shown.png"))
    approved = shown.count()
    button.click()
    page.wait_for_function(
        "(n) => document.querySelectorAll('#cards .card').length === n", arg=total - approved, timeout=20_000
    )
    assert page.locator("#status").inner_text().startswith(f"{approved} approved")
    view = get_json(f"{server}api/sessions/{sid}")
    assert len(view["pendingCopilotRequests"]) == total - approved
    assert all(r["estimate"] < 90 for r in view["pendingCopilotRequests"])
    page.locator("#cards").screenshot(path=str(SHOTS / "volume-after-approve-all-shown.png"))
    # The approved ones are listed as approved, to be written with the batch's last verdict.
    page.select_option("#seg-estimate", "")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#seglist .seg-status-approved').length === n", arg=approved
    )
    assert page.locator("#seg-approve-shown").is_hidden(), (
        "every proposal left has a warning: nothing to approve at once"
    )
    page.locator("#workbench").screenshot(path=str(SHOTS / "volume-segments-after-approve.png"))

    # The reviewer's own edit may use the forbidden translation: the card warns, and nothing is sent.
    card = page.locator("#cards .card:has(.card-source:text('Send the e-mail'))")
    card.click()
    page.keyboard.press("e")
    card.locator(".edit-text").wait_for()
    card.locator(".edit-text").fill("Envoyez le mél à l’équipe gadget.")
    page.keyboard.press("Control+Enter")
    warned = card.locator(".card-edit-warnings:not([hidden])")
    warned.wait_for()
    assert "Your edit" in warned.inner_text() and "«mél» must not be used for «e-mail»" in warned.inner_text()
    card.screenshot(path=str(SHOTS / "volume-edit-forbidden-warning.png"))
    assert len(get_json(f"{server}api/sessions/{sid}")["pendingCopilotRequests"]) == total - approved, "not sent"

    # The session's auto-approve threshold, in the top bar.
    page.select_option("#auto-approve", "85")
    page.wait_for_function("() => !document.querySelector('#auto-approve').disabled")
    page.wait_for_timeout(300)
    assert get_json(f"{server}api/sessions/{sid}")["autoApprove"] == {"minEstimate": 85, "sample": 0.0}, "no sample"
    page.locator("#topbar-session").screenshot(path=str(SHOTS / "volume-auto-approve.png"))

    # An entry's kind is edited in place: "widget" becomes a term to keep (its translation is itself).
    [widget_id] = [g["id"] for g in get_json(f"{server}api/memory")["glossary"] if g["source"] == "widget"]
    item = page.locator(f"#memory-glossary .memory-item[data-entry-id='{widget_id}']")
    item.locator(".memory-edit").click()
    item.locator(".memory-edit-kind").select_option("keep")
    item.screenshot(path=str(SHOTS / "volume-memory-edit-kind.png"))
    item.locator("button[type=submit]").click()
    page.wait_for_selector(
        "#memory-glossary .memory-item:has(.memory-source:text-is('widget')) .memory-meta:text('do not translate')"
    )
    [widget_entry] = [g for g in get_json(f"{server}api/memory")["glossary"] if g["source"] == "widget"]
    assert (widget_entry["kind"], widget_entry["target"]) == ("keep", "widget")
