"""Projects and teams through HTTP, on both backends, several people acting locally through `X-Act-As`:
the project routes, roles and languages allowed and refused (403, 404) on them and on a project's
sessions, and two members sharing the project's memory."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from agent_core.models import resolve_model
from handlers.app import create_app
from service.access import LOCAL_USER, may_be_projects, project_owner
from service.container import Services
from tests.helpers import assert_error, services_for
from tests.storage_cases import atomic_requests, backend

DOC = "Hello world.\n\nA second sentence.\n"


class Person:
    """One identity calling the in-process app (local mode, `X-Act-As`)."""

    def __init__(self, client: httpx.AsyncClient, sub: str) -> None:
        self.client, self.sub = client, sub

    async def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {} if self.sub == LOCAL_USER else {"X-Act-As": self.sub}
        return await self.client.request(method, path, json=body, headers=headers)

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        response = await self.call(method, path, body)
        assert response.status_code < 300, (self.sub, method, path, response.status_code, response.text)
        return response.json() if response.content else None

    async def refused(self, status: int, method: str, path: str, body: Any = None, words: str = "") -> None:
        assert_error(await self.call(method, path, body), status, words)


class Team:
    """A project with a manager (alice), a French translator (bob), a German translator (gus), a French
    reviewer (rita), another French translator (dan), and an outsider (carol)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")
        self.alice, self.bob, self.gus, self.rita, self.dan, self.carol, self.local = (
            Person(client, sub) for sub in ("alice", "bob", "gus", "rita", "dan", "carol", LOCAL_USER)
        )
        self.pid = ""

    @classmethod
    def on(cls, request: pytest.FixtureRequest, tmp_path: Any) -> Team:
        """A team on the backend a fixture's param names (`sqlite` or `dynamodb`), its project not made yet."""
        return cls(services_for(backend(request.param, request, tmp_path), model=resolve_model("pseudo")))

    @classmethod
    async def formed(cls, request: pytest.FixtureRequest, tmp_path: Any) -> Team:
        """A team on the backend a fixture's param names, its project made and its members in it."""
        made = cls.on(request, tmp_path)
        await made.form()
        return made

    async def form(self) -> None:
        created = await self.alice.ok("POST", "/api/projects", {"name": "Docs", "sourceLanguage": "en"})
        self.pid = created["id"]
        for person, role, languages in (
            (self.bob, "translator", ["fr"]),
            (self.gus, "translator", ["German"]),
            (self.rita, "reviewer", ["fr"]),
            (self.dan, "translator", ["fr"]),
        ):
            await self.alice.ok("PUT", f"{self.path}/members/{person.sub}", {"role": role, "languages": languages})

    @property
    def path(self) -> str:
        return f"/api/projects/{self.pid}"

    async def session(self, target: str, content: str = DOC) -> tuple[str, str]:
        body = {"project": self.pid, "targetLanguage": target}
        sid = (await self.alice.ok("POST", "/api/sessions", body))["id"]
        fid = (await self.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": content}))[
            "fileId"
        ]
        return sid, fid


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return await Team.formed(request, tmp_path)


async def until_reviews(person: Person, sid: str, **body: Any) -> list[dict[str, Any]]:
    """Steps by `person` (the first with `body`) until the loop waits for the human: the reviews asked."""
    agent = (await person.ok("POST", "/api/next", {"sessionId": sid, **body}))["agentResponse"]
    while agent["actor"] == "agent":
        agent = (await person.ok("POST", "/api/next", {"sessionId": sid}))["agentResponse"]
    requests: list[dict[str, Any]] = agent["copilotRequests"]
    return requests


# -- the project routes ---------------------------------------------------------------------------


async def test_a_project_is_created_shown_and_listed_with_each_member_s_role(team: Team) -> None:
    project = await team.alice.ok("GET", team.path)
    assert set(project) == {
        "id", "name", "sourceLanguage", "review", "autoApprove", "qaProfile", "members", "createdAt", "updatedAt"
    }  # fmt: skip
    assert (project["name"], project["sourceLanguage"], project["review"]) == ("Docs", "en", "single")
    members = {m["sub"]: (m["role"], m["languages"]) for m in project["members"]}
    assert members == {
        "alice": ("manager", ["*"]),
        LOCAL_USER: ("manager", ["*"]),  # local mode: the local user manages every project
        "bob": ("translator", ["fr"]),
        "gus": ("translator", ["de"]),
        "rita": ("reviewer", ["fr"]),
        "dan": ("translator", ["fr"]),
    }
    assert (await team.bob.ok("GET", "/api/projects")) == {
        "projects": [{"id": team.pid, "name": "Docs", "role": "translator", "languages": ["fr"]}]
    }
    assert (await team.carol.ok("GET", "/api/projects")) == {"projects": []}
    assert (await team.bob.ok("GET", team.path))["id"] == team.pid


async def test_an_outsider_gets_404_for_everything_of_the_project(team: Team) -> None:
    sid, fid = await team.session("fr")
    p = team.path
    for method, path, body in (
        ("GET", p, None),
        ("PATCH", p, {"name": "Mine"}),
        ("PUT", f"{p}/members/carol", {"role": "manager", "languages": ["*"]}),
        ("DELETE", f"{p}/members/bob", None),
        ("GET", f"{p}/sessions", None),
        ("GET", f"{p}/memory", None),
        ("POST", f"{p}/memory/glossary", {"source": "file", "target": "fichier"}),
        ("GET", f"/api/sessions/{sid}", None),
        ("GET", f"/api/sessions/{sid}/files/{fid}/segments", None),
        ("POST", "/api/next", {"sessionId": sid, "userInput": "Translate."}),
        ("DELETE", f"/api/sessions/{sid}", None),
        ("POST", "/api/sessions", {"project": team.pid}),
    ):
        await team.carol.refused(404, method, path, body)
    assert (await team.alice.ok("GET", p))["name"] == "Docs"
    await team.carol.refused(404, "GET", "/api/projects/p_nothing")


async def test_members_who_are_not_managers_get_403_saying_what_is_needed(team: Team) -> None:
    p = team.path
    await team.bob.refused(403, "PATCH", p, {"name": "Mine"}, words="manager")
    await team.rita.refused(403, "PUT", f"{p}/members/carol", {"role": "manager", "languages": ["*"]}, "manager")
    await team.bob.refused(403, "DELETE", f"{p}/members/alice", words="manager")
    await team.bob.refused(403, "POST", "/api/sessions", {"project": team.pid, "targetLanguage": "fr"}, "manager")
    assert [m["sub"] for m in (await team.alice.ok("GET", p))["members"]][:1] == ["alice"]
    assert (await team.carol.ok("GET", "/api/projects")) == {"projects": []}


async def test_managers_change_settings_and_members(team: Team) -> None:
    p = team.path
    patched = await team.alice.ok("PATCH", p, {"name": "Docs 2", "autoApprove": {"minEstimate": 90}})
    assert (patched["name"], patched["autoApprove"], patched["sourceLanguage"]) == (
        "Docs 2",
        {"minEstimate": 90, "sample": 0.0},
        "en",
    )
    changed = await team.alice.ok("PUT", f"{p}/members/bob", {"role": "reviewer", "languages": ["fr", "it"]})
    assert {"sub": "bob", "role": "reviewer", "languages": ["fr", "it"]} in changed["members"]
    left = await team.alice.ok("DELETE", f"{p}/members/dan")
    assert "dan" not in [m["sub"] for m in left["members"]]
    await team.dan.refused(404, "GET", p)
    assert (await team.dan.ok("GET", "/api/projects")) == {"projects": []}
    await team.alice.refused(404, "DELETE", f"{p}/members/dan", words="not a member")
    for body, words in (
        ({"role": "owner", "languages": ["fr"]}, "role"),
        ({"role": "translator", "languages": []}, "languages"),
        ({"role": "translator", "languages": ["*", "fr"]}, "either"),
        ({"role": "translator", "languages": ["klingonese"]}, "language"),
        ({"role": "translator"}, "languages"),
    ):
        await team.alice.refused(422, "PUT", f"{p}/members/eve", body, words)
    for body, words in (
        ({"name": ""}, "name"),
        ({"review": None}, "never null"),
        ({"owner": "x"}, "extra"),
    ):
        await team.alice.refused(422, "PATCH", p, body, words)
    assert "eve" not in [m["sub"] for m in (await team.alice.ok("GET", p))["members"]]


async def test_the_last_manager_is_never_removed_nor_demoted(team: Team) -> None:
    p = team.path
    await team.alice.ok("DELETE", f"{p}/members/{LOCAL_USER}")
    await team.alice.refused(422, "DELETE", f"{p}/members/alice", words="manager")
    await team.alice.refused(422, "PUT", f"{p}/members/alice", {"role": "reviewer", "languages": ["*"]}, "manager")
    await team.alice.ok("PUT", f"{p}/members/rita", {"role": "manager", "languages": ["*"]})
    await team.alice.ok("DELETE", f"{p}/members/alice")
    await team.alice.refused(404, "GET", p)
    assert [m["sub"] for m in (await team.rita.ok("GET", p))["members"] if m["role"] == "manager"] == ["rita"]


async def test_a_project_is_refused_whole_for_bad_input(team: Team) -> None:
    for body, words in (
        ({}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "X", "review": "triple"}, "review"),
        ({"name": "X", "sourceLanguage": "klingonese"}, "language"),
        ({"name": "X", "autoApprove": {"minEstimate": 101}}, "minEstimate"),
    ):
        await team.carol.refused(422, "POST", "/api/projects", body, words)
    assert (await team.carol.ok("GET", "/api/projects")) == {"projects": []}


# -- a project's sessions ---------------------------------------------------------------------------


async def test_members_read_and_drive_the_sessions_of_their_languages_only(team: Team) -> None:
    fr, fr_file = await team.session("fr")
    de, _ = await team.session("de")
    assert team.services.storage.get_session(fr).owner == project_owner(team.pid)
    assert may_be_projects(fr) and may_be_projects(de), "a project's session has an id that says so"
    for person in (team.bob, team.rita, team.dan, team.alice, team.local):
        view = await person.ok("GET", f"/api/sessions/{fr}")
        assert (view["targetLanguage"], view["project"]) == ("fr", team.pid)
    await team.bob.refused(403, "GET", f"/api/sessions/{de}", words="de")
    await team.bob.refused(403, "POST", "/api/next", {"sessionId": de, "userInput": "Go."}, words="de")
    await team.gus.refused(403, "GET", f"/api/sessions/{fr}/files/{fr_file}/segments", words="fr")
    requests = await until_reviews(team.bob, fr, userInput="Translate into French.")
    assert requests, "the translator drives the French session"
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
    await team.bob.ok("POST", "/api/next", {"sessionId": fr, "copilotResponses": verdicts})
    segments = await team.rita.ok("GET", f"/api/sessions/{fr}/files/{fr_file}/segments")
    assert any(s["status"] == "approved" for s in segments["segments"])
    for method, path, body in (
        ("PATCH", f"/api/sessions/{fr}", {"model": "pseudo"}),
        ("DELETE", f"/api/sessions/{fr}", None),
        ("POST", f"/api/sessions/{fr}/files", {"name": "b.md", "content": "More."}),
    ):
        await team.bob.refused(403, method, path, body, words="manager")
    await team.alice.refused(422, "PATCH", f"/api/sessions/{fr}", {"project": None}, words="cannot move")
    listed = await team.bob.ok("GET", f"{team.path}/sessions")
    assert [s["id"] for s in listed["sessions"]] == [fr]
    assert listed["sessions"][0]["progress"]["translatedChars"] > 0
    both = await team.alice.ok("GET", f"{team.path}/sessions?limit=1")
    more = await team.alice.ok("GET", f"{team.path}/sessions?limit=1&cursor={both['nextCursor']}")
    assert {s["id"] for s in both["sessions"] + more["sessions"]} == {fr, de}
    assert (await team.alice.ok("GET", "/api/sessions"))["sessions"] == [], "a project's sessions are not alice's own"


async def test_a_project_session_takes_the_project_s_settings(team: Team) -> None:
    await team.alice.ok("PATCH", team.path, {"autoApprove": {"minEstimate": 95}})
    sid, _ = await team.session("fr")
    view = await team.alice.ok("GET", f"/api/sessions/{sid}")
    assert (view["sourceLanguage"], view["autoApprove"]) == ("en", {"minEstimate": 95, "sample": 0.0})


async def test_a_session_outside_any_project_is_its_creator_s_alone(team: Team) -> None:
    sid = (await team.bob.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    assert team.services.storage.get_session(sid).owner == "bob"
    assert not may_be_projects(sid), "so its routes read nothing more than before"
    for person in (team.alice, team.local, team.dan):
        await person.refused(404, "GET", f"/api/sessions/{sid}")
        await person.refused(404, "POST", "/api/next", {"sessionId": sid, "userInput": "Go."})
    assert (await team.bob.ok("GET", f"/api/sessions/{sid}"))["project"] is None


async def test_two_members_share_the_project_s_memory(team: Team) -> None:
    first, _ = await team.session("fr")
    second, _ = await team.session("fr")
    requests = await until_reviews(team.bob, first, userInput="Translate into French.")
    hello = next(r for r in requests if r["src_string"] == "Hello world.")
    verdicts = [
        {"tool": r["tool"], "status": "refined", "translated_string": "Bonjour tout le monde."}
        if r is hello
        else {"tool": r["tool"], "status": "approve"}
        for r in requests
    ]
    await team.bob.ok("POST", "/api/next", {"sessionId": first, "copilotResponses": verdicts})
    proposals = await until_reviews(team.dan, second, userInput="Translate into French.")
    match = next(r for r in proposals if r["src_string"] == "Hello world.")
    assert (match["origin"], match["translate_string"]) == ("memory", "Bonjour tout le monde.")
    storage = team.services.storage
    assert storage.tm_entries(project_owner(team.pid))
    assert storage.tm_entries("bob") == [], "the member's own memory is untouched"


async def test_the_project_memory_is_read_by_members_and_changed_by_reviewers_and_managers(team: Team) -> None:
    p = f"{team.path}/memory"
    entry = await team.rita.ok("POST", f"{p}/glossary", {"source": "file", "target": "fichier"})
    await team.bob.refused(403, "POST", f"{p}/glossary", {"source": "save", "target": "enregistrer"}, "reviewer")
    await team.bob.refused(403, "DELETE", f"{p}/{entry['id']}", words="reviewer")
    await team.rita.refused(403, "POST", f"{p}/import", {"format": "csv", "content": "a,b\n"}, "manager")
    assert [g["source"] for g in (await team.bob.ok("GET", p))["glossary"]] == ["file"]
    assert (await team.bob.ok("GET", "/api/memory"))["glossary"] == [], "the member's own memory is apart"
    exported = await team.bob.call("GET", f"{p}/export?format=csv")
    assert exported.status_code == 200 and "file" in exported.text and "fichier" in exported.text
    await team.carol.refused(404, "GET", f"{p}/export?format=csv")
    csv = {"format": "csv", "content": "source,target\nsave,enregistrer\n", "languages": "french"}
    assert (await team.alice.ok("POST", f"{p}/import", csv))["added"] == 1
    await team.alice.ok("DELETE", f"{p}/{entry['id']}")
    assert [g["source"] for g in (await team.dan.ok("GET", p))["glossary"]] == ["save"]
    assert (await team.alice.ok("GET", "/api/memory"))["glossary"] == [], "the manager's own memory is apart"


async def test_a_job_in_a_project_belongs_to_it(team: Team) -> None:
    body = {"files": [{"name": "doc.md", "content": DOC}], "targetLanguages": ["fr", "de"], "project": team.pid}
    await team.bob.refused(403, "POST", "/api/jobs", body, words="manager")
    await team.carol.refused(404, "POST", "/api/jobs", body)
    job = await team.alice.ok("POST", "/api/jobs", body)
    assert {team.services.storage.get_session(s).owner for s in job["sessions"].values()} == {project_owner(team.pid)}
    assert set((await team.bob.ok("GET", f"/api/jobs/{job['id']}"))["languages"]) == {"fr", "de"}
    await team.carol.refused(404, "GET", f"/api/jobs/{job['id']}")
    await team.bob.ok("GET", f"/api/sessions/{job['sessions']['fr']}")
    await team.bob.refused(403, "GET", f"/api/sessions/{job['sessions']['de']}", words="de")


async def test_members_approving_at_once_lose_nothing_in_the_project_s_memory(team: Team) -> None:
    sources = {"bob": "The first sentence here.", "dan": "Another line over there."}
    sids = {who: (await team.session("fr", text + "\n"))[0] for who, text in sources.items()}
    people = {"bob": team.bob, "dan": team.dan}
    pending = {who: await until_reviews(people[who], sid, userInput="Translate.") for who, sid in sids.items()}

    async def approve(who: str) -> None:
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in pending[who]]
        await people[who].ok("POST", "/api/next", {"sessionId": sids[who], "copilotResponses": verdicts})

    atomic_requests(team.services.storage)  # moto applies a request's writes one by one; DynamoDB does not
    await asyncio.gather(approve("bob"), approve("dan"))
    (pair,) = team.services.storage.tm_pairs(project_owner(team.pid))  # the sessions' one pair
    kept = team.services.storage.tm_changes(project_owner(team.pid), pair, since=None)
    assert set(sources.values()) <= {e.source for e in kept.entries}
    assert kept.seq >= 2, "two numbered writes, one each"


def test_every_route_that_changes_a_session_or_a_project_s_memory_is_given_its_action() -> None:
    """service.access's table names real routes, and every route that changes something of a session or
    of a project's memory is in it (one missing would be `manage`: managers only)."""
    from service.access import PROJECT_ROUTES, SESSION_ROUTES

    paths = create_app(services_for()).openapi()["paths"]
    routes = {(method.upper(), path) for path, methods in paths.items() for method in methods}
    assert set(SESSION_ROUTES) | set(PROJECT_ROUTES) <= routes
    changing = {
        (m, p) for m, p in routes if m != "GET" and ("{session_id}" in p or ("/memory" in p and "{project_id}" in p))
    }
    assert changing == set(SESSION_ROUTES) | set(PROJECT_ROUTES)


async def test_translators_approve_shown_and_revise_in_their_languages_only(team: Team) -> None:
    fr, fr_file = await team.session("fr")
    de, de_file = await team.session("de")
    assert await until_reviews(team.bob, fr, userInput="Translate into French.")
    assert await until_reviews(team.gus, de, userInput="Translate into German.")
    await team.bob.refused(403, "POST", f"/api/sessions/{de}/files/{de_file}/approve", {}, words="de")
    approved = await team.bob.ok("POST", f"/api/sessions/{fr}/files/{fr_file}/approve", {})
    assert approved["approved"] >= 1
    revise = f"/api/sessions/{fr}/files/{fr_file}/segments/0"
    await team.gus.refused(403, "PUT", revise, {"translated_string": "Hallo Welt."}, words="fr")
    await team.carol.refused(404, "PUT", revise, {"translated_string": "Salut."})
    revised = await team.bob.ok("PUT", revise, {"translated_string": "Salut le monde."})
    assert (revised["target"], revised["status"]) == ("Salut le monde.", "revised")
    kept = team.services.storage.tm_entries(project_owner(team.pid))
    assert "Salut le monde." in {e.target for e in kept}, "a member's revision teaches the project's memory"
