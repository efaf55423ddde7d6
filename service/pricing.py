"""What a model's tokens cost: a price table in US dollars per million tokens, overridable.

The table holds list prices of the models this service is usually configured with; `MODEL_PRICES`
(JSON: `{"openai:gpt-4.1": {"input": 2.0, "output": 8.0}, …}`) adds to it or replaces entries, for a
negotiated price or a model the table lacks. A model is looked up by its full name
(`provider:model`), then by its name alone; the offline `pseudo` model costs nothing. A model the
table does not know has no price (the analysis then gives tokens, and `usd` null).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Final

from agent_core.budget import Price

if TYPE_CHECKING:
    from pydantic_ai.models import Model


LIST_PRICES: Final[dict[str, Price]] = {
    "pseudo": Price(0.0, 0.0),
    "openai:gpt-4.1": Price(2.00, 8.00),
    "openai:gpt-4.1-mini": Price(0.40, 1.60),
    "openai:gpt-4.1-nano": Price(0.10, 0.40),
    "openai:gpt-4o": Price(2.50, 10.00),
    "openai:gpt-4o-mini": Price(0.15, 0.60),
    "openai:gpt-5": Price(1.25, 10.00),
    "openai:gpt-5-mini": Price(0.25, 2.00),
    "anthropic:claude-sonnet-4-5": Price(3.00, 15.00),
    "anthropic:claude-haiku-4-5": Price(1.00, 5.00),
    "anthropic:claude-opus-4-1": Price(15.00, 75.00),
}
"""List prices (USD per million tokens) of models the service is usually run with."""


def price_of(model: str) -> Price | None:
    """The price of `model` (`provider:name` or a name), from `MODEL_PRICES` first; None if unknown.

    ValueError when `MODEL_PRICES` is not a JSON object of `{"input": number, "output": number}`."""
    table = {**LIST_PRICES, **_overrides()}
    if model in table:
        return table[model]
    name = model.partition(":")[2]
    return next((p for key, p in table.items() if name and key.partition(":")[2] == name), None)


def _overrides() -> dict[str, Price]:
    raw = os.environ.get("MODEL_PRICES", "").strip()
    if not raw:
        return {}
    try:
        given = json.loads(raw)
        return {str(k): Price(float(v["input"]), float(v["output"])) for k, v in given.items()}
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ValueError('MODEL_PRICES must be JSON like {"openai:gpt-4.1": {"input": 2.0, "output": 8.0}}') from exc


def model_key(model: Model) -> str:
    """The model's name in the price table: `provider:model`, or `pseudo`."""
    return "pseudo" if model.system == "pseudo" else f"{model.system}:{model.model_name}"
