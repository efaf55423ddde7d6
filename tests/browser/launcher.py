"""What the browser tests share: the system Chromium's settings and the real service on a free port."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


REQUIRES_BROWSER = [
    pytest.mark.skipif(
        sync_playwright is None, reason="the playwright package is not installed (pip install playwright)"
    ),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"),
]
"""The browser tests' `pytestmark`: they skip, saying why, without Playwright or Chromium."""

WAIT_MS = 20_000
"""How long a page waits for a selector."""


@contextlib.contextmanager
def chromium_page() -> Iterator[Page]:
    """A fresh 1280×800 page (fresh storage) in the system Chromium; fails the test on any page error."""
    assert sync_playwright is not None
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "console",
            lambda m: (
                errors.append(m.text)
                if m.type == "error" and not m.text.startswith("Failed to load resource")
                else None
            ),
        )
        yield page
        context.close()
        browser.close()
    assert not errors, f"errors in the page: {errors}"


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@functools.cache
def bundle_ready() -> None:
    """Build the UI's bundle (web/dist/) unless it is current, once a process; skip the test without npm."""
    from handlers.webbundle import bundle_is_current

    if bundle_is_current():
        return
    if shutil.which("npm") is None:
        pytest.skip("the web UI's bundle is stale or missing and npm is not installed to build it")
    result = subprocess.run(
        [sys.executable, "scripts/build_web.py"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        pytest.fail(f"scripts/build_web.py failed:\n{result.stdout}{result.stderr}")


SMALL_SCREENS = {"BATCH_CHARS": "500"}
"""The environment of a service whose screens are the smallest, so a short document takes several batches."""


@contextlib.contextmanager
def running_service(tmp: Path, port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """The real service (uvicorn, SQLite in `tmp`, pseudo model) on `port`, serving the UI's bundle
    (built first when it is stale); yields its base URL.

    The environment is this process's without any sign-in setting (`OIDC_*`, `REQUIRE_AUTH`), plus `env`.
    """
    bundle_ready()
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OIDC_") and k != "REQUIRE_AUTH"},
        "WEB_UI": "bundle",
        "STORAGE_BACKEND": "sqlite",
        "SQLITE_PATH": str(tmp / "s.sqlite3"),
        "AGENT_MODEL": "pseudo",
        **(env or {}),
    }
    command = [sys.executable, "-m", "uvicorn", "handlers.api:app", "--host", "127.0.0.1", "--port", str(port)]
    log_path = tmp / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [*command, "--no-access-log"], cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"the service exited early:\n{log_path.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(base + "auth.json", timeout=10):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the service did not answer:\n{log_path.read_text(errors='replace')}")
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def get_json(url: str) -> Any:
    """GET `url` and decode its JSON body."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def start_translation(page: Page, server: str, text: str, name: str, language: str = "French") -> str:
    """Start translating `text`, a file named `name`, into `language` from the home page; the session's
    id once the first batch of cards shows."""
    page.goto(server)
    page.wait_for_selector("body[data-phase=home]")
    page.fill("#doc-text", text)
    page.fill("#doc-name", name)
    page.fill("#target-lang", language)
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    session_id: str = page.evaluate("() => location.hash.slice(1)")
    return session_id
