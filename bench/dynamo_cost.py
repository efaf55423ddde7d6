"""What DynamoDB charges and what a user waits for in storage, per step and per reviewed batch: the
project against the naive design, in one run.

The project goes through the Lambda handler against moto (the table of template.yaml), the naive
design (bench/naive_agent.py) against its own table in moto; both use the pseudo model and a
reviewer who approves every unit (bench/reviewed_run.py), on the httpx changelog (or `--corpus`)
repeated or cut to `--size` characters. Every call is watched at the boto3 client
(bench/dynamo_meter.py), with `--delay-ms` slept in each call as a real table's latency. Printed
per step and per reviewed batch, median (mean): requests; sequential round trips (calls that
overlap in time count once); capacity units as DynamoDB bills them, computed from item sizes
(bench/dynamo_capacity.py), and as moto reports them (fixed figures, not DynamoDB's); bytes sent and
received; the storage latency (the time the step's calls cover). A benchmark: it asserts nothing.

    .venv/bin/python bench/dynamo_cost.py                 # 10 KB, 6 ms a call
    .venv/bin/python bench/dynamo_cost.py --size 100000 --delay-ms 10 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
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

from agent_core.models import resolve_model  # noqa: E402
from bench.dynamo_meter import DynamoMeter, StepFigures  # noqa: E402
from bench.reviewed_run import CORPUS, Review, document, run_naive, run_project  # noqa: E402

FIGURES = {
    "requests": "DynamoDB requests",
    "round_trips": "sequential round trips",
    "delay_ms": "storage latency under the delay alone, ms",
    "latency_ms": "storage wall time (delay, moto, botocore), ms",
    "read_units": "read units (from item sizes)",
    "write_units": "write units (from item sizes)",
    "reported_read": "read units (as moto reports)",
    "reported_write": "write units (as moto reports)",
    "bytes": "bytes sent and received",
}
"""The figures of a step (StepFigures' fields), as the table labels them."""


@dataclass(frozen=True)
class Design:
    """One design's run: its steps' figures and where its reviewed batches fall."""

    steps: list[StepFigures]
    review: Review
    operations: dict[str, int]
    reported: dict[str, bool]
    """Per operation, whether moto's replies carried a ConsumedCapacity figure."""

    def per_step(self, figure: str) -> list[float]:
        return [float(getattr(s, figure)) for s in self.steps]

    def per_batch(self, figure: str) -> list[float]:
        values = self.per_step(figure)
        return [sum(values[a:b]) for a, b in self.review.batches]

    def per_20_units(self, figure: str) -> float:
        """The batches' total over their units, scaled to 20 units (a full batch)."""
        return 20 * sum(self.per_batch(figure)) / max(1, sum(self.review.units))


def measure(source: str, delay_ms: float, memory: bool | None) -> dict[str, Design]:
    """Both designs on `source`, the project first."""
    pseudo = resolve_model("pseudo")  # one model for both designs: the same translation work
    designs: dict[str, Design] = {}
    for name in ("project", "naive"):
        meter = DynamoMeter(delay=delay_ms / 1000)
        if name == "project":
            review, _ = run_project(source, pseudo, pseudo, [meter], memory=memory)
        else:
            review = run_naive(source, pseudo, [meter])
        designs[name] = Design(meter.steps, review, dict(meter.operations.most_common()), dict(meter.reported))
    return designs


def _pair(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": 0.0, "mean": 0.0}
    return {"median": statistics.median(values), "mean": statistics.mean(values)}


def figures(designs: dict[str, Design]) -> dict[str, Any]:
    """Every figure of both designs, with the project/naive ratios of the medians and of the means."""
    out: dict[str, Any] = {}
    for name, design in designs.items():
        review = design.review
        out[name] = {
            "steps": len(design.steps),
            "batches": len(review.batches),
            "units_per_batch": statistics.mean(review.units) if review.units else 0.0,
            "stopped": review.failed,
            "operations": design.operations,
            "moto_reports_capacity": design.reported,
            "per_step": {f: _pair(design.per_step(f)) for f in FIGURES},
            "per_batch": {f: _pair(design.per_batch(f)) for f in FIGURES},
            "per_20_units": {f: design.per_20_units(f) for f in FIGURES},
        }
    ratio: dict[str, dict[str, float | None]] = {}
    for scope in ("per_step", "per_batch"):
        for f in FIGURES:
            mine, theirs = out["project"][scope][f], out["naive"][scope][f]
            ratio[f"{scope}.{f}"] = {k: _ratio(mine[k], theirs[k]) for k in ("median", "mean")}
    for f in FIGURES:
        mine_20, theirs_20 = out["project"]["per_20_units"][f], out["naive"]["per_20_units"][f]
        ratio[f"per_20_units.{f}"] = {"value": _ratio(mine_20, theirs_20)}
    out["ratio"] = ratio
    return out


def _ratio(mine: float, theirs: float) -> float | None:
    return mine / theirs if theirs else None


def print_table(result: dict[str, Any]) -> None:
    """One table: each figure per step, per batch and per 20 reviewed units, both designs and their ratio."""
    project, naive = result["project"], result["naive"]
    print(
        f"\n== {result['chars']:,} characters, {result['delay_ms']:g} ms a call; project {project['steps']} steps, "
        f"{project['batches']} reviewed batches of {project['units_per_batch']:.1f} units; naive {naive['steps']} "
        f"steps, {naive['batches']} batches of {naive['units_per_batch']:.1f}"
    )
    if naive["stopped"]:
        print(f"the naive design stopped at {naive['stopped']}; its figures cover the steps before")
    print("| figure | project, median (mean) | naive, median (mean) | project/naive, median (mean) |")
    print("| --- | --- | --- | --- |")
    for scope, label in (("per_step", "per step"), ("per_batch", "per reviewed batch")):
        for f, name in FIGURES.items():
            p, n, r = project[scope][f], naive[scope][f], result["ratio"][f"{scope}.{f}"]
            cells = (_show(p["median"], p["mean"]), _show(n["median"], n["mean"]), _show(r["median"], r["mean"], 2))
            print(f"| {name} {label} | " + " | ".join(cells) + " |")
    for f, name in FIGURES.items():
        p, n = project["per_20_units"][f], naive["per_20_units"][f]
        r = result["ratio"][f"per_20_units.{f}"]["value"]
        print(f"| {name} per 20 reviewed units | {_number(p)} | {_number(n)} | {_number(r, 2)} |")
    for name in ("project", "naive"):
        listed = ", ".join(f"{op} {count}" for op, count in result[name]["operations"].items())
        print(f"{name}: requests by operation over all steps: {listed}")
    reported = {**result["naive"]["moto_reports_capacity"], **result["project"]["moto_reports_capacity"]}
    print(
        "capacity: 'from item sizes' is DynamoDB's billing computed from the items read and written "
        "(bench/dynamo_capacity.py); 'as moto reports' is the sum of the replies' ConsumedCapacity "
        "(ReturnConsumedCapacity=TOTAL), fixed figures per call whatever the items' sizes"
    )
    print(
        "moto's replies carried ConsumedCapacity for: "
        + (", ".join(sorted(op for op, yes in reported.items() if yes)) or "none")
        + "; not for: "
        + (", ".join(sorted(op for op, yes in reported.items() if not yes)) or "none")
    )


def _show(median: float | None, mean: float | None, places: int = 1) -> str:
    return f"{_number(median, places)} ({_number(mean, places)})"


def _number(value: float | None, places: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.{places}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="characters of document (default 10,000)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the text repeated or cut to --size")
    parser.add_argument("--delay-ms", type=float, default=6.0, help="latency slept in each DynamoDB call (default 6)")
    parser.add_argument("--memory", choices=["on", "off"], help="the project's translation memory (default: on)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of the table")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    source = document(args.size, args.corpus)
    memory = None if args.memory is None else args.memory == "on"
    designs = measure(source, args.delay_ms, memory)
    result = {"chars": len(source), "delay_ms": args.delay_ms, **figures(designs)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
