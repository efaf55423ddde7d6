"""Bounded cost per step: translate documents of ~10 KB, ~100 KB and ~1 MB with the pseudo model.

Runs the scripted reviewer (approve every unit) through the Lambda handler against moto DynamoDB
(bench/reviewed_run.py) and prints, per document: bytes sent to the model per request (median of
the first and of the last quarter, and their ratio); total bytes sent against a full-history loop
replayed on the same messages; DynamoDB requests and bytes per step (first and last quarter,
ratio); peak memory. Then, side by side with a naive design measured in the same run
(bench/naive_agent.py: pydantic-ai deferred tools, the whole history in one DynamoDB item, the same
pseudo model, reviewer and moto), per step and per reviewed batch: DynamoDB requests and bytes,
model bytes and late/early ratios. What DynamoDB bills and what a user waits for are
bench/dynamo_cost.py's. A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/step_cost.py            # 10 KB and 100 KB, with the naive design
    .venv/bin/python bench/step_cost.py --sizes 1000000 --memory off --no-naive
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse  # noqa: E402
from pydantic_ai.models import Model, ModelRequestParameters  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402

from agent_core.models import resolve_model  # noqa: E402
from bench.dynamo_meter import DynamoMeter  # noqa: E402
from bench.reviewed_run import Review, document, run_naive, run_project  # noqa: E402
from storage.interface import Storage  # noqa: E402


class MeasuredModel(WrapperModel):
    """Records the JSON size of what each request sends the model, per step (a meter of
    bench/reviewed_run.py: sized at the step's mark, after it)."""

    def __init__(self, wrapped: Model) -> None:
        super().__init__(wrapped)
        self.per_step: list[list[int]] = []
        self.system_bytes: int = 0
        self._pending: list[list[ModelMessage]] = []

    async def request(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None, params: ModelRequestParameters
    ) -> ModelResponse:
        self._pending.append(list(messages))
        return await super().request(messages, model_settings, params)

    def attach(self, client: Any) -> None:
        """Nothing of DynamoDB's."""

    def reset(self) -> None:
        self._pending.clear()

    def mark(self) -> None:
        """Size the requests sent since the last mark: one step's."""
        sizes = []
        for messages in self._pending:
            sizes.append(len(ModelMessagesTypeAdapter.dump_json(messages)))
            first = messages[0]
            if isinstance(first, ModelRequest):
                self.system_bytes = len(ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=first.parts[:1])]))
        self.per_step.append(sizes)
        self._pending.clear()

    @property
    def sent(self) -> list[int]:
        """Bytes sent per model request, in order."""
        return [size for step in self.per_step for size in step]


@dataclass(frozen=True)
class Trace:
    """What one design did, step by step: the raw lists the side-by-side figures come from."""

    review: Review
    dynamo: DynamoMeter
    model: MeasuredModel


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
    total = 0
    running = system
    for message in messages:
        if isinstance(message, ModelResponse):
            total += running  # the request that produced this response carried everything before it
        running += len(ModelMessagesTypeAdapter.dump_json([message]))
    return total


def run(size: int, backend: str, pseudo: Model, memory: bool | None) -> tuple[dict[str, Any], Trace]:
    """The project through the Lambda handler: its own figures and the step-by-step trace."""
    source = document(size)
    model = MeasuredModel(pseudo)
    dynamo = DynamoMeter(capacity=False)
    started = time.perf_counter()
    review, full = run_project(
        source,
        model,
        pseudo,
        [dynamo, model],
        memory=memory,
        backend=backend,
        finish=lambda storage, sid: full_history_bytes(storage, sid, model.system_bytes),
    )
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
    first_model, last_model = quarters([float(s) for s in model.sent])
    requests = [float(s.requests) for s in dynamo.steps] or [0.0]
    dbytes = [float(s.bytes) for s in dynamo.steps] or [0.0]
    first_req, last_req = quarters(requests)
    first_bytes, last_bytes = quarters(dbytes)
    return {
        "chars": len(source),
        "steps": review.steps,
        "model_requests": len(model.sent),
        "model_first": first_model,
        "model_last": last_model,
        "model_total": sum(model.sent),
        "full_history": full or 0,
        "ddb_req_first": first_req,
        "ddb_req_last": last_req,
        "ddb_req_max": max(requests),
        "ddb_bytes_first": first_bytes,
        "ddb_bytes_last": last_bytes,
        "seconds": elapsed,
        "ddb_operations": dict(dynamo.operations.most_common()),
        "peak_mb": peak / 1e6,
    }, Trace(review, dynamo, model)


def run_naive_trace(size: int, pseudo: Model) -> Trace:
    """The naive design (bench/naive_agent.py) on the same document, model, reviewer and moto."""
    model = MeasuredModel(pseudo)
    dynamo = DynamoMeter(capacity=False)
    review = run_naive(document(size), model, [dynamo, model])
    return Trace(review, dynamo, model)


@dataclass(frozen=True)
class Side:
    """One design's figures per step and per reviewed batch."""

    steps: int
    batches: int
    req_step: tuple[float, float]
    """(median, mean), as every pair below."""
    req_batch: tuple[float, float]
    bytes_step: tuple[float, float]
    bytes_batch: tuple[float, float]
    model_request: tuple[float, float]
    model_bytes_batch: tuple[float, float]
    model_requests_batch: float
    units_batch: float
    late_early: tuple[float, float, float]
    """Last quarter over first quarter of the batches (medians): DynamoDB requests, DynamoDB bytes, model bytes."""


def side(trace: Trace) -> Side:
    """The per-step and per-batch figures of a trace."""
    batches = trace.review.batches
    steps = trace.dynamo.steps
    req = [float(sum(s.requests for s in steps[a:b])) for a, b in batches]
    byt = [float(sum(s.bytes for s in steps[a:b])) for a, b in batches]
    mod = [float(sum(sum(m) for m in trace.model.per_step[a:b])) for a, b in batches]
    calls = [float(sum(len(m) for m in trace.model.per_step[a:b])) for a, b in batches]
    ratios = [last / first if first else float("nan") for first, last in map(quarters, (req, byt, mod))]
    return Side(
        steps=trace.review.steps,
        batches=len(batches),
        req_step=_pair([float(s.requests) for s in steps]),
        req_batch=_pair(req),
        bytes_step=_pair([float(s.bytes) for s in steps]),
        bytes_batch=_pair(byt),
        model_request=_pair([float(s) for s in trace.model.sent]),
        model_bytes_batch=_pair(mod),
        model_requests_batch=statistics.mean(calls) if calls else 0.0,
        units_batch=statistics.mean(float(u) for u in trace.review.units) if trace.review.units else 0.0,
        late_early=(ratios[0], ratios[1], ratios[2]),
    )


def _pair(values: list[float]) -> tuple[float, float]:
    return (statistics.median(values), statistics.mean(values)) if values else (0.0, 0.0)


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value == value else "n/a (none early)"  # NaN: the first quarter's median is 0


def print_sides(project: Side, naive: Side) -> None:
    """The two designs side by side."""
    pair = "{0:,.1f} ({1:,.1f})"
    whole = "{0:,.0f} ({1:,.0f})"
    rows = [
        ("steps (POST /api/next or naive step)", str(project.steps), str(naive.steps)),
        ("reviewed batches", str(project.batches), str(naive.batches)),
        ("units per reviewed batch, mean", f"{project.units_batch:.1f}", f"{naive.units_batch:.1f}"),
        ("DynamoDB requests per step", pair.format(*project.req_step), pair.format(*naive.req_step)),
        ("DynamoDB requests per batch", pair.format(*project.req_batch), pair.format(*naive.req_batch)),
        ("DynamoDB bytes per step", whole.format(*project.bytes_step), whole.format(*naive.bytes_step)),
        ("DynamoDB bytes per batch", whole.format(*project.bytes_batch), whole.format(*naive.bytes_batch)),
        ("model bytes per request", whole.format(*project.model_request), whole.format(*naive.model_request)),
        ("model bytes per batch", whole.format(*project.model_bytes_batch), whole.format(*naive.model_bytes_batch)),
        ("model requests per batch, mean", f"{project.model_requests_batch:.2f}", f"{naive.model_requests_batch:.2f}"),
    ]
    labels = ("DynamoDB requests", "DynamoDB bytes", "model bytes")
    for label, mine, theirs in zip(labels, project.late_early, naive.late_early, strict=True):
        rows.append((f"late/early per batch: {label}", _ratio(mine), _ratio(theirs)))
    print(f"{'per step and per reviewed batch, median (mean)':<48} {'project':>22} {'naive':>22}")
    for label, p, n in rows:
        print(f"{label:<48} {p:>22} {n:>22}")


def print_project(r: dict[str, Any], backend: str) -> None:
    """The project's own figures."""
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
    if backend == "dynamodb":
        print(
            f"DynamoDB requests per step: first quarter median {r['ddb_req_first']:.0f}, "
            f"last {r['ddb_req_last']:.0f}, max {r['ddb_req_max']:.0f}; "
            f"ratio {r['ddb_req_last'] / r['ddb_req_first']:.2f}"
        )
        operations = ", ".join(f"{name} {count:,}" for name, count in r["ddb_operations"].items())
        print(f"DynamoDB requests by operation over all steps: {operations}")
        print(
            f"DynamoDB bytes per step: first quarter median {r['ddb_bytes_first']:,.0f}, last "
            f"{r['ddb_bytes_last']:,.0f}, ratio {r['ddb_bytes_last'] / r['ddb_bytes_first']:.2f}"
        )
    print(f"peak RSS of the process {r['peak_mb']:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--backend",
        choices=["dynamodb", "memory"],
        default="dynamodb",
        help="dynamodb: moto (the default); memory: SQLite in memory, in process (no DynamoDB figures)",
    )
    parser.add_argument(
        "--memory",
        choices=["on", "off"],
        help="the project's translation memory (proposals and references); default: TRANSLATION_MEMORY, on",
    )
    parser.add_argument("--no-naive", action="store_true", help="do not measure the naive design beside the project")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    for size in args.sizes:
        pseudo = resolve_model("pseudo")  # one model for both designs: the same translation work
        memory = None if args.memory is None else args.memory == "on"
        r, trace = run(size, args.backend, pseudo, memory)
        print_project(r, args.backend)
        if args.backend == "dynamodb" and not args.no_naive:
            started = time.perf_counter()
            naive = run_naive_trace(size, pseudo)
            print(f"-- naive design (bench/naive_agent.py) in {time.perf_counter() - started:.0f} s")
            if naive.review.failed:
                print(f"the naive design stopped at {naive.review.failed}; its figures cover the steps before")
            print_sides(side(trace), side(naive))


if __name__ == "__main__":
    main()
