"""The lockfile, `translation-agent.lock`: what sync last decided, per target file and string.

JSON (sync writes it; people read its diffs), committed beside the config. Per target file and string
key: the source text's hash, the target text's hash as the file holds it, and who decided that text:
`person:<sub>` (a reviewer's verdict or revision), `rule:<name>` (the session's routing approved it:
`rule:autoApprove`; `rule:verbatim` for text kept as it is), `import` (a translation the repository
held before sync knew the string) or `git:<email>` (a person edited the target in git). `pending` marks
a string sent for translation and not decided yet (its `by` is then the previous decision's, if any).
Beside them: each language's session, and each upload still waiting for decisions (which strings it
carries, by their source hash then).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

VERSION = 1


class LockError(Exception):
    """A lockfile that cannot be read: the message says what to do."""


@dataclass(slots=True)
class StringLock:
    """One string of one target file."""

    source: str
    """The hash of the source text the target translates."""
    target: str | None
    """The hash of the text the target file holds for it (None: the file holds none)."""
    by: str | None
    """Who decided the target's text (None: nobody yet)."""
    pending: bool = False
    """Sent for translation; the current source has no decision yet."""

    def as_json(self) -> dict[str, object]:
        return {"source": self.source, "target": self.target, "by": self.by} | (
            {"pending": True} if self.pending else {}
        )


@dataclass(slots=True)
class FileLock:
    """A target file: its source and language, and its strings in source order."""

    source: str
    language: str
    strings: dict[str, StringLock] = field(default_factory=dict)


@dataclass(slots=True)
class Upload:
    """A reduced source file uploaded to a language's session, whose strings wait for decisions."""

    session: str
    file: str
    """The file's id in the session."""
    name: str
    target: str
    """The target file (path) its decisions go to."""
    strings: dict[str, str]
    """Each string it carries, in upload order, with the hash of its source text when uploaded."""


@dataclass(slots=True)
class Lock:
    """The whole lockfile."""

    files: dict[str, FileLock] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)
    uploads: list[Upload] = field(default_factory=list)

    def dumps(self) -> str:
        """The lockfile's text: stable (files by path, strings in source order), one value a line."""
        data = {
            "version": VERSION,
            "sessions": dict(sorted(self.sessions.items())),
            "files": {
                path: {
                    "source": f.source,
                    "language": f.language,
                    "strings": {k: s.as_json() for k, s in f.strings.items()},
                }
                for path, f in sorted(self.files.items())
            },
            "uploads": [
                {"session": u.session, "file": u.file, "name": u.name, "target": u.target, "strings": u.strings}
                for u in self.uploads
            ],
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def load_lock(path: Path) -> Lock:
    """The lockfile at `path`, or an empty one when there is none; LockError for one that cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock()
    except UnicodeDecodeError as exc:
        raise LockError(f"{path.name} is not UTF-8 text: restore it from git.") from exc
    return parse_lock(text, path.name)


def parse_lock(text: str, name: str = "translation-agent.lock") -> Lock:
    """A lockfile's text read; LockError (naming `name`) for one that cannot be read."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise LockError(f"{name} is not valid JSON ({exc}): restore it from git.") from exc
    try:
        if not isinstance(data, dict):
            raise LockError(f"{name} is not a lockfile (a JSON object): restore it from git.")
        if data.get("version") != VERSION:
            raise LockError(f"{name} is of version {data.get('version')!r}; this client reads {VERSION}.")
        return Lock(
            files={
                str(p): FileLock(
                    source=str(f["source"]),
                    language=str(f["language"]),
                    strings={
                        str(k): StringLock(
                            source=str(s["source"]),
                            target=None if s.get("target") is None else str(s["target"]),
                            by=None if s.get("by") is None else str(s["by"]),
                            pending=bool(s.get("pending", False)),
                        )
                        for k, s in f["strings"].items()
                    },
                )
                for p, f in data["files"].items()
            },
            sessions={str(k): str(v) for k, v in data.get("sessions", {}).items()},
            uploads=[
                Upload(
                    session=str(u["session"]),
                    file=str(u["file"]),
                    name=str(u["name"]),
                    target=str(u["target"]),
                    strings={str(k): str(v) for k, v in u["strings"].items()},
                )
                for u in data.get("uploads", [])
            ],
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise LockError(f"{name} lacks {exc} or has it in another shape: restore it from git.") from exc
