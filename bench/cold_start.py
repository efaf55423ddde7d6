"""Cold start: what importing the Lambda entry costs, next to pydantic-ai alone, and the first request.

    .venv/bin/python bench/cold_start.py [--runs 7] [--no-pyc] [--top 15]
    .venv/bin/python bench/cold_start.py --package DIR --python python3.13

`--package` measures a package `make build-AgentFunction` built (for this machine's platform:
`bench/package.py` says how) with the runtime's Python: every module, pydantic-ai and the app's
alike, comes from that folder and its bytecode, as in Lambda; only `tests/events.py` (the request's
event) is read from the repository.

Every measurement runs in a fresh interpreter (round-robin over the cases, so drift in machine load
hits them alike) and reports the median and the minimum:

- `import pydantic_ai`: the floor any pydantic-ai agent pays;
- `import handlers.api`: the Lambda entry (the app built, no services yet); the ratio to the line
  above is what the entry costs against that floor (target: at most 1.2 from the built package);
- the fixed choices alone: pydantic-ai, FastAPI behind Mangum (an empty app) and Powertools' logger
  and metrics, imported with the collector paused as `handlers.api` does: the floor of any handler
  built on them; `handlers.api` against it is the project's own code (its routes, schemas, services);
- `import pydantic_ai` with the garbage collector paused, as `handlers.api` pauses it while it
  imports: the ratio to this line is the overhead of the project's own code alone;
- the first request after import: `POST /api/sessions` then `POST /api/next` through
  `handlers.api.handler`, with `STORAGE_BACKEND=sqlite`, `SQLITE_PATH=:memory:` and `AGENT_MODEL=pseudo`;
- the same first request after the SnapStart before-snapshot hook (`handlers.snapstart`), which is
  what a restored environment pays.

`--no-pyc` gives each run an empty bytecode cache, as in a Lambda package built without compiled
files (sam build ships none, and /var/task is read-only). Then `python -X importtime` lists the
heaviest top-level packages `handlers.api` imports. Numbers depend on the machine: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_IMPORT = """
import json, time
t = time.perf_counter()
import {module}
print(json.dumps({{"import": time.perf_counter() - t}}))
"""

_REQUEST = """
import json, time
t = time.perf_counter()
import handlers.api as api
imported = time.perf_counter() - t
warm = 0.0
if {snapstart}:
    import handlers.snapstart
    t = time.perf_counter()
    handlers.snapstart.before_snapshot(api.app)
    warm = time.perf_counter() - t
from tests.events import FakeLambdaContext, http_event
t = time.perf_counter()
created = api.handler(http_event("POST", "/api/sessions"), FakeLambdaContext())
session = json.loads(created["body"])["id"]
first = time.perf_counter() - t
t = time.perf_counter()
step = api.handler(http_event("POST", "/api/next", {{"sessionId": session, "userInput": "Hello"}}), FakeLambdaContext())
second = time.perf_counter() - t
assert created["statusCode"] == 201 and step["statusCode"] == 200, (created, step)
print(json.dumps({{"import": imported, "warm": warm, "sessions": first, "next": second}}))
"""

_IMPORT_GC_PAUSED = """
import gc, json, time
gc.disable()
t = time.perf_counter()
import {module}
print(json.dumps({{"import": time.perf_counter() - t}}))
"""

_FLOOR = """
import gc, json, time
t = time.perf_counter()
gc.disable()
import pydantic_ai
from aws_lambda_powertools import Logger, Metrics
from fastapi import FastAPI
from mangum import Mangum
Logger(service="floor"); Metrics(namespace="floor")
handler = Mangum(FastAPI(), lifespan="off")
gc.freeze(); gc.enable()
print(json.dumps({{"import": time.perf_counter() - t}}))
"""

CASES = {
    "import pydantic_ai": _IMPORT.format(module="pydantic_ai"),
    "import pydantic_ai, collector paused": _IMPORT_GC_PAUSED.format(module="pydantic_ai"),
    "import handlers.api": _IMPORT.format(module="handlers.api"),
    "the fixed choices alone": _FLOOR.format(),
    "first request": _REQUEST.format(snapstart=False),
    "first request after snapshot hook": _REQUEST.format(snapstart=True),
}


PACKAGE: Path | None = None
"""The built package measured (`--package`), else the working tree with the interpreter's site-packages."""


def environment(no_pyc: bool) -> dict[str, str]:
    """The Lambda-like settings, in-memory storage (SQLite `:memory:`) and the offline model."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(
        STORAGE_BACKEND="sqlite",
        SQLITE_PATH=":memory:",
        AGENT_MODEL="pseudo",
        POWERTOOLS_LOG_LEVEL="WARNING",
        AWS_DEFAULT_REGION=env.get("AWS_DEFAULT_REGION", "us-east-1"),
        # The package first (the working directory of `-c`), then the repository for tests/events.py.
        PYTHONPATH=str(ROOT),
    )
    if no_pyc:
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="cold-start-pyc-")
    else:
        # "Cached" must mean cached for the project's modules too, not only for site-packages
        # (which pip compiled): a shell with PYTHONDONTWRITEBYTECODE set would recompile them each run.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(python: str, code: str, *, no_pyc: bool) -> dict[str, float]:
    """One fresh interpreter; the timings it printed."""
    out = subprocess.run(
        [python, "-c", code], cwd=PACKAGE or ROOT, env=environment(no_pyc), capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def heaviest_imports(python: str, top: int) -> list[tuple[str, float]]:
    """Top-level packages `handlers.api` pulls in, by cumulative import time (seconds)."""
    out = subprocess.run(
        [python, "-X", "importtime", "-c", "import handlers.api"],
        cwd=PACKAGE or ROOT,
        env=environment(no_pyc=False),
        capture_output=True,
        text=True,
        check=True,
    )
    totals: dict[str, float] = {}
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        if "." not in name:  # a top-level package: its cumulative time includes its submodules
            totals[name] = totals.get(name, 0.0) + int(cumulative) / 1e6
    return sorted(totals.items(), key=lambda item: item[1], reverse=True)[:top]


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters per case (at least 5)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to measure")
    parser.add_argument("--no-pyc", action="store_true", help="an empty bytecode cache for every run")
    parser.add_argument("--top", type=int, default=15, help="how many packages to list")
    parser.add_argument("--package", type=Path, help="a built Lambda package to measure (with its runtime's --python)")
    args = parser.parse_args()
    runs = max(5, args.runs)
    global PACKAGE
    PACKAGE = args.package.resolve() if args.package else None
    if PACKAGE is not None:
        print(f"measuring the package {PACKAGE} with {args.python}")

    samples: dict[str, list[dict[str, float]]] = {name: [] for name in CASES}
    run(args.python, CASES["import handlers.api"], no_pyc=False)  # compile once, unless --no-pyc
    for _ in range(runs):
        for name, code in CASES.items():
            samples[name].append(run(args.python, code, no_pyc=args.no_pyc))

    def stat(name: str, key: str) -> tuple[float, float]:
        values = [s[key] for s in samples[name]]
        return statistics.median(values), min(values)

    pyc = "empty bytecode cache" if args.no_pyc else "bytecode cached"
    print(f"{runs} runs per case, round-robin, fresh interpreters ({pyc}); median / min, ms\n")
    base, api = stat("import pydantic_ai", "import"), stat("import handlers.api", "import")
    print(f"{'import pydantic_ai':<44}{base[0] * 1e3:9.0f}{base[1] * 1e3:9.0f}")
    print(f"{'import handlers.api':<44}{api[0] * 1e3:9.0f}{api[1] * 1e3:9.0f}")
    print(f"{'ratio handlers.api / pydantic_ai':<44}{api[0] / base[0]:9.2f}{api[1] / base[1]:9.2f}   (target <= 1.2)")
    # handlers.api pauses the garbage collector while it imports; the same pause on the bare import
    # shows how much of the ratio is that pause and how much is the code this project adds.
    paused = stat("import pydantic_ai, collector paused", "import")
    print(f"{'import pydantic_ai, collector paused':<44}{paused[0] * 1e3:9.0f}{paused[1] * 1e3:9.0f}")
    print(f"{'ratio handlers.api / paused pydantic_ai':<44}{api[0] / paused[0]:9.2f}{api[1] / paused[1]:9.2f}")
    # The fixed choices (pydantic-ai, FastAPI behind Mangum, Powertools) with an empty app, imported as
    # handlers.api imports them: what any handler built on them pays before the project's own code.
    floor = stat("the fixed choices alone", "import")
    print(f"{'pydantic-ai, FastAPI, Mangum, Powertools':<44}{floor[0] * 1e3:9.0f}{floor[1] * 1e3:9.0f}")
    print(f"{'ratio of that to pydantic_ai':<44}{floor[0] / base[0]:9.2f}{floor[1] / base[1]:9.2f}")
    print(f"{'ratio handlers.api / that':<44}{api[0] / floor[0]:9.2f}{api[1] / floor[1]:9.2f}")
    for name in ("first request", "first request after snapshot hook"):
        print(f"\n{name}:")
        keys = ["import", "warm", "sessions", "next"] if "hook" in name else ["import", "sessions", "next"]
        for key in keys:
            label = {"warm": "before_snapshot()", "sessions": "POST /api/sessions", "next": "POST /api/next"}.get(
                key, "import handlers.api"
            )
            median, low = stat(name, key)
            print(f"  {label:<42}{median * 1e3:9.0f}{low * 1e3:9.0f}")
        requests = [s["sessions"] + s["next"] for s in samples[name]]
        print(f"  {'both requests':<42}{statistics.median(requests) * 1e3:9.0f}{min(requests) * 1e3:9.0f}")

    print("\nheaviest top-level imports of handlers.api (python -X importtime, cumulative ms, one run):")
    for package, seconds in heaviest_imports(args.python, args.top):
        print(f"  {package:<42}{seconds * 1e3:9.0f}")


if __name__ == "__main__":
    main()
