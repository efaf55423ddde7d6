"""Jobs (API.md "Jobs"): one upload translated into several languages, each language a session of its own.

A job is a record written once: its languages and their sessions, and each language's figures when
it was created (the files' segments and the analysis's estimate). Everything else is read from the
sessions at each view, so a language goes on, waits or fails on its own, and the job's view is never
stale: a language's `state` is its session's (service.standing), its progress its files', its spending
its telemetry.

Creating a job creates one session per language with the files and the task ("Translate guide.md
into German."), so a client drives each language with `POST /api/next {"sessionId"}` alone. Nothing
is stored for a bad request: the languages and the model are checked first; the first language's
upload checks the files, and a failure on the way (a store's throttle during an estimate, the job's own
write) removes the sessions already made: a job is created whole or not at all.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from agent_core.errors import AgentError, InvalidRequestError, NotFoundError, UnavailableError
from agent_core.ids import is_id, new_id
from agent_core.ports import SessionStore
from storage.interface import JobStore
from storage.projects import ProjectRecord
from storage.records import JobRecord

from .access import project_thing_id
from .analysis import Analyses
from .blocking import blocking
from .job_schemas import JobCreate, JobCreated, JobEstimate, JobLanguage, JobProgress, JobSpent, JobView
from .schemas import SessionSettings
from .sessions import SessionService, language_tag
from .standing import segments_left, standing
from .uploads import ReadFile

log = logging.getLogger(__name__)

REMOVE_PAUSES = (0.1, 0.5, None)
"""Pauses between the tries to delete a session of a job that failed to start (None: the last try)."""


def language_name(tag: str) -> str:
    """The English name of a BCP 47 tag (`de` → `German`, `pt-BR` → `Portuguese (Brazil)`), else the tag."""
    from babel import Locale, UnknownLocaleError

    try:
        return str(Locale.parse(tag.replace("-", "_")).english_name or tag)
    except (UnknownLocaleError, ValueError, TypeError):
        return tag


def task_for(names: Sequence[str], tag: str) -> str:
    """The user's task a job's session starts with."""
    shown = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    return f"Translate {shown} into {language_name(tag)}."


class Jobs:
    """The caller's jobs, over their sessions."""

    def __init__(self, sessions: SessionService, analyses: Analyses, store: SessionStore, jobs: JobStore) -> None:
        self.sessions = sessions
        self.analyses = analyses
        self.store = store
        """The sessions' files through the process's cache of file chunks (service.standing)."""
        self.storage = sessions.storage
        self.jobs = jobs

    async def create(self, owner: str, body: JobCreate) -> JobCreated:
        """A session per language with the files and the task; the job record last."""
        tags = [language_tag(language) for language in body.targetLanguages]
        if len(set(tags)) < len(tags):
            raise InvalidRequestError("targetLanguages names a language twice.")
        names = [f.name for f in body.files]
        # Every file is read and segmented once, before anything is stored: a file that cannot be read
        # is 422 with no session made, and each language stores the same read.
        reads = [await blocking(self.sessions.read_file, upload) for upload in body.files]
        owner, project = await blocking(self.sessions.owner_for_new, owner, body.project)
        new = project_thing_id if project is not None else new_id
        made = {tag: new("s") for tag in tags if tag is not None}  # known before any is written
        try:
            segments: dict[str, int] = {}
            files: dict[str, list[str]] = {}
            for tag, sid in made.items():
                await blocking(self._session, owner, body, tag, names, sid, project)
                segments[tag], files[tag] = await blocking(self._upload, owner, sid, body, reads)
            figures = {
                tag: {**(await self._estimate(owner, sid, files[tag], tag)), "segments": segments[tag]}
                for tag, sid in made.items()
            }
            job = JobRecord(
                job_id=new("j"),
                owner=owner,
                created_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
                sessions=made,
                estimates=figures,
            )
            await blocking(self.jobs.put_job, job)
        except BaseException:  # a job is created whole or not at all: its sessions go with a failure
            await asyncio.shield(blocking(self._remove, owner, list(made.values())))
            raise
        return JobCreated(id=job.job_id, sessions=dict(made))

    def _session(
        self, owner: str, body: JobCreate, tag: str, names: list[str], sid: str, project: ProjectRecord | None
    ) -> None:
        """One language's session, with the task (in the job's project, if any)."""
        settings = SessionSettings(
            sourceLanguage=body.sourceLanguage, targetLanguage=tag, budget=body.budget, model=body.model
        )
        self.sessions.create(owner, settings, task=task_for(names, tag), session_id=sid, project=project)

    def _upload(
        self, owner: str, sid: str, body: JobCreate, reads: list[tuple[ReadFile, str | None]]
    ) -> tuple[int, list[str]]:
        """The job's files, as read once, into one language's session: how many segments they have, and their ids."""
        added = [
            self.sessions.add_file(owner, sid, upload, read) for upload, read in zip(body.files, reads, strict=True)
        ]
        return sum(count for _, count in added), [state.file_id for state, _ in added]

    def _remove(self, owner: str, sids: list[str]) -> None:
        """Delete the sessions of a job that failed to start, each tried again after a pause while the
        store is busy (it just failed the job, maybe by a throttle)."""
        for sid in sids:
            for pause in REMOVE_PAUSES:
                try:
                    self.sessions.delete(owner, sid)
                    break
                except UnavailableError:
                    if pause is None:
                        log.warning("a session of a job that failed to start was not removed: %s", sid)
                    else:
                        time.sleep(pause)
                except NotFoundError:  # not made, or made by no one else
                    break
                except AgentError:
                    log.warning("a session of a job that failed to start was not removed: %s", sid)
                    break

    async def _estimate(self, owner: str, sid: str, file_ids: list[str], tag: str) -> dict[str, float]:
        """The analysis's estimate for all of the session's files, added up."""
        total = {"modelRequests": 0.0, "inputTokens": 0.0, "outputTokens": 0.0}
        usd: float | None = 0.0
        for file_id in file_ids:
            estimate = (await self.analyses.analyse(owner, sid, file_id, target=tag)).estimate
            total["modelRequests"] += estimate.modelRequests
            total["inputTokens"] += estimate.inputTokens
            total["outputTokens"] += estimate.outputTokens
            usd = None if usd is None or estimate.usd is None else usd + estimate.usd
        return total if usd is None else {**total, "usd": round(usd, 4)}

    async def view(self, owner: str, job_id: str) -> JobView:
        """Each language's session, progress, state, spending and estimate, and the totals."""
        if not is_id(job_id, "j"):
            raise NotFoundError(f"No job {job_id[:80]}.")
        job = await blocking(self.jobs.get_job, job_id)
        if job.owner != owner:
            raise NotFoundError(f"No job {job_id}.")
        languages = {
            tag: await self._language_view(owner, sid, job.estimates.get(tag, {})) for tag, sid in job.sessions.items()
        }
        spent = JobSpent(
            modelRequests=sum(v.spent.modelRequests for v in languages.values()),
            inputTokens=sum(v.spent.inputTokens for v in languages.values()),
            outputTokens=sum(v.spent.outputTokens for v in languages.values()),
            usd=round(sum(v.spent.usd for v in languages.values()), 6),
        )
        prices = [v.estimate.usd for v in languages.values()]
        estimate = JobEstimate(
            modelRequests=sum(v.estimate.modelRequests for v in languages.values()),
            inputTokens=sum(v.estimate.inputTokens for v in languages.values()),
            outputTokens=sum(v.estimate.outputTokens for v in languages.values()),
            usd=None if any(p is None for p in prices) else round(sum(p or 0.0 for p in prices), 4),
        )
        return JobView(id=job.job_id, createdAt=job.created_at, languages=languages, spent=spent, estimate=estimate)

    async def _language_view(self, owner: str, sid: str, figures: Mapping[str, float]) -> JobLanguage:
        estimate = JobEstimate(
            modelRequests=int(figures.get("modelRequests", 0)),
            inputTokens=int(figures.get("inputTokens", 0)),
            outputTokens=int(figures.get("outputTokens", 0)),
            usd=figures.get("usd"),
        )
        total = int(figures.get("segments", 0))
        try:
            record = await blocking(self.sessions.owned, owner, sid)
            files = (await blocking(self.storage.load_step, sid, window=0)).files
        except NotFoundError:
            gone = JobProgress(translatedChars=0, totalChars=0, complete=False, segments=total, segmentsLeft=total)
            nothing = JobSpent(modelRequests=0, inputTokens=0, outputTokens=0, usd=0.0)
            return JobLanguage(
                sessionId=sid,
                progress=gone,
                state="failed",
                error="The session was deleted.",
                spent=nothing,
                estimate=estimate,
            )
        left = await segments_left(self.store, sid, files)
        state, retry_at, error = standing(record, files, left)
        progress = JobProgress(
            translatedChars=sum(f.translated_chars for f in files),
            totalChars=sum(f.chars for f in files),
            complete=state == "complete",
            segments=total,
            segmentsLeft=left,
        )
        t = record.telemetry
        spent = JobSpent(
            modelRequests=t.model_requests,
            inputTokens=t.input_tokens,
            outputTokens=t.output_tokens,
            usd=round(t.cost_micro_usd / 1e6, 6),
        )
        return JobLanguage(
            sessionId=sid, progress=progress, state=state, retryAt=retry_at, error=error, spent=spent, estimate=estimate
        )
