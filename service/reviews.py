"""Review quality of the caller's files (API.md "Jobs, scorecards"): MQM scorecards, post-edit distance, audit.

The scorecard follows the MQM scoring models (themqm.org, "The MQM Scoring Models", raw scoring model):

- every issue costs its severity's multiplier, minor 1, major 5, critical 25, times its error type's
  weight (1 for every type): the absolute penalty total, APT = sum of those;
- the evaluation word count, EWC: the source words (`agent_core.segmentation.count_words`, as the
  analysis counts them) of the file's written units that came from a proposal (text kept verbatim is
  not evaluated);
- the per-word penalty total PWPT = APT / EWC; the overall normed penalty total per 1,000 words,
  ONPT = PWPT x 1,000 (MQM's reference word count); the overall quality score OQS = 100 x (1 - PWPT)
  (MQM's maximum score value 100; it may fall below 0 when a short text carries many issues);
- pass: OQS >= the threshold (`?threshold=`, default DEFAULT_THRESHOLD). With no word evaluated there
  is no score: the file passes while no issue is recorded.

The issues counted are those the reviewer named on the file's proposals and units: edits and
rejections of proposals, and revisions (each correction with an issue, `storage.review_log`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.document import FileState
from agent_core.effects import UnitWrite
from agent_core.mqm import CATEGORIES, SEVERITY_MULTIPLIERS, MqmIssue
from agent_core.review_modes import ReviewMode
from agent_core.segmentation import count_words
from interchange.csv_cells import write_csv
from storage.records import ReviewLog

from .audit import Edited, current_units, edited_units, histories, post_edit
from .report_schemas import PostEditReport, Scorecard, ScorecardRow
from .sessions import SessionService, pick_file

DEFAULT_THRESHOLD = 95.0
"""The MQM quality score a file must reach to pass, unless `?threshold=` says otherwise."""
REFERENCE_WORDS = 1_000
"""MQM's reference word count: the penalty is normed to this many words."""


@dataclass(frozen=True, slots=True)
class FileReviews:
    """What the reviews of one file left: its state, text, units and review log, and the session's owner."""

    owner: str
    review: ReviewMode
    """How the session reviews (its routing's events are named by it)."""
    state: FileState
    source: str
    units: list[UnitWrite]
    log: ReviewLog


def scorecard_of(reviews: FileReviews, *, threshold: float) -> Scorecard:
    """The file's MQM scorecard (see the module's note for the formula)."""
    edited = edited_units(reviews.log, reviews.units)
    ends = {u.start: u.end for u in reviews.units}
    words = sum(count_words(reviews.source[e.start : ends[e.start]]) for e in edited)
    issues = [c.issue for c in reviews.log.corrections if c.issue is not None]
    rows = [_row(category, issues) for category in CATEGORIES]
    penalty = sum(i.penalty for i in issues)
    score = None if words == 0 else round(100.0 * (1 - penalty / words), 2)
    passed = penalty == 0 if score is None else score >= threshold
    return Scorecard(
        fileId=reviews.state.file_id,
        name=reviews.state.name,
        words=words,
        issues=rows,
        totals={severity: sum(i.severity == severity for i in issues) for severity in SEVERITY_MULTIPLIERS},
        penalty=penalty,
        penaltyPer1000Words=None if words == 0 else round(penalty / words * REFERENCE_WORDS, 2),
        score=score,
        threshold=threshold,
        passed=passed,
        result="pass" if passed else "fail",
        postEdit=post_edit(edited),
    )


def _row(category: str, issues: Sequence[MqmIssue]) -> ScorecardRow:
    mine = [i for i in issues if i.category == category]
    count = {severity: sum(i.severity == severity for i in mine) for severity in SEVERITY_MULTIPLIERS}
    return ScorecardRow(
        category=category,
        dimension=category.split("/", 1)[0],
        minor=count["minor"],
        major=count["major"],
        critical=count["critical"],
        penalty=sum(i.penalty for i in mine),
    )


def scorecard_csv(card: Scorecard) -> str:
    """The scorecard as CSV: one row per error type and a total, then the figures as `name,value` rows."""
    header = ["category", "dimension", "minor", "major", "critical", "penalty"]
    rows = [[r.category, r.dimension, str(r.minor), str(r.major), str(r.critical), str(r.penalty)] for r in card.issues]
    totals = [str(card.totals[s]) for s in SEVERITY_MULTIPLIERS]
    figures = {
        "file": card.name,
        "words evaluated": card.words,
        "penalty total": card.penalty,
        "penalty per 1000 words": card.penaltyPer1000Words,
        "MQM score": card.score,
        "threshold": card.threshold,
        "result": card.result,
        "post-edit units": card.postEdit.units,
        "post-edit edited": card.postEdit.edited,
        "post-edit chrF": card.postEdit.chrF,
        "post-edit TER": card.postEdit.ter,
    }
    summary = [[name, "" if value is None else str(value)] for name, value in figures.items()]
    return write_csv([header, *rows, ["Total", "", *totals, str(card.penalty)], [], *summary])


AUDIT_COLUMNS = (
    *("start", "end", "source", "target", "action", "by", "rule", "at", "origin", "estimate", "category", "severity"),
    *("proposal", "reason"),
)


def audit_rows(reviews: FileReviews) -> list[dict[str, str | int | None]]:
    """Every event of every written unit, in source order then time (what the audit export holds)."""
    trail = histories(reviews.log, owner=reviews.owner, review=reviews.review)
    out: list[dict[str, str | int | None]] = []
    for unit in reviews.units:
        for event in trail.get(unit.start, []):
            out.append(
                {
                    "start": unit.start,
                    "end": unit.end,
                    "source": reviews.source[unit.start : unit.end],
                    "target": event.text,
                    "action": event.action,
                    "by": event.by,
                    "rule": event.rule.rule if event.rule else None,
                    "at": event.at,
                    "origin": event.origin,
                    "estimate": event.estimate,
                    "category": event.issue.category if event.issue else None,
                    "severity": event.issue.severity if event.issue else None,
                    "proposal": event.proposal,
                    "reason": event.reason,
                }
            )
    return out


def audit_csv(rows: Sequence[dict[str, str | int | None]]) -> str:
    """The audit rows as CSV with a header of AUDIT_COLUMNS."""
    body = [["" if row[c] is None else str(row[c]) for c in AUDIT_COLUMNS] for row in rows]
    return write_csv([list(AUDIT_COLUMNS), *body])


def audit_json(rows: Sequence[dict[str, str | int | None]]) -> str:
    """The audit rows as a JSON document `{"events": [...]}`."""
    return json.dumps({"events": list(rows)}, ensure_ascii=False, indent=1)


class Reviews:
    """Reads what the reviews of the caller's files left (`storage.review_log`)."""

    def __init__(self, sessions: SessionService) -> None:
        self.sessions = sessions

    def file(self, owner: str, sid: str, fid: str) -> FileReviews:
        """One file's reviews (blocking: call it off the event loop)."""
        record = self.sessions.owned(owner, sid)
        state = pick_file(self.sessions.storage.load_step(record.session_id, window=0).files, fid)
        log = self.sessions.storage.review_log(record.session_id, state.file_id)
        source = self.sessions.source(record.session_id, state)
        units = current_units(log)
        return FileReviews(owner=record.owner, review=record.review, state=state, source=source, units=units, log=log)

    def post_edit(self, owner: str, sid: str, fid: str) -> PostEditReport:
        """The post-edit distance of the file and of its whole session (blocking)."""
        record = self.sessions.owned(owner, sid)
        files = self.sessions.storage.load_step(record.session_id, window=0).files
        wanted = pick_file(files, fid)
        every: list[Edited] = []
        mine: list[Edited] = []
        for state in files:
            log = self.sessions.storage.review_log(sid, state.file_id)
            found = edited_units(log, current_units(log))
            every += found
            mine += found if state.file_id == wanted.file_id else []
        return PostEditReport(file=post_edit(mine), session=post_edit(every))


__all__ = [
    "DEFAULT_THRESHOLD",
    "FileReviews",
    "Reviews",
    "audit_csv",
    "audit_json",
    "audit_rows",
    "scorecard_csv",
    "scorecard_of",
]
