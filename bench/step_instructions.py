"""Instructions per reviewed batch, project against the naive design: what step_cost's milliseconds
measure, counted instead of timed, so the ratio does not move with the machine's load.

`bench/step_cost.py`'s milliseconds on this shared machine spread widely from round to round (0.6 to
1.6 for the same code in one sitting). This runs the same two designs (the project through the
Lambda handler against moto, the naive one in bench/naive_agent.py; the pseudo model, a reviewer
that approves every unit) under valgrind's callgrind, with instrumentation on only while a step
runs (a client request in a small C helper compiled here, toggled around each step), and prints
the instructions of each reviewed batch (its steps: the verdicts' step, and any until the next
proposals, as step_cost sums them) and their medians' ratio. Instructions are not time: code that
misses the processor's caches more runs fewer instructions a second (on this machine the project's
steps run about a tenth fewer than the naive design's), so read this beside step_cost's
milliseconds, not instead of them.

Needs valgrind (with its headers, Debian's `valgrind` package) and a C compiler; about a minute.

    .venv/bin/python bench/step_instructions.py                    # 10 KB, memory off (like for like)
    .venv/bin/python bench/step_instructions.py --memory on --size 20000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HELPER = r"""
#include <valgrind/callgrind.h>
void step_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void step_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS; }
"""
"""Instrumentation on around a step; each step's counts dumped apart (a file each)."""

RUNNER = r"""
import ctypes, os, sys, warnings
sys.path.insert(0, {root!r})
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
import bench.step_cost as sc
import bench.naive_agent as na
from bench import moto_fast
from agent_core.models import resolve_model
warnings.filterwarnings("ignore")
moto_fast.install()
lib = ctypes.CDLL({helper!r})
pseudo = resolve_model("pseudo")
armed = [False]

def counted(call):
    def step(*args, **kwargs):
        if not armed[0]:
            return call(*args, **kwargs)
        lib.step_start()
        try:
            return call(*args, **kwargs)
        finally:
            lib.step_stop()
    return step

if {design!r} == "project":
    transport = sc.lambda_transport
    def lambda_transport(handler, **kw):
        call = transport(handler, **kw)
        timed = counted(call)
        return lambda method, path, body=None: (timed if path == "/api/next" else call)(method, path, body)
    sc.lambda_transport = lambda_transport
    run = lambda: sc.run({size}, "dynamodb", pseudo, {memory})[1]
else:
    na.NaiveAgent.start = counted(na.NaiveAgent.start)
    na.NaiveAgent.step = counted(na.NaiveAgent.step)
    run = lambda: sc.run_naive({size}, pseudo)
run()  # warm: one-time costs (imports, schemas) are no step's
armed[0] = True
trace = run()
print("BATCHES " + " ".join(f"{{a}}:{{b}}" for a, b, _, _ in trace.batches), file=sys.stderr)
"""


def _helper(workdir: Path) -> Path:
    source, library = workdir / "steps.c", workdir / "libsteps.so"
    source.write_text(HELPER)
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("step_instructions needs a C compiler (cc or gcc) for its callgrind helper.")
    done = subprocess.run(
        [cc, "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"The callgrind helper did not compile (Debian's valgrind package has its header):\n{done.stderr}")
    return library


def steps(
    design: str, size: int, memory: bool | None, helper: Path, workdir: Path
) -> tuple[list[int], list[tuple[int, int]]]:
    """Each measured step's instructions, in order, and each reviewed batch's steps `[a, b)`."""
    script = workdir / f"{design}.py"
    script.write_text(RUNNER.format(root=str(ROOT), helper=str(helper), design=design, size=size, memory=memory))
    out = workdir / f"{design}.out"
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    done = subprocess.run(
        [*command, sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    marks = [line for line in done.stderr.splitlines() if line.startswith("BATCHES")]
    if done.returncode != 0 or not marks:
        sys.exit(f"The {design} run failed under callgrind:\n{done.stderr[-3000:]}")
    counts = []
    for dump in sorted(workdir.glob(f"{design}.out.*"), key=lambda p: int(p.suffix[1:])):
        totals = [line for line in dump.read_text().splitlines() if line.startswith("totals:")]
        counts.append(int(totals[0].split()[1]))
    spans = [tuple(int(k) for k in mark.split(":")) for mark in marks[0].split()[1:]]
    return counts, [(a, b) for a, b in spans]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--memory", choices=["on", "off"], default="off", help="the project's translation memory")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("step_instructions needs valgrind (Debian: apt-get install valgrind).")
    memory = args.memory == "on"
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        helper = _helper(workdir)
        batches: dict[str, list[int]] = {}
        for design in ("project", "naive"):
            counts, spans = steps(design, args.size, memory if design == "project" else None, helper, workdir)
            batches[design] = [sum(counts[a:b]) for a, b in spans]
    medians = {design: statistics.median(b) for design, b in batches.items()}
    ratio = medians["project"] / medians["naive"]
    if args.json:
        print(json.dumps({"batches": batches, "medians": medians, "ratio": ratio}))
        return
    print(f"instructions per reviewed batch (its steps), {args.size:,} characters, project's memory {args.memory}:")
    for design, counted in batches.items():
        listed = ", ".join(f"{c / 1e6:.1f}" for c in counted)
        print(f"  {design:8} median {medians[design] / 1e6:6.1f} M over {len(counted)} batches ({listed})")
    print(f"project/naive instructions per reviewed batch (median): {ratio:.2f}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
