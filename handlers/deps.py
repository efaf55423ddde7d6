"""What every route depends on: the services (built on first use, once per process) and the caller."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request

from service.blocking import blocking

from .identity import caller

if TYPE_CHECKING:  # the agent loop and storage are imported with the services, on first use
    from service.container import Services
    from service.owners import Acting


class LazyServices:
    """Builds the services on first use and reuses them across warm invocations."""

    def __init__(self, services: Services | None = None) -> None:
        self._services = services
        self._lock = threading.Lock()

    def ready(self) -> Services | None:
        """The services if they are built (None: the first use builds them)."""
        return self._services

    def get(self) -> Services:
        """The services, built from the environment the first time."""
        if self._services is None:
            with self._lock:
                if self._services is None:
                    from service.container import build_services

                    self._services = build_services()
        return self._services


# The dependencies are coroutines: FastAPI runs a plain function dependency in a worker thread, a
# hop per dependency per request, and these only read the request (the services' first build,
# which opens the store, is a blocking call: service.blocking).


async def get_services(request: Request) -> Services:
    """The app's services, built on first use."""
    lazy: LazyServices = request.app.state.services
    services = lazy.ready()
    return services if services is not None else await blocking(lazy.get)


async def get_acting(request: Request) -> Acting:
    """Who the request acts as (`get_owner`'s owner), with the caller's project membership when the route
    names a project's thing: decided once per request (FastAPI caches a dependency's value)."""
    from service.owners import Acting

    sub = caller(request)
    params = request.path_params
    if not ("session_id" in params or "job_id" in params or "project_id" in params):
        return Acting(sub)
    route = request.scope.get("route")
    services = await get_services(request)
    return await services.gate.acting(sub, request.method, getattr(route, "path", ""), params)


ActingDep = Annotated["Acting", Depends(get_acting)]


async def get_owner(acting: ActingDep) -> str:
    """The owner the request acts as: the caller (the JWT `sub`; 401 when authentication is required and
    missing), or, on a route of a project's session, job or memory, the project the caller may act in
    for what the route does (404 for a non-member, 403 for a role or languages that do not allow it:
    service.owners)."""
    return acting.owner


async def get_caller(request: Request) -> str:
    """The caller themselves (the JWT `sub`, or the local user), whatever the route names."""
    return caller(request)


async def get_time_left(request: Request) -> Callable[[], float] | None:
    """Seconds left in the Lambda invocation, when there is one."""
    context = request.scope.get("aws.context")
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if not callable(remaining):
        return None
    return lambda: float(remaining()) / 1000.0


ServicesDep = Annotated["Services", Depends(get_services)]
OwnerDep = Annotated[str, Depends(get_owner)]
CallerDep = Annotated[str, Depends(get_caller)]
TimeLeftDep = Annotated["Callable[[], float] | None", Depends(get_time_left)]
