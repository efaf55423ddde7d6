"""The second review (API.md "Projects and teams"): in a project with `"review": "double"` what a
translator approves or edits is `translated`; a reviewer's approval (bulk, `"step": "review"`, or a PUT
of the text as it is) or edit makes it `reviewed`; a translator may not change a reviewed unit nor
another translator's; `export?reviewed=true` writes reviewed units only. Over HTTP on both backends
with several identities, the memory shared by the project's sessions."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.runtime import StepInput
from tests.test_actor import until_user
from tests.test_projects_api import Team, until_reviews

DOC = "Hello world.\n\nA second sentence.\n\nA third one here.\n"


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    made = await Team.formed(request, tmp_path)
    await made.alice.ok("PATCH", made.path, {"review": "double"})
    return made


async def statuses(team: Team, sid: str, fid: str, **query: str) -> dict[int, tuple[str, str | None]]:
    """Each segment's status and target, by start."""
    suffix = "".join(f"&{k}={v}" for k, v in query.items())
    page = await team.alice.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments?limit=100{suffix}")
    return {s["start"]: (s["status"], s["target"]) for s in page["segments"]}


async def translated_by_bob(team: Team) -> tuple[str, str]:
    """A session into French whose three units bob approved, edited and approved: all `translated`."""
    sid, fid = await team.session("fr", DOC)
    requests = await until_reviews(team.bob, sid, userInput="Translate into French.")
    assert [r["start"] for r in requests] == [0, 14, 34]
    verdicts = [
        {"tool": requests[0]["tool"], "status": "approve"},
        {"tool": requests[1]["tool"], "status": "refined", "translated_string": "Une seconde phrase."},
        {"tool": requests[2]["tool"], "status": "approve"},
    ]
    step = await team.bob.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    await until_user(team.bob, sid, step["agentResponse"])
    return sid, fid


async def test_a_document_goes_through_both_review_steps(team: Team) -> None:
    sid, fid = await translated_by_bob(team)
    session = await team.bob.ok("GET", f"/api/sessions/{sid}")
    assert session["review"] == "double"
    found = await statuses(team, sid, fid)
    assert {s for s, _ in found.values()} == {"translated"}
    assert found[14] == ("translated", "Une seconde phrase.")
    assert set(await statuses(team, sid, fid, status="translated")) == {0, 14, 34}, "the reviewer's queue"

    original = await team.alice.call("GET", f"/api/sessions/{sid}/files/{fid}/export?format=original&reviewed=true")
    assert original.status_code == 200 and original.headers["X-Translation-Complete"] == "false"
    assert "Une seconde phrase." not in original.text, "a translated unit is not in a reviewed-only export"

    path = f"/api/sessions/{sid}/files/{fid}"
    await team.bob.refused(403, "POST", f"{path}/approve", {"step": "review"}, "reviewer")
    await team.dan.refused(403, "PUT", f"{path}/segments/14", {"translated_string": "Autre."}, "bob")
    own = await team.bob.ok("PUT", f"{path}/segments/14", {"translated_string": "Une deuxième phrase."})
    assert (own["status"], own["target"]) == ("translated", "Une deuxième phrase."), "still to review"

    bulk = await team.rita.ok("POST", f"{path}/approve", {"step": "review", "filter": {"q": "hello"}})
    assert (bulk["approved"], bulk["skipped"], bulk["remaining"]) == (1, 0, 0)
    edited = await team.rita.ok("PUT", f"{path}/segments/14", {"translated_string": "Une deuxième phrase !"})
    assert edited["status"] == "reviewed"
    third = (await statuses(team, sid, fid))[34][1]
    kept = await team.rita.ok("PUT", f"{path}/segments/34", {"translated_string": third})
    assert kept["status"] == "reviewed", "a reviewer's PUT of the text as it is approves it"
    assert {s for s, _ in (await statuses(team, sid, fid)).values()} == {"reviewed"}
    await team.bob.refused(403, "PUT", f"{path}/segments/0", {"translated_string": "Salut."}, "reviewed")
    again = await team.rita.ok("POST", f"{path}/approve", {"step": "review"})
    assert again["approved"] == 0, "what was approved is reviewed: nothing twice"

    events = (await team.alice.ok("GET", f"{path}/audit?format=json"))["events"]
    trail = [(e["start"], e["action"], e["by"]) for e in events]
    assert trail == [
        (0, "approved", "bob"),
        (0, "reviewed", "rita"),
        (14, "refined", "bob"),
        (14, "revised", "bob"),
        (14, "revised", "rita"),
        (34, "approved", "bob"),
        (34, "reviewed", "rita"),
    ]
    done = await team.alice.call("GET", f"{path}/export?format=original&reviewed=true")
    assert done.headers["X-Translation-Complete"] == "true" and "Une deuxième phrase !" in done.text

    # The project's memory learned the reviewer's text: a second session proposes it from memory.
    other, _ = await team.session("fr", "A second sentence.\n")
    proposed = await until_reviews(team.dan, other, userInput="Translate into French.")
    assert [(r["translate_string"], r["origin"]) for r in proposed] == [("Une deuxième phrase !", "memory")]


async def test_the_review_setting_is_a_project_session_s_and_a_manager_s(team: Team) -> None:
    await team.local.refused(422, "POST", "/api/sessions", {"targetLanguage": "fr", "review": "double"}, "project")
    sid, fid = await team.session("fr")
    await team.bob.refused(403, "PATCH", f"/api/sessions/{sid}", {"review": "single"}, "manager")
    assert (await team.alice.ok("PATCH", f"/api/sessions/{sid}", {"review": "single"}))["review"] == "single"
    assert (await team.bob.ok("GET", f"/api/sessions/{sid}"))["review"] == "single"
    await team.rita.refused(422, "POST", f"/api/sessions/{sid}/files/{fid}/approve", {"step": "review"}, "once")
    await team.alice.refused(422, "PATCH", f"/api/sessions/{sid}", {"review": None}, "never null")
    own = (await team.local.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    await team.local.refused(422, "PATCH", f"/api/sessions/{own}", {"review": "double"}, "project")


async def test_a_reviewer_at_work_never_costs_the_driver_s_step_its_commit(team: Team) -> None:
    sid, fid = await translated_by_bob(team)
    await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "more.md", "content": "One more line.\n"})
    runtime = team.services.runtime
    owner = f"project:{team.pid}"
    prepared = await runtime.prepare(owner, sid, StepInput(user_input="Go on with more.md."))
    assert prepared.outcome.result.called_model
    await team.rita.ok("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"step": "review"})
    await runtime.finish(prepared)  # made again over the reviewer's commit: it changed nothing the step read
    record = team.services.storage.get_session(sid)
    assert record.message_count == prepared.token.message_count + len(prepared.effects.messages)

    stale = await runtime.prepare(owner, sid, StepInput(user_input="And again."))
    await team.alice.ok("PATCH", f"/api/sessions/{sid}", {"autoApprove": {"minEstimate": 99}})
    with pytest.raises(Exception, match="advanced concurrently"):
        await runtime.finish(stale)  # a settings change is something the step read: no commit over it
