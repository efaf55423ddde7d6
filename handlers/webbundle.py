"""Which web UI files the service serves: the built bundle (`web/dist/`) or the sources (`web/`).

`scripts/build_web.py` bundles and minifies `web/` with esbuild into `web/dist/`: `index.html`, and
content-hashed files under `assets/` (`app-<hash>.js`, `styles-<hash>.css`, their source maps and
gzip copies), with `manifest.json` recording the digest of the sources it was built from. A bundle is
current when that digest is the sources' digest now: a source edited, added or removed, a new esbuild
in `package-lock.json` or a changed build script makes it stale.

`WEB_UI` chooses what is served (read when the app is built):

- `auto` (the default): the bundle when it is current, else the sources, unbundled (with a warning in
  the log), so an edited source is never hidden behind an old bundle;
- `bundle`: the bundle, and an error (`WebConfigError`) when it is missing or stale;
- `source`: the sources as they are, one request per module (the "before" of bench/web_load.py).

Standard library only: the build script imports it with whatever Python runs it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parent.parent
WEB_ROOT = ROOT / "web"
DIST = WEB_ROOT / "dist"
MANIFEST = "manifest.json"
ASSETS = "assets"
"""The folder of the bundle's content-hashed files: cached for a year, never revalidated."""

BUILD_INPUTS = (ROOT / "package-lock.json", ROOT / "scripts" / "build_web.py")
"""Files besides `web/` whose change changes the bundle: the pinned esbuild and the build itself."""

Mode = Literal["auto", "bundle", "source"]
MODES: tuple[Mode, ...] = ("auto", "bundle", "source")


class WebConfigError(ValueError):
    """`WEB_UI` is not a mode, or asks for a bundle that is missing or stale."""


def source_files() -> list[Path]:
    """Every file the bundle is built from, sorted: `web/` outside build folders, and the build inputs."""
    if not WEB_ROOT.is_dir():
        return []
    files = [
        p
        for p in WEB_ROOT.rglob("*")
        if p.is_file() and not p.relative_to(WEB_ROOT).parts[0].startswith(("dist", ".dist"))
    ]
    return sorted(files) + [p for p in BUILD_INPUTS if p.is_file()]


def source_digest() -> str:
    """SHA-256 over the sources' paths (relative to the project) and contents."""
    digest = hashlib.sha256()
    for path in source_files():
        digest.update(path.relative_to(ROOT).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def built_digest(dist: Path | None = None) -> str | None:
    """The source digest the bundle in `dist` (default web/dist/) was built from; None when there is none."""
    dist = dist or DIST
    try:
        manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    source = manifest.get("source") if isinstance(manifest, dict) else None
    if not isinstance(source, str) or not (dist / "index.html").is_file():
        return None
    return source


def bundle_is_current() -> bool:
    """Whether `web/dist/` holds a bundle of the sources as they are now."""
    return WEB_ROOT.is_dir() and built_digest() == source_digest()


@dataclass(frozen=True)
class ServedUI:
    """The folder served at `/` and whether it is the bundle (hashed assets, long cache headers)."""

    root: Path
    bundled: bool
    note: str = ""
    """Why the sources are served although a bundle was asked for (`auto` with a stale bundle)."""

    @property
    def index(self) -> Path:
        """The page itself."""
        return self.root / "index.html"


def web_mode() -> Mode:
    """`WEB_UI` from the environment (default `auto`); raises `WebConfigError` on any other value."""
    value = os.environ.get("WEB_UI", "").strip().lower() or "auto"
    for mode in MODES:
        if value == mode:
            return mode
    raise WebConfigError(f"WEB_UI must be one of {', '.join(MODES)}: {value!r}.")


def served_ui(mode: Mode | None = None) -> ServedUI:
    """What `mode` (default: `WEB_UI`) serves; raises `WebConfigError` for `bundle` without a current one."""
    mode = mode or web_mode()
    if mode == "source":
        return ServedUI(WEB_ROOT, bundled=False)
    if bundle_is_current():
        return ServedUI(DIST, bundled=True)
    state = "missing" if built_digest() is None else "stale (the sources changed since it was built)"
    if mode == "bundle":
        raise WebConfigError(f"WEB_UI=bundle, but web/dist/ is {state}: run `python scripts/build_web.py`.")
    return ServedUI(WEB_ROOT, bundled=False, note=f"web/dist/ is {state}: serving web/ unbundled")
