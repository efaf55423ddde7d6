"""CloudWatch metrics (EMF, Powertools): steps, model latency and tokens, decisions, conflicts, errors.

Metrics are flushed once per Lambda invocation by `handlers.api.handler`; under uvicorn they are
written when Powertools' buffer fills (every 100 values), as EMF lines on stdout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit, single_metric

if TYPE_CHECKING:  # the agent loop is imported with the services, on first use
    from agent_core.effects import Verdict
    from agent_core.runtime import StepOutcome

metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "TranslationAgent"))


def record_step(outcome: StepOutcome, verdicts: Sequence[Verdict]) -> None:
    """A committed step: its count, the model's latency and tokens, and the reviewer's decisions."""
    result = outcome.result
    metrics.add_metric(name="Steps", unit=MetricUnit.Count, value=1)
    if result.called_model:
        metrics.add_metric(name="ModelLatency", unit=MetricUnit.Milliseconds, value=result.model_ms)
        if result.usage is not None:
            metrics.add_metric(name="InputTokens", unit=MetricUnit.Count, value=result.usage.input_tokens)
            metrics.add_metric(name="OutputTokens", unit=MetricUnit.Count, value=result.usage.output_tokens)
    if result.copilot_requests:
        metrics.add_metric(name="CopilotRequests", unit=MetricUnit.Count, value=len(result.copilot_requests))
    for verdict in verdicts:
        metrics.add_metric(name=f"Decision{verdict.status.title()}", unit=MetricUnit.Count, value=1)
    if outcome.language and result.called_model and not _disabled():
        _per_language(outcome)


def _disabled() -> bool:
    """True when POWERTOOLS_METRICS_DISABLED says so (the terminal's in-process service sets it): the
    buffered metrics honour it, Powertools' `single_metric` does not and would print its EMF lines."""
    return os.environ.get("POWERTOOLS_METRICS_DISABLED", "").strip().lower() in ("1", "true", "yes")


def _per_language(outcome: StepOutcome) -> None:
    """What the step's model request cost, by the session's target language (a job's languages side by
    side: dimension `TargetLanguage`), each as an EMF line of its own (one dimension set per line)."""
    usage = outcome.result.usage
    figures = [
        ("LanguageModelRequests", MetricUnit.Count, 1.0),
        ("LanguageCostUSD", MetricUnit.NoUnit, outcome.cost_micro_usd / 1e6),
    ]
    if usage is not None:
        figures += [
            ("LanguageInputTokens", MetricUnit.Count, float(usage.input_tokens)),
            ("LanguageOutputTokens", MetricUnit.Count, float(usage.output_tokens)),
        ]
    for name, unit, value in figures:
        with single_metric(name=name, unit=unit, value=value, namespace=metrics.namespace) as metric:
            metric.add_dimension(name="TargetLanguage", value=str(outcome.language)[:64])


def record_failure(exc: Exception) -> None:
    """A refused or failed request, counted by what it means: conflicts, provider and storage errors."""
    from agent_core.errors import ConflictError, ModelRefusedError, ModelUnavailableError, StorageUnavailableError

    if isinstance(exc, ConflictError):
        metrics.add_metric(name="Conflicts", unit=MetricUnit.Count, value=1)
    elif isinstance(exc, ModelUnavailableError | ModelRefusedError):
        metrics.add_metric(name="ProviderErrors", unit=MetricUnit.Count, value=1)
    elif isinstance(exc, StorageUnavailableError):
        metrics.add_metric(name="StorageErrors", unit=MetricUnit.Count, value=1)
