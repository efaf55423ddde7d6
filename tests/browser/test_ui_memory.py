"""The memory panel in a real browser (Playwright, the system Chromium) against the real service with the
`pseudo` model: the language filter (a French session shows the French and every-language entries, not
the German ones), the concordance search with its matches marked and its keys, and the translation
memory browsed by language, paged, edited in place and deleted after a confirmation.

The entries are imported as TMX into the real memory; the panel browses, edits and deletes them
through the server's routes (`GET/PUT/DELETE …/memory/tm`), and what it did is read back from them.
Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any
from xml.sax.saxutils import escape

import pytest

try:
    from playwright.sync_api import Page, Route
except ImportError:  # pragma: no cover - depends on the environment
    Page = Route = Any  # type: ignore[misc,assignment]

from tests.browser.launcher import REQUIRES_BROWSER, ROOT, free_port, get_json, running_service, start_translation

SHOTS = ROOT / "test-artifacts" / "screenshots"
pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

DOC = "# Widget settings\n\nOpen the widget settings from the menu.\n\nSave your work before you close the window.\n"

PAIRS = [(f"Widget number {n} is ready.", f"Le gadget numéro {n} est prêt.") for n in range(1, 58)] + [
    ("Open the widget settings.", "Ouvrez les réglages du gadget."),
    ("Close the window.", "Fermez la fenêtre."),
    ("😀 The widget smiles.", "😀 Le gadget sourit."),
]
"""The French translation memory: 60 entries, more than one page of 50."""

GERMAN = [("Open the widget settings.", "Öffnen Sie die Widget-Einstellungen.")]


def _tmx() -> str:
    def tu(source: str, target: str, lang: str) -> str:
        return (
            f'<tu><tuv xml:lang="en"><seg>{escape(source)}</seg></tuv>'
            f'<tuv xml:lang="{lang}"><seg>{escape(target)}</seg></tuv></tu>'
        )

    units = [tu(s, t, "fr") for s, t in PAIRS] + [tu(s, t, "de") for s, t in GERMAN]
    return (
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" datatype="plaintext" '
        'segtype="sentence" adminlang="en" creationtool="test" creationtoolversion="1" o-tmf="test"/>'
        f"<body>{''.join(units)}</body></tmx>"
    )


def _send(url: str, body: dict[str, Any] | None = None, method: str = "POST") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_service(tmp_path_factory.mktemp("memory"), free_port()) as base:
        for entry in (
            {"source": "widget", "target": "gadget", "languages": "auto>french"},
            {"source": "settings", "target": "réglages", "languages": "auto>fr"},
            {"source": "settings", "target": "Einstellungen", "languages": "auto>german"},
            {"source": "menu", "target": "menu"},
        ):
            _send(f"{base}api/memory/glossary", entry)
        _send(f"{base}api/memory/style-notes", {"text": "Use vous throughout.", "languages": "auto>french"})
        _send(f"{base}api/memory/style-notes", {"text": "Siezen, nicht duzen.", "languages": "auto>german"})
        imported = _send(f"{base}api/memory/import", {"format": "tmx", "content": _tmx()})
        assert imported["added"] == len(PAIRS) + len(GERMAN), imported
        yield base


def _panel_texts(page: Page, list_id: str) -> list[str]:
    return [t.split("\n")[0] for t in page.locator(f"#{list_id} .memory-item .memory-text").all_inner_texts()]


def _tm_sources(page: Page) -> list[str]:
    return page.locator("#memory-tm .tm-item .tm-source").all_inner_texts()


def test_the_memory_panel_filters_searches_and_manages_the_translation_memory(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 1800})  # the whole panel in one screenshot
    start_translation(page, server, DOC, "settings.md")
    cards = page.locator("#cards .card").count()

    # The filter: the session's language by default, French and every-language entries only.
    page.wait_for_selector("#memory-glossary .memory-item")
    assert page.locator("#memory-language option:checked").inner_text() == "French (this session)"
    assert sorted(_panel_texts(page, "memory-glossary")) == ["menu → menu", "settings → réglages", "widget → gadget"]
    assert _panel_texts(page, "memory-notes") == ["Use vous throughout."]
    assert "(3 terms, 1 note)" in page.inner_text("#memory-count")
    memory = page.locator("#memory")
    memory.scroll_into_view_if_needed()
    memory.screenshot(path=str(SHOTS / "memory-filter-french.png"))
    # All of them; then German (a language the entries name is offered): its own and the every-language one.
    page.select_option("#memory-language", label="All languages")
    page.wait_for_function("() => document.querySelectorAll('#memory-glossary .memory-item').length === 4")
    assert len(_panel_texts(page, "memory-notes")) == 2
    page.select_option("#memory-language", label="German")
    page.wait_for_function("() => document.querySelectorAll('#memory-glossary .memory-item').length === 2")
    assert sorted(_panel_texts(page, "memory-glossary")) == ["menu → menu", "settings → Einstellungen"]
    assert _panel_texts(page, "memory-notes") == ["Siezen, nicht duzen."]
    # Another language, typed: a tag or a name; Esc goes back to the choice before.
    page.select_option("#memory-language", label="Another language…")
    page.wait_for_selector("#memory-language-typed:focus")
    page.keyboard.press("Escape")
    assert page.locator("#memory-language option:checked").inner_text() == "German"
    page.select_option("#memory-language", label="Another language…")
    page.fill("#memory-language-typed", "es")
    page.press("#memory-language-typed", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#memory-glossary .memory-item').length === 1")
    assert page.locator("#memory-language option:checked").inner_text() == "Spanish"
    assert _panel_texts(page, "memory-glossary") == ["menu → menu"] and page.is_visible("#memory-notes-empty")
    page.select_option("#memory-language", label="French (this session)")
    page.wait_for_function("() => document.querySelectorAll('#memory-glossary .memory-item').length === 3")

    # The search: the translation memory and the glossary, the query marked wherever it is found.
    page.fill("#memory-search-q", "widget")
    page.press("#memory-search-q", "Enter")
    results = page.locator("#memory-search-results")
    results.locator(".concordance-hit").first.wait_for()
    summary = results.locator(".memory-results-summary").inner_text()
    assert summary.startswith(
        "“widget” into French: 59 in the translation memory (the newest 20 shown), 1 in the glossary"
    ), summary
    marks = results.locator(".concordance-source mark").all_inner_texts()
    assert marks and {m.lower() for m in marks} == {"widget"}, marks
    glossary_hit = results.locator("ul[aria-label=Glossary] .concordance-hit")
    assert glossary_hit.count() == 1 and glossary_hit.locator("mark").inner_text() == "widget"
    assert "Widget-Einstellungen" not in results.inner_text(), "the German entry is not a French one"
    # ↓ moves into the results, ↑ ↓ between them; a letter there is no review shortcut; Esc back to the box.
    page.press("#memory-search-q", "ArrowDown")
    assert page.evaluate("() => document.activeElement.matches('#memory-search-results .concordance-hit')")
    page.keyboard.press("ArrowDown")
    second = page.evaluate("() => [...document.querySelectorAll('.concordance-hit')].indexOf(document.activeElement)")
    assert second == 1
    page.keyboard.press("a")
    assert page.locator("#cards .card").count() == cards and page.locator("#cards .card.verdict-approve").count() == 0
    results.screenshot(path=str(SHOTS / "memory-concordance.png"))
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.id") == "memory-search-q"
    page.keyboard.press("Escape")
    assert results.is_hidden() and page.input_value("#memory-search-q") == ""
    # The server's offsets count code points: an emoji before the match shifts nothing.
    page.fill("#memory-search-q", "smiles")
    page.press("#memory-search-q", "Enter")
    page.wait_for_selector("#memory-search-results .concordance-hit")
    assert results.locator(".concordance-source").first.inner_html() == "😀 The widget <mark>smiles</mark>."
    page.fill("#memory-search-q", "")
    page.press("#memory-search-q", "Enter")
    assert results.is_hidden()

    # The translation memory into French: a page of 50, newest first, then "More".
    page.click("#memory-tm-section > summary")
    page.wait_for_selector("#memory-tm .tm-item")
    assert page.locator("#memory-tm .tm-item").count() == 50
    assert page.inner_text("#memory-tm-count") == "(French: 50+ entries)"
    page.click("#memory-tm-more")
    page.wait_for_function("() => document.querySelectorAll('#memory-tm .tm-item').length === 60")
    assert page.is_hidden("#memory-tm-more")
    assert page.evaluate("() => document.activeElement.closest('.tm-item') !== null"), (
        "the focus goes to the first new entry"
    )
    assert not any("Öffnen" in t for t in page.locator("#memory-tm .tm-target").all_inner_texts())

    # Filter by text, edit in place: Esc cancels, Enter saves.
    page.fill("#memory-tm-q", "settings")
    page.wait_for_function("() => document.querySelectorAll('#memory-tm .tm-item').length === 1")
    page.wait_for_selector("#memory-tm .tm-item .tm-source:text-is('Open the widget settings.')")
    item = page.locator("#memory-tm .tm-item").first
    assert _tm_sources(page) == ["Open the widget settings."]
    item.locator(".memory-edit").click()
    box = item.locator(".tm-edit-target")
    assert box.evaluate("el => el === document.activeElement") and box.input_value() == "Ouvrez les réglages du gadget."
    box.fill("Changed my mind")
    box.press("Escape")
    assert item.locator(".tm-target").inner_text() == "Ouvrez les réglages du gadget."
    assert item.locator(".memory-edit").evaluate("el => el === document.activeElement")
    item.locator(".memory-edit").click()
    box.fill("")
    box.press("Enter")
    assert "cannot be empty" in page.inner_text("#memory-tm-status")
    box.fill("Ouvrez les paramètres du gadget.")
    item.screenshot(path=str(SHOTS / "memory-tm-edit.png"))
    box.press("Enter")
    page.wait_for_selector("#memory-tm .tm-item .tm-target:text-is('Ouvrez les paramètres du gadget.')")
    assert page.inner_text("#memory-tm-status").startswith("Saved: “Open the widget settings.”")
    edited = get_json(f"{server}api/memory/tm?language=fr&q=widget%20settings")["entries"]
    assert [e["target"] for e in edited] == ["Ouvrez les paramètres du gadget."], "the server has the edit"

    # Delete: the line asks first and says it cannot be undone; Esc keeps the entry, Delete removes it.
    page.fill("#memory-tm-q", "window")
    page.wait_for_selector("#memory-tm .tm-item .tm-source:text-is('Close the window.')")
    assert page.locator("#memory-tm .tm-item").count() == 1
    item = page.locator("#memory-tm .tm-item").first
    item.locator(".memory-delete").click()
    confirm = item.locator(".tm-confirm")
    assert "cannot be undone" in confirm.inner_text()
    assert confirm.locator(".tm-confirm-keep").evaluate("el => el === document.activeElement"), (
        "the safe choice has the focus"
    )
    item.screenshot(path=str(SHOTS / "memory-tm-confirm.png"))
    page.keyboard.press("Escape")
    assert item.locator(".tm-target").inner_text() == "Fermez la fenêtre."
    item.locator(".memory-delete").click()
    item.locator(".tm-confirm-delete").click()
    page.wait_for_selector("#memory-tm-empty:visible")
    assert page.inner_text("#memory-tm-empty") == "No entry into French holds “window”."
    assert page.inner_text("#memory-tm-status") == "Deleted: “Close the window.” → “Fermez la fenêtre.”"
    memory.screenshot(path=str(SHOTS / "memory-tm-deleted.png"))
    found = get_json(f"{server}api/memory/concordance?q=window&language=fr")
    assert not [m for m in found["memory"] if m["source"] == "Close the window."], "deleted on the server"

    # Another language: the list is read again for it.
    page.fill("#memory-tm-q", "")
    page.select_option("#memory-language", label="German")
    page.wait_for_function("() => document.querySelector('#memory-tm-count').innerText.startsWith('(German: ')")
    assert _tm_sources(page) == ["Open the widget settings."], "German's own entry, not the French ones"
    memory.screenshot(path=str(SHOTS / "memory-panel-german.png"))


def test_a_project_sessions_memory_panel_uses_the_projects_memory(server: str, page: Page) -> None:
    """In a project's session the panel reads, searches and changes the project's shared memory."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    project = _send(f"{server}api/projects", {"name": "Docs"})
    pid = project["id"]
    _send(f"{server}api/projects/{pid}/memory/glossary", {"source": "widget", "target": "bidule", "languages": "fr"})
    _send(f"{server}api/projects/{pid}/memory/import", {"format": "tmx", "content": _tmx()})
    page.set_viewport_size({"width": 1280, "height": 1800})
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.click("#workspace-summary")
    page.click("#workspace-list .workspace-item:has-text('Docs')")
    page.wait_for_function("() => document.querySelector('#workspace-name').textContent === 'Docs'")
    page.fill("#doc-text", DOC)
    page.fill("#doc-name", "settings.md")
    page.fill("#target-lang", "French")
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    page.wait_for_function("() => document.querySelector('#memory-title').textContent === \"Docs's memory\"")

    # The project's glossary, not the caller's own ("widget → gadget").
    page.wait_for_selector("#memory-glossary .memory-item")
    assert _panel_texts(page, "memory-glossary") == ["widget → bidule"]
    page.fill("#memory-search-q", "widget")
    page.press("#memory-search-q", "Enter")
    hit = page.locator("#memory-search-results ul[aria-label=Glossary] .concordance-hit")
    hit.wait_for()
    assert hit.locator(".concordance-target").inner_text() == "bidule"

    # The translation memory's calls go to the project's routes.
    page.click("#memory-tm-section > summary")
    page.wait_for_selector("#memory-tm .tm-item")
    item = page.locator("#memory-tm .tm-item").first
    source = item.locator(".tm-source").inner_text()
    item.locator(".memory-edit").click()
    item.locator(".tm-edit-target").fill("Le projet le dit ainsi.")
    item.locator(".tm-edit-target").press("Enter")
    page.wait_for_selector("#memory-tm .tm-target:text-is('Le projet le dit ainsi.')")
    assert page.inner_text("#memory-tm-status").startswith(f"Saved: “{source}”")
    page.locator("#memory").screenshot(path=str(SHOTS / "memory-project.png"))
    page_of_tm = get_json(f"{server}api/projects/{pid}/memory/tm?language=fr&q=projet")
    assert [e["target"] for e in page_of_tm["entries"]] == ["Le projet le dit ainsi."]
    own = get_json(f"{server}api/memory/tm?language=fr&q=projet")
    assert own["entries"] == [], "the caller's own memory is not the project's"
