"""The terminal's second review driven by Textual's pilot against the in-process service: a project that
reviews twice, a French translator (bob) who approved every unit (`translated`), a French reviewer (rita)
who approves one, edits one and approves the rest on the screen; a translator refused in the server's
words; the screen as an SVG screenshot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable

from terminal.api import ApiClient
from terminal.local import LOCAL_URL, connect, local_app
from terminal.second_review import SecondReviewApp
from terminal.widgets import EditScreen
from tests.terminal.test_terminal_review import settle
from tests.test_projects_api import Person

DOC = "Hello world.\n\nA second sentence.\n\nA third one here.\n\nThe fourth and last line.\n"
SIZE = (120, 30)


@dataclass
class Project:
    """A project that reviews twice, with a session into French whose units bob approved."""

    alice: Person
    bob: Person
    rita: Person
    pid: str
    sid: str
    fid: str

    async def segments(self, **query: str) -> dict[int, dict[str, Any]]:
        """Each segment of the file by start, as the server lists it."""
        suffix = "".join(f"&{k}={v}" for k, v in query.items())
        page = await self.alice.ok("GET", f"/api/sessions/{self.sid}/files/{self.fid}/segments?limit=100{suffix}")
        return {s["start"]: s for s in page["segments"]}


async def translate_as(person: Person, sid: str) -> None:
    """`person` drives the session to its end, approving every proposal."""
    body: dict[str, Any] = {"sessionId": sid, "userInput": "Translate into French."}
    for _ in range(50):
        agent = (await person.ok("POST", "/api/next", body))["agentResponse"]
        requests = agent["copilotRequests"]
        if not requests and agent["actor"] == "user":
            return
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
        body = {"sessionId": sid, "copilotResponses": verdicts} if verdicts else {"sessionId": sid}
    raise AssertionError("the session never came back to the human")


async def make_project(setup: httpx.AsyncClient, content: str = DOC) -> Project:
    """The team (alice manages, bob translates French, rita reviews French) and bob's translated session."""
    alice, bob, rita = (Person(setup, sub) for sub in ("alice", "bob", "rita"))
    pid = (await alice.ok("POST", "/api/projects", {"name": "Docs", "sourceLanguage": "en", "review": "double"}))["id"]
    for person, role in ((bob, "translator"), (rita, "reviewer")):
        await alice.ok("PUT", f"/api/projects/{pid}/members/{person.sub}", {"role": role, "languages": ["fr"]})
    sid = (await alice.ok("POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"}))["id"]
    fid = (await alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": content}))["fileId"]
    await translate_as(bob, sid)
    made = Project(alice, bob, rita, pid, sid, fid)
    assert {s["status"] for s in (await made.segments()).values()} == {"translated"}
    return made


@pytest.fixture
async def project(local_env: Path, tmp_path: Path) -> AsyncIterator[Project]:
    """The project, made through the in-process app on the embedded store the terminal client uses."""
    transport = httpx.ASGITransport(app=local_app(local_env, tmp_path / "translation-agent.log"))
    async with httpx.AsyncClient(transport=transport, base_url=LOCAL_URL) as setup:
        yield await make_project(setup)


@pytest.fixture
async def member(local_env: Path, tmp_path: Path) -> AsyncIterator[Any]:
    """A terminal client acting as a member, as `translation-agent review --as SUB` makes it."""
    made: list[ApiClient] = []

    def client(sub: str) -> ApiClient:
        one = connect(None, None, local_env, tmp_path / "translation-agent.log")
        one.act_as(sub)
        made.append(one)
        return one

    yield client
    for one in made:
        await one.aclose()


def status(app: SecondReviewApp) -> str:
    return str(app.query_one("#status").render())


async def test_a_reviewer_approves_one_edits_one_and_approves_the_rest(
    project: Project, member: Any, tmp_path: Path
) -> None:
    before = await project.segments()
    starts = sorted(before)
    app = SecondReviewApp(member("rita"), project.sid, project.fid, name="doc.md")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [u.start for u in app.units] == starts and len(starts) == 4
        assert {u.translator for u in app.units} == {"bob"}
        assert "4 translated units await your review" in status(app)
        shot = Path(app.save_screenshot(path=str(tmp_path), filename="second-review.svg"))
        svg = shot.read_text(encoding="utf-8")
        for seen in ("Hello world.", "bob", "Approve all shown"):
            assert seen.replace(" ", "&#160;") in svg or seen in svg, seen

        await pilot.press("a")  # the first unit, approved as it is
        await settle(pilot)
        assert [u.start for u in app.units] == starts[1:], "the queue, read again, has the rest"
        assert "Approved s1." in status(app)

        await pilot.press("j")  # the third unit: edited
        await pilot.press("e")
        await pilot.pause()
        entry = app.query_one("#entry")
        assert app.mode == "edit" and entry.has_focus
        third = before[starts[2]]["target"]
        assert getattr(entry, "value", None) == third, "the box holds the translation"
        app.save_screenshot(path=str(tmp_path), filename="second-review-edit.svg")
        await pilot.press("space", "!", "enter")
        await settle(pilot)
        assert [u.start for u in app.units] == [starts[1], starts[3]]
        assert "Edited and approved" in status(app)

        await pilot.press("A")
        await settle(pilot)
        assert app.units == [] and "Approved 2 units." in status(app)
        assert "Nothing awaits review" in status(app)
        app.save_screenshot(path=str(tmp_path), filename="second-review-done.svg")
        await pilot.press("q")

    after = await project.segments()
    assert {s["status"] for s in after.values()} == {"reviewed"}
    assert after[starts[2]]["target"] == third + " !"
    assert [(e["action"], e["by"]) for e in after[starts[0]]["history"]] == [("approved", "bob"), ("reviewed", "rita")]
    assert [(e["action"], e["by"]) for e in after[starts[2]]["history"]] == [("approved", "bob"), ("revised", "rita")]
    assert after[starts[3]]["history"][-1]["by"] == "rita"


async def test_a_translator_is_refused_in_the_server_s_words(project: Project, member: Any) -> None:
    app = SecondReviewApp(member("bob"), project.sid, project.fid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.units) == 4
        await pilot.press("A")
        await settle(pilot)
        shown = status(app)
        assert "Approving translated units is a reviewer's step: a manager can make you one." in shown
        assert app.query_one("#status").has_class("-error") and len(app.units) == 4

        await pilot.press("a")  # his own unit: the server takes it, and it stays for a reviewer
        await settle(pilot)
        assert "still translated (only a reviewer or a manager reviews it)" in status(app)
        assert len(app.units) == 4
    assert {s["status"] for s in (await project.segments()).values()} == {"translated"}


async def test_the_filter_narrows_the_queue_and_approve_all_to_what_it_shows(project: Project, member: Any) -> None:
    app = SecondReviewApp(member("rita"), project.sid, project.fid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.pause()
        assert app.mode == "filter"
        await pilot.press(*"hello", "enter")
        await settle(pilot)
        assert [u.source for u in app.units] == ["Hello world."]
        assert "1 translated unit awaits your review (showing “hello”" in status(app)
        await pilot.press("A")
        await settle(pilot)
        assert app.units == []
        await pilot.press("slash", "ctrl+u", "enter")  # an empty filter shows everything again
        await settle(pilot)
        assert len(app.units) == 3

        # A manager sets the session to review once: what is `translated` stays in the queue.
        await project.alice.ok("PATCH", f"/api/sessions/{project.sid}", {"review": "single"})
        await pilot.press("A")
        await settle(pilot)
        assert "Approved 3 units" in status(app)
        assert app.units == [] and "Nothing awaits review" in status(app)
    found = await project.segments()
    assert sorted(s["status"] for s in found.values()) == ["reviewed"] * 4


async def test_escape_leaves_the_edit_box_without_sending(project: Project, member: Any) -> None:
    app = SecondReviewApp(member("rita"), project.sid, project.fid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e", "x", "escape")
        await settle(pilot)
        assert app.mode is None and len(app.units) == 4

        # A question on the second segment: `r` reads the queue again and marks the unit.
        path = f"/api/sessions/{project.sid}/files/{project.fid}/segments/s2/comments"
        await project.bob.ok("POST", path, {"text": "Is « phrase » right here?"})
        await pilot.press("r")
        await settle(pilot)
        marks = [str(app.query_one(DataTable).get_row_at(i)[0]) for i in range(4)]
        assert marks == ["s1", "s2 •", "s3", "s4"]
        await pilot.press("j")
        assert "1 comment(s), 1 open" in str(app.query_one("#detail").render())
        await pilot.press("q")
    assert {s["status"] for s in (await project.segments()).values()} == {"translated"}


async def test_a_unit_of_several_lines_is_edited_in_the_edit_screen(
    local_env: Path, tmp_path: Path, member: Any
) -> None:
    transport = httpx.ASGITransport(app=local_app(local_env, tmp_path / "translation-agent.log"))
    async with httpx.AsyncClient(transport=transport, base_url=LOCAL_URL) as setup:
        made = await make_project(setup, "Hello world.\n\nA paragraph on\ntwo lines.\n")
        before = await made.segments()
        start, target = next((s["start"], s["target"]) for s in before.values() if "\n" in s["target"])
        app = SecondReviewApp(member("rita"), made.sid, made.fid)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("j", "e")
            await pilot.pause()
            assert isinstance(app.screen, EditScreen), "a line box cannot hold two lines: the edit screen can"
            await pilot.press("!", "ctrl+s")
            await settle(pilot)
            assert [u.start for u in app.units] == [0]
            assert "Edited and approved" in status(app)
        after = (await made.segments())[start]
        assert (after["status"], after["target"]) == ("reviewed", target + "!")
