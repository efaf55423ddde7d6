"""What the model requests of a benchmark run are made of, per part: tokens per source character.

Reads the requests `bench/provider_cost.py --dump DIR` kept (one JSON file a run) and splits each
request's input (o200k tokens, as the fake provider counts them) into its parts: the tool
definitions, the system prompt, the user's own messages, the model's earlier answers sent back (its
tool calls and text), the tool returns, and the state note (its progress and memory lines, the
screen's text, and what the screen adds to the text: segment marks and context lines). Each part is
counted on its own, so the parts add up to a little less than the request (the JSON between them).

    .venv/bin/python bench/provider_cost.py --backend sqlite --sizes 20000 --max-units 1 4 0 \
        --memory off --dump /tmp/runs
    .venv/bin/python bench/request_parts.py /tmp/runs/20000-chars*.json --chars 19926
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.tokens import encode  # noqa: E402

SCREEN = re.compile(r"<next-text [^>]*>.*?</next-text>", re.DOTALL)
MARKUP = re.compile(r"(?:⟦|【)s\d+(?:⟧|】)|⟪[^⟫\n]*⟫\n?|<next-text [^>]*>|</next-text>")
"""What the screen adds to the file's text: id marks (⟦s12⟧ before, 【s12】 now), context lines and the block tags."""


def parts_of(body: dict[str, Any]) -> Counter[str]:
    """The tokens of each part of one request."""
    found: Counter[str] = Counter()
    found["tools"] = len(encode(json.dumps(body.get("tools") or [], ensure_ascii=False, separators=(",", ":"))))
    for message in body.get("messages") or []:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content or "", ensure_ascii=False)
        if role in ("system", "developer"):
            found["system prompt"] += len(encode(text))
        elif role == "assistant":
            calls = json.dumps(message.get("tool_calls") or [], ensure_ascii=False, separators=(",", ":"))
            found["earlier answers (calls and text)"] += len(encode(calls)) + len(encode(content or ""))
        elif role == "tool":
            found["tool returns"] += len(encode(text))
        elif "Progress so far:" in text or "<next-text" in text:
            screens = SCREEN.findall(text)
            rest = SCREEN.sub("", text)
            markup = "".join(m for s in screens for m in MARKUP.findall(s))
            plain = "".join(MARKUP.sub("", s) for s in screens)
            found["note: progress, memory, outcomes"] += len(encode(rest))
            found["note: screen text"] += len(encode(plain))
            found["note: marks and context lines"] += len(encode(markup))
        else:
            found["user messages"] += len(encode(text))
    return found


def main() -> None:
    """Print each part's tokens per source character, and per request."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("dump", type=Path, nargs="+", help="a run's requests as provider_cost.py --dump wrote them")
    parser.add_argument("--chars", type=int, required=True, help="the run's source characters")
    args = parser.parse_args()
    for path in args.dump:
        bodies = [b for b in json.loads(path.read_text(encoding="utf-8")) if b.get("tools")]
        total: Counter[str] = Counter()
        for body in bodies:
            total.update(parts_of(body))
        print(f"\n{path} ({len(bodies)} requests)\n")
        print("| part | tokens per source character | tokens per request |")
        print("| --- | --- | --- |")
        for name, tokens in sorted(total.items(), key=lambda kv: -kv[1]):
            print(f"| {name} | {tokens / args.chars:.2f} | {tokens / max(1, len(bodies)):,.0f} |")
        whole = sum(total.values())
        print(f"| all parts | {whole / args.chars:.2f} | {whole / max(1, len(bodies)):,.0f} |")


if __name__ == "__main__":
    main()
