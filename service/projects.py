"""Projects for the API: create, read, change settings and members, list a caller's projects and a
project's sessions. Every decision is service.access's; this module reads, applies and writes.

A change is read-modify-write of the project's one record, conditional on its version, tried again
(MAX_TRIES) when another change committed first, so concurrent member changes lose nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from agent_core.document import FileState
from agent_core.errors import ConflictError, InvalidRequestError, NotFoundError
from agent_core.ids import new_id
from storage.interface import Storage
from storage.projects import ALL_LANGUAGES, ProjectMember, ProjectRecord
from storage.records import SessionRecord

from .access import Access, Action, decide, may, project_id, project_owner
from .blocking import blocking
from .claims import Claims
from .project_schemas import (
    MemberBody,
    ProjectCreate,
    ProjectItem,
    ProjectList,
    ProjectPatch,
    ProjectSession,
    ProjectSessions,
)
from .schemas import Progress
from .sessions import kept_profile, language_tag
from .standing import standing

MAX_TRIES = 3
"""How many times a change of a project is tried over another change that committed first."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def languages_of(given: list[str]) -> tuple[str, ...]:
    """A member's languages as BCP 47 tags, or `("*",)`; 422 for one unknown or for `*` beside others."""
    if ALL_LANGUAGES in given:
        if len(given) > 1:
            raise InvalidRequestError('Give either ["*"] (every language) or a list of languages, not both.')
        return (ALL_LANGUAGES,)
    tags = [language_tag(value) for value in given]
    return tuple(dict.fromkeys(tag for tag in tags if tag is not None))


class ProjectService:
    """Projects over a storage backend; every method is blocking unless it says otherwise."""

    def __init__(self, storage: Storage, *, claims: Claims | None = None) -> None:
        self.storage = storage
        self.claims = claims or Claims(storage)
        """Who holds each listed session (the steps' own, so that both read one clock)."""

    def create(self, caller: str, body: ProjectCreate, *, also_manager: str | None = None) -> ProjectRecord:
        """A new project whose first manager is the caller (and `also_manager`, the local user of local mode)."""
        managers = dict.fromkeys(m for m in (caller, also_manager) if m is not None)
        stamp = _now()
        project = ProjectRecord(
            project_id=new_id("p"),
            name=body.name.strip(),
            source_language=language_tag(body.sourceLanguage),
            review=body.review,
            auto_approve=body.autoApprove.minEstimate if body.autoApprove is not None else None,
            auto_sample=body.autoApprove.sample if body.autoApprove is not None else 0.0,
            qa_profile=kept_profile(body.qaProfile),
            members=tuple(ProjectMember(sub=m, role="manager", languages=(ALL_LANGUAGES,)) for m in managers),
            created_at=stamp,
            updated_at=stamp,
            version=0,
        )
        return self.storage.put_project(project, previous=None)

    def access(self, caller: str, pid: str, action: Action = "read") -> Access:
        """The project read and the caller let in for `action` (404 for a non-member, 403 for a role too low)."""
        project = self.storage.get_project(project_id(pid))
        return decide(project, caller, action)

    def patch(self, caller: str, pid: str, body: ProjectPatch) -> ProjectRecord:
        """Change the name and settings the body gives (managers)."""
        given = body.model_fields_set
        if "name" in given and (body.name is None or not body.name.strip()):
            raise InvalidRequestError("A project needs a name that is not blank.")
        if "review" in given and body.review is None:
            raise InvalidRequestError('"review" is "single", "double" or "pretranslate", never null.')
        source = language_tag(body.sourceLanguage) if "sourceLanguage" in given else None
        profile = kept_profile(body.qaProfile) if "qaProfile" in given else None

        def change(project: ProjectRecord) -> ProjectRecord:
            return replace(
                project,
                name=body.name.strip() if "name" in given and body.name else project.name,
                source_language=source if "sourceLanguage" in given else project.source_language,
                review=body.review if "review" in given and body.review else project.review,
                auto_approve=(body.autoApprove.minEstimate if body.autoApprove else None)
                if "autoApprove" in given
                else project.auto_approve,
                auto_sample=(body.autoApprove.sample if body.autoApprove else 0.0)
                if "autoApprove" in given
                else project.auto_sample,
                qa_profile=profile if "qaProfile" in given else project.qa_profile,
            )

        return self._change(caller, pid, change)

    def put_member(self, caller: str, pid: str, sub: str, body: MemberBody) -> ProjectRecord:
        """Add the member or change their role and languages (managers)."""
        member = ProjectMember(sub=sub, role=body.role, languages=languages_of(body.languages))

        def change(project: ProjectRecord) -> ProjectRecord:
            if project.member(sub) is None:
                return replace(project, members=(*project.members, member))
            return replace(project, members=tuple(member if m.sub == sub else m for m in project.members))

        return self._change(caller, pid, change)

    def remove_member(self, caller: str, pid: str, sub: str) -> ProjectRecord:
        """Remove the member (managers); never the last manager (422), and 404 for one who is not a member."""

        def change(project: ProjectRecord) -> ProjectRecord:
            if project.member(sub) is None:
                raise NotFoundError(f"{sub[:80]} is not a member of project {project.name!r}.")
            return replace(project, members=tuple(m for m in project.members if m.sub != sub))

        return self._change(caller, pid, change)

    def _change(self, caller: str, pid: str, change: Callable[[ProjectRecord], ProjectRecord]) -> ProjectRecord:
        """Read, decide (manage), change and write over the version read; again when another change won."""
        tries = 1
        while True:
            project = self.access(caller, pid, "manage").project
            changed = replace(change(project), updated_at=_now())
            if not any(m.role == "manager" for m in changed.members):
                raise InvalidRequestError("A project keeps at least one manager: make another member a manager first.")
            try:
                return self.storage.put_project(changed, previous=project)
            except ConflictError:
                if tries == MAX_TRIES:
                    raise
                tries += 1

    def mine(self, caller: str) -> ProjectList:
        """The caller's projects with their role and languages in each."""
        items = []
        for project in self.storage.projects_of(caller):
            member = project.member(caller)
            if member is not None:
                items.append(
                    ProjectItem(
                        id=project.project_id, name=project.name, role=member.role, languages=list(member.languages)
                    )
                )
        return ProjectList(projects=items)

    async def sessions(self, caller: str, pid: str, *, cursor: str | None, limit: int) -> ProjectSessions:
        """A page of the project's sessions, newest first, less those whose language the caller does not
        cover (a page may so hold fewer than `limit`); each read for its files' progress, side by side."""
        project = (await blocking(self.access, caller, pid)).project
        page = await blocking(self.storage.list_sessions, project_owner(project.project_id), cursor=cursor, limit=limit)
        shown = [r for r in page.items if may(project, caller, "read", r.target_language)]
        loads = await asyncio.gather(*(blocking(self._load, r.session_id) for r in shown))
        listed = []
        for record, files in (found for found in loads if found is not None):
            claim = self.claims.current(record)
            done = bool(files) and all(f.complete for f in files)
            state, _, _ = standing(record, files, 0 if done else 1)
            listed.append(
                ProjectSession(
                    id=record.session_id,
                    sourceLanguage=record.source_language,
                    targetLanguage=record.target_language,
                    state=state,
                    progress=Progress(
                        translatedChars=sum(f.translated_chars for f in files),
                        totalChars=sum(f.chars for f in files),
                        complete=done,
                    ),
                    messageCount=record.message_count,
                    createdAt=record.created_at,
                    updatedAt=record.updated_at,
                    review=record.review,
                    heldBy=claim.by if claim is not None else None,
                    until=claim.until if claim is not None else None,
                )
            )
        return ProjectSessions(sessions=listed, nextCursor=page.next_cursor)

    def _load(self, sid: str) -> tuple[SessionRecord, Sequence[FileState]] | None:
        """A listed session's record and files (None: deleted since it was listed)."""
        try:
            record, snapshot = self.storage.load_view(sid, window=0)
        except NotFoundError:
            return None
        return record, snapshot.files
