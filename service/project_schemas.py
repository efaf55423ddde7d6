"""The bodies of the project routes (API.md "Projects and teams"), exactly as the contract names them."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_core.review_modes import ReviewMode
from storage.projects import ProjectRecord

from .report_schemas import PostEdit
from .schemas import AutoApproveBody, Progress

ROLE = Literal["manager", "reviewer", "translator"]


class ProjectCreate(BaseModel):
    """`POST /api/projects`: the caller becomes its first manager."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    sourceLanguage: str | None = Field(default=None, max_length=64)
    """The source language of the project's sessions when they do not give one (BCP 47 or a name)."""
    review: ReviewMode = "single"
    autoApprove: AutoApproveBody | None = None
    """The auto-approval the project's sessions start with when they do not give one."""
    qaProfile: str | dict[str, Any] | None = None
    """The QA profile the project's sessions start with when they do not give one (API.md "QA profiles")."""


class ProjectPatch(BaseModel):
    """`PATCH /api/projects/{id}` (managers): an absent field is left as it is; null clears one."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=200)
    sourceLanguage: str | None = Field(default=None, max_length=64)
    review: ReviewMode | None = None
    autoApprove: AutoApproveBody | None = None
    qaProfile: str | dict[str, Any] | None = None


class MemberBody(BaseModel):
    """`PUT /api/projects/{id}/members/{sub}` (managers): the member's role and languages."""

    model_config = ConfigDict(extra="forbid")

    role: ROLE
    languages: list[str] = Field(min_length=1, max_length=100)
    """BCP 47 tags (or names), or `["*"]` for every language."""


class MemberView(BaseModel):
    """A member as the Project lists them."""

    sub: str
    role: ROLE
    languages: list[str]


class ProjectView(BaseModel):
    """A project: its settings and members."""

    id: str
    name: str
    sourceLanguage: str | None
    review: ReviewMode
    autoApprove: AutoApproveBody | None
    qaProfile: str | dict[str, Any] | None = None
    members: list[MemberView]
    createdAt: str
    updatedAt: str


class ProjectItem(BaseModel):
    """A project in the caller's list, with the caller's role and languages in it."""

    id: str
    name: str
    role: ROLE
    languages: list[str]


class ProjectList(BaseModel):
    """`GET /api/projects`: the caller's projects, oldest first."""

    projects: list[ProjectItem]


class ProjectSession(BaseModel):
    """A session of the project's list: its languages, where it stands and its progress."""

    id: str
    sourceLanguage: str | None
    targetLanguage: str | None
    state: Literal["running", "waiting", "failed", "complete"]
    progress: Progress
    """Summed over the session's files."""
    messageCount: int
    createdAt: str
    updatedAt: str
    review: ReviewMode = "single"
    heldBy: str | None = None
    """The member who drives it now (service.claims), null when nobody does."""
    until: str | None = None
    """When that claim ends unless they step again (ISO 8601, UTC), null with `heldBy`."""


class ProjectSessions(BaseModel):
    """`GET /api/projects/{id}/sessions`: a page of the sessions the caller may read, newest first."""

    sessions: list[ProjectSession]
    nextCursor: str | None


def project_view(project: ProjectRecord) -> ProjectView:
    """The Project body (API.md)."""
    auto = project.auto_approve
    return ProjectView(
        id=project.project_id,
        name=project.name,
        sourceLanguage=project.source_language,
        review=project.review,
        autoApprove=AutoApproveBody(minEstimate=auto, sample=project.auto_sample) if auto is not None else None,
        qaProfile=json.loads(project.qa_profile) if project.qa_profile else None,
        members=[MemberView(sub=m.sub, role=m.role, languages=list(m.languages)) for m in project.members],
        createdAt=project.created_at,
        updatedAt=project.updated_at,
    )


class QualityBand(BaseModel):
    """One estimate band of the quality report (service.quality)."""

    band: str
    """The proposals' estimates it counts (`90-100`, `80-89`, `70-79`, `50-69`, `0-49`)."""
    autoApproved: int
    """Units the routing approved without a person."""
    changed: int
    """Of those, the ones a person changed later."""
    postEdit: PostEdit
    """The routed texts against the units' texts now."""
    sampled: int
    """Units the routing would have approved that its sample sent to a person."""
    sampledEdited: int
    """Of those, the ones the person edited (refined, or revised later): what the rule lets through."""
    sampledPostEdit: PostEdit
    """Their proposals against the texts the person kept."""


class QualityReport(BaseModel):
    """`GET /api/projects/{id}/quality?language=L`: the project's auto-approval, measured per band."""

    language: str
    minEstimate: int | None
    """The project's threshold now (each unit was routed by the one in force when it was proposed)."""
    sample: float
    sessions: int
    """The project's sessions into the language that were read."""
    complete: bool
    """False when the project has more sessions than one report reads (the newest were)."""
    bands: list[QualityBand]
