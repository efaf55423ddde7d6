"""What the MCP tools answer: sessions, proposals and jobs in the words an agent relays to a person."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from terminal.models import FileInfo, JobSpent, JobView

from .api import Pending, Session
from .lookup import GlossaryHit, MemoryMatch


class _View(BaseModel):
    # Field docstrings become descriptions in the tools' output schemas, which agents read.
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)


class Proposal(_View):
    """A proposal that waits for a person's verdict: show `source` and `proposal` (and `current`) as they are."""

    call_id: str
    kind: str
    """`Translate` (a new unit) or `Revise` (a new text for a unit already written: `current` holds it)."""
    file_id: str
    source: str
    proposal: str
    """The proposed text; a verdict must quote it exactly (a plural entry's forms as this JSON text)."""
    current: str | None = None
    origin: str
    """`model`, or `memory` (the translation memory's exact match, proposed with no model request)."""
    estimate: int | None = None
    """The service's quality estimate, 0–100."""
    warnings: list[str] = Field(default_factory=list)
    key: str | None = None
    """A resource string's key, with the developer's `note` when the file has one."""
    note: str | None = None


class FileProgress(_View):
    """How much of a file is written (approved, edited or revised by a person, or kept verbatim)."""

    file_id: str
    name: str
    translated_chars: int
    total_chars: int
    complete: bool


class Spent(_View):
    """What the model requests cost so far (`usd` null for a model without a price)."""

    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float | None = None


class SessionReport(_View):
    """Where a session stands, and what waits for the person."""

    session_id: str
    state: str
    """`running`, `waiting` (the provider said to retry at `retry_at`), `failed` (`error`) or `complete`."""
    target_language: str | None
    model: str | None
    files: list[FileProgress]
    segments_left: int
    spent: Spent
    pending: list[Proposal]
    """The proposals a person must decide now (with `decide`), in document order."""
    error: str | None = None
    retry_at: str | None = None
    next: str
    """What can happen next, in a sentence."""


def proposal(pending: Pending) -> Proposal:
    """A pending copilot request as the agent shows it."""
    return Proposal(
        call_id=pending.tool.callId,
        kind=pending.tool.name,
        file_id=pending.file_id,
        source=pending.src_string,
        proposal=pending.translate_string,
        current=pending.current_string,
        origin=pending.origin,
        estimate=pending.estimate,
        warnings=[w.message or w.code for w in pending.warnings],
        key=pending.context.key if pending.context else None,
        note=pending.context.note if pending.context else None,
    )


def progress(files: tuple[FileInfo, ...]) -> list[FileProgress]:
    """Each file's progress."""
    return [
        FileProgress(
            file_id=f.fileId,
            name=f.name,
            translated_chars=f.progress.translatedChars,
            total_chars=f.progress.totalChars or f.chars,
            complete=f.progress.complete,
        )
        for f in files
    ]


def report(session: Session) -> SessionReport:
    """A session's report, its pending proposals in full."""
    t = session.telemetry
    return SessionReport(
        session_id=session.id,
        state=session.state,
        target_language=session.targetLanguage,
        model=session.model,
        files=progress(session.files),
        segments_left=session.segmentsLeft,
        spent=Spent(
            model_requests=t.modelRequests, input_tokens=t.inputTokens, output_tokens=t.outputTokens, usd=t.usd
        ),
        pending=[proposal(p) for p in session.pendingCopilotRequests],
        error=session.error,
        retry_at=session.retryAt,
        next=_next(session),
    )


def _next(session: Session) -> str:
    if session.pendingCopilotRequests:
        return "Show the person each proposal; send their verdicts with `decide`."
    if session.state == "complete":
        return "Every segment is written: `export_translation` fetches the translation."
    if session.state == "failed":
        return f"Stopped: {session.error}. Another model or a higher budget lets it go on."
    if session.state == "waiting":
        return f"The provider asked to retry at {session.retryAt}; then `continue_translation`."
    return "No proposal waits: `continue_translation` asks the model for the next ones (model requests)."


class JobLanguageReport(_View):
    """One language of a job."""

    language: str
    session_id: str
    state: str
    segments: int
    segments_left: int
    complete: bool
    spent: Spent
    estimate: Spent
    """What the analysis expected the language to cost when the job was made."""
    error: str | None = None


class JobReport(_View):
    """A job: one session a language, each reviewed on its own."""

    job_id: str
    languages: list[JobLanguageReport]
    spent: Spent
    estimate: Spent


def job_report(job: JobView) -> JobReport:
    """A job's report from `GET /api/jobs/{id}`."""

    return JobReport(
        job_id=job.id,
        languages=[
            JobLanguageReport(
                language=tag,
                session_id=lang.sessionId,
                state=lang.state,
                segments=lang.progress.segments,
                segments_left=lang.progress.segmentsLeft,
                complete=lang.progress.complete,
                spent=_spent(lang.spent),
                estimate=_spent(lang.estimate),
                error=lang.error,
            )
            for tag, lang in job.languages.items()
        ],
        spent=_spent(job.spent),
        estimate=_spent(job.estimate),
    )


def _spent(s: JobSpent) -> Spent:
    return Spent(model_requests=s.modelRequests, input_tokens=s.inputTokens, output_tokens=s.outputTokens, usd=s.usd)


class Lookup(_View):
    """What the memory holds for a term or a sentence."""

    glossary: list[GlossaryHit]
    memory: list[MemoryMatch]


class FileAnalysis(_View):
    """A file's counts, its translation-memory leverage and what translating it would cost."""

    name: str
    target_language: str | None
    segments: int
    words: int
    chars: int
    locked: int
    repetitions: int
    bands: dict[str, int]
    """Segments by their best translation-memory match: `100`, `95-99`, `85-94`, `75-84`, `50-74`, `none`."""
    estimate: Spent
    model: str


class Export(_View):
    """A file's translation: what people decided, in the requested format."""

    file_name: str
    complete: bool
    """False while some text is untranslated (left out of the translation)."""
    text: str | None
    """The translation (null for a binary format)."""
    written_to: str | None = None
