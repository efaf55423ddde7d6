"""Fixtures for the terminal client: the in-process app on a tmp SQLite file, and the local HTTP service."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from terminal.api import ApiClient
from terminal.local import connect

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """Undo the log routing of `local_app` after each test, so later tests see the logging they expect."""
    from handlers.logging import logger

    app_logger, root = logging.getLogger(logger.service), logging.getLogger()
    streams = [(h, h.stream) for h in app_logger.handlers if isinstance(h, logging.StreamHandler)]
    propagate, root_handlers = app_logger.propagate, list(root.handlers)
    yield
    for handler, stream in streams:
        old = handler.setStream(stream)
        if old is not None and old is not stream:
            old.close()
    app_logger.propagate = propagate
    for handler in root.handlers:
        if handler not in root_handlers:
            root.removeHandler(handler)
            handler.close()
    logging.captureWarnings(False)


@pytest.fixture
def local_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The environment the in-process app is built from, restored after the test; yields the db path."""
    db = tmp_path / "sessions.sqlite3"
    monkeypatch.setenv("STORAGE_BACKEND", "sqlite")
    monkeypatch.setenv("SQLITE_PATH", str(db))
    monkeypatch.setenv("AGENT_MODEL", "pseudo")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    return db


@pytest.fixture
async def local_client(local_env: Path, tmp_path: Path) -> AsyncIterator[ApiClient]:
    """A client of the app in-process, on a fresh embedded store."""
    client = connect(None, None, local_env, tmp_path / "translation-agent.log")
    yield client
    await client.aclose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_service(tmp_path: Path) -> Iterator[str]:
    """The local service under uvicorn in a subprocess (SQLite, pseudo model); yields its URL."""
    port = _free_port()
    env = {
        **os.environ,
        "STORAGE_BACKEND": "sqlite",
        "SQLITE_PATH": str(tmp_path / "service.sqlite3"),
        "AGENT_MODEL": "pseudo",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "uvicorn", "handlers.api:app", "--host", "127.0.0.1", "--port", str(port)]
    log = (tmp_path / "service.log").open("w")
    process = subprocess.Popen([*command, "--no-access-log"], cwd=ROOT, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((tmp_path / "service.log").read_text())
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture
async def http_client(http_service: str) -> AsyncIterator[ApiClient]:
    """A client of the local HTTP service, as `--api URL` makes it."""
    client = connect(http_service, None, None)
    yield client
    await client.aclose()
