"""The review screen driven by Textual's own pilot: a whole document, an interruption, a resume, an export."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import RichLog

from terminal.api import ApiClient
from terminal.local import connect
from terminal.review import Job, ReviewApp
from terminal.second_review import SecondReviewApp
from terminal.widgets import Card, ConfirmScreen, EditScreen, RejectScreen

DOC = """# Release notes

The new version starts faster. It also uses less memory.

Settings are kept when you update.

- one fix
- another fix
"""

SIZE = (110, 40)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the app's API calls are done and the screen is drawn (the review screen's or the
    second review's: each says `busy` while a call is out)."""
    app = pilot.app
    assert isinstance(app, ReviewApp | SecondReviewApp)
    for _ in range(500):
        await pilot.pause()
        if not app.busy and not any(w.is_running for w in app.workers):
            await pilot.pause()
            return
        await app.workers.wait_for_complete()
    raise AssertionError("the app stayed busy")


async def approve_every_batch(pilot: Pilot[None]) -> None:
    """Shift+A on every batch until the document is complete (the review screen's)."""
    app = pilot.app
    assert isinstance(app, ReviewApp)
    for _ in range(10):
        if app.complete:
            break
        await pilot.press("A")
        await settle(pilot)
    assert app.complete


def shown(app: ReviewApp) -> list[str]:
    """The call ids of the cards on screen."""
    return [card.request.tool.callId for card in app.query(Card)]


async def start(client: ApiClient, tmp_path: Path) -> Job:
    """A new session with DOC uploaded, as `translate DOC --to French` makes it."""
    session_id = await client.create_session()
    info = await client.upload(session_id, "notes.md", DOC)
    return Job(session_id, info.fileId, tmp_path / "notes.french.md", first_input="Translate notes.md into French.")


async def review_until_interrupted(client: ApiClient, job: Job) -> tuple[str, str]:
    """The first batch (the whole short document): approve the heading, edit the first paragraph,
    reject the second, approve the list; the verdicts go out when all are decided; the model proposes
    the rejected span again; the human quits before deciding. Returns (edited, rejected)."""
    app = ReviewApp(client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sources = [card.request.src_string for card in app.cards]
        assert sources[0] == "# Release notes" and sources[1].startswith("The new version") and len(sources) == 4
        await pilot.press("a")
        await settle(pilot)
        assert app.current == 1, "a decision moves on to the next card"

        paragraph = app.cards[1].request
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EditScreen)
        await pilot.press("space", "O", "K", "ctrl+s")
        await settle(pilot)
        edited = paragraph.translate_string + " OK"

        rejected = app.cards[2].request
        assert rejected.src_string == "Settings are kept when you update."
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RejectScreen)
        await pilot.press("t", "o", "o", "space", "l", "o", "n", "g", "enter")
        await settle(pilot)
        await pilot.press("a")  # the list: the batch is decided and sent
        await settle(pilot)
        # The model proposes the rejected span again; the human quits before deciding.
        assert [c.request.src_string for c in app.cards] == [rejected.src_string]
        assert app.cards[0].request.tool.callId != rejected.tool.callId
        await pilot.press("q")
    return edited, rejected.translate_string


async def resume_and_finish(client: ApiClient, job: Job) -> ReviewApp:
    """Resume the session (nothing proposed again) and approve the rest with Shift+A."""
    before = await client.session(job.session_id)
    pending = [r.tool.callId for r in before.pendingCopilotRequests]
    assert len(pending) == 1
    app = ReviewApp(client, Job(job.session_id, None, job.output))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app) == pending
        restored = await client.session(job.session_id)
        assert restored.messageCount == before.messageCount  # the resume itself asked the model nothing
        await approve_every_batch(pilot)
        assert not app.cards
        assert "Translation complete" in str(app.query_one("#status").render())
    return app


async def check_result(client: ApiClient, job: Job, edited: str, rejected: str) -> None:
    """Every unit written once, in order; the edit kept; the rejected text not written; the file as downloaded."""
    assert job.file_id is not None
    units = await client.units(job.session_id, job.file_id)
    starts = [u.start for u in units]
    assert starts == sorted(set(starts)) and len(units) == 4
    assert [u.status for u in units] == ["approve", "refined", "approve", "approve"]
    assert units[1].text == edited
    download = await client.download(job.session_id, job.file_id)
    assert job.output.read_text(encoding="utf-8") == download.content
    assert edited in download.content and rejected not in download.content
    assert download.content.count("\n\n") == DOC.count("\n\n")  # the document's structure survives
    view = await client.session(job.session_id)
    assert view.files[0].progress.complete and not view.pendingCopilotRequests


async def whole_document(client: ApiClient, tmp_path: Path) -> Job:
    """The scenario both transports run."""
    job = await start(client, tmp_path)
    edited, rejected = await review_until_interrupted(client, job)
    await resume_and_finish(client, job)
    await check_result(client, job, edited, rejected)
    return job


@pytest.mark.slow
async def test_whole_document_in_process(local_client: ApiClient, tmp_path: Path) -> None:
    """Approve, edit, reject, quit, resume, finish: against the embedded store in-process."""
    await whole_document(local_client, tmp_path)


@pytest.mark.slow
async def test_whole_document_over_http(http_client: ApiClient, tmp_path: Path) -> None:
    """The same review against the local HTTP service (uvicorn, SQLite) with `--api URL`."""
    await whole_document(http_client, tmp_path)


@pytest.mark.slow
async def test_approve_all_asks_when_a_card_has_warnings(local_client: ApiClient, tmp_path: Path) -> None:
    """Shift+A asks first when an undecided card has QA warnings (here: a glossary term not followed)."""
    await local_client.add_glossary("version", "mouture")
    job = await start(local_client, tmp_path)
    app = ReviewApp(local_client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")  # the heading
        await settle(pilot)
        card = app.cards[1]
        assert card.request.src_string.startswith("The new version") and card.request.warnings
        assert "mouture" in str(card.query(".warning").first().render())
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert card.decision is None and not isinstance(app.screen, ConfirmScreen)
        await pilot.press("A")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        units = await local_client.units(job.session_id, job.file_id or "")
        assert [u.status for u in units] == ["approve"] * 4, "the whole batch, the warned card included"


async def test_a_step_with_a_notice_shows_it_in_the_log(
    local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_MODEL", "python:tests.fakes.empty_model:empty_model")
    client = connect(None, None, local_env, tmp_path / "translation-agent.log")
    try:
        job = await start(client, tmp_path)
        app = ReviewApp(client, job)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            log = app.query_one("#log", RichLog)
            logged = "\n".join(line.text for line in log.lines)
            assert "Note: The model answered with nothing" in logged
    finally:
        await client.aclose()


async def test_a_pretranslation_runs_with_no_card_and_says_how_to_review(local_env: Path, tmp_path: Path) -> None:
    """`translate FILE --to French --pretranslate`: the model's proposals are written with no card, the
    draft is downloaded, the status names the review command, and the units await that review."""
    client = connect(None, None, local_env, tmp_path / "translation-agent.log")
    try:
        session_id = await client.create_session(target_language="fr", review="pretranslate")
        info = await client.upload(session_id, "notes.md", DOC)
        output = tmp_path / "notes.french.md"
        job = Job(session_id, info.fileId, output, first_input="Translate notes.md into French.", pretranslate=True)
        app = ReviewApp(client, job)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.complete and not app.cards, "no card was asked"
            status = str(app.query_one("#status").render())
            assert f"translation-agent review {session_id}" in status and "Pre-translated" in status
        assert output.read_text(encoding="utf-8") != DOC, "the model's draft is written"
        page = await client.segments(session_id, info.fileId, status="translated")
        assert len(page.segments) == 4, "every unit awaits the review"
    finally:
        await client.aclose()
