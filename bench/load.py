"""Load: many concurrent sessions driven over HTTP against the local server (pseudo model).

Starts the service (uvicorn, SQLite in a temporary folder) on a free loopback port, then drives
`--sessions` sessions at once, each a scripted reviewer translating tests/data/guide.md to the end
(approving every unit), then starting again, for at most `--seconds`. Prints steps per second, p50/p99 latency of
`POST /api/next`, and errors by status (409s only come from deliberate races, which this does not
make, so every error counts). A benchmark, not a test.

    .venv/bin/python bench/load.py --sessions 16 --seconds 60
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "tests" / "data" / "guide.md").read_text(encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def drive(base: str, deadline: float, latencies: list[float], errors: Counter[int], done: list[int]) -> None:
    """One client: translates the document in a new session, again and again until the deadline."""
    while time.monotonic() < deadline:
        translate_once(base, deadline, latencies, errors, done)


def translate_once(base: str, deadline: float, latencies: list[float], errors: Counter[int], done: list[int]) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        sid = client.post("/api/sessions").json()["id"]
        client.post(f"/api/sessions/{sid}/files", json={"name": "guide.md", "content": DOC})
        body: dict[str, object] = {"sessionId": sid, "userInput": "Translate guide.md into French."}
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = client.post("/api/next", json=body)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                errors[response.status_code] += 1
                time.sleep(0.05)
                continue
            agent = response.json()["agentResponse"]
            if agent["copilotRequests"]:
                body = {
                    "sessionId": sid,
                    "copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]],
                }
            elif agent["actor"] == "user":
                done.append(1)
                return
            else:
                body = {"sessionId": sid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "STORAGE_BACKEND": "sqlite",
            "SQLITE_PATH": f"{tmp}/load.sqlite3",
            "AGENT_MODEL": "pseudo",
            "POWERTOOLS_LOG_LEVEL": "WARNING",
        }
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "handlers.api:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    if httpx.get(f"{base}/api/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            latencies: list[float] = []
            errors: Counter[int] = Counter()
            done: list[int] = []
            deadline = time.monotonic() + args.seconds
            started = time.perf_counter()
            threads = [
                threading.Thread(target=drive, args=(base, deadline, latencies, errors, done))
                for _ in range(args.sessions)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(args.seconds + 60)
            elapsed = time.perf_counter() - started
        finally:
            server.terminate()
            server.wait(10)
    ordered = sorted(latencies)
    print(
        f"{args.sessions} concurrent sessions, {elapsed:.0f} s: {len(latencies):,} steps, "
        f"{len(latencies) / elapsed:.1f} steps/s; {len(done)} documents translated to the end"
    )
    print(
        f"POST /api/next latency: p50 {1000 * statistics.median(ordered):.0f} ms, "
        f"p99 {1000 * ordered[int(len(ordered) * 0.99) - 1]:.0f} ms"
    )
    print(f"errors: {dict(errors) or 'none'}")


if __name__ == "__main__":
    main()
