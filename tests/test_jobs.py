"""Jobs over HTTP (API.md "Jobs"): one upload into several languages, each its own session, on SQLite and
DynamoDB (moto). A job's languages go on, wait and fail on their own; a bad request stores nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from handlers.api import create_app
from storage.dynamodb import DynamoDBSessionStorage
from storage.errors import StorageUnavailableError
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.client import Reviewer, ScriptedClient, asgi_transport
from tests.conftest import make_backend
from tests.helpers import services_for

DOC = "# Install\n\nRun the installer first. Then restart the machine.\n\n- Open the settings.\n- Choose a language.\n"
NOTES = "Release notes.\n\nThe app starts faster.\n"


@pytest.fixture
def client(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage))) as test_client:
        yield test_client


def job(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("files", [{"name": "guide.md", "content": DOC}])
    created = client.post("/api/jobs", json=body)
    assert created.status_code == 201, created.text
    found: dict[str, Any] = created.json()
    return found


def drive(client: TestClient, sid: str) -> Reviewer:
    """A language's session driven to the end by the scripted client, approving every unit."""
    reviewer = Reviewer()
    reviewer.seen = 1  # approve all but every 4th, which is edited; no rejection on this short a document
    scripted = ScriptedClient(asgi_transport(client), session_id=sid)
    agent = scripted.do_next({})
    while agent["copilotRequests"]:
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
        agent = scripted.do_next({"copilotResponses": verdicts})
    return reviewer


def test_a_job_is_a_ready_session_per_language(client: TestClient) -> None:
    created = job(
        client,
        targetLanguages=["de", "French", "pl"],
        files=[{"name": "guide.md", "content": DOC}, {"name": "notes.md", "content": NOTES}],
    )
    assert list(created["sessions"]) == ["de", "fr", "pl"]
    view = client.get(f"/api/jobs/{created['id']}").json()
    assert list(view["languages"]) == ["de", "fr", "pl"]
    for tag, language in view["languages"].items():
        assert language["sessionId"] == created["sessions"][tag]
        assert language["state"] == "running"
        assert language["progress"]["segments"] == language["progress"]["segmentsLeft"] > 5
        assert language["progress"]["complete"] is False
        assert language["estimate"]["modelRequests"] >= 1 and language["estimate"]["inputTokens"] > 0
        assert language["spent"] == {"modelRequests": 0, "inputTokens": 0, "outputTokens": 0, "usd": 0.0}
        session = client.get(f"/api/sessions/{language['sessionId']}").json()
        assert session["targetLanguage"] == tag and [f["name"] for f in session["files"]] == ["guide.md", "notes.md"]
        assert session["state"] == "running" and session["segmentsLeft"] == language["progress"]["segments"]
        task = session["messages"][0]["parts"][0]["content"]
        assert task.startswith("Translate guide.md and notes.md into ")
    assert (
        "German"
        in client.get(f"/api/sessions/{created['sessions']['de']}").json()["messages"][0]["parts"][0]["content"]
    )
    assert view["estimate"]["inputTokens"] == sum(v["estimate"]["inputTokens"] for v in view["languages"].values())


def test_each_language_finishes_on_its_own(client: TestClient) -> None:
    created = job(client, targetLanguages=["de", "fr"])
    drive(client, created["sessions"]["de"])
    view = client.get(f"/api/jobs/{created['id']}").json()
    de, fr = view["languages"]["de"], view["languages"]["fr"]
    assert de["state"] == "complete" and de["progress"]["segmentsLeft"] == 0 and de["progress"]["complete"]
    assert de["spent"]["modelRequests"] >= 1 and de["spent"]["inputTokens"] > 0
    assert fr["state"] == "running" and fr["progress"]["segmentsLeft"] == fr["progress"]["segments"]
    assert view["spent"]["inputTokens"] == de["spent"]["inputTokens"]
    session = client.get(f"/api/sessions/{created['sessions']['de']}").json()
    assert session["state"] == "complete" and session["segmentsLeft"] == 0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"targetLanguages": ["de", "German"]}, "twice"),
        ({"targetLanguages": ["de", "Klingonese!"]}, "language"),
        ({"targetLanguages": []}, "targetLanguages"),
        ({"targetLanguages": ["de"], "model": "no-such-model"}, "model"),
        ({"targetLanguages": ["de", "fr"], "files": [{"name": "a.xlf", "content": "<xliff><broken"}]}, "XLIFF"),
        ({"targetLanguages": ["de"], "files": []}, "files"),
        ({"targetLanguages": ["de"], "extra": 1}, "extra"),
    ],
)
def test_a_bad_job_is_422_and_stores_nothing(client: TestClient, body: dict[str, Any], words: str) -> None:
    body.setdefault("files", [{"name": "guide.md", "content": DOC}])
    answer = client.post("/api/jobs", json=body)
    assert answer.status_code == 422, answer.text
    assert words.lower() in answer.text.lower()
    assert client.get("/api/sessions").json()["sessions"] == []


def test_another_callers_job_is_not_found(storage: Storage) -> None:
    from handlers import api
    from handlers.app import LazyServices
    from tests.client import lambda_transport

    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage))
    try:
        alice, bob = lambda_transport(api.handler, sub="alice"), lambda_transport(api.handler, sub="bob")
        status, created = alice(
            "POST", "/api/jobs", {"targetLanguages": ["de"], "files": [{"name": "a.md", "content": DOC}]}
        )
        assert status == 201, created
        assert alice("GET", f"/api/jobs/{created['id']}", None)[0] == 200
        status, body = bob("GET", f"/api/jobs/{created['id']}", None)
        assert status == 404 and body == alice("GET", "/api/jobs/j_" + "0" * 32, None)[1] | {
            "error": f"No job {created['id']}."
        }
        assert bob("GET", f"/api/sessions/{created['sessions']['de']}", None)[0] == 404
        assert alice("GET", "/api/jobs/not-an-id", None)[0] == 404
    finally:
        api.app.state.services = previous


class Throttle:
    """The store's throttle on the `at`-th call (1-based) it counts, none while `at` is 0."""

    def __init__(self) -> None:
        self.at = 0
        self.seen = 0

    def due(self) -> bool:
        self.seen += 1
        return self.seen == self.at


class ThrottledSQLite(SQLiteStorage):
    """The SQLite store as a busy store answers: StorageUnavailableError on the throttle's call (a call
    of any of the storage contracts' public methods counts)."""

    throttle = Throttle()

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name in PUBLIC and object.__getattribute__(self, "throttle").due():
            raise StorageUnavailableError("The session store is busy; try again shortly.", retry_after=1)
        return object.__getattribute__(self, name)


PUBLIC = {n for n in dir(Storage) if not n.startswith("_")} | {"put_job", "get_job"}


def throttled(name: str, request: pytest.FixtureRequest, tmp_path: Any) -> tuple[Storage, Throttle]:
    """A fresh store whose `Throttle` throttles a call: SQLite through `ThrottledSQLite`, DynamoDB (moto)
    answering the call with botocore's ThrottlingException, as DynamoDB does."""
    if name == "sqlite":
        sqlite = ThrottledSQLite(f"{tmp_path}/sessions.sqlite3")
        sqlite.throttle = Throttle()
        return sqlite, sqlite.throttle
    from botocore.exceptions import ClientError

    request.getfixturevalue("moto_table")
    dynamodb = make_backend("dynamodb", tmp_path)
    assert isinstance(dynamodb, DynamoDBSessionStorage)
    throttle = Throttle()

    def answer(event_name: str, **_: Any) -> None:
        if throttle.due():
            error = {"Error": {"Code": "ThrottlingException", "Message": "Rate of requests exceeds the allowed."}}
            raise ClientError(error, event_name.rsplit(".", 1)[-1])

    dynamodb.client.meta.events.register("before-call.dynamodb.*", answer)
    return dynamodb, throttle


def stored_jobs(storage: Storage) -> int:
    """How many jobs the store holds, read behind the contract's back."""
    if isinstance(storage, SQLiteStorage):
        with storage._transaction(write=False) as db:
            return int(db.execute("SELECT count(*) AS n FROM jobs").fetchone()["n"])
    assert isinstance(storage, DynamoDBSessionStorage)
    pages = storage.client.get_paginator("scan").paginate(TableName=storage.table)
    return sum(i["pk"]["S"].startswith("J#") for page in pages for i in page["Items"])


@pytest.mark.parametrize(
    ("name", "stride"),
    [
        ("sqlite", 4),
        ("dynamodb", 4),
        pytest.param("sqlite", 1, marks=pytest.mark.slow),
        pytest.param("dynamodb", 1, marks=pytest.mark.slow),
    ],
)
def test_a_job_is_created_whole_or_not_at_all_when_the_store_throttles(
    name: str, stride: int, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    """The store throttles one call of a job's creation (every `stride`-th in turn): the answer is 503
    and nothing of the job is left, or the call was a best-effort one and the job is whole."""
    storage, throttle = throttled(name, request, tmp_path)
    body = {"targetLanguages": ["de", "fr"], "files": [{"name": "guide.md", "content": DOC}]}
    with TestClient(create_app(services_for(storage))) as client:

        def sessions() -> set[str]:
            listed = client.get("/api/sessions", params={"limit": 100})
            assert listed.status_code == 200, listed.text
            return {s["id"] for s in listed.json()["sessions"]}

        created = client.post("/api/jobs", json=body)
        assert created.status_code == 201, created.text
        calls, throttle.seen = throttle.seen, 0
        kept, jobs, refused = set(created.json()["sessions"].values()), 1, 0
        assert sessions() == kept and stored_jobs(storage) == jobs
        for at in range(1, calls + 1, stride):
            throttle.at, throttle.seen = at, 0
            answer = client.post("/api/jobs", json=body)
            throttle.at = 0
            if answer.status_code == 201:  # the throttled write was a best-effort one (a detected language)
                jobs += 1
                kept |= set(answer.json()["sessions"].values())
            else:
                assert answer.status_code == 503, answer.text
                refused += 1
            assert sessions() == kept, f"the call {at} of {calls} throttled left sessions behind"
            assert stored_jobs(storage) == jobs, f"the call {at} of {calls} throttled left a job behind"
        assert refused > len(range(1, calls + 1, stride)) // 2, "most calls of a creation fail it when they fail"
        retried = client.post("/api/jobs", json=body)
        assert retried.status_code == 201, retried.text
        assert sessions() == kept | set(retried.json()["sessions"].values()) and stored_jobs(storage) == jobs + 1
