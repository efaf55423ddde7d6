"""Jobs in the web UI, in a real browser (Playwright) against the real service (SQLite, the pseudo model).

One document started for three languages makes a job: the job view lists them with their progress, state
and spending, and prepares each one's first proposals; one language is opened, reviewed to the end with
the keyboard, and the way back shows it complete while the others are still running; the job survives a
reload and is listed on the home screen. Screenshots go to test-artifacts/screenshots/ (job-*.png).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.launcher import (
    REQUIRES_BROWSER,
    ROOT,
    SMALL_SCREENS,
    chromium_page,
    free_port,
    get_json,
    running_service,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

GUIDE = ROOT / "tests" / "data" / "guide.md"
SHOTS = ROOT / "test-artifacts" / "screenshots"

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]

NEW_BATCH_OR_DONE = """(seen) => {
  const phase = document.body.dataset.phase;
  if (phase === 'done') return true;
  if (phase !== 'review') return false;
  const ids = [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId);
  return ids.length > 0 && ids.some(id => !seen.includes(id));
}"""

LANGUAGES = {"de": "German", "fr": "French", "pl": "Polish"}
LANGUAGE_STATES = """() => Object.fromEntries([...document.querySelectorAll('#job-languages .job-lang')]
  .map(li => [li.dataset.lang, li.dataset.state]))"""


SERVICE_ENV = SMALL_SCREENS


def _approve_until_done(page: Page) -> int:
    """Approve every batch with the keyboard (Shift+A; A for a lone card) until the session is done."""
    batches = 0
    while True:
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=[])
        if page.evaluate("() => document.body.dataset.phase") == "done":
            return batches
        ids = page.evaluate("() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)")
        page.focus("#cards .card.current")
        page.keyboard.press("Shift+A" if len(ids) > 1 else "a")
        page.wait_for_timeout(300)  # a warned card opens the confirmation, asynchronously
        if page.locator("dialog#confirm[open]").count():
            page.click("dialog#confirm button[value=ok]")
        page.wait_for_function(NEW_BATCH_OR_DONE, arg=ids)
        batches += 1


def test_a_job_for_three_languages(server: str, page: Page) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    assert page.locator("#jobs-block").is_hidden(), "no job yet"

    # Three languages: the field, then "+ Add language" twice (each new field takes the focus).
    page.set_input_files("#doc-file", str(GUIDE))
    page.wait_for_function("() => document.querySelector('#doc-name').value === 'guide.md'")
    page.fill("#target-lang", "German")
    page.click("#add-lang")
    page.keyboard.type("French")
    page.click("#add-lang")
    page.keyboard.type("pl")
    assert page.locator("#more-langs input").count() == 2
    page.fill("#instructions", "Formal tone.")
    # Analyze estimates every language (the first one's matches, the estimates added up).
    page.click("#analyze")
    page.wait_for_selector("#start-analysis:visible")
    assert page.inner_text("#analysis-estimate").startswith("3 languages, a session each. Estimate with pseudo")
    page.screenshot(path=str(SHOTS / "job-start.png"))
    page.focus("#more-langs li:last-child input")
    page.keyboard.press("Control+Enter")

    # The job view: three languages, each prepared up to its first proposals, none written yet.
    page.wait_for_selector("body[data-phase=job]")
    job_id: str = page.evaluate("() => location.hash.slice(1)")
    assert job_id.startswith("j_")
    page.wait_for_function("() => document.querySelectorAll('#job-languages .job-lang').length === 3")
    assert page.evaluate(LANGUAGE_STATES) == {"de": "running", "fr": "running", "pl": "running"}
    page.wait_for_function(
        "() => [...document.querySelectorAll('#job-languages .job-lang-prep')]"
        ".filter(p => /ready for review/.test(p.textContent)).length === 3"
    )
    job = get_json(f"{server}api/jobs/{job_id}")
    assert list(job["languages"]) == ["de", "fr", "pl"]
    german = page.locator("#job-languages .job-lang[data-lang=de]")
    segments = job["languages"]["de"]["progress"]["segments"]
    left = job["languages"]["de"]["progress"]["segmentsLeft"]
    assert 0 < left <= segments, "code blocks are written at upload; the prose is left"
    assert f"{left} of {segments} segments left" in german.inner_text()
    assert "German (de)" in german.inner_text() and "Running" in german.inner_text()
    assert "tokens (a free model)" in german.inner_text(), "the pseudo model is priced at nothing: tokens"
    assert page.inner_text("#job-heading") == "guide.md → German, French, Polish"
    for tag in ("de", "fr", "pl"):  # the instructions went to every language, after its task
        messages = get_json(f"{server}api/sessions/{job['languages'][tag]['sessionId']}")["messages"]
        prompts = [p["content"] for m in messages for p in m["parts"] if p["part_kind"] == "user-prompt"]
        assert prompts[:2] == [f"Translate guide.md into {LANGUAGES[tag]}.", "Instructions: Formal tone."], prompts
    page.screenshot(path=str(SHOTS / "job.png"))

    # Open German: its proposals are there; approve everything with the keyboard.
    german.get_by_role("link", name="Review German").click()
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    assert page.locator("#job-back").is_visible()
    assert page.evaluate("() => location.hash.slice(1)") == job["languages"]["de"]["sessionId"]
    assert _approve_until_done(page) >= 2
    assert page.locator("#hold").is_hidden(), "every segment written: nothing left to say"
    page.screenshot(path=str(SHOTS / "job-language-done.png"))

    # Back to the job: German complete, the others still running, with their proposals waiting.
    page.click("#job-back")
    page.wait_for_selector("body[data-phase=job]")
    page.wait_for_function(f"() => ({LANGUAGE_STATES})().de === 'complete'")
    assert page.evaluate(LANGUAGE_STATES) == {"de": "complete", "fr": "running", "pl": "running"}
    assert f"All {segments} segments written" in german.inner_text()
    assert "1 of 3 languages complete" in page.inner_text("#job-summary")
    spent = get_json(f"{server}api/jobs/{job_id}")["languages"]["de"]["spent"]
    assert spent["modelRequests"] >= 2 and spent["inputTokens"] > 0
    page.screenshot(path=str(SHOTS / "job-one-complete.png"))
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(SHOTS / "job-dark.png"))
    page.emulate_media(color_scheme="light")

    # A reload keeps the job; home lists it, and it opens again from there.
    page.reload()
    page.wait_for_selector("body[data-phase=job]")
    page.wait_for_function(f"() => ({LANGUAGE_STATES})().de === 'complete'")
    page.set_viewport_size({"width": 390, "height": 800})
    page.screenshot(path=str(SHOTS / "job-narrow.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#home-link")
    page.wait_for_selector(f"#job-list [data-job-id='{job_id}']")
    assert "guide.md → German, French, Polish" in page.inner_text("#job-list")
    page.wait_for_function("() => document.querySelector('#session-list').dataset.loaded === 'true'")
    assert page.locator("#session-list .session-item").count() == 3, "the analysis's draft session is gone"
    page.screenshot(path=str(SHOTS / "job-home.png"))
    page.click(f"#job-list [data-job-id='{job_id}'] a")
    page.wait_for_selector("body[data-phase=job]")
    page.wait_for_function("() => document.querySelectorAll('#job-languages .job-lang').length === 3")


def test_one_language_keeps_the_single_session_flow(server: str, page: Page) -> None:
    """One language named: a session as before (no job), the language field as it was."""
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", "# Notes\n\nShort text.\n")
    page.fill("#doc-name", "notes.md")
    page.fill("#target-lang", "German, ")  # a stray comma names no other language
    page.click("#add-lang")  # nor does an empty extra field
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    session_id = page.evaluate("() => location.hash.slice(1)")
    assert session_id.startswith("s_")
    assert page.locator("#job-back").is_hidden()
    assert page.inner_text("#session-title") == "notes.md → German"
    messages = get_json(f"{server}api/sessions/{session_id}")["messages"]
    assert messages[0]["parts"][0]["content"] == "Translate notes.md into German."


FLAKY = "python:tests.browser.flaky_model:flaky_model"


@pytest.fixture(scope="module")
def flaky_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service with a provider that refuses Polish, throttles French once (8 s) and leaves Spanish
    untranslated, and the pseudo model."""
    env = {**SMALL_SCREENS, "AGENT_MODEL": FLAKY, "AGENT_MODELS": f"{FLAKY},pseudo", "FLAKY_RETRY_SECONDS": "8"}
    with running_service(tmp_path_factory.mktemp("flaky"), free_port(), env) as base:
        yield base


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def test_a_waiting_and_a_failed_language(flaky_server: str) -> None:
    """French waits for its provider (a countdown in the job view, then on the review screen, which goes on
    by itself); Polish fails (its error in the job view; on the review screen, a switch to another model
    that goes on)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    files = [{"name": "guide.md", "content": GUIDE.read_text(encoding="utf-8")}]
    created = _post_json(f"{flaky_server}api/jobs", {"files": files, "targetLanguages": ["fr", "pl"]})
    with chromium_page() as page:
        # A job this browser did not start opens from its address, named by its languages.
        page.goto(f"{flaky_server}#{created['id']}")
        page.wait_for_selector("body[data-phase=job]")
        page.wait_for_function("() => document.querySelectorAll('#job-languages .job-lang').length === 2")
        assert page.inner_text("#job-heading") == "Job → French, Polish"
        polish = page.locator("#job-languages .job-lang[data-lang=pl]")
        page.wait_for_selector("#job-languages .job-lang[data-lang=pl][data-state=failed]")
        assert "Failed" in polish.inner_text() and "Incorrect API key provided" in polish.inner_text()
        page.wait_for_selector("#job-languages .job-lang[data-lang=fr][data-state=waiting]")
        first = page.inner_text("#job-languages .job-lang[data-lang=fr] .job-lang-detail")
        assert "goes on in" in first, first
        page.wait_for_timeout(1500)
        later = page.inner_text("#job-languages .job-lang[data-lang=fr] .job-lang-detail")
        assert later != first, "the countdown goes on by itself"
        page.screenshot(path=str(SHOTS / "job-waiting-failed.png"))

        # The view counts down every second and keeps the keyboard's place: Enter opens the focused language.
        page.focus("#job-languages .job-lang[data-lang=fr] .job-lang-open")
        page.wait_for_timeout(1200)
        assert page.evaluate("() => document.activeElement.textContent") == "Review French"
        # French on the review screen while it waits: a countdown in the status strip, then its proposals.
        page.keyboard.press("Enter")
        page.wait_for_function("() => /Trying again in \\d+ s/.test(document.querySelector('#status').textContent)")
        page.screenshot(path=str(SHOTS / "review-waiting.png"))
        page.wait_for_selector("body[data-phase=review] #cards .card.current", timeout=30_000)
        french_view = get_json(f"{flaky_server}api/sessions/{created['sessions']['fr']}")
        assert french_view["state"] == "running" and french_view["retryAt"] is None

        # Polish: the failure, what helps, and the switch to the other model, which goes on.
        page.goto(f"{flaky_server}#{created['sessions']['pl']}")
        page.wait_for_selector("#hold[data-kind=failed]")
        assert "The last step failed" in page.inner_text("#hold")
        assert "Incorrect API key provided" in page.inner_text("#hold")
        assert page.input_value("#hold-model-select") == "pseudo", "another model than the one that failed"
        page.screenshot(path=str(SHOTS / "review-failed.png"))
        page.click("#hold-switch")
        page.wait_for_selector("body[data-phase=review] #cards .card.current")
        assert page.locator("#hold").is_hidden()
        polish_view = get_json(f"{flaky_server}api/sessions/{created['sessions']['pl']}")
        assert polish_view["model"] == "pseudo" and polish_view["state"] == "running"

        # The job sees both going on.
        page.goto(f"{flaky_server}#{created['id']}")
        page.wait_for_function(
            f"() => JSON.stringify(({LANGUAGE_STATES})()) === JSON.stringify({{fr: 'running', pl: 'running'}})"
        )


def test_a_loop_that_ends_with_segments_left_says_so(flaky_server: str) -> None:
    """The model says it is done having translated nothing: the review screen says how many segments are
    not translated yet, and its button asks the agent for them."""
    files = [{"name": "notes.md", "content": "# Notes\n\nShort text.\n\nThe end.\n"}]
    created = _post_json(f"{flaky_server}api/jobs", {"files": files, "targetLanguages": ["es"]})
    with chromium_page() as page:
        page.goto(f"{flaky_server}#{created['sessions']['es']}")
        page.wait_for_selector("#continue:visible")
        assert page.locator("#hold").is_hidden(), "the agent has the turn: nothing to say yet"
        page.click("#continue")
        page.wait_for_selector("#hold[data-kind=left]")
        assert "3 segments are not translated yet." in page.inner_text("#hold")
        page.screenshot(path=str(SHOTS / "review-segments-left.png"))
        page.click("#hold-ask")
        page.wait_for_function("() => /3 segments not translated/.test(document.body.textContent)")
        page.wait_for_selector("#hold[data-kind=left]")
