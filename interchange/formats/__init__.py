"""File formats behind one interface (`base.FileFormat`): read a file's entries, write it back filled.

`format_for(name, data)` picks the format of an upload by its name (and, where an extension is
shared, its content): XLIFF, one of the resource and document formats, else Markdown (plain text
included), which reads anything. Each format's module is imported only when a file of it is met, so
the handler's cold start pays for none of them. Adding a format is one module with a `FORMAT` object
and one line of `_MODULES`.
"""

from __future__ import annotations

import importlib

from .base import Entry, FileFormat, FormatError, Forms, Resource, Target

__all__ = ["Entry", "FileFormat", "FormatError", "Forms", "Resource", "Target", "format_for", "format_named"]

_MODULES: tuple[str, ...] = (
    "xliff",
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
    "markdown",
)
"""The format modules, in the order their `accepts` is asked (the first that accepts a file reads it;
Markdown, last, accepts every file)."""


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


def format_for(name: str, data: bytes) -> FileFormat:
    """The format that reads the file `name` with content `data` (Markdown when no other does)."""
    lowered = name.lower()
    found = _formats()
    for fmt in found:
        if lowered.endswith(fmt.extensions) and fmt.accepts(name, data):
            return fmt
    return found[-1]


def format_named(name: str) -> FileFormat:
    """The format whose `name` is `name` (a stored file's); KeyError for an unknown one."""
    for fmt in _formats():
        if fmt.name == name:
            return fmt
    raise KeyError(name)
