"""The reviewer's workbench (API.md "Files"): a file's segments, revisions by the human, QA on the human's text.

A revision is committed like a step: against the session's StepToken, as `StepEffects.revisions`
and a `revised` Correction, so a concurrent step (or a stale `If-Match`) makes it 409 and changes
nothing. It is refused while reviews are pending (the batch under review would be built on text the
human is changing). After the commit the memory learns from the correction and the translation
memory records the new text, both best effort: the revision is committed either way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agent_core.copilot import CopilotRequest
from agent_core.document import FileState
from agent_core.effects import Correction, SessionSnapshot, StepEffects, StepToken, UnitWrite
from agent_core.errors import ConflictError, NotFoundError
from agent_core.languages import task_languages, task_target
from agent_core.qa import text_warnings
from agent_core.qa_profiles import stored_profile
from agent_core.segment import Segment as StoredSegment
from agent_core.segment import SegmentContext
from agent_core.tm import string_key
from agent_core.tools.entries import edit_warnings
from langfacts import bcp47
from storage.interface import Storage

from .audit import current_units, histories
from .blocking import blocking
from .memory import OwnerMemory
from .qa_profiles import profile_warnings
from .review_step import revision_stage
from .segment_schemas import QaWarningView, ReviseBody, RevisedSegment, Segment, SegmentPage
from .segments import WRITTEN_STATUSES, SegmentQuery, build_segments, select, with_comment_counts, written_segment
from .sessions import SessionService, file_id, session_id
from .tm import TranslationMemory

if TYPE_CHECKING:
    from agent_core.runtime import AgentRuntime

logger = logging.getLogger(__name__)

REBASES = 3
"""How many times a revision's commit is made again over requests that changed nothing it read."""


def session_languages(snapshot: SessionSnapshot) -> str:
    """The session's language pair (`auto>french`), from its first user input, else its target language."""
    return task_languages(snapshot.user_inputs[0] if snapshot.user_inputs else "", snapshot.target_language)


def target_tag(snapshot: SessionSnapshot) -> str | None:
    """The BCP 47 tag of the language the session translates into, when its task names one."""
    target = task_target(snapshot.user_inputs[0]) if snapshot.user_inputs else "unknown"
    return bcp47(target) if target != "unknown" else None


def check_if_match(if_match: str | None, version: int) -> None:
    """ConflictError unless `If-Match` is absent, `*`, or names `version` (`3`, `"3"` or `W/"3"`)."""
    if if_match is None or if_match.strip() == "*":
        return
    wanted = {tag.strip().removeprefix("W/").strip('"') for tag in if_match.split(",")}
    if str(version) not in wanted:
        raise ConflictError(f"The session is at version {version}, not {if_match.strip()[:40]}; reload it.")


@dataclass(frozen=True, slots=True, kw_only=True)
class FileView:
    """What the workbench reads of one file at once: its state, text, written units and pending proposals."""

    snapshot: SessionSnapshot
    state: FileState
    source: str
    stored: tuple[StoredSegment, ...]
    """The file's segments, as found at upload."""
    units: list[UnitWrite]
    pending: list[CopilotRequest]
    decided: list[UnitWrite] = field(default_factory=list)
    """Units of the pending batch already decided, written with its last verdict (listed as written)."""
    withheld: int = 0
    """Written units this view leaves out (an export of reviewed units only)."""

    @property
    def complete(self) -> bool:
        """True when every character of the file is in a unit this view shows (or needs none)."""
        return self.state.complete and not self.withheld

    def segments(self) -> list[Segment]:
        """The whole file as segments."""
        return build_segments(self.source, self.stored, [*self.units, *self.decided], self.pending)


class Workbench:
    """Segments, revisions and QA of the caller's files."""

    def __init__(
        self,
        storage: Storage,
        runtime: AgentRuntime,
        sessions: SessionService,
        memory: OwnerMemory,
        tm: TranslationMemory,
    ) -> None:
        self.storage = storage
        self.runtime = runtime
        self.sessions = sessions
        self.memory = memory
        self.tm = tm
        """The process's translation memory (its replicas are the steps' too)."""

    async def view(self, owner: str, sid: str, fid: str, *, with_pending: bool = True) -> FileView:
        """One file's state, source, units and (unless not wanted) this file's pending proposals."""
        snapshot, state = await blocking(self._load, owner, sid, fid)
        source, stored, units = await blocking(self._read, sid, state)
        pending: list[CopilotRequest] = []
        decided: list[UnitWrite] = []
        if with_pending:
            _, requests, done = await self.runtime.pending_and_decided(owner, sid)
            pending = [r for r in requests if r.file_id == state.file_id]
            decided = [u for u in done if u.file_id == state.file_id]
        return FileView(
            snapshot=snapshot, state=state, source=source, stored=stored, units=units, pending=pending, decided=decided
        )

    async def segments(self, owner: str, sid: str, fid: str, query: SegmentQuery) -> SegmentPage:
        """A page of the file's segments, each with its comment thread's counts (one bounded read, beside)."""
        counted = blocking(self.storage.comment_counts, session_id(sid), file_id(fid))  # ids checked first
        view, counts = await asyncio.gather(self.view(owner, sid, fid), counted)
        chosen, cursor = await blocking(lambda: select(view.segments(), query))  # a large file: off the loop
        chosen = with_comment_counts(chosen, counts)
        if any(s.status in WRITTEN_STATUSES for s in chosen):  # the written units' audit trails (service.audit)
            log = await blocking(self.storage.review_log, view.snapshot.token.session_id, view.state.file_id)
            trail = histories(log, owner=view.snapshot.token.owner, review=view.snapshot.review)
            chosen = [
                s.model_copy(update={"history": trail.get(s.start, [])}) if s.status in WRITTEN_STATUSES else s
                for s in chosen
            ]
        return SegmentPage(segments=chosen, nextCursor=cursor, version=view.snapshot.token.version)

    async def qa(
        self, owner: str, sid: str, fid: str, source: str, text: str, *, start: int | None = None
    ) -> list[QaWarningView]:
        """The checks on a human's text for a unit of the file (the session's glossary included; with
        `start`, the unit's place, a resource string's locked codes and plural forms too)."""
        snapshot, state = await blocking(self._load, owner, sid, fid)
        contexts = await self._contexts(sid, state.file_id, start, len(source)) if start is not None else ()
        return await self._checked(owner, snapshot, contexts, source, text, file_name=state.name)

    async def _contexts(self, sid: str, file_id: str, start: int, length: int) -> tuple[SegmentContext, ...]:
        """The contexts of the stored segments a unit at `start` covers (read with the file's chunk)."""
        found = await self.runtime.store.reader(sid).segments(file_id, start, start + max(length, 1))
        return tuple(s.context for s in found if s.context is not None)

    async def _checked(
        self,
        owner: str,
        snapshot: SessionSnapshot,
        contexts: Sequence[SegmentContext],
        source: str,
        text: str,
        *,
        file_name: str = "",
    ) -> list[QaWarningView]:
        """The text checks, and a resource string's: a plural entry's forms replace the text checks; then
        the file's QA profile's findings (service.qa_profiles)."""
        target = snapshot.target_language or target_tag(snapshot)
        entry = [QaWarningView(code=c, message=m) for c, m in edit_warnings(contexts, source, text, target)]
        if any(c.plural for c in contexts):
            return entry
        chosen = stored_profile(snapshot.qa_profile)
        profiled = await blocking(
            lambda: profile_warnings(file_name, contexts, source, text, target_language=target, chosen=chosen)
        )
        return await self._warnings(owner, session_languages(snapshot), source, text) + entry + profiled

    async def revise(
        self,
        owner: str,
        sid: str,
        fid: str,
        start: int,
        body: ReviseBody,
        *,
        if_match: str | None = None,
        time_left: Callable[[], float] | None = None,
        by: str | None = None,
        reviewer: bool = True,
    ) -> RevisedSegment:
        """Give the written unit at `start` the human's text (status `revised`, origin `human`); `by`: the
        person revising, when `owner` is a project they act in (recorded with the revision); `reviewer`:
        whether they may review, in a session with a second review (service.review_step: a reviewer's
        revision makes the unit `reviewed`, and so does their PUT of the text as it is)."""
        snapshot, state = await blocking(self._load, owner, sid, fid)
        token = snapshot.token
        check_if_match(if_match, token.version)
        units = await blocking(self.storage.list_units, sid, state.file_id)
        unit = next((u for u in units if u.start == start), None)
        if unit is None:
            raise NotFoundError(f"No written unit begins at {start} of this file.")
        person = by if by != token.owner else None  # an owner's own revision stores no name
        stage = revision_stage(unit, person, reviewer=reviewer, second_review=snapshot.second_review)
        _, pending = await self.runtime.pending_reviews(owner, sid)
        if stage == "reviewed":  # the reviewer works beside the translator: only a proposal on this unit waits
            pending = [r for r in pending if r.file_id == state.file_id and r.start < unit.end and unit.start < r.end]
        if pending:
            raise ConflictError(f"{len(pending)} proposed unit(s) await your review; answer them before revising.")
        source = await blocking(self.storage.read_file, sid, state.file_id, unit.start, unit.end)
        at = await self.runtime.store.reader(sid).segments(state.file_id, unit.start, unit.start + 1)
        segment_id = at[0].id if at else "s1"
        languages = session_languages(snapshot)
        contexts = await self._contexts(sid, state.file_id, unit.start, unit.end - unit.start)
        keys = [string_key(contexts)]  # the string's, for a context match later
        warnings = await self._checked(owner, snapshot, contexts, source, body.translated_string, file_name=state.name)
        if body.translated_string == unit.text and (stage != "reviewed" or unit.stage == "reviewed"):
            return _revised(written_segment(unit, source, segment_id), warnings, token.version)  # nothing changes
        if body.translated_string == unit.text:  # a reviewer's approval: the memory has nothing new to learn
            approved = replace(unit, by=person, stage="reviewed", auto=False)
            remembered, added = await self.tm.admit(owner, languages, [(source, unit.text, "approved")], keys=keys)
            effects = StepEffects(revisions=[approved], memory=remembered, memory_added=added)
            await self.commit_revisions(token, effects, [unit], if_match)
            self.tm.kept(owner, remembered)
            return await self._answer(sid, state.file_id, start, approved, source, segment_id, warnings, token.owner)
        revised = replace(
            unit, text=body.translated_string, status="revised", origin="human", auto=False, by=person, stage=stage
        )
        correction = Correction(
            file_id=state.file_id,
            status="revised",
            source=source,
            proposal=unit.text,
            final=body.translated_string,
            reason=body.reason,
            start=unit.start,
            issue=body.issue,
            by=person,
        )
        # The revised unit goes to the translation memory in the revision's own commit.
        remembered, added = await self.tm.admit(
            owner, languages, [(source, body.translated_string, "revised")], keys=keys
        )
        effects = StepEffects(revisions=[revised], corrections=[correction], memory=remembered, memory_added=added)
        await self.commit_revisions(token, effects, [unit], if_match)
        self.tm.kept(owner, remembered)
        distiller = self.runtime.distiller_of(snapshot.model)
        await self.runtime.learner.after_commit(
            distiller, owner, [correction], languages=languages, time_left=time_left
        )
        return await self._answer(sid, state.file_id, start, revised, source, segment_id, warnings, token.owner)

    async def commit_revisions(
        self, token: StepToken, effects: StepEffects, read: Sequence[UnitWrite], if_match: str | None
    ) -> None:
        """Commit revisions of the units `read` (of one file); one that lost to another request is made
        again over it (REBASES times at most) while those units read as they did, unless the caller named
        the version it saw (`If-Match`: then 409, as asked), so that a translator's steps and a
        reviewer's work beside them are not refused for each other."""
        wanted = {u.start: u for u in read}
        for attempt in range(REBASES + 1):
            try:
                await blocking(self.storage.commit, token, effects)
                return
            except ConflictError:
                if if_match is not None or attempt == REBASES or not read:
                    raise
                fresh = await blocking(self.storage.load_step, token.session_id, window=0)
                now = await blocking(self.storage.list_units, token.session_id, read[0].file_id)
                if [u for u in now if u.start in wanted] != list(wanted.values()):
                    raise
                token = fresh.token

    async def _answer(
        self,
        sid: str,
        fid: str,
        start: int,
        written: UnitWrite,
        source: str,
        segment_id: str,
        warnings: list[QaWarningView],
        owner: str,
    ) -> RevisedSegment:
        """The revised segment as it reads after the commit, with its history and the session's version."""
        log = await blocking(self.storage.review_log, sid, fid)  # the units now, and their history
        now = next((u for u in current_units(log) if u.start == start), written)
        record = await blocking(self.storage.get_session, sid)
        segment = written_segment(now, source, segment_id)
        segment.history = histories(log, owner=owner, review=record.review).get(start, [])
        return _revised(segment, warnings, record.version)

    # -- helpers ---------------------------------------------------------------------------------

    def _load(self, owner: str, sid: str, fid: str) -> tuple[SessionSnapshot, FileState]:
        snapshot = self.storage.load_step(session_id(sid), window=0)
        if snapshot.token.owner != owner:  # another caller's session is not found, like a missing one
            raise NotFoundError(f"No session {sid}.")
        fid = file_id(fid)
        state = next((f for f in snapshot.files if f.file_id == fid), None)
        if state is None:
            raise NotFoundError(f"No file {fid} in this session.")
        return snapshot, state

    def _read(self, sid: str, state: FileState) -> tuple[str, tuple[StoredSegment, ...], list[UnitWrite]]:
        source, stored = self.sessions.document(sid, state)
        return source, stored, self.sessions.units(sid, state)

    async def _warnings(self, owner: str, languages: str, source: str, text: str) -> list[QaWarningView]:
        glossary = (await self.memory.recall(owner)).for_languages(languages).glossary
        found = await blocking(text_warnings, source, text, glossary)
        return [QaWarningView(code=w.code, message=w.message) for w in found]


def _revised(segment: Segment, warnings: list[QaWarningView], version: int) -> RevisedSegment:
    return RevisedSegment(**segment.model_dump(), warnings=warnings, version=version)
