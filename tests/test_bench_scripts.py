"""The benchmark scripts run to the end on a small document (each as a user runs it, in its own
process): a change to the prompt, the fake translator or the naive design that makes one of them
loop or fail shows here, not only when someone next measures."""

from __future__ import annotations

import json
import shutil
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
    out = run("bench/provider_cost.py", "--sizes", "4000", "--backend", "sqlite", "--memory", "off")
    assert "| model input tokens per source character |" in out
    assert "| median share of input tokens in a prefix identical to the previous request |" in out


def test_step_cost_completes_beside_the_naive_design() -> None:
    out = run("bench/step_cost.py", "--sizes", "4000", "--memory", "off")
    assert "project/naive ms per reviewed batch" in out
    assert "the naive design stopped" not in out


def test_moto_costs_prints_each_request_shape() -> None:
    out = run("bench/moto_costs.py", "--rounds", "2")
    assert "naive: GetItem of the history item" in out
    assert "transaction: 2 puts, each packing 18 units" in out


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None, reason="needs valgrind and cc")
def test_step_instructions_counts_each_designs_batches() -> None:
    figures = json.loads(run("bench/step_instructions.py", "--size", "4000", "--json"))
    assert figures["batches"]["project"] and figures["batches"]["naive"]
    assert all(count > 1_000_000 for design in ("project", "naive") for count in figures["batches"][design])
    assert figures["ratio"] > 0
