"""The API's bodies that report on a file (API.md "Segments and the analysis", "Scorecards"): the
analysis with its match bands and estimate, the post-edit distance, the MQM scorecard."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class BandCount(BaseModel):
    """Segments and their words in one category of an analysis."""

    segments: int
    words: int


class AnalysisEstimate(BaseModel):
    """What the rest of the job is expected to cost with the configured model."""

    modelRequests: int
    inputTokens: int
    outputTokens: int
    usd: float | None
    """The cost at the model's price (`service.pricing`); null for a model without a known price."""
    model: str
    """The model priced: `provider:model`, or `pseudo`."""
    basis: Literal["loop", "metered"]
    """`loop`: from how the loop asks (a model that translates each screen at once); `metered`: at
    the rate the session's own model requests have cost so far, per character they translated."""


class AutoApproveReport(BaseModel):
    """What an auto-approval threshold does to a file: before the job for the translation memory's
    exact matches, after the fact for the model's proposals (their estimate is known once made)."""

    minEstimate: int
    memory: BandCount
    """Segments the memory holds exactly (the `101` and `100` bands): at most these are approved without
    a card (one whose remembered text QA warns on still gets one)."""
    written: BandCount
    """The file's units written from the model's proposals so far."""
    atOrAbove: BandCount
    """Of those, the ones whose proposal's estimate reached the threshold (what it would have approved,
    QA permitting)."""
    edited: int
    """Of `atOrAbove`, how many the reviewer edited or revised: what the threshold would have let through."""
    auto: int
    """Units of the file the session's routing did approve without a card."""


class Analysis(BaseModel):
    """`GET …/files/{fileId}/analysis`: counts, translation-memory leverage and the cost estimate."""

    segments: int
    words: int
    chars: int
    locked: int
    """Segments kept verbatim (code, front matter, HTML, URLs): no model request, no review."""
    repetitions: int
    """Segments whose source occurs in an earlier segment of the file (and not in the memory)."""
    bands: dict[str, BandCount]
    """Translation-memory matches of the other segments: `101` (a context match: the same source and
    string key), `100`, `95-99`, `85-94`, `75-84`, `50-74`, `none`."""
    targetLanguage: str | None
    """The language the leverage was looked up for (`?to=`, else the session's); null: none known, all `none`."""
    estimate: AnalysisEstimate
    autoApprove: AutoApproveReport | None = None
    """For `?minEstimate=`, else the session's `autoApprove` threshold; null when neither is set."""


class PostEdit(BaseModel):
    """How far the reviewer's final texts are from the proposals (sacrebleu, offline)."""

    units: int
    """Written units that came from a proposal (the model's or the memory's; not text kept verbatim)."""
    unchanged: int
    """Of those, the ones whose final text is the proposal (approved as proposed, never revised)."""
    edited: int
    """Of those, the ones whose final text differs from the proposal (refined or revised)."""
    chrF: float | None
    """chrF of the proposals against the final texts, 0-100 (100: nothing edited); null without units."""
    ter: float | None
    """TER (the human-targeted edit rate, HTER) of the proposals against the final texts, in percent of the
    final texts' words (0: nothing edited); null without units."""


class PostEditReport(BaseModel):
    """The post-edit distance of one file and of its whole session."""

    file: PostEdit
    session: PostEdit


class AnalysisWithPostEdit(Analysis):
    """`GET …/analysis` with the post-edit distance so far."""

    postEdit: PostEditReport


class ScorecardRow(BaseModel):
    """The issues of one MQM error type, by severity."""

    category: str
    dimension: str
    """The MQM Core dimension of the category."""
    minor: int
    major: int
    critical: int
    penalty: int
    """Penalty points: minor x 1 + major x 5 + critical x 25."""


class Scorecard(BaseModel):
    """`GET …/scorecard`: the file's MQM issues by category and severity, its MQM score and the verdict."""

    fileId: str
    name: str
    words: int
    """The evaluation word count: the source words of the written units that came from a proposal."""
    issues: list[ScorecardRow]
    """One row per MQM Core error type, in MQM's order (zeros included)."""
    totals: dict[str, int]
    """Issues by severity, `minor`, `major`, `critical`."""
    penalty: int
    """The absolute penalty total (APT): the sum of the issues' severity multipliers."""
    penaltyPer1000Words: float | None
    """The overall normed penalty total: APT / words x 1,000 (null when no words were evaluated)."""
    score: float | None
    """The MQM overall quality score (raw scoring model): 100 x (1 - APT / words); null without words."""
    threshold: float
    """The score a file must reach to pass."""
    passed: bool
    """`score >= threshold` (with no words evaluated: no issue recorded)."""
    result: Literal["pass", "fail"]
    """`passed` in words."""
    postEdit: PostEdit
