"""The model's own verdict on translations that already exist (`translation-agent check --review`).

The pairs are sent in batches (at most REVIEW_PAIRS pairs and REVIEW_CHARS characters a request),
each as `{key, source, target}`; the model answers through one output tool, `Verdicts`, a verdict a
key: `ok`, or not with a short `issue` (a mistranslation, an omission, a wrong term, a broken
tone). A key the model leaves out has no verdict; a key it invents is ignored. Every request is one
attempt through `agent_core.models.call_model`, so a provider's failure is the project's own error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from .models import call_model

REVIEW_PAIRS: Final = 30
REVIEW_CHARS: Final = 12_000
TOOL: Final = "Verdicts"
_PROMPT: Final = (
    "You review existing translations as a senior reviewer would. For every pair, say whether the target "
    "is a faithful, fluent translation of the source (ok), or name its most serious issue in one short "
    "sentence (a mistranslation, an omission or addition, a wrong term, a grammar or spelling error, "
    "broken placeholders or markup, the wrong register). Answer with the Verdicts tool, one verdict per key."
)
DEFINITION: Final = ToolDefinition(
    name=TOOL,
    description="Your verdict on each pair, by its key.",
    parameters_json_schema={
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "key": {"type": "string"},
                        "ok": {"type": "boolean"},
                        "issue": {"type": "string", "description": "the most serious issue, when not ok"},
                    },
                    "required": ["key", "ok"],
                },
            }
        },
        "required": ["verdicts"],
    },
    kind="output",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewPair:
    """A source and its translation, named by a key unique in the batch."""

    key: str
    source: str
    target: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelVerdict:
    """The model's verdict on one pair."""

    key: str
    ok: bool
    issue: str = ""


def batches(pairs: Sequence[ReviewPair]) -> list[list[ReviewPair]]:
    """The pairs in requests of at most REVIEW_PAIRS pairs and about REVIEW_CHARS characters."""
    found: list[list[ReviewPair]] = []
    size = 0
    for pair in pairs:
        chars = len(pair.source) + len(pair.target)
        if not found or len(found[-1]) == REVIEW_PAIRS or (found[-1] and size + chars > REVIEW_CHARS):
            found.append([])
            size = 0
        found[-1].append(pair)
        size += chars
    return found


async def review_pairs(
    model: Model, pairs: Sequence[ReviewPair], *, languages: str = "", timeout: float = 120.0
) -> dict[str, ModelVerdict]:
    """The model's verdict on each pair it answered for, by key (one request a batch)."""
    params = ModelRequestParameters(output_mode="tool", output_tools=[DEFINITION], allow_text_output=False)
    verdicts: dict[str, ModelVerdict] = {}
    for batch in batches(pairs):
        shown = [{"key": p.key, "source": p.source, "target": p.target} for p in batch]
        task = (f"Languages: {languages}.\n" if languages else "") + json.dumps(shown, ensure_ascii=False)
        request = ModelRequest(parts=[SystemPromptPart(_PROMPT), UserPromptPart(task)])
        response = await call_model(model, [request], None, params, timeout=timeout)
        keys = {p.key for p in batch}
        for part in response.parts:
            if isinstance(part, ToolCallPart) and part.tool_name == TOOL:
                for item in _items(part.args_as_dict()):
                    if item.key in keys:
                        verdicts[item.key] = item
    return verdicts


def _items(args: dict[str, Any]) -> list[ModelVerdict]:
    found: list[ModelVerdict] = []
    for raw in args.get("verdicts") or []:
        if isinstance(raw, dict) and isinstance(raw.get("key"), str) and isinstance(raw.get("ok"), bool):
            found.append(ModelVerdict(key=raw["key"], ok=raw["ok"], issue=str(raw.get("issue") or "")[:300]))
    return found
