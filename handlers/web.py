"""The reviewer's web UI: static files served by the same app at `/` (no build step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

WEB_ROOT = Path(__file__).resolve().parent.parent / "web"


def mount_web(app: FastAPI) -> None:
    """Serve `web/` at `/` when it is there (after the API routes, which take precedence)."""
    if WEB_ROOT.is_dir():
        app.mount("/", StaticFiles(directory=WEB_ROOT, html=True), name="web")
