"""A document translated to the end by a reviewer who approves every unit, by the project (through the
Lambda handler, against moto DynamoDB with the table of template.yaml, or SQLite in memory) or by the
naive design (bench/naive_agent.py, its own table in moto): the runs bench/step_cost.py and
bench/dynamo_cost.py measure. Meters see each run's DynamoDB client before its setup, are reset
when the setup is done and marked after each step.

A reviewed batch is the verdicts on one batch of proposals and every step until the next proposals
(or the end)."""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import boto3
from botocore.exceptions import ClientError
from moto import mock_aws
from pydantic_ai.models import Model

import handlers.api as api
from agent_core.distill import distiller_for
from bench.naive_agent import NaiveAgent, NaiveStore
from handlers.deps import LazyServices
from service.container import build_services
from storage.dynamodb import DynamoDBSessionStorage
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.aws import create_sessions_table
from tests.client import ScriptedClient, lambda_transport

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "httpx-CHANGELOG.md"
"""The httpx changelog (../shared/corpus holds the same file)."""

T = TypeVar("T")


class Meter(Protocol):
    """What watches a run."""

    def attach(self, client: Any) -> None:
        """The run's DynamoDB client, before any call of the run's."""

    def reset(self) -> None:
        """The setup (the table, the upload) ends here."""

    def mark(self) -> None:
        """A step ends here."""


@dataclass
class Review:
    """Where a run's reviewed batches fall among its steps."""

    steps: int = 0
    batches: list[tuple[int, int]] = field(default_factory=list)
    """Per reviewed batch, its steps [a, b)."""
    units: list[int] = field(default_factory=list)
    """Per reviewed batch, how many units the reviewer answered."""
    failed: str = ""
    """Why the run stopped before the end (the naive item outgrowing DynamoDB's 400 KB), if it did."""


def document(size: int, corpus: Path = CORPUS) -> str:
    """`corpus` repeated or cut (at a paragraph) to about `size` characters."""
    text = corpus.read_text(encoding="utf-8")
    copies = [text] * (size // max(1, len(text)) + 1)
    joined = "\n\n".join(copies)
    cut = joined.rfind("\n\n", 0, size)
    return joined[: cut if cut > 0 else size]


def run_project(
    source: str,
    model: Model,
    pseudo: Model,
    meters: Sequence[Meter],
    *,
    memory: bool | None = None,
    backend: str = "dynamodb",
    finish: Callable[[Storage, str], T] | None = None,
) -> tuple[Review, T | None]:
    """The project through the Lambda handler; `finish(storage, session_id)` runs at the end, inside moto."""
    review = Review()
    # Powertools prints a metrics line per step; it still builds them, the terminal is spared.
    with mock_aws(), contextlib.redirect_stdout(io.StringIO()):
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "bench")
        for meter in meters:
            meter.attach(client)
        storage: Storage = (
            DynamoDBSessionStorage(client, table_name="bench") if backend == "dynamodb" else SQLiteStorage(":memory:")
        )
        # Production's wiring; the pseudo model's own distiller (the rules), not a measuring wrapper.
        services = build_services(
            storage=storage, model=model, distiller=distiller_for(pseudo), translation_memory=memory
        )
        api.app.state.services = LazyServices(services)
        call = lambda_transport(api.handler, sub="bench")
        _, created = call("POST", "/api/sessions", None)
        session_id = created["id"]
        call("POST", f"/api/sessions/{session_id}/files", {"name": "doc.md", "content": source})
        for meter in meters:
            meter.reset()
        _approve_all(call, session_id, meters, review)
        _, view = call("GET", f"/api/sessions/{session_id}", None)
        _, file = call("GET", f"/api/sessions/{session_id}/files/{view['files'][0]['fileId']}", None)
        assert file["progress"]["complete"], "the document did not complete"
        return review, finish(storage, session_id) if finish else None


def _approve_all(call: Any, session_id: str, meters: Sequence[Meter], review: Review) -> None:
    """The session's steps through `call`, every proposal approved, each step marked on the meters."""

    def step(method: str, path: str, body: Any = None) -> tuple[int, Any]:
        result: tuple[int, Any] = call(method, path, body)
        if path == "/api/next":
            review.steps += 1
            for meter in meters:
                meter.mark()
        return result

    reviewer = ScriptedClient(step, session_id=session_id)
    agent = reviewer.do_next({"userInput": "Translate doc.md into French."})
    while agent["copilotRequests"]:
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
        opened = review.steps
        agent = reviewer.do_next({"copilotResponses": verdicts})
        review.batches.append((opened, review.steps))
        review.units.append(len(verdicts))


def run_naive(source: str, model: Model, meters: Sequence[Meter]) -> Review:
    """The naive design on the same document; it stops where DynamoDB would refuse its item."""
    review = Review()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        for meter in meters:
            meter.attach(client)
        store = NaiveStore(client, "naive")
        store.create_table()
        agent = NaiveAgent(model, store)
        session_id, file_id = "s_naive", "f_" + "0" * 32
        agent.upload(session_id, file_id, "doc.md", source)
        for meter in meters:
            meter.reset()

        def step(run: Callable[[], T]) -> T:
            answer = run()
            review.steps += 1
            for meter in meters:
                meter.mark()
            return answer

        answer = step(lambda: agent.start(session_id, file_id, "doc.md", "Translate doc.md into French."))
        while answer.proposals:
            approvals = {p.tool_call_id: True for p in answer.proposals}
            opened = review.steps
            try:
                answer = step(functools.partial(agent.step, session_id, approvals))
            except ClientError as exc:  # real DynamoDB refuses an item over 400 KB too
                translated = store.load(session_id)[1].translated_chars
                review.failed = f"step {review.steps + 1}, {translated:,} characters in: {exc}"
                return review
            review.batches.append((opened, review.steps))
            review.units.append(len(approvals))
        assert store.load(session_id)[1].complete, "the naive design did not complete the document"
    return review
