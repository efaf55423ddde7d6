"""The FastAPI app: its routers, error mapping, security headers, body limits and the web UI."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI

from . import errors
from .deps import LazyServices
from .limits import BodyLimitMiddleware
from .logging import RequestLogKeys
from .routes import claims, comments, files, jobs, memory, projects, reviews, sessions, steps
from .security import install_security
from .web import mount_web, sign_in_config

if TYPE_CHECKING:
    from service.container import Services


def create_app(services: Services | None = None) -> FastAPI:
    """The API app; services are built from the environment on first use unless given."""
    app = FastAPI(
        title="Translation agent",
        version="1.0.0",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.services = LazyServices(services)
    sign_in = sign_in_config()  # read once; a partial or unsafe one stops the app here
    errors.install(app)
    install_security(app, connect_sources=sign_in.connect_sources)
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(RequestLogKeys)  # added last: outermost, so every log line of a request is inside it
    routers = (
        steps.router,
        sessions.router,
        files.router,
        reviews.router,
        memory.router,
        jobs.router,
        projects.router,
        comments.router,
        claims.router,
    )
    for router in routers:
        app.include_router(router)

    @app.get("/api/health")
    def health() -> dict[str, str]:
        """Liveness: the process answers (touches no storage)."""
        return {"status": "ok"}

    mount_web(app, sign_in)
    return app
