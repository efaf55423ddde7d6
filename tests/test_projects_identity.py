"""The identity in local mode: one local user, the manager of every project, and `X-Act-As` to act as
another identity locally (never with REQUIRE_AUTH, never in Lambda: tests/test_projects_lambda.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from agent_core.models import resolve_model
from handlers.app import create_app
from service.access import LOCAL_USER
from service.container import Services
from tests.helpers import assert_error, services_for


@pytest.fixture
def local() -> tuple[httpx.AsyncClient, Services]:
    services = services_for(model=resolve_model("pseudo"))
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")
    return client, services


async def call(client: httpx.AsyncClient, method: str, path: str, body: Any = None, who: str | None = None) -> Any:
    headers = {"X-Act-As": who} if who is not None else {}
    return await client.request(method, path, json=body, headers=headers)


async def test_x_act_as_acts_as_another_identity_locally(local: tuple[httpx.AsyncClient, Services]) -> None:
    client, services = local
    sid = (await call(client, "POST", "/api/sessions", who="alice")).json()["id"]
    assert services.storage.get_session(sid).owner == "alice"
    assert_error(await call(client, "GET", f"/api/sessions/{sid}"), 404)
    assert (await call(client, "GET", f"/api/sessions/{sid}", who="alice")).status_code == 200


async def test_the_local_user_manages_every_project(local: tuple[httpx.AsyncClient, Services]) -> None:
    client, _ = local
    pid = (await call(client, "POST", "/api/projects", {"name": "Alice's"}, who="alice")).json()["id"]
    listed = (await call(client, "GET", "/api/projects")).json()["projects"]
    assert listed == [{"id": pid, "name": "Alice's", "role": "manager", "languages": ["*"]}]
    assert (await call(client, "DELETE", f"/api/projects/{pid}/members/{LOCAL_USER}", who="alice")).status_code == 200
    assert (await call(client, "GET", "/api/projects")).json()["projects"] == []
    renamed = await call(client, "PATCH", f"/api/projects/{pid}", {"name": "Still mine"})
    assert renamed.status_code == 200, "a manager of every project, member or not"
    mine = (await call(client, "POST", "/api/projects", {"name": "Local"})).json()
    assert [m["sub"] for m in mine["members"]] == [LOCAL_USER]


async def test_x_act_as_is_not_honoured_when_auth_is_required(
    local: tuple[httpx.AsyncClient, Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _ = local
    monkeypatch.setenv("REQUIRE_AUTH", "true")
    assert_error(await call(client, "GET", "/api/projects", who="alice"), 401, "sign in")


@pytest.mark.parametrize("who", ["", "   ", "project:p_0123", "x" * 257])
async def test_x_act_as_must_name_an_identity(local: tuple[httpx.AsyncClient, Services], who: str) -> None:
    client, services = local
    assert_error(await call(client, "POST", "/api/projects", {"name": "X"}, who=who), 401, "X-Act-As")
    assert services.storage.projects_of(who) == [] and services.storage.projects_of(LOCAL_USER) == []
