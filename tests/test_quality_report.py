"""Auto-approval you can audit: a project's `autoApprove.sample` sends that share of the proposals the
rule would approve to a person (the card says `sampled`), and `GET /api/projects/{id}/quality` counts,
per estimate band, the units the rule approved, those a person changed later, and the sampled ones the
person edited. Over HTTP on both backends with several identities."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_actor import until_user
from tests.test_projects_api import Team

DOC = "\n\n".join(f"Sentence number {n} of the guide." for n in range(1, 25)) + "\n"


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    made = await Team.formed(request, tmp_path)
    await made.alice.ok("PATCH", made.path, {"autoApprove": {"minEstimate": 0, "sample": 0.5}})
    return made


async def drive(team: Team, sid: str) -> list[dict[str, Any]]:
    """bob drives the session to its end: the first sampled card edited, every other card approved. The
    cards he was shown."""
    shown: list[dict[str, Any]] = []
    step = await team.bob.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate into French."})
    while True:
        agent = await until_user(team.bob, sid, step["agentResponse"])
        cards = agent["copilotRequests"]
        if not cards:
            return shown
        verdicts = []
        for card in cards:
            edit = card["sampled"] and not any(c["sampled"] for c in shown)
            shown.append(card)
            verdict = {"tool": card["tool"], "status": "refined" if edit else "approve"}
            verdicts.append(verdict | ({"translated_string": "Une phrase revue."} if edit else {}))
        step = await team.bob.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})


async def test_the_sample_goes_to_a_person_and_the_report_measures_the_rule(team: Team) -> None:
    sid, fid = await team.session("fr", DOC)
    cards = await drive(team, sid)
    assert cards and all(c["sampled"] for c in cards), "with a threshold of 0 only the sample reaches a person"
    segments = (await team.alice.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments?limit=100"))["segments"]
    auto = [s for s in segments if s["auto"]]
    assert len(cards) + len(auto) == 24 and 4 <= len(cards) <= 20, "about half of 24, by the units' draws"
    await team.rita.ok(
        "PUT", f"/api/sessions/{sid}/files/{fid}/segments/{auto[0]['start']}", {"translated_string": "Revu."}
    )

    report = await team.bob.ok("GET", f"{team.path}/quality?language=French")
    assert (report["language"], report["minEstimate"], report["sample"]) == ("fr", 0, 0.5)
    assert (report["sessions"], report["complete"]) == (1, True)
    totals = {k: sum(b[k] for b in report["bands"]) for k in ("autoApproved", "changed", "sampled", "sampledEdited")}
    assert totals == {"autoApproved": len(auto), "changed": 1, "sampled": len(cards), "sampledEdited": 1}
    changed = next(b for b in report["bands"] if b["changed"])
    assert changed["postEdit"]["edited"] == 1 and changed["postEdit"]["chrF"] < 100

    await team.gus.refused(403, "GET", f"{team.path}/quality?language=fr", "fr")
    await team.carol.refused(404, "GET", f"{team.path}/quality?language=fr")
    await team.alice.refused(422, "GET", f"{team.path}/quality")


async def test_without_a_sample_the_rule_approves_all_it_may(team: Team) -> None:
    await team.alice.ok("PATCH", team.path, {"autoApprove": {"minEstimate": 0}})
    sid, _ = await team.session("fr", DOC)
    assert await drive(team, sid) == []
    report = await team.alice.ok("GET", f"{team.path}/quality?language=fr")
    assert sum(b["autoApproved"] for b in report["bands"]) == 24
    assert sum(b["sampled"] for b in report["bands"]) == 0
