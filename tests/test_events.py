"""Every file in events/ through the Lambda handler, against a moto table built from template.yaml."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import boto3
import pytest

import handlers.api as api
from agent_core.document import FileState, initial_coverage
from agent_core.effects import StepEffects, StepToken
from agent_core.models import resolve_model
from agent_core.segmentation import segment_text
from handlers.deps import LazyServices
from service.sessions import MAX_FILES
from storage.dynamodb import DynamoDBSessionStorage
from storage.records import JobRecord
from tests.events import EVENTS, FakeLambdaContext, load_event
from tests.helpers import services_for

SESSION = "s_0123456789abcdef0123456789abcdef"
FILE = "f_0123456789abcdef0123456789abcdef"
JOB = "j_0123456789abcdef0123456789abcdef"
ROW = re.compile(r"^\| (?P<file>[\w.-]+\.json) \| (?P<route>[^|]+) \| (?P<status>\d{3}) \|$")


def expected_statuses() -> dict[str, int]:
    """The table in events/README.md: file → expected status."""
    rows = (ROW.match(line) for line in (EVENTS / "README.md").read_text(encoding="utf-8").splitlines())
    return {m["file"]: int(m["status"]) for m in rows if m}


def test_every_event_file_is_listed() -> None:
    assert sorted(expected_statuses()) == sorted(p.name for p in EVENTS.glob("*.json"))


@pytest.fixture
def seeded(moto_table: str) -> Iterator[DynamoDBSessionStorage]:
    """Alice's session with one file, under the fixed ids the events use."""
    storage = DynamoDBSessionStorage(boto3.client("dynamodb"), table_name=moto_table)
    stamp = "2026-11-30T12:00:00.000+00:00"
    token = StepToken(session_id=SESSION, owner="user-alice", version=0, created_at=stamp, message_count=0)
    storage.commit(token, StepEffects())
    content = "# Guide\n\nHello world.\n"
    file = FileState(
        file_id=FILE, name="guide.md", chars=len(content), covered=initial_coverage(content), created_at=stamp
    )
    storage.add_file(SESSION, file, content, segments=segment_text(content), max_files=MAX_FILES)
    figures = {"modelRequests": 2, "inputTokens": 3000, "outputTokens": 40, "segments": 2}
    storage.put_job(
        JobRecord(job_id=JOB, owner="user-alice", created_at=stamp, sessions={"de": SESSION}, estimates={"de": figures})
    )
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage, model=resolve_model("pseudo")))
    yield storage
    api.app.state.services = previous


@pytest.mark.parametrize("name", sorted(expected_statuses()))
def test_event(seeded: DynamoDBSessionStorage, name: str) -> None:
    before = seeded.get_session(SESSION)
    result = api.handler(load_event(name), FakeLambdaContext())
    assert result["statusCode"] == expected_statuses()[name], result.get("body")
    body = result.get("body") or ""
    if result["statusCode"] >= 400:
        error = json.loads(body)
        assert set(error) == {"error"} and error["error"] and "Traceback" not in body
        assert seeded.get_session(SESSION) == before, "a failed request changes nothing stored"
