"""Fixtures for the terminal client: the in-process app on a tmp SQLite file, and the local HTTP service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from terminal.api import ApiClient
from terminal.local import connect
from tests.local_service import local_service, logging_restored

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """Undo the log routing of `local_app` after each test, so later tests see the logging they expect."""
    with logging_restored():
        yield


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


@pytest.fixture
def http_service(tmp_path: Path) -> Iterator[str]:
    """The local service under uvicorn in a subprocess (SQLite, pseudo model); yields its URL."""
    with local_service(tmp_path) as url:
        yield url


@pytest.fixture
async def http_client(http_service: str) -> AsyncIterator[ApiClient]:
    """A client of the local HTTP service, as `--api URL` makes it."""
    client = connect(http_service, None, None)
    yield client
    await client.aclose()
