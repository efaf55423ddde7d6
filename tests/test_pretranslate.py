"""Pre-translate, then review (issue 44): a session with `"review": "pretranslate"` has the model propose
the whole file with no card (each proposal written `translated`, kept out of the translation memory),
then a person reviews from the segment list in any order: sorted by estimate, one edited, the rest
approved by filter; the reviewed export is then complete and intact. Over HTTP on both backends."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.test_actor import until_user
from tests.test_projects_api import Team

DOC = "".join(f"Paragraph {n} says that the build number {n} passed every check on time.\n\n" for n in range(1, 61))


def paragraphs(first: int, end: int) -> str:
    return "".join(p + "\n\n" for p in DOC.split("\n\n")[first - 1 : end - 1])


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return Team.on(request, tmp_path)


async def segments(team: Team, sid: str, fid: str, query: str = "") -> list[dict[str, Any]]:
    page = await team.alice.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments?limit=1000{query}")
    found: list[dict[str, Any]] = page["segments"]
    return found


async def tm_units(team: Team) -> int:
    exported = await team.alice.call("GET", "/api/memory/export?format=tmx")
    return len(re.findall(r"<tu[ >]", exported.text))


async def test_a_file_is_pretranslated_without_cards_then_reviewed_out_of_order(team: Team) -> None:
    sid = (await team.alice.ok("POST", "/api/sessions", {"targetLanguage": "fr", "review": "pretranslate"}))["id"]
    assert (await team.alice.ok("GET", f"/api/sessions/{sid}"))["review"] == "pretranslate"
    fid = (await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC}))["fileId"]

    first = await team.alice.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate into French."})
    agent = first["agentResponse"]
    steps = 1
    while agent["actor"] == "agent":
        assert not agent["copilotRequests"], "a pre-translation shows no card"
        agent = (await team.alice.ok("POST", "/api/next", {"sessionId": sid}))["agentResponse"]
        steps += 1
    assert not agent["copilotRequests"] and steps >= 2, "the file took more than one screen"
    found = await segments(team, sid, fid)
    assert len(found) == 60 and {s["status"] for s in found} == {"translated"}
    assert all(s["auto"] and s["origin"] == "model" and s["estimate"] is not None for s in found)
    one = await team.alice.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments?limit=1")
    event = one["segments"][0]["history"][0]
    assert (event["by"], event["rule"]) == (None, {"rule": "pretranslate"}), "the audit names the pre-translation"
    assert await tm_units(team) == 0, "nobody reviewed the pre-translation: the memory has not learnt it"

    path = f"/api/sessions/{sid}/files/{fid}"
    draft = await team.alice.call("GET", f"{path}/export?format=original")
    assert draft.status_code == 200 and "Paragraph 7" not in draft.text, "the draft export has the model's text"
    withheld = await team.alice.call("GET", f"{path}/export?format=original&reviewed=true")
    assert withheld.headers["X-Translation-Complete"] == "false" and "Paragraph 7 says" in withheld.text

    by_estimate = await segments(team, sid, fid, "&status=translated&sort=estimate")
    assert [s["estimate"] for s in by_estimate] == sorted(s["estimate"] for s in by_estimate)
    last = found[-1]
    edited = await team.alice.ok("PUT", f"{path}/segments/{last['start']}", {"translated_string": "Le dernier."})
    assert (edited["status"], edited["target"]) == ("reviewed", "Le dernier."), "reviewed from the end first"
    middle = found[30]
    kept = await team.alice.ok("PUT", f"{path}/segments/{middle['start']}", {"translated_string": middle["target"]})
    assert kept["status"] == "reviewed", "a PUT of the text as it is approves it"
    bulk = await team.alice.ok("POST", f"{path}/approve", {"step": "review"})
    assert bulk["approved"] + bulk["skipped"] == 58 and bulk["remaining"] == 0
    left = await segments(team, sid, fid, "&status=translated")
    for segment in left:  # what QA kept out of the bulk approval, one by one
        await team.alice.ok("PUT", f"{path}/segments/{segment['start']}", {"translated_string": segment["target"]})
    assert {s["status"] for s in await segments(team, sid, fid)} == {"reviewed"}
    assert await tm_units(team) == 60, "each reviewed unit is remembered"

    reviewed = await team.alice.call("GET", f"{path}/export?format=original&reviewed=true")
    assert reviewed.headers["X-Translation-Complete"] == "true"
    assert reviewed.text == draft.text.replace(last["target"], "Le dernier."), "intact, in source order"


async def test_review_is_set_and_refused_like_the_other_settings(team: Team) -> None:
    sid = (await team.alice.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    await team.alice.ok("PATCH", f"/api/sessions/{sid}", {"review": "pretranslate"})
    assert (await team.alice.ok("GET", f"/api/sessions/{sid}"))["review"] == "pretranslate"
    await team.alice.refused(422, "PATCH", f"/api/sessions/{sid}", {"review": "double"}, "project")
    await team.alice.refused(422, "PATCH", f"/api/sessions/{sid}", {"review": None}, "pretranslate")
    fid = (await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "a.md", "content": paragraphs(1, 6)}))[
        "fileId"
    ]
    first = await team.alice.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})
    assert not (await until_user(team.alice, sid, first["agentResponse"]))["copilotRequests"]

    await team.alice.ok("PATCH", f"/api/sessions/{sid}", {"review": "single"})
    assert (await team.alice.ok("GET", f"/api/sessions/{sid}"))["review"] == "single"
    path = f"/api/sessions/{sid}/files/{fid}"
    queue = await segments(team, sid, fid, "&status=translated")
    assert len(queue) == 5, "the pre-translation stays in the queue"
    one = await team.alice.ok("PUT", f"{path}/segments/{queue[0]['start']}", {"translated_string": queue[0]["target"]})
    assert one["status"] == "reviewed"
    rest = await team.alice.ok("POST", f"{path}/approve", {"step": "review"})
    assert rest["approved"] + rest["skipped"] == 4
    await team.alice.refused(422, "POST", f"{path}/approve", {"step": "review", "filter": {"q": "zzz"}}, "reviews once")

    await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "b.md", "content": paragraphs(6, 8)})
    first = await team.alice.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate b.md."})
    agent = await until_user(team.alice, sid, first["agentResponse"])
    assert agent["copilotRequests"], "a session that reviews once shows cards again"


async def test_plural_entries_are_pretranslated_too(team: Team) -> None:
    from tests.test_formats_service import STRINGS

    sid = (await team.alice.ok("POST", "/api/sessions", {"targetLanguage": "pl", "review": "pretranslate"}))["id"]
    fid = (await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "strings.xml", "content": STRINGS}))[
        "fileId"
    ]
    first = await team.alice.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate into Polish."})
    assert not (await until_user(team.alice, sid, first["agentResponse"]))["copilotRequests"]
    found = await segments(team, sid, fid)
    assert [s["status"] for s in found] == ["translated"] * 3
    forms = json.loads(found[1]["target"])
    assert set(forms) == {"one", "few", "many", "other"}, "the plural's forms, every Polish category"
    path = f"/api/sessions/{sid}/files/{fid}"
    by_key = await segments(team, sid, fid, "&key=new_")
    assert [s["context"]["key"] for s in by_key] == ["new_messages"], "the strings of a key prefix"
    approved = await team.alice.ok("POST", f"{path}/approve", {"step": "review", "filter": {"key": "greet"}})
    assert approved["approved"] + approved["skipped"] == 1, "approve all shown: what the key prefix shows"
    assert [s["status"] for s in await segments(team, sid, fid)] == ["translated", "translated", "reviewed"]


async def test_what_the_review_step_passes_is_remembered_with_its_key(team: Team) -> None:
    """A pre-translation approved by the review step enters the memory with each string's key: the same
    file in a later session is proposed from memory as context matches (101)."""
    from tests.test_formats_service import STRINGS

    sid = (await team.alice.ok("POST", "/api/sessions", {"targetLanguage": "pl", "review": "pretranslate"}))["id"]
    fid = (await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "strings.xml", "content": STRINGS}))[
        "fileId"
    ]
    first = await team.alice.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate into Polish."})
    await until_user(team.alice, sid, first["agentResponse"])
    await team.alice.ok("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"step": "review"})

    again = (await team.alice.ok("POST", "/api/sessions", {"targetLanguage": "pl"}))["id"]
    await team.alice.ok("POST", f"/api/sessions/{again}/files", {"name": "strings.xml", "content": STRINGS})
    step = await team.alice.ok("POST", "/api/next", {"sessionId": again, "userInput": "Translate into Polish."})
    cards = (await until_user(team.alice, again, step["agentResponse"]))["copilotRequests"]
    assert cards and all(c["origin"] == "memory" and c["match"] == 101 for c in cards), [
        (c["origin"], c["match"]) for c in cards
    ]
