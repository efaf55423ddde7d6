"""Projects through the Lambda handler with several JWT `sub`s (DynamoDB under moto): each role allowed
and refused on the project routes and on a project session's routes; the identity's local-only ways
(the local user, `X-Act-As`) never apply behind the authorizer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lambda_calls import Call, lambda_caller, ok

DOC = "Hello world.\n\nA second sentence.\n"


@pytest.fixture
def call(moto_table: str) -> Call:
    """A request through Mangum as a JWT `sub`: `(status, body)`."""
    return lambda_caller(moto_table)


@pytest.fixture
def team(call: Call) -> dict[str, str]:
    """user-alice's project with user-bob (French translator) and user-rita (French reviewer); a French
    and a German session of it, each with the document."""
    pid = ok(call, "user-alice", "POST", "/api/projects", {"name": "Site"})["id"]
    ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/user-bob", {"role": "translator", "languages": ["fr"]})
    ok(call, "user-alice", "PUT", f"/api/projects/{pid}/members/user-rita", {"role": "reviewer", "languages": ["fr"]})
    ids = {"pid": pid}
    for lang in ("fr", "de"):
        sid = ok(call, "user-alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": lang})["id"]
        ok(call, "user-alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})
        ids[lang] = sid
    return ids


def test_behind_the_authorizer_only_members_are_listed_and_the_creator_alone_manages(
    call: Call, team: dict[str, str]
) -> None:
    project = ok(call, "user-alice", "GET", f"/api/projects/{team['pid']}")
    assert [(m["sub"], m["role"]) for m in project["members"]] == [
        ("user-alice", "manager"),
        ("user-bob", "translator"),
        ("user-rita", "reviewer"),
    ], "no local user is added behind the authorizer"
    assert ok(call, "user-bob", "GET", "/api/projects")["projects"][0]["role"] == "translator"
    assert ok(call, "user-mallory", "GET", "/api/projects") == {"projects": []}


@pytest.mark.parametrize(
    ("sub", "method", "route", "body", "status"),
    [
        ("user-mallory", "GET", "{p}", None, 404),
        ("user-mallory", "GET", "{p}/sessions", None, 404),
        ("user-mallory", "GET", "/api/sessions/{fr}", None, 404),
        ("user-mallory", "POST", "/api/next", {"sessionId": "{fr}", "userInput": "Go."}, 404),
        ("user-bob", "GET", "{p}", None, 200),
        ("user-bob", "PATCH", "{p}", {"name": "Mine"}, 403),
        ("user-bob", "PUT", "{p}/members/user-mallory", {"role": "translator", "languages": ["fr"]}, 403),
        ("user-bob", "GET", "{p}/sessions", None, 200),
        ("user-bob", "GET", "/api/sessions/{fr}", None, 200),
        ("user-bob", "GET", "/api/sessions/{de}", None, 403),
        ("user-bob", "POST", "/api/next", {"sessionId": "{fr}", "userInput": "Go."}, 200),
        ("user-bob", "POST", "/api/next", {"sessionId": "{de}", "userInput": "Go."}, 403),
        ("user-bob", "DELETE", "/api/sessions/{fr}", None, 403),
        ("user-bob", "POST", "{p}/memory/glossary", {"source": "site", "target": "site web"}, 403),
        ("user-rita", "POST", "{p}/memory/glossary", {"source": "site", "target": "site web"}, 201),
        ("user-rita", "DELETE", "{p}/members/user-bob", None, 403),
        ("user-rita", "GET", "/api/sessions/{de}", None, 403),
        ("user-alice", "GET", "/api/sessions/{de}", None, 200),
        ("user-alice", "PATCH", "{p}", {"review": "single"}, 200),
        ("user-alice", "DELETE", "{p}/members/user-bob", None, 200),
        ("user-alice", "DELETE", "{p}/members/user-alice", None, 422),
    ],
)
def test_each_role_is_allowed_or_refused(
    call: Call, team: dict[str, str], sub: str, method: str, route: str, body: Any, status: int
) -> None:
    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.format(p=f"/api/projects/{team['pid']}", fr=team["fr"], de=team["de"])
        return {k: fill(v) for k, v in value.items()} if isinstance(value, dict) else value

    before = ok(call, "user-alice", "GET", f"/api/projects/{team['pid']}")
    got, answer = call(sub, method, fill(route), fill(body))
    assert got == status, answer
    if status >= 400:
        assert set(answer) == {"error"} and answer["error"], answer
        if status == 403:
            assert any(word in answer["error"] for word in ("manager", "reviewer", "languages")), answer
        assert ok(call, "user-alice", "GET", f"/api/projects/{team['pid']}") == before, "a refusal changes nothing"


def test_act_as_is_ignored_in_lambda_and_reserved_names_are_refused(
    call: Call, team: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "AgentFunction")  # as Lambda sets it
    pid = team["pid"]
    status, _ = call("user-mallory", "GET", f"/api/projects/{pid}", **{"X-Act-As": "user-alice"})
    assert status == 404, "X-Act-As is never honoured beside a JWT"
    status, _ = call(None, "GET", f"/api/projects/{pid}", **{"X-Act-As": "user-alice"})
    assert status == 404, "nor in Lambda without one: the caller is the local user, a manager only locally"
    for sub in ("local", f"project:{pid}"):
        status, answer = call(sub, "GET", "/api/sessions")
        assert status == 401 and "reserved" in answer["error"], answer
