"""Bounded cost per step: translate documents of ~10 KB, ~100 KB and ~1 MB with the pseudo model.

Runs the scripted reviewer (approve every unit) through the Lambda handler against moto DynamoDB
and prints, per document: bytes sent to the model per request (median of the first and of the last
quarter, and their ratio); total bytes sent against a full-history loop replayed on the same
messages; DynamoDB requests and bytes per step (first and last quarter, ratio); in-process
milliseconds per step; peak memory. Then, side by side with a naive design measured in the same
run (bench/naive_agent.py: pydantic-ai deferred tools, the whole history in one DynamoDB item,
the same pseudo model, reviewer and moto), per step and per reviewed batch: milliseconds, DynamoDB
requests, bytes and write units (as DynamoDB bills writes, by item size), model bytes, late/early
ratios, and project/naive milliseconds per batch (with --repeat, also the medians of every round's
batches pooled: steadier on a noisy machine than any one round's).
A reviewed batch is the verdicts on one batch of proposals and every step until the next proposals
(or the end). A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/step_cost.py            # 10 KB and 100 KB, with the naive design
    .venv/bin/python bench/step_cost.py --sizes 10000 100000 --repeat 3   # docs/benchmarks.md
    .venv/bin/python bench/step_cost.py --sizes 1000000 --memory off --no-naive
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import resource
import statistics
import sys
import time
import warnings
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
from botocore.exceptions import ClientError  # noqa: E402
from moto import mock_aws  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse  # noqa: E402
from pydantic_ai.models import Model, ModelRequestParameters  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402

import handlers.api as api  # noqa: E402
from agent_core.distill_model import distiller_for  # noqa: E402
from agent_core.models import resolve_model  # noqa: E402
from bench.dynamo_meter import DynamoCounter  # noqa: E402
from bench.naive_agent import NaiveAgent, NaiveStore  # noqa: E402
from handlers.deps import LazyServices  # noqa: E402
from service.container import build_services  # noqa: E402
from storage.dynamodb import DynamoDBSessionStorage  # noqa: E402
from storage.interface import Storage  # noqa: E402
from storage.sqlite import SQLiteStorage  # noqa: E402
from tests.aws import create_sessions_table  # noqa: E402
from tests.client import ScriptedClient, lambda_transport  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "httpx-CHANGELOG.md"


class MeasuredModel(WrapperModel):
    """Records the JSON size of what each request sends the model, measured after the step (`measure`)
    so that the measuring is not timed as the step's work."""

    def __init__(self, wrapped: Model) -> None:
        super().__init__(wrapped)
        self.sent: list[int] = []
        self.system_bytes: int = 0
        self._pending: list[list[ModelMessage]] = []

    async def request(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None, params: ModelRequestParameters
    ) -> ModelResponse:
        self._pending.append(list(messages))
        return await super().request(messages, model_settings, params)

    def measure(self) -> None:
        """Size the requests sent since the last call."""
        for messages in self._pending:
            self.sent.append(len(ModelMessagesTypeAdapter.dump_json(messages)))
            first = messages[0]
            if isinstance(first, ModelRequest):
                self.system_bytes = len(ModelMessagesTypeAdapter.dump_json([ModelRequest(parts=first.parts[:1])]))
        self._pending.clear()


@dataclass
class Trace:
    """What one design did, step by step: the raw lists the side-by-side figures come from."""

    step_ms: list[float] = field(default_factory=list)
    step_ddb: list[tuple[int, int]] = field(default_factory=list)
    """(requests, bytes) per step."""
    step_write_units: list[int] = field(default_factory=list)
    """DynamoDB write units per step (`write_units`)."""
    model_sent: list[int] = field(default_factory=list)
    """Bytes sent per model request."""
    batches: list[tuple[int, int, int, int]] = field(default_factory=list)
    """Per reviewed batch: its steps [a, b) and its model requests [c, d)."""
    units: list[int] = field(default_factory=list)
    """Per reviewed batch: how many units the reviewer answered."""
    failed: str = ""
    """Why the run stopped before the end (the naive item outgrowing DynamoDB's 400 KB), if it did."""

    def open_batch(self, units: int) -> tuple[int, int]:
        """Where the batch of `units` about to be reviewed starts."""
        self.units.append(units)
        return len(self.step_ms), len(self.model_sent)

    def close_batch(self, opened: tuple[int, int]) -> None:
        """The batch opened at `opened` ends here."""
        self.batches.append((opened[0], len(self.step_ms), opened[1], len(self.model_sent)))


def document(size: int) -> str:
    text = CORPUS.read_text(encoding="utf-8")
    copies: list[str] = []
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


def run(
    size: int, backend: str = "dynamodb", pseudo: Model | None = None, memory: bool | None = None
) -> tuple[dict[str, Any], Trace]:
    """The project through the Lambda handler: the original figures and the step-by-step trace."""
    source = document(size)
    trace = Trace()
    # Powertools prints a metrics line per step; it still builds them, the terminal is spared.
    with mock_aws(), contextlib.redirect_stdout(io.StringIO()):
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "bench")
        counter = DynamoCounter()
        counter.attach(client)
        storage: Storage = (
            DynamoDBSessionStorage(client, table_name="bench") if backend == "dynamodb" else SQLiteStorage(":memory:")
        )
        pseudo = pseudo or resolve_model("pseudo")
        model = MeasuredModel(pseudo)
        trace.model_sent = model.sent
        # Production's wiring; the pseudo model's own distiller (the rules), not the measured wrapper.
        services = build_services(
            storage=storage, model=model, distiller=distiller_for(pseudo), translation_memory=memory
        )
        api.app.state.services = LazyServices(services)
        call = lambda_transport(api.handler, sub="bench")
        _, created = call("POST", "/api/sessions", None)
        call("POST", f"/api/sessions/{created['id']}/files", {"name": "doc.md", "content": source})
        step_ms = trace.step_ms
        counter.reset()
        counter.operations.clear()
        trace.step_ddb = counter.per_step
        trace.step_write_units = counter.units_per_step

        def timed(method: str, path: str, body: Any = None) -> tuple[int, Any]:
            started = time.perf_counter()
            result = call(method, path, body)
            if path == "/api/next":
                step_ms.append((time.perf_counter() - started) * 1000)
                model.measure()
                counter.mark()
            return result

        started = time.perf_counter()
        client_ = ScriptedClient(timed, session_id=created["id"])
        agent = client_.do_next({"userInput": "Translate doc.md into French."})
        while agent["copilotRequests"]:
            verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
            opened = trace.open_batch(len(verdicts))
            agent = client_.do_next({"copilotResponses": verdicts})
            trace.close_batch(opened)
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
        "ddb_operations": dict(counter.operations.most_common()),
        "peak_mb": peak / 1e6,
    }, trace


def run_naive(size: int, pseudo: Model) -> Trace:
    """The naive design (bench/naive_agent.py) on the same document, model, reviewer and moto."""
    source = document(size)
    trace = Trace()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        store = NaiveStore(client, "naive")
        store.create_table()
        counter = DynamoCounter()
        counter.attach(client)
        model = MeasuredModel(pseudo)
        trace.model_sent = model.sent
        agent = NaiveAgent(model, store)
        counter.per_step = trace.step_ddb
        counter.units_per_step = trace.step_write_units
        session_id, file_id = "s_naive", "f_" + "0" * 32
        agent.upload(session_id, file_id, "doc.md", source)
        counter.reset()  # the table's creation and the upload are not steps

        def timed(step: Any) -> Any:
            started = time.perf_counter()
            answer = step()
            trace.step_ms.append((time.perf_counter() - started) * 1000)
            model.measure()
            counter.mark()
            return answer

        answer = timed(lambda: agent.start(session_id, file_id, "doc.md", "Translate doc.md into French."))
        while answer.proposals:
            approvals = {p.tool_call_id: True for p in answer.proposals}
            opened = trace.open_batch(len(approvals))
            try:
                answer = timed(functools.partial(agent.step, session_id, approvals))
            except ClientError as exc:  # real DynamoDB refuses an item over 400 KB too
                trace.units.pop()
                translated = store.load(session_id)[1].translated_chars
                trace.failed = f"step {len(trace.step_ms) + 1}, {translated:,} characters in: {exc}"
                return trace
            trace.close_batch(opened)
        _, state = store.load(session_id)
        assert state.complete, "the naive design did not complete the document"
    return trace


@dataclass(frozen=True)
class Side:
    """One design's figures per step and per reviewed batch."""

    steps: int
    batches: int
    ms_step: tuple[float, float]
    """(median, mean), as every pair below."""
    ms_batch: tuple[float, float]
    req_step: tuple[float, float]
    req_batch: tuple[float, float]
    bytes_step: tuple[float, float]
    bytes_batch: tuple[float, float]
    write_units_batch: tuple[float, float]
    model_request: tuple[float, float]
    model_requests_batch: float
    units_batch: float
    ms_unit: float
    """All the batches' milliseconds over all their units."""
    late_early: tuple[float, float, float, float]
    """Last quarter over first quarter of the batches (medians): ms, DynamoDB requests, DynamoDB bytes, model bytes."""


def batch_ms(trace: Trace) -> list[float]:
    """Milliseconds of each reviewed batch (the sum of its steps)."""
    return [sum(trace.step_ms[a:b]) for a, b, _, _ in trace.batches]


def side(trace: Trace) -> Side:
    """The per-step and per-batch figures of a trace."""
    ms = batch_ms(trace)
    req = [float(sum(r for r, _ in trace.step_ddb[a:b])) for a, b, _, _ in trace.batches]
    byt = [float(sum(n for _, n in trace.step_ddb[a:b])) for a, b, _, _ in trace.batches]
    mod = [float(sum(trace.model_sent[c:d])) for _, _, c, d in trace.batches]
    ratios = tuple(last / first if first else float("nan") for first, last in map(quarters, (ms, req, byt, mod)))
    wcu = [float(sum(trace.step_write_units[a:b])) for a, b, _, _ in trace.batches]
    return Side(
        steps=len(trace.step_ms),
        batches=len(trace.batches),
        ms_step=_pair(trace.step_ms),
        ms_batch=_pair(ms),
        req_step=_pair([float(r) for r, _ in trace.step_ddb]),
        req_batch=_pair(req),
        bytes_step=_pair([float(b) for _, b in trace.step_ddb]),
        bytes_batch=_pair(byt),
        write_units_batch=_pair(wcu),
        model_request=_pair([float(s) for s in trace.model_sent]),
        model_requests_batch=statistics.mean(float(d - c) for _, _, c, d in trace.batches),
        units_batch=statistics.mean(float(u) for u in trace.units),
        ms_unit=sum(ms) / max(1, sum(trace.units)),
        late_early=(ratios[0], ratios[1], ratios[2], ratios[3]),
    )


def _pair(values: list[float]) -> tuple[float, float]:
    return (statistics.median(values), statistics.mean(values)) if values else (0.0, 0.0)


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value == value else "n/a (none early)"  # NaN: the first quarter's median is 0


def print_sides(project: Side, naive: Side) -> None:
    """The two designs side by side, then the ratio the issue's target is about."""
    pair = "{0:,.1f} ({1:,.1f})"
    whole = "{0:,.0f} ({1:,.0f})"
    rows = [
        ("steps (POST /api/next or naive step)", str(project.steps), str(naive.steps)),
        ("reviewed batches", str(project.batches), str(naive.batches)),
        ("units per reviewed batch, mean", f"{project.units_batch:.1f}", f"{naive.units_batch:.1f}"),
        ("ms per step, median (mean)", pair.format(*project.ms_step), pair.format(*naive.ms_step)),
        ("ms per reviewed batch, median (mean)", pair.format(*project.ms_batch), pair.format(*naive.ms_batch)),
        ("ms per reviewed unit", f"{project.ms_unit:.1f}", f"{naive.ms_unit:.1f}"),
        ("DynamoDB requests per step", pair.format(*project.req_step), pair.format(*naive.req_step)),
        ("DynamoDB requests per batch", pair.format(*project.req_batch), pair.format(*naive.req_batch)),
        ("DynamoDB bytes per step", whole.format(*project.bytes_step), whole.format(*naive.bytes_step)),
        ("DynamoDB bytes per batch", whole.format(*project.bytes_batch), whole.format(*naive.bytes_batch)),
        (
            "DynamoDB write units per batch",
            whole.format(*project.write_units_batch),
            whole.format(*naive.write_units_batch),
        ),
        ("model bytes per request", whole.format(*project.model_request), whole.format(*naive.model_request)),
        ("model requests per batch, mean", f"{project.model_requests_batch:.2f}", f"{naive.model_requests_batch:.2f}"),
    ]
    labels = ("ms", "DynamoDB requests", "DynamoDB bytes", "model bytes")
    for label, mine, theirs in zip(labels, project.late_early, naive.late_early, strict=True):
        rows.append((f"late/early per batch: {label}", _ratio(mine), _ratio(theirs)))
    print(f"{'per step and per reviewed batch':<42} {'project':>22} {'naive':>22}")
    for label, p, n in rows:
        print(f"{label:<42} {p:>22} {n:>22}")
    median = project.ms_batch[0] / naive.ms_batch[0]
    mean = project.ms_batch[1] / naive.ms_batch[1]
    print(f"project/naive ms per reviewed batch: median {median:.2f}, mean {mean:.2f} (target at 10 KB: <= 1)")


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
    parser.add_argument(
        "--memory",
        choices=["on", "off"],
        help="the project's translation memory (proposals and references); default: TRANSLATION_MEMORY, on",
    )
    parser.add_argument("--repeat", type=int, default=1, help="rounds of both designs per size (the median is shown)")
    parser.add_argument("--no-naive", action="store_true", help="do not measure the naive design beside the project")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    if not args.exact_moto:
        from bench import moto_fast

        moto_fast.install()
    for size in args.sizes:
        pseudo = resolve_model("pseudo")  # one model for both designs: the same translation work
        memory = None if args.memory is None else args.memory == "on"
        compare = args.backend == "dynamodb" and not args.no_naive
        rounds: list[tuple[dict[str, Any], Trace, Trace | None, float]] = []
        for _ in range(args.repeat):  # alternate the designs, so a busy moment hits both
            r, trace = run(size, args.backend, pseudo, memory)
            started = time.perf_counter()
            naive = run_naive(size, pseudo) if compare else None
            rounds.append((r, trace, naive, time.perf_counter() - started))
        ratios = [side(t).ms_batch[0] / side(n).ms_batch[0] if n else 0.0 for _, t, n, _ in rounds]
        pick = sorted(range(len(rounds)), key=ratios.__getitem__)[len(rounds) // 2]
        r, trace, naive, naive_seconds = rounds[pick]
        print_project(r, args.backend)
        if naive is not None:
            print(f"-- naive design (bench/naive_agent.py) in {naive_seconds:.0f} s")
            if naive.failed:
                print(f"the naive design stopped at {naive.failed}; its figures cover the steps before")
            print_sides(side(trace), side(naive))
            if len(rounds) > 1:
                listed = ", ".join(f"{x:.2f}" for x in ratios)
                print(
                    f"project/naive median ms per batch in each of {len(rounds)} rounds: {listed} (shown: the median)"
                )
                mine = [m for _, t, _, _ in rounds for m in batch_ms(t)]
                theirs = [m for _, _, n, _ in rounds if n is not None for m in batch_ms(n)]
                print(
                    f"pooled over the {len(rounds)} rounds ({len(mine)} and {len(theirs)} batches): median ms per "
                    f"batch {statistics.median(mine):.1f} vs {statistics.median(theirs):.1f}, project/naive "
                    f"{statistics.median(mine) / statistics.median(theirs):.2f}"
                )


def print_project(r: dict[str, Any], backend: str) -> None:
    """The project's own figures, as this benchmark has always printed them."""
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
    print(
        f"in-process ms per step: median {r['ms_median']:.1f}, p95 {r['ms_p95']:.1f}; "
        f"peak RSS of the process {r['peak_mb']:.1f} MB"
    )


if __name__ == "__main__":
    main()
