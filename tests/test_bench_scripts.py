"""The benchmark scripts run to the end on a small document (each as a user runs it, in its own
process): a change to the prompt, the fake translator or the naive design that makes one of them
loop or fail shows here, not only when someone next measures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_provider_cost_completes_and_prints_its_figures() -> None:
    out = run(
        "bench/provider_cost.py",
        *("--sizes", "4000", "--backend", "sqlite", "--memory", "off", "--max-units", "1", "0", "--code-blocks", "3"),
    )
    assert "| model input tokens per source character |" in out
    assert "| median share of input tokens in a prefix identical to the previous request |" in out
    assert "| figure | 4 K chars, 1 a response | 4 K chars, all a response |" in out
    row = next(line for line in out.splitlines() if line.startswith("| analysis estimate / metered: cost"))
    assert row.count("$") == 4  # estimate and metered, for each of the two models
    learning = next(line for line in out.splitlines() if line.startswith("| the agent's model requests / requests"))
    assert [cell.split(" / ")[1] for cell in learning.split("|")[2:4]] == ["0", "0"], "learning asks no model"


def test_provider_cost_on_dynamodb_counts_the_file_text_it_reads() -> None:
    out = run("bench/provider_cost.py", "--sizes", "4000", "--backend", "dynamodb", "--memory", "off")
    row = next(line for line in out.splitlines() if line.startswith("| DynamoDB bytes of file text read per step"))
    _median, mean = (int(v.replace(",", "")) for v in row.split("|")[2].split("/"))
    assert mean > 0  # the first step reads the file's chunks; steps after it read them from the process cache


def test_step_cost_completes_beside_the_naive_design() -> None:
    out = run("bench/step_cost.py", "--sizes", "4000", "--memory", "off")
    assert "DynamoDB requests per batch" in out and "model bytes per batch" in out
    assert "the naive design stopped" not in out


DYNAMO_COST_ROWS = [
    "DynamoDB requests",
    "sequential round trips",
    "storage latency under the delay alone, ms",
    "storage wall time (delay, moto, botocore), ms",
    "read units (from item sizes)",
    "write units (from item sizes)",
    "read units (as moto reports)",
    "write units (as moto reports)",
    "bytes sent and received",
]


def test_dynamo_cost_prints_every_figure_for_both_designs() -> None:
    out = run("bench/dynamo_cost.py", "--size", "4000", "--delay-ms", "1")
    assert "| figure | project, median (mean) | naive, median (mean) | project/naive, median (mean) |" in out
    for figure in DYNAMO_COST_ROWS:
        for scope in ("per step", "per reviewed batch", "per 20 reviewed units"):
            assert f"| {figure} {scope} | " in out, f"{figure} {scope}"
    assert "moto's replies carried ConsumedCapacity for: " in out
    assert "the naive design stopped" not in out


def test_dynamo_cost_json_has_both_designs_and_their_ratios() -> None:
    figures = json.loads(run("bench/dynamo_cost.py", "--size", "4000", "--delay-ms", "1", "--json"))
    for design in ("project", "naive"):
        assert figures[design]["batches"] > 0
        assert set(figures[design]["per_batch"]) == set(figures[design]["per_step"])
    assert "per_batch.write_units" in figures["ratio"]


def test_learning_shows_the_second_document_needs_fewer_edits_with_the_memory_only() -> None:
    figures = json.loads(run("bench/learning.py", "--chars", "3000", "--json"))
    on, off = figures["on"], figures["off"]
    assert on[0] == off[0], "the first document starts from an empty memory either way"
    assert all(f["units"] > 20 for f in on + off)
    rate = [[f["edited"] / f["units"] for f in mode] for mode in (on, off)]
    assert rate[0][1] < rate[0][0] / 1.5, "with the memory, the second document needs far fewer edits"
    assert rate[1][1] > rate[0][1] * 1.5, "without it, the second document needs as many edits as ever"
    assert on[1]["ter"] < off[1]["ter"] and on[1]["chrF"] > off[1]["chrF"]


def test_project_cost_compares_a_project_session_with_a_personal_one() -> None:
    out = run("bench/project_cost.py")
    rows = {
        line.split("|")[1].strip(): line
        for line in out.splitlines()
        if line.startswith("| step") or line.startswith("| session")
    }
    assert set(rows) == {"step, warm process", "step, new process", "session view"}
    personal, project = (int(cell.split()[0]) for cell in rows["step, warm process"].split("|")[2:4])
    assert project == personal + 1, "a project's step reads its record beside the session; a fresh claim costs nothing"


def test_cache_floor_completes_and_the_agent_as_it_is_keeps_its_prefix_cached() -> None:
    out = run("bench/cache_floor.py", "--size", "4000")
    served = next(line for line in out.splitlines() if line.startswith("| requests the cache served"))
    as_it_is, cut, late = (int(cell.strip().rstrip("%")) for cell in served.split("|")[2:5])
    assert as_it_is == 100, "every request after the first shares 1,024 tokens with the one before"
    assert late <= cut < as_it_is
