"""Projects in storage: a team's one mutable record (settings and members) and each member's index.

A project is one record, replaced whole and conditional on its version (optimistic concurrency, like a
session's META). Beside it, each member has an index entry naming the project, written and removed in
the same transaction as the record that adds or removes the member, so a member's projects are listed
by one bounded read of their own entries (never a scan), and the caps below hold on every backend.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from agent_core.review_modes import ReviewMode

from .errors import ConflictError, InvalidRequestError

Role = Literal["manager", "reviewer", "translator"]
ROLES: tuple[Role, ...] = ("manager", "reviewer", "translator")
ALL_LANGUAGES = "*"
"""A member's languages `("*",)`: every language of the project."""

MAX_MEMBERS = 50
"""The most members a project has."""
MAX_PROJECTS = 100
"""The most projects one identity is a member of (what listing a caller's projects reads is bounded)."""
MAX_MEMBER_CHANGES = 40
"""The most members one write adds or removes (one DynamoDB transaction holds the record, each change's
index entry and its member's count)."""
MAX_SUB_CHARS = 256
"""The longest identity (`sub`) a member may have."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectMember:
    """A member: their identity, role and the languages it covers (`("*",)`: all)."""

    sub: str
    role: Role
    languages: tuple[str, ...]

    def covers(self, language: str | None) -> bool:
        """True when the member's languages include `language` (every language for `*`; a session
        without a target language is covered only by `*`)."""
        return ALL_LANGUAGES in self.languages or (language is not None and language in self.languages)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProjectRecord:
    """A project's one mutable record: its settings, members, times and version."""

    project_id: str
    name: str
    source_language: str | None
    """The source language its sessions default to (BCP 47), if set."""
    review: ReviewMode
    """How many review steps a unit goes through."""
    auto_approve: int | None
    """The estimate at or above which its sessions approve a QA-clean proposal without review (None: off)."""
    members: tuple[ProjectMember, ...]
    created_at: str
    updated_at: str
    version: int
    """1 at creation, incremented by every write; a write is conditional on the version it read."""
    auto_sample: float = 0.0
    """The share of the proposals `auto_approve` would approve that its sessions send to a person anyway."""
    qa_profile: str | None = None
    """The QA profile its new sessions take (JSON, as a session keeps it); None: their files' kinds'."""

    def member(self, sub: str) -> ProjectMember | None:
        """The member whose identity is exactly `sub`, if any."""
        return next((m for m in self.members if m.sub == sub), None)

    def dumps(self) -> str:
        """Settings and members as stored: compact JSON."""
        return json.dumps(
            {
                "n": self.name,
                "sl": self.source_language,
                "r": self.review,
                "a": self.auto_approve,
                **({"s": self.auto_sample} if self.auto_sample else {}),
                **({"q": self.qa_profile} if self.qa_profile else {}),
                "m": [[m.sub, m.role, list(m.languages)] for m in self.members],
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @staticmethod
    def loads(project_id: str, *, created_at: str, updated_at: str, version: int, raw: str) -> ProjectRecord:
        """A stored project (`dumps`) read back."""
        d = json.loads(raw)
        members = tuple(ProjectMember(sub=m[0], role=m[1], languages=tuple(m[2])) for m in d["m"])
        return ProjectRecord(
            project_id=project_id,
            name=d["n"],
            source_language=d["sl"],
            review=d["r"],
            auto_approve=d["a"],
            auto_sample=d.get("s", 0.0),
            qa_profile=d.get("q"),
            members=members,
            created_at=created_at,
            updated_at=updated_at,
            version=version,
        )


def check_project(project: ProjectRecord) -> None:
    """The rules every stored project keeps, checked before anything is written (InvalidRequestError):
    a name, known roles, members distinct and at most MAX_MEMBERS, each with languages, and a manager."""
    if not project.name.strip():
        raise InvalidRequestError("A project needs a name that is not blank.")
    subs = [m.sub for m in project.members]
    if len(set(subs)) != len(subs):
        raise InvalidRequestError("A project lists each member once.")
    if len(subs) > MAX_MEMBERS:
        raise InvalidRequestError(f"A project has at most {MAX_MEMBERS} members; remove one first.")
    for m in project.members:
        if not m.sub.strip() or len(m.sub) > MAX_SUB_CHARS:
            raise InvalidRequestError(f"A member's identity is 1 to {MAX_SUB_CHARS} characters, not blank.")
        if m.role not in ROLES:
            raise InvalidRequestError(f"A member's role is one of {', '.join(ROLES)}.")
        if not m.languages:
            raise InvalidRequestError('A member covers at least one language, or all: ["*"].')
    if not any(m.role == "manager" for m in project.members):
        raise InvalidRequestError("A project keeps at least one manager.")


class ProjectStore(ABC):
    """Projects: their one record each and the index of each member's projects."""

    def put_project(self, project: ProjectRecord, *, previous: ProjectRecord | None) -> ProjectRecord:
        """Create the project (`previous` None: ConflictError if its id exists) or replace it if it is
        still at `previous.version` (else ConflictError, nothing written), with the members' index
        entries added and removed in the same transaction; answers the record as stored (version
        `previous.version + 1`, or 1). InvalidRequestError, nothing written, for a project that breaks
        `check_project`, more than MAX_MEMBER_CHANGES members added or removed at once, or a new member
        who is in MAX_PROJECTS projects already."""
        stored = replace(project, version=(previous.version if previous else 0) + 1)
        check_project(stored)
        before = {m.sub for m in previous.members} if previous else set()
        after = {m.sub for m in stored.members}
        added, removed = sorted(after - before), sorted(before - after)
        if len(added) + len(removed) > MAX_MEMBER_CHANGES:
            raise InvalidRequestError(f"Add or remove at most {MAX_MEMBER_CHANGES} members at a time.")
        if previous is not None and previous.project_id != project.project_id:
            raise ConflictError("A project is replaced by a record of its own id.")
        self._put_project(stored, added=added, removed=removed)
        return stored

    @abstractmethod
    def _put_project(self, project: ProjectRecord, *, added: Sequence[str], removed: Sequence[str]) -> None:
        """`put_project`'s transaction: the record conditional on version `project.version - 1` (0: new),
        the index entries of `added` (each within MAX_PROJECTS) and `removed`."""

    @abstractmethod
    def get_project(self, project_id: str) -> ProjectRecord:
        """The project's record (a consistent read); NotFoundError if there is none."""

    @abstractmethod
    def projects_of(self, sub: str) -> list[ProjectRecord]:
        """The projects `sub` is a member of (at most MAX_PROJECTS), oldest first, in a bounded read of
        the member's index entries and of the records they name."""


def too_many_projects(sub: str) -> InvalidRequestError:
    """The error for a new member who is in MAX_PROJECTS projects already."""
    return InvalidRequestError(f"{sub[:80]} is a member of {MAX_PROJECTS} projects, the most one can be in.")


def oldest_first(found: Sequence[ProjectRecord]) -> list[ProjectRecord]:
    """Projects by creation time, then id."""
    return sorted(found, key=lambda p: (p.created_at, p.project_id))
