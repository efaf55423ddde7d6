"""Comments through the Lambda handler (DynamoDB under moto) with JWT `sub`s in a project: a French
translator asks, a French reviewer answers and resolves, each signing as themselves; a member of other
languages and an outsider are refused; a bad comment stores nothing."""

from __future__ import annotations

import pytest

from tests.lambda_calls import Call, lambda_caller, ok

DOC = "Hello world.\n\nA second sentence.\n"


@pytest.fixture
def call(moto_table: str) -> Call:
    """A request through Mangum as a JWT `sub`: `(status, body)`."""
    return lambda_caller(moto_table)


def test_two_members_discuss_a_segment_and_others_are_refused(call: Call) -> None:
    pid = ok(call, "user-alice", "POST", "/api/projects", {"name": "Site"})["id"]
    for sub, role, languages in (("user-bob", "translator", ["fr"]), ("user-rita", "reviewer", ["fr"])):
        ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/{sub}", {"role": role, "languages": languages})
    ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/user-gus", {"role": "translator", "languages": ["de"]})
    sid = ok(call, "user-alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"})["id"]
    fid = ok(call, "user-alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})["fileId"]
    path = f"/api/sessions/{sid}/files/{fid}/segments/s2/comments"

    status, asked = call("user-bob", "POST", path, {"text": "Is this a full sentence?"})
    assert status == 201 and asked["by"] == "user-bob", asked
    status, answered = call("user-rita", "POST", path, {"text": "Yes: end it with a period."})
    assert status == 201 and answered["by"] == "user-rita", answered
    resolved = ok(call, "user-rita", "PATCH", f"{path}/{asked['id']}", {"resolved": True})
    assert (resolved["resolved"], resolved["resolvedBy"]) == (True, "user-rita")
    thread = ok(call, "user-bob", "GET", path)
    assert [(c["by"], c["text"], c["resolved"]) for c in thread] == [
        ("user-bob", "Is this a full sentence?", True),
        ("user-rita", "Yes: end it with a period.", False),
    ]
    open_threads = ok(call, "user-bob", "GET", f"/api/sessions/{sid}/comments?open=true")
    assert [(t["segmentId"], t["comments"], t["open"]) for t in open_threads["files"][0]["threads"]] == [("s2", 2, 1)]

    for sub, status_wanted in (("user-gus", 403), ("user-mallory", 404)):
        for method, route, body in (
            ("GET", path, None),
            ("POST", path, {"text": "Me too"}),
            ("PATCH", f"{path}/{answered['id']}", {"resolved": True}),
            ("GET", f"/api/sessions/{sid}/comments", None),
        ):
            got, answer = call(sub, method, route, body)
            assert got == status_wanted and set(answer) == {"error"}, (sub, method, got, answer)
    status, answer = call("user-bob", "POST", path, {"text": "\x00"})
    assert status == 422 and set(answer) == {"error"}, answer
    status, answer = call("user-bob", "POST", f"/api/sessions/{sid}/files/{fid}/segments/s9/comments", {"text": "?"})
    assert status == 404, answer
    assert ok(call, "user-alice", "GET", path) == thread, "the refusals stored nothing"
