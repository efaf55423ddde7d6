"""Who may do what in a project: one decision, role × action × language, made here for every route.

A session, job or memory belongs either to one identity (its `sub`) or to a project, whose owner key
is `project:<id>` (`project_owner`): the same storage with the project as owner, so a project's
sessions share one memory and are listed by that owner. A caller acts on a project's thing as that
owner once `decide` lets them; below the service layer nothing knows about roles.

- Not a member: NotFoundError (404), like a thing that does not exist.
- A member whose role does not allow the action, or (for a session) whose languages do not cover the
  session's target language: ForbiddenError (403), saying what is needed. A manager covers every
  language.
- The local user (`LOCAL_USER`, the caller when nobody signed in: handlers.identity) is the manager of
  every project, member or not, in local mode (`local_mode`: never in Lambda). No signed-in identity
  can be it (handlers.identity refuses the name).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from typing import Literal

from agent_core.errors import AgentError, NotFoundError
from storage.projects import ALL_LANGUAGES, ProjectMember, ProjectRecord, Role

LOCAL_USER = "local"
"""The caller when nobody signed in (local mode): the manager of every project."""
PROJECT_PREFIX = "project:"
"""An owner key that names a project; no identity may begin with it (handlers.identity)."""
_PROJECT_ID = re.compile(r"^p_[0-9a-f]{32}$")

Action = Literal["read", "comment", "drive", "review", "memory", "manage"]
"""What a caller wants to do: read (see the project, its sessions, its memory); comment (write on a
segment's thread, set a comment's resolved mark); drive (steps,
verdicts, revisions, bulk approval); review (a second review step); memory (change the glossary,
style notes and translation-memory entries); manage (settings, members, sessions' settings and files, jobs,
memory imports)."""

ALLOWED: dict[Action, tuple[Role, ...]] = {
    "read": ("manager", "reviewer", "translator"),
    "comment": ("manager", "reviewer", "translator"),
    "drive": ("manager", "reviewer", "translator"),
    "review": ("manager", "reviewer"),
    "memory": ("manager", "reviewer"),
    "manage": ("manager",),
}
"""The roles each action allows (API.md "Projects and teams")."""

_WHAT: dict[Action, str] = {
    "read": "see this",
    "comment": "comment on segments",
    "drive": "work on this session",
    "review": "review units",
    "memory": "change the project's glossary, style notes or translation-memory entries",
    "manage": "change the project's settings, members, sessions or memory imports",
}


class ForbiddenError(AgentError):
    """A project member whose role or languages do not allow the action (403); the message says what is needed."""


def is_project_id(value: str) -> bool:
    """True when `value` has the shape of a project id (`p_` and 32 hex digits)."""
    return bool(_PROJECT_ID.match(value))


def project_id(value: str) -> str:
    """`value` if it can be a project id, else NotFoundError (nothing is looked up)."""
    if not is_project_id(value):
        raise NotFoundError(f"No project {value[:80]}.")
    return value


def project_thing_id(prefix: str) -> str:
    """A new id for a session or job of a project (`s`, `j`): an ordinary id (agent_core.ids) whose last 8
    hex digits are a digest of the others, so that a route can tell, without a read, that an id may
    name a project's thing (`may_be_projects`)."""
    body = secrets.token_hex(12)
    return f"{prefix}_{body}{_mark(body)}"


def may_be_projects(value: str) -> bool:
    """False when the id cannot name a session or job of a project (no read is then needed to find its
    owner: it is an identity's own, or nothing); an identity's own id passes by chance once in 2^32."""
    body = value[2:]
    return len(body) == 32 and _mark(body[:24]) == body[24:]


def _mark(body: str) -> str:
    return hashlib.sha256(f"project-thing:{body}".encode()).hexdigest()[:8]


def project_owner(pid: str) -> str:
    """The owner key of the project's sessions, jobs and memory."""
    return PROJECT_PREFIX + pid


def project_of(owner: str) -> str | None:
    """The project an owner key names, or None for an identity's own."""
    return owner.removeprefix(PROJECT_PREFIX) if owner.startswith(PROJECT_PREFIX) else None


@dataclass(frozen=True, slots=True)
class Access:
    """A decision that let the caller in: the project, the member acting (the local user as a manager
    of every language when not a member) and the owner key they act as."""

    project: ProjectRecord
    member: ProjectMember

    @property
    def owner(self) -> str:
        """The project's owner key."""
        return project_owner(self.project.project_id)


def local_mode() -> bool:
    """True when the server runs locally: outside Lambda (`AWS_LAMBDA_FUNCTION_NAME` unset) and with
    REQUIRE_AUTH unset or false. Only there is the local user the manager of every project."""
    required = os.environ.get("REQUIRE_AUTH", "false").strip().lower() in ("1", "true", "yes")
    return not required and not os.environ.get("AWS_LAMBDA_FUNCTION_NAME")


def member_of(project: ProjectRecord, sub: str) -> ProjectMember | None:
    """The caller as a member of the project: their membership, the local user in local mode as a
    manager of every language, or None."""
    found = project.member(sub)
    if found is None and sub == LOCAL_USER and local_mode():
        return ProjectMember(sub=sub, role="manager", languages=(ALL_LANGUAGES,))
    return found


def decide(project: ProjectRecord, sub: str, action: Action) -> Access:
    """Let `sub` do `action` on the project as a whole (its record, members, memory, listings), or raise
    NotFoundError (not a member) or ForbiddenError (the role does not allow it)."""
    member = member_of(project, sub)
    if member is None:
        raise NotFoundError(f"No project {project.project_id}.")
    if member.role not in ALLOWED[action]:
        roles = " or ".join(ALLOWED[action])
        raise ForbiddenError(
            f"To {_WHAT[action]} in project {project.name!r} you need to be its {roles}; you are a {member.role}."
        )
    return Access(project, member)


def decide_for_session(project: ProjectRecord, sub: str, action: Action, language: str | None) -> Access:
    """`decide`, and for a member who is not a manager, the session's target language `language` must be
    one of theirs (a session without one: only a member of every language, `*`)."""
    access = decide(project, sub, action)
    member = access.member
    if member.role != "manager" and not member.covers(language):
        held = ", ".join(member.languages)
        into = f"into {language}" if language else "without a target language"
        raise ForbiddenError(
            f"This session of project {project.name!r} translates {into}; your languages are {held}: "
            f"a manager must add {language or '*'} to them."
        )
    return access


def may(project: ProjectRecord, sub: str, action: Action, language: str | None) -> bool:
    """True when `decide_for_session` would let the caller in (a listing's filter)."""
    try:
        decide_for_session(project, sub, action, language)
    except (NotFoundError, ForbiddenError):
        return False
    return True


SESSION_ROUTES: dict[tuple[str, str], Action] = {
    ("PATCH", "/api/sessions/{session_id}"): "manage",
    ("DELETE", "/api/sessions/{session_id}"): "manage",
    ("POST", "/api/sessions/{session_id}/files"): "manage",
    ("POST", "/api/sessions/{session_id}/files/{file_id}/approve"): "drive",
    ("DELETE", "/api/sessions/{session_id}/claim"): "drive",
    ("PUT", "/api/sessions/{session_id}/files/{file_id}/segments/{start}"): "drive",
    ("POST", "/api/sessions/{session_id}/files/{file_id}/qa"): "read",
    ("POST", "/api/sessions/{session_id}/files/{file_id}/segments/{segment_id}/comments"): "comment",
    ("PATCH", "/api/sessions/{session_id}/files/{file_id}/segments/{segment_id}/comments/{comment_id}"): "comment",
}
"""What each route of a session asks to do; any other route is `read` for GET, else `manage`."""

PROJECT_ROUTES: dict[tuple[str, str], Action] = {
    ("POST", "/api/projects/{project_id}/memory/glossary"): "memory",
    ("POST", "/api/projects/{project_id}/memory/style-notes"): "memory",
    ("PUT", "/api/projects/{project_id}/memory/{entry_id}"): "memory",
    ("DELETE", "/api/projects/{project_id}/memory/{entry_id}"): "memory",
    ("PUT", "/api/projects/{project_id}/memory/tm/{entry_id}"): "memory",
    ("DELETE", "/api/projects/{project_id}/memory/tm/{entry_id}"): "memory",
    ("POST", "/api/projects/{project_id}/memory/import"): "manage",
}
"""What each project route that acts as the project's owner asks to do; other GETs are `read`, the rest `manage`."""


def route_action(method: str, path: str) -> Action:
    """The action a route asks for (`SESSION_ROUTES`, `PROJECT_ROUTES`): GET reads, anything unlisted manages."""
    listed = SESSION_ROUTES.get((method, path)) or PROJECT_ROUTES.get((method, path))
    if listed is not None:
        return listed
    return "read" if method in ("GET", "HEAD") else "manage"
