"""What OpenAI's prompt-cache minimum (1,024 tokens) means for a model that answers one unit at a time.

Such a model makes a request for about every 100 characters, and each request is mostly the fixed
prefix (the tool definitions, the rules, the file list and the task), which the cache serves at a
quarter of the price only when the prefix two consecutive requests share reaches 1,024 tokens. This
runs `bench/provider_cost.py`'s job (the fake OpenAI server, o200k counts, a reviewer who edits 1 unit
in 10 and rejects 1 in 20; the translation memory's proposals off unless `--memory on`) three ways
and prints, for each, the fixed prefix, the prefix consecutive requests share (smallest and median),
the share of requests the cache served, input tokens per character and the cost per million
characters at gpt-4.1's list price:

- as the agent is;
- with the rules cut by their last point (`CUT`, 22 tokens), so the fixed prefix falls under 1,024,
  as it would for a session with a shorter task or file list, or a provider that counts tools
  differently;
- cut so, with the state note's memory moved after the latest answer's outcome, where it was before
  the note put its most lasting parts first.

A benchmark, not a test.

    .venv/bin/python bench/cache_floor.py
    .venv/bin/python bench/cache_floor.py --corpus ../shared/corpus/httpx-CHANGELOG.md \
        ../shared/seeds/000_6e293227e38d5bfa.txt
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.provider_cost import CORPUS, StorageCounter, _usd_cached, run
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.tokens import common_prefix, prompt_tokens
from tests.fakes.translator_policy import TranslatorPolicy

FLOOR = 1_024
"""OpenAI caches a prompt's prefix from this many tokens on."""
CUT = """
- When every file is complete, answer with a short summary in the user's language, calling no
  tool. Answer other questions briefly."""
"""The rules' last point, left out to bring the fixed prefix under FLOOR."""


@contextmanager
def variant(cut: bool, memory_late: bool) -> Iterator[None]:
    """The agent with its rules cut (`cut`) and its note's memory after the outcome (`memory_late`)."""
    import agent_core.prompts as prompts
    import agent_core.step_note

    step_note: Any = agent_core.step_note  # its state_note is replaced for the run
    rules, note = prompts.RULES, step_note.state_note
    if cut:
        assert CUT in rules, "the rules' last point changed: update CUT"
        prompts.RULES = rules.replace(CUT, "")
    if memory_late:
        step_note.state_note = _memory_late(note)
    try:
        yield
    finally:
        prompts.RULES, step_note.state_note = rules, note


def _memory_late(note: Callable[..., str]) -> Callable[..., str]:
    def late(files: Any, shown: Any, *, memory: str = "", **rest: Any) -> str:
        text = note(files, shown, **rest)
        at = text.find("<next-text")
        if not memory.strip() or at < 0:
            return note(files, shown, memory=memory, **rest)
        return f"{text[:at]}{memory.strip()}\n\n{text[at:]}"

    return late


def figures(bodies: list[dict[str, Any]], result: dict[str, float]) -> list[str]:
    """The row values of one run: fixed prefix, shared prefix (smallest, median), cached share, input, cost."""
    tokens = [prompt_tokens(b) for b in bodies if b.get("tools")]
    shared = [common_prefix(a, b) for a, b in itertools.pairwise(tokens)]
    first = tokens[0]
    fixed = min(common_prefix(first, t) for t in tokens[1:])
    return [
        f"{fixed:,}",
        f"{min(shared):,} / {statistics.median(shared):,.0f}",
        f"{sum(s >= FLOOR for s in shared) / len(shared):.0%}",
        f"{result['tokens_per_char']:.1f}",
        f"${_usd_cached(result) * 1e6 / result['chars']:.2f}",
    ]


def main() -> None:
    """Run the three variants and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--corpus", type=Path, nargs="+", default=[CORPUS])
    parser.add_argument("--memory", choices=["on", "off"], default="off", help="the translation memory's proposals")
    args = parser.parse_args()
    os.environ["TRANSLATION_MEMORY"] = args.memory
    counter = StorageCounter()
    counter.attach_sqlite()
    rows = [
        "fixed prefix: the least any request shares with the first (tokens)",
        "prefix shared with the previous request, smallest / median",
        "requests the cache served (shared prefix ≥ 1,024)",
        "input tokens per source character",
        "$ per 1 M source characters, gpt-4.1 (cached input at a quarter)",
    ]
    labels = ["as it is", "rules cut", "rules cut, memory after the outcome"]
    columns: list[list[str]] = []
    with FakeOpenAIServer(TranslatorPolicy()) as server:
        for cut, late in ((False, False), (True, False), (True, True)):
            with variant(cut, late):
                result = run(
                    args.size, "sqlite", server, counter, refine_every=10, reject_every=20, max_units=1,
                    corpus=args.corpus,
                )  # fmt: skip
            columns.append(figures(server.bodies(), result))
    print(f"one unit an answer, {args.size:,} characters, SQLite, translation memory {args.memory}")
    print("| figure | " + " | ".join(labels) + " |")
    print("| --- " * (len(labels) + 1) + "|")
    for k, row in enumerate(rows):
        print(f"| {row} | " + " | ".join(c[k] for c in columns) + " |")


if __name__ == "__main__":
    main()
