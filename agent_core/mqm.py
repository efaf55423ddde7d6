"""MQM issues: what a reviewer may say is wrong with a proposal, and what it weighs (MQM Core, themqm.org).

The categories are the seven dimensions of the MQM Core typology (MQM 2.0) and, where a reviewer
wants to be precise, the subtypes of Accuracy and Linguistic conventions that reviews name most,
written `Dimension/Subtype` exactly as MQM names them. Severities are MQM's `minor`, `major` and
`critical`, weighed by the MQM severity multipliers 1, 5 and 25 (MQM's fourth level, `neutral`,
weighs 0: a note that is no error, which a verdict's `reason` already carries, so it is not offered).
Every error type weighs 1 (MQM's default weight).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from pydantic import BaseModel, ConfigDict

MqmCategory = Literal[
    "Terminology",
    "Accuracy",
    "Accuracy/Mistranslation",
    "Accuracy/Omission",
    "Accuracy/Addition",
    "Accuracy/Untranslated",
    "Linguistic conventions",
    "Linguistic conventions/Grammar",
    "Linguistic conventions/Spelling",
    "Linguistic conventions/Punctuation",
    "Style",
    "Locale conventions",
    "Audience appropriateness",
    "Design and markup",
]
"""The MQM Core error types a verdict may name: a dimension, or `Dimension/Subtype`."""

MqmSeverity = Literal["minor", "major", "critical"]
"""How much an error matters, as MQM grades it."""

CATEGORIES: Final[tuple[MqmCategory, ...]] = get_args(MqmCategory)
SEVERITIES: Final[tuple[MqmSeverity, ...]] = get_args(MqmSeverity)
DIMENSIONS: Final[tuple[str, ...]] = tuple(c for c in CATEGORIES if "/" not in c)
"""The seven MQM Core dimensions, in MQM's order."""

SEVERITY_MULTIPLIERS: Final[dict[MqmSeverity, int]] = {"minor": 1, "major": 5, "critical": 25}
"""MQM's severity penalty multipliers (the penalty points one error of that severity costs)."""


class MqmIssue(BaseModel):
    """An MQM issue a reviewer found in a proposal: its error type and its severity."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: MqmCategory
    """The MQM Core error type (a dimension, or `Dimension/Subtype`)."""
    severity: MqmSeverity
    """`minor`, `major` or `critical`."""

    @property
    def dimension(self) -> str:
        """The MQM Core dimension the category belongs to (`Accuracy` for `Accuracy/Omission`)."""
        return self.category.split("/", 1)[0]

    @property
    def penalty(self) -> int:
        """The penalty points the issue costs: its severity's multiplier (every error type weighs 1)."""
        return SEVERITY_MULTIPLIERS[self.severity]
