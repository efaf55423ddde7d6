"""The bodies of `POST /api/jobs` and `GET /api/jobs/{id}` (API.md "Jobs"), as pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .schemas import BudgetBody, FileUpload, Progress, SessionState

MAX_JOB_LANGUAGES = 30
"""A job translates into at most this many languages (a session each)."""
MAX_JOB_FILES = 20
"""A job holds at most this many files (each of its sessions holds them all)."""


class JobCreate(BaseModel):
    """`POST /api/jobs`: the files, translated into each of the target languages (a session each)."""

    model_config = ConfigDict(extra="forbid")

    files: list[FileUpload] = Field(min_length=1, max_length=MAX_JOB_FILES)
    targetLanguages: list[str] = Field(min_length=1, max_length=MAX_JOB_LANGUAGES)
    """BCP 47 tags (or names): each one a session; two that name one language are 422."""
    sourceLanguage: str | None = Field(default=None, max_length=64)
    """The files' language; absent: detected from the first file."""
    budget: BudgetBody | None = None
    """Each language's session's budget (a cap per language, not for the job as a whole)."""
    model: str | None = Field(default=None, min_length=1, max_length=200)
    """One of the configured models for every language (absent: the default); PATCH a language's
    session to change it for that language alone."""
    project: str | None = Field(default=None, max_length=64)
    """The project the job and its sessions belong to (its managers create them); absent: the caller's own."""


class JobCreated(BaseModel):
    """`POST /api/jobs`: the job and each language's session."""

    id: str
    sessions: dict[str, str]
    """Each target language (BCP 47) and its session's id."""


class JobEstimate(BaseModel):
    """What the analysis estimated, when the job was created, for the whole of a language's files."""

    modelRequests: int
    inputTokens: int
    outputTokens: int
    usd: float | None
    """None when the model has no price."""


class JobSpent(BaseModel):
    """What a language's session has spent so far (its steps' telemetry)."""

    modelRequests: int
    inputTokens: int
    outputTokens: int
    usd: float


class JobProgress(Progress):
    """A language's progress over all its files."""

    segments: int
    """The segments of all the files."""
    segmentsLeft: int
    """Those not written yet: the language is complete only at 0."""


class JobLanguage(BaseModel):
    """One language of a job: its session, progress, state, and spending against the estimate."""

    sessionId: str
    progress: JobProgress
    state: SessionState
    """As the Session view's: `running`, `waiting` (with `retryAt`), `failed` (with `error`), `complete`."""
    retryAt: str | None = None
    error: str | None = None
    spent: JobSpent
    estimate: JobEstimate


class JobView(BaseModel):
    """`GET /api/jobs/{id}`: each language's session and where it stands, and the job's totals."""

    id: str
    createdAt: str
    languages: dict[str, JobLanguage]
    spent: JobSpent
    """The languages' spending, added up."""
    estimate: JobEstimate
    """The languages' estimates, added up."""
