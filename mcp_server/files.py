"""The local files a tool names: read and written under one root folder only, and checked offline.

The server reads a source the agent names by path (relative to the root, `--root`, by default the
folder it was started in) and writes an export there when asked; a path that leads outside the root
(`..`, an absolute path elsewhere, a symbolic link out) is refused. `check` runs the CLI's offline
check (terminal/check.py) on files under the root: no server, no model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from terminal.check import CheckError, run_check

MAX_BYTES = 5_000_000
"""The largest file the API takes (docs/api.md, uploads)."""


class FileError(Exception):
    """A path the server may not use, or a file it cannot read, in words the agent can act on."""


class CheckResult(BaseModel):
    """`translation-agent check` as JSON: `passed` is false when a file has an error."""

    # Field docstrings become descriptions in the tools' output schemas, which agents read.
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    passed: bool
    report: dict[str, Any]
    """The check's own JSON report: each file's errors and warnings (docs/terminal.md)."""


def inside(root: Path, path: str) -> Path:
    """`path` resolved against `root`; FileError when it leads outside it."""
    base = root.resolve()
    found = (base / path).resolve()
    if found != base and base not in found.parents:
        raise FileError(f"{path!r} is outside the folder this server may use ({base}).")
    return found


def read_source(root: Path, path: str) -> tuple[str, str | bytes]:
    """A file to upload under `root`: its name, and its text (UTF-8) or else its bytes."""
    found = inside(root, path)
    if not found.is_file():
        raise FileError(f"No file {path!r} under {root.resolve()}.")
    if found.stat().st_size > MAX_BYTES:
        raise FileError(f"{path!r} is larger than the {MAX_BYTES:,} bytes the API takes.")
    data = found.read_bytes()
    try:
        return found.name, data.decode("utf-8")
    except UnicodeDecodeError:
        return found.name, data


def source(root: Path, path: str | None, name: str | None, content: str | None) -> tuple[str, str | bytes]:
    """The file a tool was given: by `path` under `root`, or as `name` and `content`."""
    if path is not None and content is None:
        return read_source(root, path)
    if path is None and name and content is not None:
        return name, content
    raise FileError("Give either `path` (a file under the server's folder) or both `name` and `content`.")


def write(root: Path, path: str, data: bytes) -> Path:
    """Write `data` to `path` under `root` (its folder made when missing)."""
    found = inside(root, path)
    found.parent.mkdir(parents=True, exist_ok=True)
    found.write_bytes(data)
    return found


def check(
    root: Path,
    paths: Sequence[str],
    *,
    source_pattern: str | None,
    glossary: str | None,
    source_language: str | None,
    changed_since: str | None,
) -> CheckResult:
    """The offline check of `paths` (under `root`), as `translation-agent check --format json` runs it."""
    if not paths:
        raise FileError("Name at least one file to check.")
    files = [inside(root, p) for p in paths]
    if source_pattern is not None:
        # A pattern keeps its {name}/{lang} placeholders; only the folder part is confined to the root.
        inside(root, source_pattern.replace("{name}", "x").replace("{lang}", "x"))
        source_pattern = str(root.resolve() / source_pattern)
    try:
        status, text = run_check(
            files,
            glossary=inside(root, glossary) if glossary else None,
            source_language=source_language,
            changed_since=changed_since,
            as_json=True,
            source=source_pattern,
        )
    except (CheckError, OSError, UnicodeDecodeError) as exc:
        raise FileError(f"The check could not run: {exc}") from exc
    return CheckResult(passed=status == 0, report=json.loads(text))
