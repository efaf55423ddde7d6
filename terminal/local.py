"""The two transports: the app in-process on the embedded SQLite store, or a deployed API by URL."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from .api import ApiClient
from .asgi import StreamingASGITransport
from .paths import default_db, default_log

if TYPE_CHECKING:
    from starlette.types import ASGIApp

TOKEN_ENV = "TRANSLATION_AGENT_TOKEN"
LOCAL_URL = "http://translation-agent.local"
"""The base URL of in-process requests (never resolved: the ASGI transport answers them)."""


def local_app(db_path: Path, log_path: Path | None = None) -> ASGIApp:
    """The API app on the embedded SQLite store at `db_path`, its logs going to `log_path`.

    The one place the terminal client builds the app: the wiring of handlers may change, this stays.
    """
    os.environ.setdefault("AGENT_MODEL", "pseudo")
    # EMF metrics are for CloudWatch; locally they would be printed on the terminal.
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    db_path.parent.mkdir(parents=True, exist_ok=True)
    route_logs_to_file(log_path or default_log())
    from handlers.app import create_app
    from service.container import build_services
    from storage.sqlite import SQLiteStorage

    return create_app(build_services(storage=SQLiteStorage(str(db_path))))


def route_logs_to_file(log_path: Path) -> None:
    """Every log line of the app (Powertools' JSON included) goes to `log_path`, none to the terminal."""
    from handlers.logging import logger  # Powertools' logger: a stream handler on the stdout of its import

    log_path.parent.mkdir(parents=True, exist_ok=True)
    stream = log_path.open("a", encoding="utf-8")
    _OPENED.append(stream)
    app_logger = logging.getLogger(logger.service)
    app_logger.propagate = False  # its lines are in the file once, not again through the root handler below
    root = logging.getLogger()
    ours = [h for h in root.handlers if getattr(h, "_translation_agent", False)]
    if not ours:
        # A root handler keeps Python's last-resort handler (stderr) from printing other libraries' warnings.
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        handler._translation_agent = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    # Whatever stream a handler captured at import (the terminal's stdout, or a test's capture), not a file.
    replaced = [each.setStream(stream) for each in [*app_logger.handlers, *ours] if type(each) is logging.StreamHandler]
    for old in replaced:  # closed only once no handler writes to them any more
        _close_ours(old)
    logging.captureWarnings(True)


_OPENED: list[object] = []
"""The log files opened here (held, so that no other stream is ever taken for one of them): a later
call closes those it replaces, and no other stream."""


def _close_ours(old: object) -> None:
    for k, opened in enumerate(_OPENED):
        if opened is old:
            del _OPENED[k]
            old.close()  # type: ignore[attr-defined]
            return


def connect(api_url: str | None, token: str | None, db_path: Path | None, log_path: Path | None = None) -> ApiClient:
    """A client for `api_url` with a bearer token, or for the in-process app when no URL is given (on
    `db_path`, logging to `log_path`; by default both in the user's data folder, terminal/paths.py)."""
    if api_url:
        token = token or os.environ.get(TOKEN_ENV)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        http = httpx.AsyncClient(base_url=api_url.rstrip("/"), headers=headers, timeout=httpx.Timeout(60.0))
        return ApiClient(http)
    app = local_app(db_path or default_db(), log_path)
    transport = StreamingASGITransport(app)
    return ApiClient(httpx.AsyncClient(transport=transport, base_url=LOCAL_URL, timeout=httpx.Timeout(300.0)))
