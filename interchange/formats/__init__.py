"""File formats behind one interface (`base.FileFormat`): read a file's entries, write it back filled.

`format_for(name, data)` picks the format of an upload by its name (and, where an extension is
shared, its content); each format's module is imported only when a file of it is met, so the
handler's cold start pays for none of them. Adding a format is one module with a `FORMAT` object
and one line of `_MODULES`.
"""

from __future__ import annotations

import importlib

from .base import Entry, FileFormat, FormatError, Forms, Resource, Target

__all__ = ["Entry", "FileFormat", "FormatError", "Forms", "Resource", "Target", "format_for", "format_named"]

_MODULES: tuple[str, ...] = (
    "po",
    "i18next",
    "arb",
    "rails_yaml",
    "android",
    "apple_strings",
    "stringsdict",
    "xcstrings",
    "html",
    "subtitles",
    "docx",
)
"""The format modules, in the order their `accepts` is asked (the first that accepts a file reads it)."""


def _formats() -> list[FileFormat]:
    found: list[FileFormat] = []
    for name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # not written yet
            raise
        found.append(module.FORMAT)
    return found


def format_for(name: str, data: bytes) -> FileFormat | None:
    """The format that reads the file `name` with content `data`; None for Markdown, plain text and
    XLIFF, which the service reads itself."""
    lowered = name.lower()
    for fmt in _formats():
        if lowered.endswith(fmt.extensions) and fmt.accepts(name, data):
            return fmt
    return None


def format_named(name: str) -> FileFormat:
    """The format whose `name` is `name` (a stored file's); KeyError for an unknown one."""
    for fmt in _formats():
        if fmt.name == name:
            return fmt
    raise KeyError(name)
