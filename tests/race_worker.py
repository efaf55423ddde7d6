"""A Lambda-like worker for tests/test_races.py: advances one session for a number of rounds.

Usage: python -m tests.race_worker <session_id> <rounds> <deadline_seconds> <start_dir>

Storage and model come from the environment (STORAGE_BACKEND, SESSIONS_TABLE or SQLITE_PATH,
AGENT_MODEL), exactly as the deployed function builds them. Once imported it marks itself ready in
`<start_dir>` and waits there for `go`, so all the workers' first rounds start together (a race is
certain, not a matter of how fast each process started; the first round's view is read before
that). Each round reads the session view and
either approves its pending copilot requests or sends a "continue". Prints one JSON object:
`{"statuses": [...], "conflicts": [<409 bodies>], "unexpected": [<other bodies>]}`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from handlers.api import handler
from tests.events import FakeLambdaContext, http_event


def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    result = handler(http_event(method, path, body), FakeLambdaContext())
    text = result.get("body") or ""
    try:
        return result["statusCode"], json.loads(text) if text else None
    except ValueError:
        return result["statusCode"], text


def main() -> None:
    session_id, rounds, deadline, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4])
    # The first round's view is read before the start, so every worker's first step answers the same
    # version's reviews at once: a race is certain, however fast a step runs against the others' reads.
    viewed: tuple[int, Any] | None = call("GET", f"/api/sessions/{session_id}")
    (start / f"ready-{os.getpid()}").touch()
    stop = time.monotonic() + deadline
    while not (start / "go").exists() and time.monotonic() < stop:
        time.sleep(0.005)
    statuses: list[int] = []
    conflicts: list[Any] = []
    unexpected: list[Any] = []
    for _ in range(rounds):
        if time.monotonic() > stop:
            break
        status, view = viewed or call("GET", f"/api/sessions/{session_id}")
        viewed = None
        if status != 200:
            unexpected.append({"route": "view", "status": status, "body": view})
            continue
        pending = view["pendingCopilotRequests"]
        body: dict[str, Any] = {"sessionId": session_id}
        if pending:
            body["copilotResponses"] = [{"tool": r["tool"], "status": "approve"} for r in pending]
        status, answer = call("POST", "/api/next", body)
        statuses.append(status)
        if status == 409:
            conflicts.append(answer)
        elif status != 200:
            unexpected.append({"route": "next", "status": status, "body": answer})
    print(json.dumps({"statuses": statuses, "conflicts": conflicts, "unexpected": unexpected}))


if __name__ == "__main__":
    main()
