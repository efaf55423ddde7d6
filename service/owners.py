"""The owner a caller acts as on a route: themselves, or a project they may act in (service.access).

A route of a session, job or project's memory names its thing by a path parameter; before the route
runs, the thing's owner is found and, for a project's, the caller's role and languages are decided
for what the route does (`route_action`). The route then acts as that owner, so every check below it
(`record.owner != owner` is 404) and the memory it uses are the project's. A project's sessions and
jobs have ids that say so (`project_thing_id`), so an identity's own costs no read here; a session's
and a job's owner never change, so a process remembers them (bounded), and for a project's session
reads the project beside the session's record.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from agent_core.effects import SessionSnapshot
from agent_core.errors import NotFoundError
from agent_core.ids import is_id
from storage.interface import Storage

from .access import (
    ALLOWED,
    Access,
    Action,
    decide,
    decide_for_session,
    may_be_projects,
    project_id,
    project_of,
    route_action,
)
from .blocking import blocking
from .sessions import session_id

KNOWN_OWNERS = 4096
"""How many sessions' and jobs' owners a process remembers."""


@dataclass(frozen=True, slots=True)
class Acting:
    """Who a route acts as: the owner key, and the decision that let the caller in when it is a project's."""

    owner: str
    access: Access | None = None

    def may(self, action: Action) -> bool:
        """True when the caller may also do `action` here: anything on their own things, else what their
        role allows (the languages were decided for the route already)."""
        return self.access is None or self.access.member.role in ALLOWED[action]


class OwnerGate:
    """Finds the owner a caller acts as and decides whether they may; its methods are coroutines."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    async def acting(self, caller: str, method: str, path: str, params: Mapping[str, str]) -> Acting:
        """Who the caller acts as on the route `method path` with these path parameters: the project
        where the route names a project, or a session or job of one, and the caller's role lets them
        in; else the caller (their own thing, or another's, which the route answers 404)."""
        action = route_action(method, path)
        if "project_id" in params:
            project = await blocking(self.storage.get_project, project_id(params["project_id"]))
            access = decide(project, caller, action)
            return Acting(access.owner, access)
        if "session_id" in params:
            return await self.session_acting(caller, params["session_id"], action)
        if "job_id" in params:
            return Acting(await self._job_owner(caller, params["job_id"]))
        return Acting(caller)

    async def session_acting(self, caller: str, sid: str, action: Action) -> Acting:
        """Who the caller acts as on the session: a project's member when they may `action` in the
        session's target language (404 for a non-member, 403 else); the caller otherwise."""
        sid = session_id(sid)
        if not may_be_projects(sid):  # an identity's own (or none): the route's own check decides
            return Acting(caller)
        owner = self._known(sid)
        record = None
        if owner is None:
            record = await blocking(self.storage.get_session, sid)
            owner = self._remember(sid, record.owner)
        pid = project_of(owner)
        if pid is None:
            return Acting(caller)
        if record is None:
            project, read = await asyncio.gather(
                blocking(self.storage.get_project, pid), blocking(self.storage.get_session, sid)
            )
        else:
            project, read = await blocking(self.storage.get_project, pid), record
        access = decide_for_session(project, caller, action, read.target_language)
        return Acting(access.owner, access)

    def admit(
        self, caller: str, action: Action, *, known: str | None = None
    ) -> Callable[[SessionSnapshot], Awaitable[None]]:
        """What a step calls with a session it loaded that is not the caller's own (AgentRuntime's
        `admit`): the session's project read and the caller decided (404 or 403), beside the read of
        the project's memory. With `known`, the session's owner as this process met it, a project's
        record is read from now on, beside the session's load."""
        early = None
        if known is not None and (pid := project_of(known)) is not None:
            early = asyncio.ensure_future(blocking(self.storage.get_project, pid))
            early.add_done_callback(lambda f: f.cancelled() or f.exception())  # a step that never asks

        async def check(snapshot: SessionSnapshot) -> None:
            owner = snapshot.token.owner
            pid = project_of(owner)
            if pid is None:
                raise NotFoundError(f"No session {snapshot.token.session_id}.")
            if early is not None and owner == known:
                project = await early
            else:
                project = await blocking(self.storage.get_project, pid)
            decide_for_session(project, caller, action, snapshot.target_language)

        return check

    def known_owner(self, sid: str) -> str | None:
        """The session's owner if this process met it (it never changes)."""
        return self._known(sid)

    def met(self, sid: str, owner: str) -> None:
        """Remember the owner of a session a step loaded."""
        if may_be_projects(sid):
            self._remember(sid, owner)

    async def _job_owner(self, caller: str, job_id: str) -> str:
        if not is_id(job_id, "j"):
            raise NotFoundError(f"No job {job_id[:80]}.")
        if not may_be_projects(job_id):
            return caller
        owner = self._known(job_id)
        if owner is None:
            owner = self._remember(job_id, (await blocking(self.storage.get_job, job_id)).owner)
        pid = project_of(owner)
        if pid is None:
            return caller
        return decide(await blocking(self.storage.get_project, pid), caller, "read").owner

    def _known(self, key: str) -> str | None:
        with self._lock:
            owner = self._owners.get(key)
            if owner is not None:
                self._owners.move_to_end(key)
            return owner

    def _remember(self, key: str, owner: str) -> str:
        with self._lock:
            self._owners[key] = owner
            while len(self._owners) > KNOWN_OWNERS:
                self._owners.popitem(last=False)
        return owner
