"""`Idempotency-Key` on `POST /api/next`: a retry returns the first answer and performs no step."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent_core.models import resolve_model
from handlers.api import create_app
from storage.sqlite import SQLiteStorage
from tests.helpers import services_for


@pytest.fixture
def api() -> Iterator[tuple[TestClient, SQLiteStorage]]:
    storage = SQLiteStorage(":memory:")
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as client:
        yield client, storage


def post(client: TestClient, body: dict[str, Any], key: str | None) -> Any:
    return client.post("/api/next", json=body, headers={"Idempotency-Key": key} if key else {})


def test_a_retry_returns_the_first_answer_and_steps_once(api: Any) -> None:
    client, storage = api
    sid = client.post("/api/sessions").json()["id"]
    client.post(f"/api/sessions/{sid}/files", json={"name": "a.md", "content": "# Hi\n\nText.\n"})
    first = post(client, {"sessionId": sid, "userInput": "Translate"}, "k-1")
    version = storage.get_session(sid).version
    again = post(client, {"userInput": "Translate", "sessionId": sid}, "k-1")  # same body, keys reordered
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert storage.get_session(sid).version == version, "no second step"


def test_the_same_key_with_another_body_is_422(api: Any) -> None:
    client, storage = api
    sid = client.post("/api/sessions").json()["id"]
    post(client, {"sessionId": sid, "userInput": "one"}, "k-2")
    version = storage.get_session(sid).version
    response = post(client, {"sessionId": sid, "userInput": "two"}, "k-2")
    assert response.status_code == 422 and "different body" in response.json()["error"]
    assert storage.get_session(sid).version == version


def test_a_retried_creation_creates_one_session(api: Any) -> None:
    client, storage = api
    first = post(client, {"userInput": "hello"}, "k-3").json()
    second = post(client, {"userInput": "hello"}, "k-3").json()
    assert first["sessionId"] == second["sessionId"]
    assert len(storage.list_sessions("local", cursor=None, limit=10).items) == 1


def test_a_step_that_commits_nothing_is_remembered_too(api: Any) -> None:
    client, _storage = api
    sid = post(client, {"userInput": "hello"}, None).json()["sessionId"]  # no files: the model answers
    quiet = post(client, {"sessionId": sid}, "k-4")  # the model waits for the user: nothing to commit
    assert quiet.status_code == 200 and quiet.json()["agentResponse"]["actor"] == "user"
    assert post(client, {"sessionId": sid}, "k-4").headers.get("idempotent-replayed") == "true"


def test_keys_are_scoped_to_the_caller(api: Any) -> None:
    client, storage = api
    post(client, {"userInput": "hello"}, "shared")
    now = int(time.time())
    assert storage.get_answer("local", "shared", now=now) is not None
    assert storage.get_answer("someone-else", "shared", now=now) is None


def test_a_key_longer_than_255_characters_is_422(api: Any) -> None:
    client, _ = api
    response = post(client, {"userInput": "hello"}, "x" * 256)
    assert response.status_code == 422 and "Idempotency-Key" in response.json()["error"]
