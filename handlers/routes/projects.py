"""Projects and teams (API.md "Projects and teams"): projects, members, a project's sessions and memory.

Every decision (who may read or change what) is service.access's; a project's memory is served by the
memory routes' own endpoints under the project's path, acting as the project (handlers.deps.get_owner).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from service.access import LOCAL_USER
from service.project_schemas import (
    MemberBody,
    ProjectCreate,
    ProjectList,
    ProjectPatch,
    ProjectSessions,
    ProjectView,
    QualityReport,
    project_view,
)

from ..deps import CallerDep, ServicesDep
from ..identity import is_local
from . import memory

router = APIRouter()

Sub = Path(min_length=1, max_length=256, description="the member's identity (JWT `sub`), exactly as given")


@router.post("/api/projects", status_code=201)
def create_project(request: Request, body: ProjectCreate, caller: CallerDep, services: ServicesDep) -> ProjectView:
    """A new project; the caller is its first manager (in local mode, the local user is one too)."""
    also = LOCAL_USER if is_local(request) and caller != LOCAL_USER else None
    return project_view(services.projects.create(caller, body, also_manager=also))


@router.get("/api/projects")
def list_projects(caller: CallerDep, services: ServicesDep) -> ProjectList:
    """The caller's projects, with their role and languages in each."""
    return services.projects.mine(caller)


@router.get("/api/projects/{project_id}")
def get_project(project_id: str, caller: CallerDep, services: ServicesDep) -> ProjectView:
    """The project (any member)."""
    return project_view(services.projects.access(caller, project_id).project)


@router.patch("/api/projects/{project_id}")
def patch_project(project_id: str, body: ProjectPatch, caller: CallerDep, services: ServicesDep) -> ProjectView:
    """Change the name and settings (managers)."""
    return project_view(services.projects.patch(caller, project_id, body))


@router.put("/api/projects/{project_id}/members/{sub}")
def put_member(
    project_id: str, body: MemberBody, caller: CallerDep, services: ServicesDep, sub: str = Sub
) -> ProjectView:
    """Add a member or change their role and languages (managers)."""
    return project_view(services.projects.put_member(caller, project_id, sub, body))


@router.delete("/api/projects/{project_id}/members/{sub}")
def delete_member(project_id: str, caller: CallerDep, services: ServicesDep, sub: str = Sub) -> ProjectView:
    """Remove a member (managers); never the last manager."""
    return project_view(services.projects.remove_member(caller, project_id, sub))


@router.get("/api/projects/{project_id}/sessions")
async def project_sessions(
    project_id: str,
    caller: CallerDep,
    services: ServicesDep,
    cursor: str | None = Query(default=None, max_length=2048),
    limit: int = Query(default=20, ge=1, le=100),
) -> ProjectSessions:
    """The project's sessions the caller may read, newest first, a page at a time."""
    return await services.projects.sessions(caller, project_id, cursor=cursor, limit=limit)


@router.get("/api/projects/{project_id}/quality")
async def project_quality(
    project_id: str,
    caller: CallerDep,
    services: ServicesDep,
    language: str = Query(min_length=1, max_length=64),
) -> QualityReport:
    """The project's auto-approval for one language, measured per estimate band (service.quality)."""
    from service.quality import Quality

    return await Quality(services.storage).report(caller, project_id, language)


# The project's memory: the memory routes' endpoints, acting as the project (handlers.deps.get_owner).
_MEMORY = "/api/projects/{project_id}/memory"


def _project(project_id: str = Path(max_length=256)) -> None:
    """Declares the path's project id to OpenAPI (the owner dependency reads it from the path)."""


_AS_PROJECT = [Depends(_project)]
router.add_api_route(_MEMORY, memory.get_memory, methods=["GET"], dependencies=_AS_PROJECT)
router.add_api_route(
    f"{_MEMORY}/glossary", memory.add_glossary_entry, methods=["POST"], status_code=201, dependencies=_AS_PROJECT
)
router.add_api_route(
    f"{_MEMORY}/style-notes", memory.add_style_note, methods=["POST"], status_code=201, dependencies=_AS_PROJECT
)
router.add_api_route(
    f"{_MEMORY}/export", memory.export_memory, methods=["GET"], response_class=Response, dependencies=_AS_PROJECT
)
router.add_api_route(f"{_MEMORY}/import", memory.import_memory, methods=["POST"], dependencies=_AS_PROJECT)
router.add_api_route(f"{_MEMORY}/concordance", memory.concordance, methods=["GET"], dependencies=_AS_PROJECT)
router.add_api_route(f"{_MEMORY}/tm", memory.list_tm, methods=["GET"], dependencies=_AS_PROJECT)
router.add_api_route(f"{_MEMORY}/tm/{{entry_id}}", memory.edit_tm, methods=["PUT"], dependencies=_AS_PROJECT)
router.add_api_route(
    f"{_MEMORY}/tm/{{entry_id}}",
    memory.delete_tm,
    methods=["DELETE"],
    status_code=204,
    response_class=Response,
    dependencies=_AS_PROJECT,
)
router.add_api_route(f"{_MEMORY}/{{entry_id}}", memory.update_memory_entry, methods=["PUT"], dependencies=_AS_PROJECT)
router.add_api_route(
    f"{_MEMORY}/{{entry_id}}",
    memory.delete_memory_entry,
    methods=["DELETE"],
    status_code=204,
    response_class=Response,
    dependencies=_AS_PROJECT,
)
