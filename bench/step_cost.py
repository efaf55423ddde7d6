"""Bounded cost per step: translate documents of ~10 KB, ~100 KB and ~1 MB with the pseudo model.

Runs the scripted reviewer (approve every unit) through the Lambda handler against moto DynamoDB
and prints, per document: bytes sent to the model per request (median of the first and of the last
quarter, and their ratio); total bytes sent against a full-history loop replayed on the same
messages; DynamoDB requests and bytes per step (first and last quarter, ratio); in-process
milliseconds per step; peak memory. A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/step_cost.py            # 10 KB and 100 KB
    .venv/bin/python bench/step_cost.py --sizes 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
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
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse  # noqa: E402
from pydantic_ai.models import Model, ModelRequestParameters  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402

import handlers.api as api  # noqa: E402
from agent_core.distill_model import distiller_for  # noqa: E402
from agent_core.models import resolve_model  # noqa: E402
from handlers.deps import LazyServices  # noqa: E402
from service.container import build_services  # noqa: E402
from storage.dynamodb import DynamoDBSessionStorage  # noqa: E402
from storage.interface import Storage  # noqa: E402
from storage.sqlite import SQLiteStorage  # noqa: E402
from tests.aws import create_sessions_table  # noqa: E402
from tests.client import ScriptedClient, lambda_transport  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "httpx-CHANGELOG.md"


class MeasuredModel(WrapperModel):
    """Records the JSON size of what each request sends the model."""

    def __init__(self, wrapped: Model) -> None:
        super().__init__(wrapped)
        self.sent: list[int] = []
        self.system_bytes: int = 0

    async def request(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None, params: ModelRequestParameters
    ) -> ModelResponse:
        self.sent.append(len(ModelMessagesTypeAdapter.dump_json(messages)))
        first = messages[0]
        if isinstance(first, ModelRequest):
            self.system_bytes = len(ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=first.parts[:1])]))
        return await super().request(messages, model_settings, params)


@dataclass
class DynamoCounter:
    """Counts DynamoDB requests and bytes (request and response bodies) per step."""

    requests: int = 0
    bytes: int = 0
    per_step: list[tuple[int, int]] = field(default_factory=list)

    def attach(self, client: Any) -> None:
        client.meta.events.register("before-send.dynamodb.*", self._sent)
        client.meta.events.register("after-call.dynamodb.*", self._received)

    def _sent(self, request: Any, **_: Any) -> None:
        self.requests += 1
        self.bytes += len(request.body or b"")

    def _received(self, http_response: Any, **_: Any) -> None:
        self.bytes += len(http_response.content or b"")

    def mark(self) -> None:
        self.per_step.append((self.requests, self.bytes))
        self.requests = self.bytes = 0


def document(size: int) -> str:
    text = CORPUS.read_text(encoding="utf-8")
    copies = []
    while sum(len(c) for c in copies) < size:
        copies.append(text)
    joined = "\n\n".join(copies)
    cut = joined.rfind("\n\n", 0, size)
    return joined[: cut if cut > 0 else size]


def quarters(values: list[float]) -> tuple[float, float]:
    q = max(1, len(values) // 4)
    return statistics.median(values[:q]), statistics.median(values[-q:])


def full_history_bytes(storage: Storage, session_id: str, system: int) -> int:
    """What a loop that sends the whole history on every request would have sent, on the same messages."""
    messages: list[ModelMessage] = []
    cursor = None
    while True:
        page = storage.list_messages(session_id, cursor=cursor, limit=500)
        messages += page.items
        cursor = page.next_cursor
        if cursor is None:
            break
    sizes = [len(ModelMessagesTypeAdapter.dump_json([m])) for m in messages]
    total = 0
    running = system
    for message, size in zip(messages, sizes, strict=True):
        if isinstance(message, ModelResponse):
            total += running  # the request that produced this response carried everything before it
        running += size
    return total


def run(size: int, backend: str = "dynamodb") -> dict[str, Any]:
    source = document(size)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "bench")
        counter = DynamoCounter()
        counter.attach(client)
        storage: Storage = (
            DynamoDBSessionStorage(client, table_name="bench") if backend == "dynamodb" else SQLiteStorage(":memory:")
        )
        pseudo = resolve_model("pseudo")
        model = MeasuredModel(pseudo)
        # Production's wiring; the pseudo model's own distiller (the rules), not the measured wrapper.
        services = build_services(storage=storage, model=model, distiller=distiller_for(pseudo))
        api.app.state.services = LazyServices(services)
        call = lambda_transport(api.handler, sub="bench")
        _, created = call("POST", "/api/sessions", None)
        call("POST", f"/api/sessions/{created['id']}/files", {"name": "doc.md", "content": source})
        step_ms: list[float] = []
        counter.mark()
        counter.per_step.clear()

        def timed(method: str, path: str, body: Any = None) -> tuple[int, Any]:
            started = time.perf_counter()
            result = call(method, path, body)
            if path == "/api/next":
                step_ms.append((time.perf_counter() - started) * 1000)
                counter.mark()
            return result

        started = time.perf_counter()
        client_ = ScriptedClient(timed, session_id=created["id"])
        agent = client_.do_next({"userInput": "Translate doc.md into French."})
        while agent["copilotRequests"]:
            verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
            agent = client_.do_next({"copilotResponses": verdicts})
        elapsed = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
        _, view = call("GET", f"/api/sessions/{created['id']}/files/{_file_id(call, created['id'])}", None)
        assert view["progress"]["complete"], "the document did not complete"
        full = full_history_bytes(storage, created["id"], model.system_bytes)
    first_model, last_model = quarters([float(s) for s in model.sent])
    requests = [float(r) for r, _ in counter.per_step] or [0.0]
    dbytes = [float(b) for _, b in counter.per_step] or [0.0]
    first_req, last_req = quarters(requests)
    first_bytes, last_bytes = quarters(dbytes)
    return {
        "chars": len(source),
        "steps": len(step_ms),
        "model_requests": len(model.sent),
        "model_first": first_model,
        "model_last": last_model,
        "model_total": sum(model.sent),
        "full_history": full,
        "ddb_req_first": first_req,
        "ddb_req_last": last_req,
        "ddb_req_max": max(requests),
        "ddb_bytes_first": first_bytes,
        "ddb_bytes_last": last_bytes,
        "ms_median": statistics.median(step_ms),
        "ms_p95": sorted(step_ms)[int(len(step_ms) * 0.95) - 1],
        "seconds": elapsed,
        "peak_mb": peak / 1e6,
    }


def _file_id(call: Any, session_id: str) -> str:
    _, view = call("GET", f"/api/sessions/{session_id}", None)
    return str(view["files"][0]["fileId"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--backend",
        choices=["dynamodb", "memory"],
        default="dynamodb",
        help="dynamodb: moto (the default); memory: SQLite in memory, in process (no DynamoDB figures)",
    )
    parser.add_argument("--exact-moto", action="store_true", help="do not patch moto's whole-table transaction copy")
    args = parser.parse_args()
    if not args.exact_moto:
        from bench import moto_fast

        moto_fast.install()
    for size in args.sizes:
        r = run(size, args.backend)
        print(
            f"\n== document of {r['chars']:,} characters: {r['steps']:,} steps, "
            f"{r['model_requests']:,} model requests, {r['seconds']:.0f} s"
        )
        print(
            f"model bytes per request: first quarter median {r['model_first']:,.0f}, last quarter median "
            f"{r['model_last']:,.0f}, late/early ratio {r['model_last'] / r['model_first']:.2f}"
        )
        print(
            f"model bytes in total: {r['model_total']:,} vs full-history loop {r['full_history']:,} "
            f"= {100 * r['model_total'] / r['full_history']:.1f}%"
        )
        if args.backend == "dynamodb":
            print(
                f"DynamoDB requests per step: first quarter median {r['ddb_req_first']:.0f}, "
                f"last {r['ddb_req_last']:.0f}, max {r['ddb_req_max']:.0f}; "
                f"ratio {r['ddb_req_last'] / r['ddb_req_first']:.2f}"
            )
            print(
                f"DynamoDB bytes per step: first quarter median {r['ddb_bytes_first']:,.0f}, last "
                f"{r['ddb_bytes_last']:,.0f}, ratio {r['ddb_bytes_last'] / r['ddb_bytes_first']:.2f}"
            )
        print(
            f"in-process ms per step: median {r['ms_median']:.1f}, p95 {r['ms_p95']:.1f}; "
            f"peak RSS of the process {r['peak_mb']:.1f} MB"
        )


if __name__ == "__main__":
    main()
