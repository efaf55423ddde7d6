"""agent_core.review: existing translations judged by a model in bounded batches, one verdict a key."""

from __future__ import annotations

import json

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_core.review import REVIEW_CHARS, REVIEW_PAIRS, ReviewPair, batches, review_pairs


def pairs(n: int, size: int = 10) -> list[ReviewPair]:
    return [ReviewPair(key=f"k{i}", source="s" * size, target="t" * size) for i in range(n)]


def test_batches_are_bounded_in_pairs_and_characters() -> None:
    assert [len(b) for b in batches(pairs(REVIEW_PAIRS * 2 + 1))] == [REVIEW_PAIRS, REVIEW_PAIRS, 1]
    big = pairs(5, size=REVIEW_CHARS // 4)
    assert [len(b) for b in batches(big)] == [2, 2, 1]
    assert batches([]) == []


async def test_each_batch_is_one_request_and_only_its_keys_count() -> None:
    asked: list[list[str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert [t.name for t in info.output_tools] == ["Verdicts"] and not info.allow_text_output
        prompt = next(p.content for p in messages[-1].parts if isinstance(p, UserPromptPart))
        assert isinstance(prompt, str)
        shown = json.loads(prompt[prompt.index("[") :])
        asked.append([p["key"] for p in shown])
        verdicts = [{"key": p["key"], "ok": p["key"] != "k3", "issue": "omits a clause"} for p in shown]
        verdicts.append({"key": "invented", "ok": False})
        return ModelResponse(parts=[ToolCallPart("Verdicts", {"verdicts": verdicts})])

    found = await review_pairs(FunctionModel(model), pairs(REVIEW_PAIRS + 5), languages="en>fr")
    assert [len(keys) for keys in asked] == [REVIEW_PAIRS, 5]
    assert set(found) == {f"k{i}" for i in range(REVIEW_PAIRS + 5)}
    assert [k for k, v in found.items() if not v.ok] == ["k3"] and found["k3"].issue == "omits a clause"
