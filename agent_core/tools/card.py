"""What a proposal's card carries besides the text: QA warnings, glossary hits and the quality estimate,
and the glossary rule that refuses a proposal before any human sees it (a forbidden translation)."""

from __future__ import annotations

import hashlib

from ..copilot import CopilotRequest, GlossaryMatch, QaFinding
from ..estimate_quality import estimate_quality
from ..qa import GlossaryHit, glossary_hits, proposal_checks
from ..qa_unit import blocks, unit_findings
from .base import BatchState


def with_findings(
    request: CopilotRequest, batch: BatchState, *, rating: int | None = None, key: str | None = None
) -> CopilotRequest:
    """`request` with its QA warnings (then its file's QA profile's findings, of which those at the
    `error` level lower the estimate as a QA warning does, so that the riskiest sort first), its
    glossary hits (the session pair's entries) and its estimate (`key`: the key of the unit's resource
    string, `agent_core.tm.string_key`); a plural entry's forms are checked by their own rules
    (`agent_core.plural`), so it gets none of these."""
    source, text = request.src_string, request.translate_string
    if not isinstance(text, str):
        return request
    checks = proposal_checks(source, text, glossary=batch.glossary)
    state, context = batch.files.get(request.file_id), request.context
    profiled = unit_findings(
        source,
        text,
        file_name=state.name if state is not None else "",
        key=context.key if context is not None else None,
        notes=(context.note,) if context is not None else (),
        chosen=batch.qa_profile,
        target_language=batch.target_language,
    )
    hits = glossary_hits(source, text, batch.glossary)
    quality = estimate_quality(
        source,
        text,
        warnings=[w.code for w in checks] + [f.code for f in profiled if f.level == "error"],
        glossary=hits,
        origin=request.origin,
        match=request.match,
        key=key,
        rating=rating,
        languages=batch.languages,
    )
    return request.model_copy(
        update={
            "warnings": tuple(QaFinding(code=w.code, message=w.message) for w in checks)
            + tuple(QaFinding(code=f.code, message=f.message, level=f.level) for f in profiled),
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
    """True when the session's routing would approve the proposal without a review: a threshold is set,
    the estimate reaches it and QA found nothing that blocks it (`agent_core.qa_unit.blocks`; `sampled`
    may still send it to a person). In a pre-translation every Translate proposal is."""
    if batch.routing.pretranslate:
        return request.tool.name == "Translate"
    threshold = batch.routing.threshold
    return (
        threshold is not None
        and request.estimate is not None
        and request.estimate >= threshold
        and not any(blocks(w.code, w.level) for w in request.warnings)
        and request.tool.name == "Translate"
    )


def sampled(request: CopilotRequest, batch: BatchState) -> bool:
    """True when the routing's sample sends this auto-approvable proposal to a person: a draw fixed by the
    unit (its file, place and text), so that every step that rebuilds the card draws the same."""
    share = batch.routing.sample
    if share <= 0 or batch.routing.pretranslate:
        return False
    key = f"{request.file_id}:{request.start}:{request.proposal_text}".encode()
    draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64
    return draw < share


def _match(hit: GlossaryHit) -> GlossaryMatch:
    return GlossaryMatch(term=hit.term, kind=hit.kind, expected=hit.expected, found=hit.found)
