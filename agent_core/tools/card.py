"""What a proposal's card carries besides the text: QA warnings, glossary hits and the quality estimate,
and the glossary rule that refuses a proposal before any human sees it (a forbidden translation)."""

from __future__ import annotations

from ..copilot import CopilotRequest, GlossaryMatch, QaFinding
from ..estimate_quality import estimate_quality
from ..qa import GlossaryHit, glossary_hits, proposal_checks
from .base import BatchState


def with_findings(request: CopilotRequest, batch: BatchState, *, rating: int | None = None) -> CopilotRequest:
    """`request` with its QA warnings, its glossary hits (the session pair's entries) and its estimate;
    a plural entry's forms are checked by their own rules (`agent_core.plural`), so it gets none of these."""
    source, text = request.src_string, request.translate_string
    if not isinstance(text, str):
        return request
    checks = proposal_checks(source, text, glossary=batch.glossary)
    hits = glossary_hits(source, text, batch.glossary)
    quality = estimate_quality(
        source,
        text,
        warnings=[w.code for w in checks],
        glossary=hits,
        origin=request.origin,
        match=request.match,
        rating=rating,
        languages=batch.languages,
    )
    return request.model_copy(
        update={
            "warnings": tuple(QaFinding(code=w.code, message=w.message) for w in checks),
            "glossary": tuple(_match(h) for h in hits),
            "estimate": quality.score,
            "estimate_reasons": quality.reasons,
        }
    )


def forbidden_refusal(request: CopilotRequest) -> str | None:
    """Why the proposal is refused to the model (it uses a translation the glossary forbids), or None."""
    used = [h for h in request.glossary if h.kind == "forbidden" and h.found]
    if not used:
        return None
    named = "; ".join(f"«{h.expected}» for «{h.term}»" for h in used)
    return f"translate_string uses a translation the reviewer's glossary forbids ({named}): translate it another way."


def auto_approvable(request: CopilotRequest, batch: BatchState) -> bool:
    """True when the session's routing approves the proposal without a review: a threshold is set, the
    estimate reaches it and QA found nothing."""
    threshold = batch.auto_approve
    return (
        threshold is not None
        and request.estimate is not None
        and request.estimate >= threshold
        and not request.warnings
        and request.tool.name == "Translate"
    )


def _match(hit: GlossaryHit) -> GlossaryMatch:
    return GlossaryMatch(term=hit.term, kind=hit.kind, expected=hit.expected, found=hit.found)
