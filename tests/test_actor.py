"""Every decision records its person: in a project's session the audit trail names the member who
approved, edited, rejected or revised (over HTTP on both backends, and through the Lambda handler with
JWT `sub`s); a personal session's trail and stored rows are as before (`by` is its owner, nothing more
is stored)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from service.access import LOCAL_USER
from storage import dynamodb_items as di
from storage.dynamodb import DynamoDBSessionStorage
from storage.sqlite import SQLiteStorage
from tests.lambda_calls import Call, lambda_caller, ok
from tests.test_projects_api import Person, Team, until_reviews

DOC = "Hello world.\n\nA second sentence.\n\nA third one here.\n"


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return await Team.formed(request, tmp_path)


async def until_user(person: Person, sid: str, agent: dict[str, Any]) -> dict[str, Any]:
    """Steps by `person` until the loop waits for the human again."""
    while agent["actor"] == "agent":
        agent = (await person.ok("POST", "/api/next", {"sessionId": sid}))["agentResponse"]
    return agent


async def decide(first: Person, second: Person, reviser: Person, sid: str, fid: str) -> list[dict[str, Any]]:
    """`first` approves the first proposal; `second` edits the second and rejects the third; `first`
    approves the new proposal for the third by bulk approval; `reviser` revises the first unit. The audit
    trail as JSON."""
    requests = await until_reviews(first, sid, userInput="Translate into French.")
    assert [r["start"] for r in requests] == [0, 14, 34]
    await first.ok(
        "POST",
        "/api/next",
        {"sessionId": sid, "copilotResponses": [{"tool": requests[0]["tool"], "status": "approve"}]},
    )
    await first.ok("DELETE", f"/api/sessions/{sid}/claim")  # one driver at a time: the first hands over
    verdicts = [
        {
            "tool": requests[1]["tool"],
            "status": "refined",
            "translated_string": "Une deuxième phrase.",
            "reason": "ton",
        },
        {"tool": requests[2]["tool"], "status": "reject", "reason": "faux"},
    ]
    step = await second.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    await until_user(second, sid, step["agentResponse"])
    await second.ok("DELETE", f"/api/sessions/{sid}/claim")
    approved = await first.ok("POST", f"/api/sessions/{sid}/files/{fid}/approve", {})
    assert approved["approved"] == 1
    await reviser.ok("PUT", f"/api/sessions/{sid}/files/{fid}/segments/0", {"translated_string": "Salut le monde."})
    audit = await first.ok("GET", f"/api/sessions/{sid}/files/{fid}/audit?format=json")
    events: list[dict[str, Any]] = audit["events"]
    return events


def who(events: list[dict[str, Any]]) -> list[tuple[int, str, str | None]]:
    return [(e["start"], e["action"], e["by"]) for e in events]


async def test_each_member_s_decision_is_audited_as_their_own(team: Team) -> None:
    sid, fid = await team.session("fr", DOC)
    events = await decide(team.bob, team.dan, team.rita, sid, fid)
    assert who(events) == [
        (0, "approved", "bob"),
        (0, "revised", "rita"),
        (14, "refined", "dan"),
        (34, "rejected", "dan"),
        (34, "approved", "bob"),
    ]
    assert all(e["rule"] is None for e in events)
    segments = await team.alice.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments")
    history = {s["start"]: [(e["action"], e["by"]) for e in s["history"]] for s in segments["segments"]}
    assert history[0] == [("approved", "bob"), ("revised", "rita")]
    assert history[34] == [("rejected", "dan"), ("approved", "bob")]
    download = await team.alice.call("GET", f"/api/sessions/{sid}/files/{fid}/audit?format=csv")
    rows = list(csv.DictReader(io.StringIO(download.text)))
    assert [(int(r["start"]), r["action"], r["by"]) for r in rows] == who(events)
    with pytest.raises(AssertionError):  # the members' names are stored with what they decided
        assert_stored_as_before(team.services.storage, sid)


async def test_the_routing_s_approvals_keep_no_person_in_a_project(team: Team) -> None:
    await team.alice.ok("PATCH", team.path, {"autoApprove": {"minEstimate": 0}})
    sid, fid = await team.session("fr", DOC)
    agent = (await team.bob.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate."}))["agentResponse"]
    await until_user(team.bob, sid, agent)
    events = (await team.bob.ok("GET", f"/api/sessions/{sid}/files/{fid}/audit?format=json"))["events"]
    auto = [e for e in events if e["rule"]]
    assert auto, "the pseudo model's clean proposals pass a threshold of 0"
    assert {(e["by"], e["rule"]) for e in auto} == {(None, "autoApprove")}


async def test_a_personal_session_s_trail_and_stored_rows_are_as_before(team: Team) -> None:
    me = team.local
    sid = (await me.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    fid = (await me.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC}))["fileId"]
    events = await decide(me, me, me, sid, fid)
    assert [e["by"] for e in events] == [LOCAL_USER] * 5, "a personal session's decisions are its owner's"
    log = team.services.storage.review_log(sid, fid)
    assert [w.by for w in log.writes] + [c.by for c in log.corrections] == [None] * (len(log.writes) + 3)
    assert_stored_as_before(team.services.storage, sid)


def assert_stored_as_before(storage: Any, sid: str) -> None:
    """The session's units, revisions and corrections are stored as they were before a person was kept:
        DynamoDB's packed rows have the fields they had (no byte more); SQLite keeps no `decided_by` row (its
    units', revisions' and corrections' rows have the columns they had)."""
    if isinstance(storage, DynamoDBSessionStorage):
        items = storage.client.query(
            TableName=storage.table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :u)",
            ExpressionAttributeValues={":pk": {"S": f"S#{sid}"}, ":u": {"S": "U#"}},
        )["Items"]
        kinds = {item["sk"]["S"].split("#")[2] if item["sk"]["S"].count("#") > 2 else "U" for item in items}
        assert kinds == {"U", "R", "K"}
        for item in items:
            corrections = item["sk"]["S"].count("#") > 2 and item["sk"]["S"].split("#")[2] == "K"
            for row in di.unpacked(item):
                # a unit: 7 fields, then its estimate and auto mark when set; a correction: 8 fields
                assert len(row) == 8 if corrections else len(row) <= 9, row
    else:
        assert isinstance(storage, SQLiteStorage)
        with storage._transaction(write=False) as db:
            sql = "SELECT count(*) AS n FROM decided_by WHERE session_id = ?"
            assert db.execute(sql, (sid,)).fetchone()["n"] == 0
            for table in ("units", "revisions", "corrections"):
                columns = {r["name"] for r in db.execute(f"PRAGMA table_info({table})")}
                assert not any("by" in c for c in columns), "a unit's, a revision's, a correction's row is as before"


# -- through the Lambda handler, as JWT subs ---------------------------------------------------------


@pytest.fixture
def call(moto_table: str) -> Call:
    return lambda_caller(moto_table)


def test_behind_the_authorizer_each_member_is_audited_by_their_sub(call: Call) -> None:
    pid = ok(call, "user-alice", "POST", "/api/projects", {"name": "Site"})["id"]
    for sub in ("user-bob", "user-dan"):
        ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/{sub}", {"role": "translator", "languages": ["fr"]})
    sid = ok(call, "user-alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"})["id"]
    fid = ok(call, "user-alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})["fileId"]
    agent = ok(call, "user-bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})["agentResponse"]
    while agent["actor"] == "agent":
        agent = ok(call, "user-bob", "POST", "/api/next", {"sessionId": sid})["agentResponse"]
    first, second, third = agent["copilotRequests"]
    ok(
        call,
        "user-bob",
        "POST",
        "/api/next",
        {"sessionId": sid, "copilotResponses": [{"tool": first["tool"], "status": "approve"}]},
    )
    ok(call, "user-bob", "DELETE", f"/api/sessions/{sid}/claim")  # one driver at a time: bob hands over
    verdicts = [
        {"tool": second["tool"], "status": "refined", "translated_string": "Une deuxième phrase."},
        {"tool": third["tool"], "status": "reject", "reason": "faux"},
    ]
    agent = ok(call, "user-dan", "POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})["agentResponse"]
    while agent["actor"] == "agent":
        agent = ok(call, "user-dan", "POST", "/api/next", {"sessionId": sid})["agentResponse"]
    ok(call, "user-dan", "DELETE", f"/api/sessions/{sid}/claim")
    assert ok(call, "user-bob", "POST", f"/api/sessions/{sid}/files/{fid}/approve", {})["approved"] == 1
    events = ok(call, "user-alice", "GET", f"/api/sessions/{sid}/files/{fid}/audit?format=json")["events"]
    assert who(events) == [
        (0, "approved", "user-bob"),
        (14, "refined", "user-dan"),
        (34, "rejected", "user-dan"),
        (34, "approved", "user-bob"),
    ]


async def test_a_verdict_naming_another_person_is_refused_and_changes_nothing(team: Team) -> None:
    sid, _ = await team.session("fr", DOC)
    requests = await until_reviews(team.bob, sid, userInput="Translate into French.")
    before = await team.bob.ok("GET", f"/api/sessions/{sid}")
    forged = [{"tool": requests[0]["tool"], "status": "approve", "by": "rita"}]
    await team.bob.refused(422, "POST", "/api/next", {"sessionId": sid, "copilotResponses": forged}, words="by")
    assert (await team.bob.ok("GET", f"/api/sessions/{sid}"))["copilotResponses"] == before["copilotResponses"]
    own = [{"tool": requests[0]["tool"], "status": "approve", "by": "bob"}]
    await team.bob.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": own})
    given = (await team.alice.ok("GET", f"/api/sessions/{sid}"))["copilotResponses"]
    assert [(v["tool"]["callId"], v["by"]) for v in given] == [(requests[0]["tool"]["callId"], "bob")]
