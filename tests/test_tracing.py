"""X-Ray tracing (Powertools Tracer): off unless the stack turns it on; on, the handler's trace is useful.

The traced run happens in a subprocess (the X-Ray SDK patches botocore for the whole process) that
believes it is in Lambda: `LAMBDA_TASK_ROOT`, a `_X_AMZN_TRACE_ID`, and the daemon address pointing
at a UDP socket this test reads the emitted subsegments from. Storage is moto DynamoDB in that
process, so the DynamoDB calls must appear beneath the handler.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import handlers.tracing as tracing

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import json, sys
from moto import mock_aws
with mock_aws():
    import boto3
    from tests.aws import create_sessions_table
    create_sessions_table(boto3.client("dynamodb", region_name="us-east-1"), "traced")
    import handlers.api as api
    from tests.events import FakeLambdaContext, http_event
    created = api.handler(http_event("POST", "/api/sessions"), FakeLambdaContext())
    session = json.loads(created["body"])["id"]
    step = api.handler(
        http_event("POST", "/api/next", {"sessionId": session, "userInput": "Translate into French."}),
        FakeLambdaContext(),
    )
    print(json.dumps({"session": session, "statuses": [created["statusCode"], step["statusCode"]]}))
"""


def test_off_by_default_and_outside_lambda(monkeypatch: Any) -> None:
    def handler(event: Any, context: Any) -> Any:
        return event

    monkeypatch.delenv("POWERTOOLS_TRACE_DISABLED", raising=False)
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    assert not tracing.enabled(), "tracing stays off unless POWERTOOLS_TRACE_DISABLED=false"
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "false")
    monkeypatch.delenv("LAMBDA_TASK_ROOT")
    assert not tracing.enabled(), "no X-Ray daemon outside Lambda"
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    monkeypatch.setenv("AWS_SAM_LOCAL", "true")
    assert not tracing.enabled(), "nor under sam local"
    assert tracing.traced(handler) is handler
    tracing.annotate(session_id="s_x")  # a no-op when off


@pytest.mark.slow
def test_the_default_import_loads_no_xray_sdk() -> None:
    code = "import sys, handlers.api; print('aws_xray_sdk' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STORAGE_BACKEND": "memory"}
    env.pop("POWERTOOLS_TRACE_DISABLED", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_traced_invocations_reach_the_daemon_with_annotations_and_dynamodb_calls() -> None:
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(10)
    port = daemon.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LAMBDA_TASK_ROOT": str(ROOT),
        "POWERTOOLS_TRACE_DISABLED": "false",
        "POWERTOOLS_SERVICE_NAME": "translation-agent",
        "_X_AMZN_TRACE_ID": "Root=1-674b1c2d-5f2e4a6b8c9d0e1f2a3b4c5d;Parent=53995c3f42cd8ad8;Sampled=1",
        "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{port}",
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
        "STORAGE_BACKEND": "dynamodb",
        "SESSIONS_TABLE": "traced",
        "AGENT_MODEL": "pseudo",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }
    env.pop("AWS_SAM_LOCAL", None)
    try:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr[-2000:]
        run = json.loads(out.stdout.strip().splitlines()[-1])
        assert run["statuses"] == [201, 200]
        documents = _received(daemon)
    finally:
        daemon.close()

    handlers = [d for d in documents if d.get("name") == "## handler"]
    assert len(handlers) == 2, [d.get("name") for d in documents]
    annotations = [h.get("annotations", {}) for h in handlers]
    assert [a.get("status") for a in annotations] == [201, 200]
    assert annotations[1].get("session_id") == run["session"] and annotations[1].get("actor") in ("user", "agent")
    assert annotations[0].get("ColdStart") is True and annotations[1].get("ColdStart") is False
    assert all("response" not in json.dumps(h.get("metadata", {})) for h in handlers), "responses hold documents"
    dynamodb = [s for s in _all_subsegments(documents) if str(s.get("name")).lower() == "dynamodb"]
    operations = {s.get("aws", {}).get("operation") for s in dynamodb}
    assert {"TransactWriteItems", "Query"} <= operations, operations


def _received(daemon: socket.socket) -> list[dict[str, Any]]:
    """Every segment document the SDK sent (`{"format": "json", "version": 1}` header, then the JSON)."""
    documents: list[dict[str, Any]] = []
    daemon.settimeout(1)
    while True:
        try:
            packet, _ = daemon.recvfrom(65536)
        except TimeoutError:
            return documents
        header, _, body = packet.decode("utf-8").partition("\n")
        assert json.loads(header) == {"format": "json", "version": 1}
        documents.append(json.loads(body))


def _all_subsegments(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    stack = list(documents)
    while stack:
        document = stack.pop()
        found.append(document)
        stack.extend(document.get("subsegments", []))
    return found
