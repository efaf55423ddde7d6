"""Quitting in the middle of a batch keeps every verdict given, edits and reasons included (issue 27)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from terminal.api import ApiClient, ApiError
from terminal.local_state import LocalState
from terminal.review import Job, ReviewApp
from terminal.widgets import EditScreen, RejectScreen
from tests.terminal.test_terminal_review import SIZE, approve_every_batch, settle, start

EDIT = " (revu)"
REASON = "too formal"


def keys(text: str) -> list[str]:
    """The pilot's key names that type `text`."""
    return ["space" if c == " " else c for c in text]


async def decide_three_and_quit(
    client: ApiClient, job: Job, before_quit: Callable[[], None] = lambda: None, *, skip: int = 3
) -> tuple[ReviewApp, list[str]]:
    """Approve, edit and reject three cards in turn, leaving card `skip` (the last or the first), press q."""
    app = ReviewApp(client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.cards) == 4
        calls = [c.request.tool.callId for c in app.cards]
        if skip == 0:
            await pilot.press("j")
        await pilot.press("a", "e")
        await pilot.pause()
        assert isinstance(app.screen, EditScreen)
        await pilot.press(*keys(EDIT), "ctrl+enter")
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RejectScreen)
        await pilot.press(*keys(REASON), "enter")
        await settle(pilot)
        assert [c.decision is None for c in app.cards] == [i == skip for i in range(4)]
        before_quit()
        await pilot.press("q")
        await pilot.pause()
    return app, calls


@pytest.mark.slow
async def test_quit_stores_the_verdicts_given_and_resume_shows_them(local_client: ApiClient, tmp_path: Path) -> None:
    """q sends the decided part of the batch; the server keeps it pending the rest; resume shows it decided."""
    state = LocalState(tmp_path / "state.json")
    job = await start(local_client, tmp_path)
    job = Job(job.session_id, job.file_id, job.output, job.first_input, state)
    app, calls = await decide_three_and_quit(local_client, job)
    assert "3 verdicts of this batch saved on the server; 1 proposal left to review." in app.farewell

    view = await local_client.session(job.session_id)
    assert [r.tool.callId for r in view.pendingCopilotRequests] == calls[3:]
    given = {v.tool.callId: v for v in view.copilotResponses}
    assert given[calls[0]].status == "approve"
    assert given[calls[1]].status == "refined" and (given[calls[1]].translated_string or "").endswith(EDIT)
    assert given[calls[2]].status == "reject" and given[calls[2]].reason == REASON
    assert state.drafts(job.session_id) == []

    resumed = ReviewApp(local_client, Job(job.session_id, None, job.output, state=state))
    async with resumed.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [c.request.tool.callId for c in resumed.cards] == calls
        assert [c.stored for c in resumed.cards] == [True, True, True, False]
        assert resumed.current == 3, "the undecided card has the focus"
        assert "3 kept on the server" in str(resumed.query_one("#status").render())
        assert "kept on the server" in resumed.cards[1].border_subtitle
        await pilot.press("a")  # the last card: the whole batch goes, the earlier verdicts with it
        await settle(pilot)
    units = await local_client.units(job.session_id, job.file_id or "")
    assert [u.status for u in units] == ["approve", "refined", "approve"]
    assert units[1].text.endswith(EDIT)


@pytest.mark.slow
async def test_quit_keeps_verdicts_locally_when_the_server_cannot_take_them(
    local_client: ApiClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the partial batch cannot be sent, the verdicts go to the drafts file and come back on resume."""
    state = LocalState(tmp_path / "state.json")
    job = await start(local_client, tmp_path)
    job = Job(job.session_id, job.file_id, job.output, job.first_input, state)

    async def unreachable(*_: object, **__: object) -> None:
        raise ApiError("Could not reach the server (ConnectError). Check the URL, then retry.")

    with monkeypatch.context() as patch:
        app, calls = await decide_three_and_quit(
            local_client, job, lambda: patch.setattr(local_client, "step", unreachable), skip=0
        )
    assert f"3 verdicts kept in {state.path}" in app.farewell and "Could not reach the server" in app.farewell
    assert len((await local_client.session(job.session_id)).pendingCopilotRequests) == 4  # nothing sent
    assert [v.tool.callId for v in state.drafts(job.session_id)] == calls[1:]

    resumed = ReviewApp(local_client, Job(job.session_id, None, job.output, state=state))
    async with resumed.run_test(size=SIZE) as pilot:
        await settle(pilot)
        decisions = [c.decision for c in resumed.cards]
        assert [d.status if d else None for d in decisions] == [None, "approve", "refined", "reject"]
        assert decisions[3] is not None and decisions[3].reason == REASON
        assert resumed.current == 0, "the first undecided card has the focus"
        assert f"3 restored from {state.path}" in str(resumed.query_one("#status").render())
        await pilot.press("a")
        await settle(pilot)
    assert state.drafts(job.session_id) == [], "sent, so no longer kept"
    units = await local_client.units(job.session_id, job.file_id or "")
    assert [u.status for u in units] == ["approve", "approve", "refined"]


@pytest.mark.slow
async def test_edit_box_keys(local_client: ApiClient, tmp_path: Path) -> None:
    """Ctrl+A selects the whole edit (typing replaces it); Ctrl+Enter and Ctrl+J accept, as the screen says."""
    job = await start(local_client, tmp_path)
    app = ReviewApp(local_client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert "Ctrl+Enter accept" in str(app.screen.query_one(".keys").render())
        await pilot.press("ctrl+a", "X", "enter", "ctrl+enter")  # Ctrl+Enter sent as Enter, then as itself
        await settle(pilot)
        first = app.cards[0].decision
        assert first is not None and first.status == "refined"
        assert first.translated_string == "X", "no line break the proposal has not at the end"
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+a", "Y", "ctrl+j")
        await settle(pilot)
        second = app.cards[1].decision
        assert second is not None and second.translated_string == "Y"
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("n", "o", "ctrl+a", "Z", "ctrl+enter")
        await settle(pilot)
        third = app.cards[2].decision
        assert third is not None and third.status == "reject" and third.reason == "Z"


async def test_keys_that_cannot_act_are_not_offered(local_client: ApiClient, tmp_path: Path) -> None:
    """The footer offers the card keys only while a batch is shown; at the end, the message box is open."""
    job = await start(local_client, tmp_path)
    app = ReviewApp(local_client, job)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.check_action("approve", ()) and app.check_action("send", ())
        await approve_every_batch(pilot)
        assert not app.cards
        for action in ("approve", "edit", "reject", "move", "approve_all", "send"):
            assert not app.check_action(action, ()), action
        footer = {b.binding.action for b in app.active_bindings.values() if b.enabled}
        assert "quit" in footer and "approve" not in footer
        assert not app.query_one("#message").disabled, "the agent can still be told something"
        assert "Ctrl+Q quits" in str(app.query_one("#status").render())
