"""The terminal client asks for streamed steps and shows the proposals forming (Textual's pilot), in process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from rich.text import Text
from textual.widgets import Static

from handlers.app import create_app
from terminal.api import ApiClient, ApiError
from terminal.asgi import StreamingASGITransport
from terminal.review import Job, ReviewApp
from terminal.stream import Delta, SseParser
from tests.browser.slow_model import slow_model
from tests.helpers import services_for

DOC = "# Release notes\n\nThe new version starts faster. It also uses less memory.\n"
TASK = "Translate notes.md into French."


@pytest.fixture
async def client() -> AsyncIterator[ApiClient]:
    """The app in process with a model that streams over a second, over a transport that streams too."""
    app = create_app(services_for(model=slow_model(1.0)))
    http = httpx.AsyncClient(transport=StreamingASGITransport(app), base_url="http://terminal.test")
    api = ApiClient(http)
    yield api
    await api.aclose()


async def _session(client: ApiClient) -> tuple[str, str]:
    session_id = await client.create_session()
    return session_id, (await client.upload(session_id, "notes.md", DOC)).fileId


def test_the_parser_takes_events_split_anywhere() -> None:
    text = 'event: delta\r\ndata: {"text":"a"}\r\n\r\n: keep-alive\n\nevent: step\ndata: {}\n\n'
    for size in (1, 2, 5, len(text)):
        parser = SseParser()
        events = [e for i in range(0, len(text), size) for e in parser.push(text[i : i + size])]
        assert [(e.event, e.data) for e in events] == [("delta", '{"text":"a"}'), ("step", "{}")]


async def test_a_streamed_step_hears_the_proposals_then_answers_the_plain_body(client: ApiClient) -> None:
    session_id, _ = await _session(client)
    deltas: list[Delta] = []
    step = await client.step({"sessionId": session_id, "userInput": TASK}, "key-1", on_delta=deltas.append)
    requests = step.agentResponse.copilotRequests
    assert requests, "the step answers the proposals' reviews"
    first = requests[0]
    forming = [d.proposal.translate_string for d in deltas if d.proposal and d.proposal.callId == first.tool.callId]
    assert len(forming) >= 2 and forming[-1] == first.translate_string
    assert all(first.translate_string.startswith(t) for t in forming)
    # The same key again, plain: the kept answer, the same as the streamed one.
    assert await client.step({"sessionId": session_id, "userInput": TASK}, "key-1") == step


async def test_a_streamed_error_is_an_api_error_with_its_status(client: ApiClient) -> None:
    with pytest.raises(ApiError) as failed:
        await client.step({"sessionId": "s_" + "0" * 32, "userInput": TASK}, "key-2", on_delta=lambda d: None)
    assert failed.value.status == 404


@pytest.mark.slow
async def test_the_review_screen_shows_proposals_while_they_form(client: ApiClient, tmp_path: Path) -> None:
    session_id, file_id = await _session(client)
    job = Job(session_id, file_id, tmp_path / "notes.french.md", first_input=TASK)
    app = ReviewApp(client, job)
    async with app.run_test(size=(110, 40)) as pilot:
        forming = app.query_one("#forming", Static)
        for _ in range(400):
            await pilot.pause(0.01)
            if app.forming.proposals and any(p.translate_string for p in app.forming.proposals.values()):
                break
        assert app.busy and not app.cards, "the step is still under way"
        assert forming.display
        shown = app.forming.proposals[next(iter(app.forming.proposals))]
        content = forming.content
        assert "(forming)" in (content.plain if isinstance(content, Text) else str(content))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not forming.display, "the step's answer replaces the forming view"
        assert app.cards[0].request.tool.callId == shown.callId
        assert app.cards[0].request.translate_string.startswith(shown.translate_string)
