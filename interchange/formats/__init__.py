"""File formats behind one interface (`base.FileFormat`): read a file's entries, write it back filled.

`format_for(name, data)` picks the format of an upload by its name (and, where an extension is
shared, its content): XLIFF or one of the resource and document formats; None for any other file,
which is Markdown or plain text (`TEXT`, the service's fallback, also behind the interface). A
format's module is imported only when a file with one of its extensions is met, so the handler's
cold start, and an upload of another format, pay for none of them. Adding a format is one module
with a `FORMAT` object and one line of `_MODULES`.
"""

from __future__ import annotations

import importlib

from .base import Entry, FileFormat, FormatError, Forms, Resource, Target

__all__ = [
    "TEXT",
    "Entry",
    "FileFormat",
    "FormatError",
    "Forms",
    "Resource",
    "Target",
    "format_for",
    "format_named",
]

TEXT = "markdown"
"""The name of the format of Markdown and plain text (`markdown.FORMAT`), the fallback."""

_MODULES: dict[str, tuple[str, ...]] = {
    "xliff": (".xlf", ".xliff"),
    "po": (".po", ".pot"),
    "i18next": (".json",),
    "arb": (".arb",),
    "rails_yaml": (".yml", ".yaml"),
    "android": (".xml",),
    "apple_strings": (".strings",),
    "stringsdict": (".stringsdict",),
    "xcstrings": (".xcstrings",),
    "html": (".html", ".htm"),
    "subtitles": (".srt",),
    "webvtt": (".vtt",),
    "docx": (".docx",),
}
"""The format modules and the extensions each reads, in the order their `accepts` is asked (the first
that accepts a file reads it); a module's `FORMAT.extensions` are the same."""


def _load(module: str) -> FileFormat | None:
    try:
        found = importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{module}":
            return None  # not written yet
        raise
    fmt: FileFormat = found.FORMAT
    return fmt


def format_for(name: str, data: bytes) -> FileFormat | None:
    """The format that reads the file `name` with content `data`; None for Markdown and plain text."""
    lowered = name.lower()
    for module, extensions in _MODULES.items():
        if lowered.endswith(extensions) and (fmt := _load(module)) is not None and fmt.accepts(name, data):
            return fmt
    return None


def format_named(name: str) -> FileFormat:
    """The format whose `name` is `name` (a stored file's; `TEXT` for Markdown); KeyError for an unknown one."""
    for module in ("markdown", *_MODULES):
        fmt = _load(module)
        if fmt is not None and fmt.name == name:
            return fmt
    raise KeyError(name)
