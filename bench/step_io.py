"""How often one reviewed batch's step re-enters agent_core/runtime.py (the step's I/O seam).

    .venv/bin/python bench/step_io.py [--paragraphs 12]

Builds the production services over SQLite in memory with the offline `pseudo` model, asks for a
translation (the model proposes a batch), then profiles the step that answers the whole batch (the
reviewed batch: one unit edited, one rejected, the others approved; its returns, the learning, the
next model request and its proposals, the commit). It
prints how many Python function calls (distinct frames, coroutines counted once) ran code of
agent_core/runtime.py and agent_core/loop.py during that step, and how many of the runtime's were
entered from another module (the loop calling back into the runtime). A benchmark: it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_core.distill import RuleDistiller  # noqa: E402
from agent_core.models import resolve_model  # noqa: E402
from service.container import build_services  # noqa: E402
from service.schemas import FileUpload, NextRequest  # noqa: E402
from storage.sqlite import SQLiteStorage  # noqa: E402

RUNTIME = str(ROOT / "agent_core" / "runtime.py")
LOOP = str(ROOT / "agent_core" / "loop.py")


def document(paragraphs: int) -> str:
    steps = (f"Step {k}: open the settings page and restart the machine." for k in range(paragraphs))
    return "# Guide\n\n" + "\n\n".join(steps)


async def measure(paragraphs: int, *, verbose: bool = False) -> dict[str, int]:
    storage = SQLiteStorage(":memory:")
    services = build_services(storage=storage, model=resolve_model("pseudo"), distiller=RuleDistiller())
    owner = "bench"
    sid = services.sessions.create(owner).session_id
    services.sessions.add_file(owner, sid, FileUpload(name="guide.md", content=document(paragraphs)))
    first = await services.steps.next(owner, NextRequest(sessionId=sid, userInput="Translate guide.md into French."))
    assert first.body is not None
    requests = first.body.agentResponse.copilotRequests
    verdicts: list[dict[str, Any]] = [{"tool": r.tool.model_dump(by_alias=True), "status": "approve"} for r in requests]
    # The reviewer edits the first and rejects the second: the step learns from two corrections.
    verdicts[0] |= {"status": "refined", "translated_string": "Guide d'utilisation", "reason": "usual title"}
    verdicts[1] |= {"status": "reject", "reason": "too literal"}
    body = NextRequest.model_validate({"sessionId": sid, "copilotResponses": verdicts})

    frames: dict[int, tuple[str, bool]] = {}
    kept: list[FrameType] = []  # held so that no frame id is reused while counting
    events = [0]
    names: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        name = frame.f_code.co_filename
        events[0] += name == RUNTIME
        if name in (RUNTIME, LOOP) and id(frame) not in frames:
            caller = frame.f_back.f_code.co_filename if frame.f_back else ""
            frames[id(frame)] = (name, caller != RUNTIME)
            names[frame.f_code.co_name if name == RUNTIME else ""] += 1
            kept.append(frame)

    sys.setprofile(profile)
    try:
        await services.steps.next(owner, body)
    finally:
        sys.setprofile(None)
    runtime = [entered for name, entered in frames.values() if name == RUNTIME]
    return {
        "reviewed units": len(verdicts),
        "runtime.py calls": len(runtime),
        "runtime.py calls entered from outside it": sum(runtime),
        "runtime.py call events (a coroutine's every resumption too)": events[0],
        "loop.py calls": sum(1 for name, _ in frames.values() if name == LOOP),
        **({f"  runtime.py {k}": v for k, v in names.most_common() if k} if verbose else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paragraphs", type=int, default=12)
    parser.add_argument("--verbose", action="store_true", help="the runtime's calls by function")
    args = parser.parse_args()
    for key, value in asyncio.run(measure(args.paragraphs, verbose=args.verbose)).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
