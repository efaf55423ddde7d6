"""The bodies of the project routes (API.md "Projects and teams"), exactly as the contract names them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from storage.projects import ProjectRecord

from .schemas import AutoApproveBody, Progress

ROLE = Literal["manager", "reviewer", "translator"]


class ProjectCreate(BaseModel):
    """`POST /api/projects`: the caller becomes its first manager."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    sourceLanguage: str | None = Field(default=None, max_length=64)
    """The source language of the project's sessions when they do not give one (BCP 47 or a name)."""
    review: Literal["single", "double"] = "single"
    autoApprove: AutoApproveBody | None = None
    """The auto-approval the project's sessions start with when they do not give one."""


class ProjectPatch(BaseModel):
    """`PATCH /api/projects/{id}` (managers): an absent field is left as it is; null clears one."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=200)
    sourceLanguage: str | None = Field(default=None, max_length=64)
    review: Literal["single", "double"] | None = None
    autoApprove: AutoApproveBody | None = None


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
    review: Literal["single", "double"]
    autoApprove: AutoApproveBody | None
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
    review: Literal["single", "double"] = "single"
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
        autoApprove=AutoApproveBody(minEstimate=auto) if auto is not None else None,
        members=[MemberView(sub=m.sub, role=m.role, languages=list(m.languages)) for m in project.members],
        createdAt=project.created_at,
        updatedAt=project.updated_at,
    )
