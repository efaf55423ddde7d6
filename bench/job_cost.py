"""What a job of several languages asks of DynamoDB and of the client, against making the sessions by hand.

One job of `--languages` languages for a document of `--size` characters (the httpx changelog) goes
through the Lambda handler against moto (the table of template.yaml), with `--delay-ms` slept in every
DynamoDB call as a real table's latency (bench/dynamo_meter.py). Printed, in one run: the HTTP requests
a client makes to set the languages up (a job: one; by hand: a session and an upload per language), and
for each request kind its DynamoDB requests, sequential round trips, write and read units (from item
sizes) and bytes: `POST /api/jobs`, the same by hand, `GET /api/jobs/{id}` while the languages are
untouched (a process that has not read the files yet, then a warm one) and once one language is
complete. A benchmark: it asserts nothing.

    .venv/bin/python bench/job_cost.py                    # 3 languages, 10 KB, 6 ms a call
    .venv/bin/python bench/job_cost.py --languages 12 --size 100000
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

import boto3  # noqa: E402
from moto import mock_aws  # noqa: E402

import handlers.api as api  # noqa: E402
from agent_core.models import resolve_model  # noqa: E402
from bench.dynamo_meter import DynamoMeter, StepFigures  # noqa: E402
from bench.reviewed_run import CORPUS, document  # noqa: E402
from handlers.deps import LazyServices  # noqa: E402
from service.container import build_services  # noqa: E402
from storage.dynamodb import DynamoDBSessionStorage  # noqa: E402
from tests.aws import create_sessions_table  # noqa: E402
from tests.client import ScriptedClient, lambda_transport  # noqa: E402

LANGUAGES = ["de", "fr", "pl", "ja", "es", "it", "pt-BR", "nl", "sv", "ko", "zh-Hans", "tr", "cs", "uk", "fi", "da"]


def _services(client: Any) -> None:
    storage = DynamoDBSessionStorage(client, table_name="bench")
    api.app.state.services = LazyServices(build_services(storage=storage, model=resolve_model("pseudo")))


def measure(languages: list[str], source: str, delay: float) -> list[tuple[str, int, StepFigures]]:
    """Each request kind: its label, the HTTP requests it took, and its DynamoDB figures."""
    rows: list[tuple[str, int, StepFigures]] = []
    files = [{"name": "doc.md", "content": source}]
    with mock_aws(), contextlib.redirect_stdout(io.StringIO()):
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "bench")
        meter = DynamoMeter(delay=delay)
        meter.attach(client)
        _services(client)
        call = lambda_transport(api.handler, sub="bench")

        def measured(label: str, http: int, run: Any) -> Any:
            meter.reset()
            result = run()
            meter.mark()
            rows.append((label, http, meter.steps[-1]))
            return result

        _, job = measured(
            "POST /api/jobs", 1, lambda: call("POST", "/api/jobs", {"files": files, "targetLanguages": languages})
        )

        def by_hand() -> None:
            for tag in languages:
                _, created = call("POST", "/api/sessions", {"targetLanguage": tag})
                call("POST", f"/api/sessions/{created['id']}/files", files[0])

        measured("the same by hand (a session and an upload each)", 2 * len(languages), by_hand)
        _services(client)  # a fresh process: no file text cached yet
        path = f"/api/jobs/{job['id']}"
        measured("GET /api/jobs/{id}, a cold process", 1, lambda: call("GET", path, None))
        measured("GET /api/jobs/{id}, warm", 1, lambda: call("GET", path, None))
        first = job["sessions"][languages[0]]
        reviewer = ScriptedClient(call, session_id=first)
        agent = reviewer.do_next({})
        while agent["copilotRequests"]:
            agent = reviewer.do_next(
                {"copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]}
            )
        _services(client)
        measured("GET /api/jobs/{id}, one language complete, cold", 1, lambda: call("GET", path, None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--languages", type=int, default=3, help=f"how many (at most {len(LANGUAGES)})")
    parser.add_argument("--size", type=int, default=10_000, help="the document's characters")
    parser.add_argument("--delay-ms", type=float, default=6.0, help="slept in each DynamoDB call")
    args = parser.parse_args()
    languages = LANGUAGES[: max(1, min(args.languages, len(LANGUAGES)))]
    source = document(args.size, CORPUS)
    rows = measure(languages, source, args.delay_ms / 1000)
    print(f"A job of {len(languages)} languages, {len(source):,} characters, {args.delay_ms:g} ms a DynamoDB call\n")
    print("| request | HTTP requests | DynamoDB requests | round trips | write units | read units | bytes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, http, f in rows:
        units = f"{f.write_units:.1f} | {f.read_units:.1f}"
        print(f"| {label} | {http} | {f.requests} | {f.round_trips} | {units} | {f.bytes:,} |")


if __name__ == "__main__":
    main()
