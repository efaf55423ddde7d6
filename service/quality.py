"""A project's auto-approval, measured (API.md "Projects and teams": `GET /api/projects/{id}/quality`).

For one target language, over the project's sessions into it, per band of the proposals' quality
estimate: how many units the routing approved without a person (`autoApproved`), how many of those a
person changed later (`changed`) and how far (`postEdit`: the routed text against the unit's text now);
and how many the routing would have approved but its sample sent to a person (`sampled`), how many of
those the person edited (`sampledEdited`) and how far (`sampledPostEdit`: the proposal against the text
they kept). The sampled units are the evidence: they are what the rule lets through, seen by a person,
so their edit rate is the rule's error rate at that band, while `changed` only counts what somebody
happened to come back to.

The read is bounded: at most MAX_SESSIONS of the project's sessions (the newest first; `complete` says
whether they were all), each file's review log once (storage's `review_log`), side by side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.effects import UnitWrite
from agent_core.errors import NotFoundError
from storage.interface import Storage
from storage.records import ReviewLog

from .access import decide_for_session, project_id, project_owner
from .audit import Edited, current_units, edited_units, post_edit
from .blocking import blocking
from .project_schemas import QualityBand, QualityReport
from .sessions import language_tag

BANDS: tuple[tuple[str, int], ...] = (("90-100", 90), ("80-89", 80), ("70-79", 70), ("50-69", 50), ("0-49", 0))
"""The estimate bands the report counts by, each by its lowest estimate."""
MAX_SESSIONS = 200
"""The most sessions one report reads (a project's sessions into one language are far fewer)."""
PAGE = 100


@dataclass(frozen=True, slots=True)
class _Routed:
    """A unit whose proposal the routing approved or sampled: its band, and what became of it."""

    band: str
    sampled: bool
    edited: Edited


def band_of(estimate: int) -> str:
    """The band an estimate falls in."""
    return next(name for name, low in BANDS if estimate >= low)


def routed_units(log: ReviewLog) -> list[_Routed]:
    """The file's units the routing approved (their first write `auto`) or sampled, each with the text it
    routed or proposed and the unit's text now."""
    firsts: dict[int, UnitWrite] = {}
    for w in log.writes:
        firsts.setdefault(w.start, w)
    now = current_units(log)
    proposals = {e.start: e for e in edited_units(log, now)}
    found: list[_Routed] = []
    for unit in now:
        first = firsts[unit.start]
        if first.estimate is None or not (first.auto or first.sampled):
            continue
        edited = Edited(start=unit.start, proposal=first.text, final=unit.text) if first.auto else None
        edited = edited or proposals.get(unit.start)
        if edited is not None:
            found.append(_Routed(band=band_of(first.estimate), sampled=first.sampled, edited=edited))
    return found


def report_of(
    language: str, threshold: int | None, sample: float, routed: Sequence[_Routed], *, sessions: int, complete: bool
) -> QualityReport:
    """The report of the routed units of the sessions read."""
    bands = []
    for name, _ in BANDS:
        auto = [r.edited for r in routed if r.band == name and not r.sampled]
        seen = [r.edited for r in routed if r.band == name and r.sampled]
        bands.append(
            QualityBand(
                band=name,
                autoApproved=len(auto),
                changed=sum(e.proposal != e.final for e in auto),
                postEdit=post_edit(auto),
                sampled=len(seen),
                sampledEdited=sum(e.proposal != e.final for e in seen),
                sampledPostEdit=post_edit(seen),
            )
        )
    return QualityReport(
        language=language,
        minEstimate=threshold,
        sample=sample,
        sessions=sessions,
        complete=complete,
        bands=bands,
    )


class Quality:
    """Reads a project's routed units and reports on them."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def report(self, caller: str, pid: str, language: str) -> QualityReport:
        """The project's report for `language` (a member of that language: 404 for a non-member, 403 for
        a member of other languages)."""
        project = await blocking(self.storage.get_project, project_id(pid))
        tag = language_tag(language)
        decide_for_session(project, caller, "read", tag)
        owner = project_owner(project.project_id)
        chosen: list[str] = []
        cursor: str | None = None
        read = 0
        while read < MAX_SESSIONS:
            page = await blocking(self.storage.list_sessions, owner, cursor=cursor, limit=PAGE)
            read += len(page.items)
            chosen += [r.session_id for r in page.items if r.target_language == tag]
            cursor = page.next_cursor
            if cursor is None:
                break
        logs = await asyncio.gather(*(blocking(self._logs, sid) for sid in chosen))
        routed = [r for session in logs for log in session for r in routed_units(log)]
        report = await blocking(
            report_of,
            tag or language,
            project.auto_approve,
            project.auto_sample,
            routed,
            sessions=len(chosen),
            complete=cursor is None,
        )
        return report

    def _logs(self, sid: str) -> list[ReviewLog]:
        """A session's files' review logs (none once it is deleted)."""
        try:
            _, snapshot = self.storage.load_view(sid, window=0)
        except NotFoundError:
            return []
        return [self.storage.review_log(sid, f.file_id) for f in snapshot.files]
