"""MQM issues, scorecards, the audit trail and the post-edit distance, over HTTP on both backends."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from pydantic_ai.messages import ModelResponse, TextPart
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.ter import TER

from handlers.identity import LOCAL_USER
from storage.interface import Storage
from tests.helpers import AsyncApi, Script, assert_error, calls, services_for, stored, translate

DOC = "# Guide\n\nThe cat sleeps.\n\nThe dog runs fast.\n\nBirds sing.\n"
TASK = "Translate doc.md into French."
DOG, BIRDS = DOC.index("The dog"), DOC.index("Birds")


def tool(request: dict[str, Any]) -> dict[str, Any]:
    return {"name": request["tool"]["name"], "callId": request["tool"]["callId"]}


async def reviewed(storage: Storage) -> tuple[AsyncApi, Script, str, str]:
    """A file reviewed with every kind of verdict: approved, refined (a Style issue), rejected (an Accuracy
    issue) then approved, approved then revised by hand (an Omission issue)."""
    script = Script()
    api = AsyncApi(services_for(storage, model=script.model))
    sid, fid = await api.start(DOC)
    script.replies += [
        calls(
            translate(fid, "# Guide", "# Guide FR", call_id="a"),
            translate(fid, "The cat sleeps.", "Le chat dort.", call_id="b"),
            translate(fid, "The dog runs fast.", "Le chien court.", call_id="c"),
            translate(fid, "Birds sing.", "Les oiseaux.", call_id="d"),
        ),
        calls(translate(fid, "The dog runs fast.", "Le chien court vite.", call_id="e")),
        ModelResponse(parts=[TextPart("Done.")]),
    ]
    first = await api.until_user(sid, userInput=TASK)
    a, b, c, d = first["copilotRequests"]
    verdicts = [
        {"tool": tool(a), "status": "approve"},
        {
            "tool": tool(b),
            "status": "refined",
            "translated_string": "Le chat dort bien.",
            "issue": {"category": "Style", "severity": "minor"},
        },
        {
            "tool": tool(c),
            "status": "reject",
            "reason": "fast is missing",
            "issue": {"category": "Accuracy/Omission", "severity": "major"},
        },
        {"tool": tool(d), "status": "approve"},
    ]
    again = await api.until_user(sid, copilotResponses=verdicts)
    [e] = again["copilotRequests"]
    assert e["tool"]["callId"] == "e"
    await api.until_user(sid, copilotResponses=[{"tool": tool(e), "status": "approve"}])
    body = {
        "translated_string": "Les oiseaux chantent.",
        "issue": {"category": "Accuracy/Omission", "severity": "minor"},
    }
    revised = await api.ok("PUT", f"/api/sessions/{sid}/files/{fid}/segments/{BIRDS}", body)
    assert [e["action"] for e in revised["history"]] == ["approved", "revised"], "the answer has the history too"
    return api, script, sid, fid


async def test_issues_are_stored_with_verdicts_and_corrections(storage: Storage) -> None:
    api, _, sid, _ = await reviewed(storage)
    view = await api.ok("GET", f"/api/sessions/{sid}")
    by_call = {v["tool"]["callId"]: v for v in view["copilotResponses"]}
    assert by_call["b"]["issue"] == {"category": "Style", "severity": "minor"}
    assert by_call["c"]["issue"] == {"category": "Accuracy/Omission", "severity": "major"}
    assert "issue" not in by_call["a"], "an approval carries none"
    corrections = (await api.ok("GET", "/api/memory"))["corrections"]
    found = {(c["status"], c["issue"]["category"] if c["issue"] else None) for c in corrections}
    assert found == {("refined", "Style"), ("reject", "Accuracy/Omission"), ("revised", "Accuracy/Omission")}


@pytest.mark.parametrize(
    "issue",
    [
        {"category": "Grammar", "severity": "minor"},  # a subtype is written under its dimension
        {"category": "Style", "severity": "neutral"},
        {"category": "Style", "severity": "Minor"},
        {"category": "Style"},
        {"category": "Style", "severity": "minor", "weight": 2},
        "Style",
    ],
)
async def test_an_unknown_issue_is_422_and_stores_nothing(storage: Storage, issue: Any) -> None:
    script = Script()
    api = AsyncApi(services_for(storage, model=script.model))
    sid, fid = await api.start(DOC)
    script.replies += [calls(translate(fid, "# Guide", "# Guide FR", call_id="a"))]
    [a] = (await api.until_user(sid, userInput=TASK))["copilotRequests"]
    before = stored(storage, sid)
    verdict = {"tool": tool(a), "status": "reject", "reason": "no", "issue": issue}
    answer = await api.client.post("/api/next", json={"sessionId": sid, "copilotResponses": [verdict]})
    assert_error(answer, 422, "issue")
    assert stored(storage, sid) == before
    await api.until_user(sid, copilotResponses=[{"tool": tool(a), "status": "approve"}])
    before = stored(storage, sid)
    body = {"translated_string": "# Guide !", "issue": issue}
    answer = await api.client.put(f"/api/sessions/{sid}/files/{fid}/segments/0", json=body)
    assert_error(answer, 422, "issue")
    assert stored(storage, sid) == before
    assert (await api.ok("GET", "/api/memory"))["corrections"] == []


async def test_an_approval_carries_no_issue(storage: Storage) -> None:
    script = Script()
    api = AsyncApi(services_for(storage, model=script.model))
    sid, fid = await api.start(DOC)
    script.replies += [calls(translate(fid, "# Guide", "# Guide FR", call_id="a"))]
    [a] = (await api.until_user(sid, userInput=TASK))["copilotRequests"]
    before = stored(storage, sid)
    verdict = {"tool": tool(a), "status": "approve", "issue": {"category": "Style", "severity": "minor"}}
    answer = await api.client.post("/api/next", json={"sessionId": sid, "copilotResponses": [verdict]})
    assert_error(answer, 422, "issue")
    assert stored(storage, sid) == before


async def test_the_scorecard_counts_issues_by_category_and_severity(storage: Storage) -> None:
    api, _, sid, fid = await reviewed(storage)
    card = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard")
    # Words of the units written from proposals: Guide (1), The cat sleeps (3), The dog runs fast (4), Birds sing (2).
    assert card["words"] == 10
    rows = {r["category"]: r for r in card["issues"]}
    assert rows["Style"] == {
        "category": "Style",
        "dimension": "Style",
        "minor": 1,
        "major": 0,
        "critical": 0,
        "penalty": 1,
    }
    omission = rows["Accuracy/Omission"]
    assert (omission["dimension"], omission["minor"], omission["major"], omission["penalty"]) == ("Accuracy", 1, 1, 6)
    assert sum(r["penalty"] for r in card["issues"]) == 7 and len(card["issues"]) == 14
    assert card["totals"] == {"minor": 2, "major": 1, "critical": 0}
    # APT = 1 + 5 + 1 = 7; per 1,000 words 7 / 10 * 1000; the raw MQM score 100 * (1 - 7 / 10).
    assert (card["penalty"], card["penaltyPer1000Words"], card["score"]) == (7, 700.0, 30.0)
    assert (card["threshold"], card["passed"], card["result"]) == (95.0, False, "fail")
    at = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard?threshold=30")
    assert (at["passed"], at["result"]) == (True, "pass"), "a score equal to the threshold passes"
    above = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard?threshold=30.5")
    assert above["result"] == "fail"
    for bad in ("threshold=101", "threshold=-1", "threshold=x", "format=xml"):
        assert_error(await api.client.get(f"/api/sessions/{sid}/files/{fid}/scorecard?{bad}"), 422)
    download = await api.client.get(f"/api/sessions/{sid}/files/{fid}/scorecard?format=csv&threshold=30")
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    assert download.headers["content-disposition"].startswith('attachment; filename="doc.md.scorecard.csv"')
    table = list(csv.reader(io.StringIO(download.text)))
    assert table[0] == ["category", "dimension", "minor", "major", "critical", "penalty"]
    assert ["Accuracy/Omission", "Accuracy", "1", "1", "0", "6"] in table
    assert ["Total", "", "2", "1", "0", "7"] in table
    figures = {row[0]: row[1] for row in table if len(row) == 2}
    assert figures["words evaluated"] == "10" and figures["MQM score"] == "30.0" and figures["result"] == "pass"
    assert_error(await api.client.get(f"/api/sessions/{sid}/files/f_{'0' * 32}/scorecard"), 404)


async def test_a_file_without_issues_passes() -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, fid = await api.start("Hello there.\n")
    script.replies += [calls(translate(fid, "Hello there.", "Bonjour.", call_id="a"))]
    empty = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard")
    assert (empty["words"], empty["score"], empty["result"], empty["postEdit"]["units"]) == (0, None, "pass", 0)
    [a] = (await api.until_user(sid, userInput=TASK))["copilotRequests"]
    await api.until_user(sid, copilotResponses=[{"tool": tool(a), "status": "approve"}])
    card = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard")
    assert (card["words"], card["penalty"], card["score"], card["result"]) == (2, 0, 100.0, "pass")
    assert (card["postEdit"]["chrF"], card["postEdit"]["ter"], card["postEdit"]["unchanged"]) == (100.0, 0.0, 1)


def events(segment: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (e["action"], e["by"], e["origin"], e["issue"]["severity"] if e["issue"] else None, e["estimate"])
        for e in segment["history"]
    ]


async def test_the_audit_trail_of_every_written_unit(storage: Storage) -> None:
    api, script, sid, fid = await reviewed(storage)
    page = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments")
    by_start = {s["start"]: s for s in page["segments"]}
    # A model proposal with no QA finding and no memory match is estimated 90 (agent_core.estimate_quality).
    assert events(by_start[0]) == [("approved", LOCAL_USER, "model", None, 90)]
    assert events(by_start[DOC.index("The cat")]) == [("refined", LOCAL_USER, "model", "minor", 90)]
    assert events(by_start[DOG]) == [
        ("rejected", LOCAL_USER, None, "major", None),
        ("approved", LOCAL_USER, "model", None, 90),
    ]
    assert events(by_start[BIRDS]) == [
        ("approved", LOCAL_USER, "model", None, 90),
        ("revised", LOCAL_USER, "human", "minor", None),
    ]
    for segment in page["segments"]:
        times = [e["at"] for e in segment["history"] or []]
        assert times == sorted(times) and all(t.endswith(("+00:00", "Z")) for t in times)
    assert [s["history"] for s in page["segments"] if s["status"] == "untranslated"] == []
    # The export: one CSV row an event, in source order.
    download = await api.client.get(f"/api/sessions/{sid}/files/{fid}/audit")
    assert download.status_code == 200 and download.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert [(int(r["start"]), r["action"], r["origin"], r["category"]) for r in rows] == [
        (0, "approved", "model", ""),
        (DOC.index("The cat"), "refined", "model", "Style"),
        (DOG, "rejected", "", "Accuracy/Omission"),
        (DOG, "approved", "model", ""),
        (BIRDS, "approved", "model", ""),
        (BIRDS, "revised", "human", "Accuracy/Omission"),
    ]
    assert rows[-1]["target"] == "Les oiseaux chantent." and rows[-1]["by"] == LOCAL_USER
    as_json = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/audit?format=json")
    assert [e["action"] for e in as_json["events"]] == [r["action"] for r in rows]
    # A proposal from the translation memory, in a new session of the same owner: its origin is `memory`.
    sid2, fid2 = await api.start("The cat sleeps.\n")
    asked = len(script.seen)
    [memory] = (await api.until_user(sid2, userInput=TASK))["copilotRequests"]
    assert memory["origin"] == "memory" and len(script.seen) == asked
    await api.until_user(sid2, copilotResponses=[{"tool": tool(memory), "status": "approve"}])
    [unit] = (await api.ok("GET", f"/api/sessions/{sid2}/files/{fid2}/segments"))["segments"]
    assert events(unit) == [("approved", LOCAL_USER, "memory", None, 100)]


async def test_the_post_edit_distance_per_file_and_session(storage: Storage) -> None:
    api, _, sid, fid = await reviewed(storage)
    analysis = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/analysis")
    proposals = ["# Guide FR", "Le chat dort.", "Le chien court vite.", "Les oiseaux."]
    finals = ["# Guide FR", "Le chat dort bien.", "Le chien court vite.", "Les oiseaux chantent."]
    expected = {
        "units": 4,
        "unchanged": 2,
        "edited": 2,
        "chrF": round(CHRF().corpus_score(proposals, [finals]).score, 2),
        "ter": round(TER().corpus_score(proposals, [finals]).score, 2),
    }
    assert analysis["postEdit"]["file"] == expected
    # TER by hand (sacrebleu splits no punctuation off): "dort." → "dort" + "bien." and "oiseaux." → "oiseaux"
    # + "chantent.", a substitution and an insertion each: 4 edits over the finals' 3 + 4 + 4 + 3 = 14 words.
    assert expected["ter"] == round(4 / 14 * 100, 2) and 0 < expected["chrF"] < 100
    card = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/scorecard")
    assert card["postEdit"] == expected
    # A second file of the session, not translated yet: its own figure is empty, the session's covers both.
    fid2 = (await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "b.md", "content": "One more.\n"}))["fileId"]
    both = await api.ok("GET", f"/api/sessions/{sid}/files/{fid2}/analysis")
    assert both["postEdit"]["file"]["units"] == 0 and both["postEdit"]["session"] == expected
