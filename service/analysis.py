"""A file's segments, and its analysis before (or during) a job: counts, leverage and the cost.

Segments: those stored at upload (`service.uploads`: an XLIFF file's are its own, a resource file's
its entries, Markdown's found by `agent_core.segmentation` in the language of its own text); they
never change after upload.

The analysis (API.md `GET …/files/{fileId}/analysis`) counts segments, words and characters in
total; every segment then falls in exactly one of: `locked` (kept verbatim), a `repetition` (its
source, whitespace-normalised, occurs in an earlier segment of the file and has no exact match in
the memory), or a match band of the owner's translation memory for the target language (the best
score: 101, a context match: the exact match's entry was written from a string of the segment's own
key; 100, 95–99, 85–94, 75–84, 50–74, none). The estimate is what the rest of the job will cost: the
segments not yet translated that the memory cannot propose itself (not an exact match, 100 or 101, not
a repetition; all of them when the step proposes nothing from memory, `TRANSLATION_MEMORY=off`),
priced for the session's model (`service.pricing`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.document import FileState, written
from agent_core.effects import UnitWrite
from agent_core.estimate import Asked, JobEstimate, estimate_job
from agent_core.prompts import context_label
from agent_core.segmentation import Segment, count_words
from agent_core.tm import CONTEXT_MATCH, TmEntry, exact_score, normalize, string_key

from .offload import off_loop
from .report_schemas import Analysis, AnalysisEstimate, AutoApproveReport, BandCount
from .sessions import pick_file
from .tm import tm_languages

if TYPE_CHECKING:
    from agent_core.catalog import ModelCatalog
    from storage.records import SessionRecord

    from .container import Services
    from .sessions import SessionService
    from .tm import TranslationMemory

METERED_REQUESTS, METERED_CHARS = 3, 500
"""The session's own rate replaces the loop's model once it has made this many model requests for
this many characters of model-translated units."""
BANDS: tuple[tuple[str, float], ...] = (
    ("101", float(CONTEXT_MATCH)),
    ("100", 100.0),
    ("95-99", 95.0),
    ("85-94", 85.0),
    ("75-84", 75.0),
    ("50-74", 50.0),
)
"""The usual CAT match bands, by their lowest score; below the last is `none`."""


@dataclass(frozen=True, slots=True)
class _Counted:
    segment: Segment
    source: str
    words: int


class Analyses:
    """Analyses of the caller's files, over the sessions' files and the owner's translation memory."""

    def __init__(
        self,
        sessions: SessionService,
        tm: TranslationMemory,
        models: ModelCatalog,
        *,
        batch_chars: int,
        proposals: bool,
    ) -> None:
        self.sessions, self.tm, self.models = sessions, tm, models
        self.batch_chars = batch_chars
        self.proposals = proposals
        """Whether the step proposes remembered units itself (`TRANSLATION_MEMORY`): if not, the model
        translates the 100% matches and repetitions too."""

    async def analyse(
        self, owner: str, sid: str, fid: str, *, target: str | None, min_estimate: int | None = None
    ) -> Analysis:
        """The analysis of one file, for `target` (else the session's target language, else none), with
        what the threshold `min_estimate` (else the session's `autoApprove`) does to it.

        It reads the store and counts, matches and prices every segment: linear in the file, but
        seconds for a file of tens of thousands of strings, so it runs off the event loop (`off_loop`)."""
        return await off_loop(lambda: self._analyse(owner, sid, fid, target=target, min_estimate=min_estimate))

    async def _analyse(
        self, owner: str, sid: str, fid: str, *, target: str | None, min_estimate: int | None
    ) -> Analysis:
        record = self.sessions.owned(owner, sid)
        files = list(self.sessions.storage.load_step(record.session_id, window=0).files)
        state = pick_file(files, fid)
        content, segments = self.sessions.document(sid, state)  # as stored at upload, in one read
        counted = [_Counted(s, content[s.start : s.end], count_words(content[s.start : s.end])) for s in segments]
        target = target or record.target_language
        open_ = [c for c in counted if not c.segment.locked]
        scores, exact = await self._scores(owner, target, [c.source for c in open_]) if target else ({}, {})
        bands = {name: BandCount(segments=0, words=0) for name, _ in BANDS} | {"none": BandCount(segments=0, words=0)}
        seen: set[str] = set()
        repetitions, asked = 0, list[Asked]()  # what the model will be asked, in order
        for c in open_:
            key, score = normalize(c.source), scores.get(c.source, 0.0)
            if c.source in exact:
                score = float(exact_score(exact[c.source], string_key([c.segment.context])))
            repeated = key in seen
            seen.add(key)
            if not written(c.segment, state.covered) and ((score < 100.0 and not repeated) or not self.proposals):
                context = c.segment.context
                label = context_label(context, target, c.source) if context else ""
                asked.append(Asked(c.source, label, context.key if context else None))
            if score < 100.0 and repeated:
                repetitions += 1
                continue
            band = next((name for name, low in BANDS if score >= low), "none")
            bands[band] = BandCount(segments=bands[band].segments + 1, words=bands[band].words + c.words)
        job, basis = self._metered(record, files, asked)
        if job is None:
            job, basis = estimate_job(asked, batch_chars=self.batch_chars), "loop"
        model = self.models.name(record.model)
        price = self.models.price(model)
        threshold = min_estimate if min_estimate is not None else record.auto_approve
        report = None
        if threshold is not None:
            units = self.sessions.units(record.session_id, state)
            exact_bands = (bands["101"], bands["100"])
            memory = BandCount(segments=sum(b.segments for b in exact_bands), words=sum(b.words for b in exact_bands))
            report = auto_report(threshold, memory, units, content)
        return Analysis(
            autoApprove=report,
            segments=len(segments),
            words=sum(c.words for c in counted),
            chars=sum(len(c.source) for c in counted),
            locked=len(segments) - len(open_),
            repetitions=repetitions,
            bands=bands,
            targetLanguage=target,
            estimate=AnalysisEstimate(
                modelRequests=job.model_requests,
                inputTokens=job.input_tokens,
                outputTokens=job.output_tokens,
                usd=None if price is None else round(price.cost(job.input_tokens, job.output_tokens), 4),
                model=model,
                basis=basis,
            ),
        )

    def _metered(
        self, record: SessionRecord, files: Sequence[FileState], asked: Sequence[Asked]
    ) -> tuple[JobEstimate | None, str]:
        """The rest of the job at the rate the session has metered so far, once it has made
        METERED_REQUESTS model requests for METERED_CHARS characters the model translated: the
        model's own habits (units per response, retries, rejections) are then in the figures."""
        spent = record.telemetry
        if spent.model_requests < METERED_REQUESTS:
            return None, "loop"
        done = sum(
            u.end - u.start for f in files for u in self.sessions.units(record.session_id, f) if u.origin == "model"
        )
        if done < METERED_CHARS:
            return None, "loop"
        left = sum(len(a.source) for a in asked)
        job = JobEstimate(
            model_requests=math.ceil(spent.model_requests * left / done) if left else 0,
            input_tokens=round(spent.input_tokens * left / done),
            output_tokens=round(spent.output_tokens * left / done),
        )
        return job, "metered"

    async def _scores(
        self, owner: str, target: str, sources: Sequence[str]
    ) -> tuple[dict[str, float], dict[str, TmEntry]]:
        """Each source's best match in the owner's memory for `target` (100 for an exact one), and the
        entries of the exact ones (whose keys make a segment's context match)."""
        languages = tm_languages(target)
        unique = list(dict.fromkeys(sources))
        exact = {s: e for s, e in (await self.tm.exact(owner, languages, unique)).items() if e.target.strip()}
        scores = dict.fromkeys(exact, 100.0)
        rest = [s for s in unique if s not in scores]
        similar = await self.tm.similar_many(owner, languages, rest, limit=1, threshold=BANDS[-1][1]) if rest else {}
        scores |= {s: min(found[0].score, 99.0) for s, found in similar.items() if found}
        return scores, exact


def auto_report(threshold: int, exact: BandCount, units: Sequence[UnitWrite], content: str) -> AutoApproveReport:
    """What `threshold` does to a file whose translation memory holds `exact` and whose written units
    are `units` (see AutoApproveReport)."""
    # The model's: a unit written from a proposal with an estimate that was not the memory's (a revision keeps it).
    proposed = [u for u in units if u.estimate is not None and u.origin != "memory"]
    above = [u for u in proposed if u.estimate is not None and u.estimate >= threshold]

    def counted(chosen: Sequence[UnitWrite]) -> BandCount:
        return BandCount(segments=len(chosen), words=sum(count_words(content[u.start : u.end]) for u in chosen))

    return AutoApproveReport(
        minEstimate=threshold,
        memory=exact,
        written=counted(proposed),
        atOrAbove=counted(above),
        edited=sum(u.status in ("refined", "revised") for u in above),
        auto=sum(u.auto for u in units),
    )


def analyses_of(services: Services) -> Analyses:
    """The analyses over the app's services: the runtime's models and screen size, and whether its step
    proposes remembered units itself."""
    runtime = services.runtime
    return Analyses(
        services.sessions,
        services.tm,
        runtime.models,
        batch_chars=runtime.batch_chars,
        proposals=runtime.lookups is not None,
    )
