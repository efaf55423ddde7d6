"""A file's audit trail and post-edit distance, pure: made of what storage keeps of its reviews (`review_log`).

Every write of a unit is kept (its first write, then each revision) and every correction (an edit,
a rejection, a revision, each with the unit's start, the MQM issue and its commit's time), so the trail
needs no copy of its own: a unit's first write is `approved`, `refined` or `verbatim`, with the
proposal's origin; each revision is `revised` (origin `human` when the reviewer typed it, `model` for
an approved `Revise`), or `reviewed` when a reviewer approved it as it was (a second review); a
rejected proposal for the same text is `rejected`. A correction belongs to the
write committed with it (same unit start, same time). Each event carries its own text (what it wrote,
or the proposal it refused), the reason and the text it changed; `by` is the person who decided it: the
member of a project who did (kept with the unit or correction), the session's owner for a personal
session's (nothing is kept then), or none with `rule` for a unit the routing approved. The estimate
is the proposal's when the unit carries one.

The post-edit distance compares, for every written unit that came from a proposal (not text kept
verbatim), the proposal the reviewer first wrote from (the refined correction's proposal, else the
first write's text) with the unit's final text: chrF (100: unchanged) and TER (0: unchanged), over the
units at once (sacrebleu's corpus scores).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.effects import Correction, UnitWrite
from agent_core.review_modes import ReviewMode
from storage.records import ReviewLog

from .report_schemas import PostEdit
from .segment_schemas import HistoryEvent, RoutingRule

Action = Literal["approved", "refined", "rejected", "revised", "verbatim", "reviewed"]
_FIRST: dict[str, Action] = {"approve": "approved", "refined": "refined", "verbatim": "verbatim", "revised": "revised"}


@dataclass(frozen=True, slots=True)
class Edited:
    """A written unit that came from a proposal: the proposal and the unit's final text."""

    start: int
    proposal: str
    final: str


def _estimate(unit: UnitWrite) -> int | None:
    """The proposal's quality estimate when the unit carries one (a unit written before estimates: none)."""
    value = getattr(unit, "estimate", None)
    return value if isinstance(value, int) else None


def _by_start(log: ReviewLog) -> tuple[dict[int, list[UnitWrite]], dict[int, list[Correction]]]:
    writes: dict[int, list[UnitWrite]] = {}
    for w in log.writes:
        writes.setdefault(w.start, []).append(w)
    corrections: dict[int, list[Correction]] = {}
    for c in log.corrections:
        corrections.setdefault(c.start, []).append(c)
    return writes, corrections


def current_units(log: ReviewLog) -> list[UnitWrite]:
    """The file's written units as they read now (each unit's latest write), in source order: what
    `list_units` answers, from the log already read."""
    latest: dict[int, UnitWrite] = {}
    for w in log.writes:
        latest[w.start] = w
    return [latest[k] for k in sorted(latest)]


def histories(log: ReviewLog, *, owner: str, review: ReviewMode = "single") -> dict[int, list[HistoryEvent]]:
    """Each written unit's audit trail (by the unit's start), oldest first; each event with the text it
    wrote or refused, the reason given and who acted (the member recorded with it, else the owner, or the
    routing rule for a unit the session's `autoApprove` approved, or its pre-translation in a session that
    pre-translates: `review`). A rejection committed with a write
    (the reviewer rejected, the next proposal was approved in the same step) comes before it."""
    writes, corrections = _by_start(log)
    rule: Literal["autoApprove", "pretranslate"] = "pretranslate" if review == "pretranslate" else "autoApprove"
    out: dict[int, list[HistoryEvent]] = {}
    for start, written in writes.items():
        held = corrections.get(start, [])
        events: list[tuple[str, int, HistoryEvent]] = []
        for k, w in enumerate(written):
            action = _FIRST[w.status] if k == 0 else _later(w, written[k - 1])
            edit = next((c for c in held if c.created_at == w.updated_at and c.status != "reject"), None)
            event = HistoryEvent(
                action=action,
                by=None if w.auto else (w.by or owner),
                rule=RoutingRule(rule=rule) if w.auto else None,
                at=w.updated_at,
                origin=w.origin,
                estimate=_estimate(w) if k == 0 else None,
                issue=edit.issue if edit else None,
                text=w.text,
                proposal=edit.proposal if edit else (written[k - 1].text if k else None),
                reason=edit.reason if edit else None,
            )
            events.append((w.updated_at, 1, event))
        for c in held:
            if c.status == "reject":
                rejected = HistoryEvent(
                    action="rejected",
                    by=c.by or owner,
                    at=c.created_at,
                    origin=None,
                    issue=c.issue,
                    text=c.proposal,
                    reason=c.reason,
                )
                events.append((c.created_at, 0, rejected))
        out[start] = [e for *_, e in sorted(events, key=lambda t: (t[0], t[1]))]
    return out


def _later(write: UnitWrite, before: UnitWrite) -> Action:
    """What a write after a unit's first did: a reviewer's approval keeps the text (`reviewed`), any
    other write changes it (`revised`)."""
    return "reviewed" if write.stage == "reviewed" and write.text == before.text else "revised"


def edited_units(log: ReviewLog, units: Sequence[UnitWrite]) -> list[Edited]:
    """The file's written units that came from a proposal, each with that proposal and its final text."""
    writes, corrections = _by_start(log)
    out: list[Edited] = []
    for unit in units:
        first = writes.get(unit.start, [unit])[0]
        if first.origin == "verbatim" or first.status == "verbatim":
            continue
        proposal = first.text
        if first.status == "refined":
            refined = [c for c in corrections.get(unit.start, []) if c.status == "refined" and c.final == first.text]
            if not refined:
                continue  # the proposal of a unit written before corrections kept their start is not known
            proposal = refined[-1].proposal
        out.append(Edited(start=unit.start, proposal=proposal, final=unit.text))
    return out


def post_edit(edited: Iterable[Edited]) -> PostEdit:
    """chrF and TER of the proposals against the final texts, and how many were edited."""
    from sacrebleu.metrics.chrf import CHRF  # imported on first use (cold start)
    from sacrebleu.metrics.ter import TER

    found = list(edited)
    changed = sum(e.proposal != e.final for e in found)
    if not found:
        return PostEdit(units=0, unchanged=0, edited=0, chrF=None, ter=None)
    proposals, finals = [e.proposal for e in found], [[e.final for e in found]]
    chrf = CHRF().corpus_score(proposals, finals).score
    ter = TER().corpus_score(proposals, finals).score
    return PostEdit(
        units=len(found), unchanged=len(found) - changed, edited=changed, chrF=round(chrf, 2), ter=round(ter, 2)
    )
