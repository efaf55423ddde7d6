"""A session's spending cap, and the check a step makes before its model request.

A budget is a number of model tokens (input and output together) or of US dollars at the model's
price. Spent is what the session's steps metered so far (`Telemetry`: the provider's reported
usage). A step that is about to make a model request estimates it (the request's input from its
messages, its output from the text it asks to translate: `agent_core.estimate`) and refuses with
BudgetExceededError when spent and that estimate would pass the budget: the model is not called and
the step commits nothing, so raising the budget lets the session go on where it stood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

from .effects import Budget, Telemetry
from .errors import BudgetExceededError
from .estimate import OUTPUT_TOKENS_PER_TOKEN, estimate_tokens

__all__ = ["Budget", "BudgetExceededError", "BudgetGuard", "Price", "check_budget", "spent_of"]


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The price of that many tokens, in dollars."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def spent_of(budget: Budget, telemetry: Telemetry) -> dict[str, Any]:
    """What the session has spent, in the budget's unit (`{"tokens": n}` or `{"usd": x}`: each step's
    requests at the price of the model it used)."""
    if budget.tokens is not None:
        return {"tokens": telemetry.input_tokens + telemetry.output_tokens}
    return {"usd": round(telemetry.cost_micro_usd / 1e6, 6)}


def check_budget(
    budget: Budget | None, telemetry: Telemetry, price: Price | None, *, input_tokens: int, output_tokens: int
) -> None:
    """Refuse a model request of about `input_tokens` and `output_tokens` that would pass `budget`.

    A dollar budget needs the model's price; without one it cannot be kept, so the request is refused."""
    if budget is None:
        return
    spent = spent_of(budget, telemetry)
    if budget.tokens is not None:
        used, needed, cap = float(spent["tokens"]), float(input_tokens + output_tokens), float(budget.tokens)
        amount = "{:,.0f} tokens".format
    elif price is not None:
        used, needed, cap = float(spent["usd"]), price.cost(input_tokens, output_tokens), float(budget.usd or 0)
        amount = "${:.4f}".format
    else:
        raise BudgetExceededError(
            "The session's budget is in dollars, but the model has no price: set MODEL_PRICES, or give the "
            "session a token budget.",
            spent=spent,
            budget=budget.as_dict(),
        )
    if used + needed > cap:
        raise BudgetExceededError(
            f"The session's budget would be exceeded: {amount(used)} of {amount(cap)} spent, the next model "
            f"request needs about {amount(needed)} and {amount(max(0.0, cap - used))} are left. Raise the budget "
            "(PATCH /api/sessions/{id}) to go on; nothing was changed.",
            spent=spent,
            budget=budget.as_dict(),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetGuard:
    """A session's budget as a step checks it: what was spent when the step loaded, the model's price,
    and the tokens of the tools' definitions every request sends."""

    budget: Budget
    spent: Telemetry
    price: Price | None
    definition_tokens: int = 0

    def check(self, messages: Sequence[ModelMessage], state: str) -> None:
        """Refuse the model request about to be made (BudgetExceededError): its input estimated from its
        messages and the tools, its output from its state note (the text it asks to translate)."""
        sent = ModelMessagesTypeAdapter.dump_json(list(messages)).decode()
        check_budget(
            self.budget,
            self.spent,
            self.price,
            input_tokens=estimate_tokens(sent) + self.definition_tokens,
            output_tokens=round(estimate_tokens(state) * OUTPUT_TOKENS_PER_TOKEN),
        )
