"""The browser tests' service and page: one real service per test module (uvicorn, SQLite, the offline
pseudo model; `SERVICE_ENV` in the module adds to its environment) and a fresh page in the system
Chromium for each test (`VIEWPORT` in the module sizes it; 1280×800 otherwise)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser.launcher import chromium_page, free_port, running_service

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real service on a free port; yields its base URL (with a trailing slash)."""
    env = getattr(request.module, "SERVICE_ENV", None)
    name = request.module.__name__.rsplit(".", 1)[-1]
    with running_service(tmp_path_factory.mktemp(name), free_port(), env) as base:
        yield base


@pytest.fixture
def page(request: pytest.FixtureRequest, server: str) -> Iterator[Page]:
    """A fresh page in the system Chromium; fails the test on any page error."""
    width, height = getattr(request.module, "VIEWPORT", (1280, 800))
    with chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        yield page
