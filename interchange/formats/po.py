"""gettext PO and POT files (polib): each message is an entry; write fills `msgstr` and the header.

Reading: an entry's key is `msgctxt | msgid` when it has a context, else `msgid` (gettext's own key
joins them with a control character, which no screen shows; two messages whose keys are the same
this way are refused like a repeated message); its note is the extracted comments (`#.`), then the
translator comments (`# `), which in a file people translate together are notes for the next
translator; its refs are the `#:` source references (`src/main.c:42`), at most MAX_REFS; its flags the
`#,` flags (`c-format`, `fuzzy`, `range: 0..10`), at most MAX_FLAGS, each once. Codes follow the entry's
flags (`c-format` printf, `python-format` `%(name)s` and printf, `python-brace-format` `{name}`, …);
an entry with no format flag gets printf, strftime (`%Y`), `%(name)s` and `{name}` found, and HTML
tags always count. A plural entry (`msgid_plural`) has `one` = msgid and `other` = msgid_plural (gettext's
convention whatever the source language); its existing target maps `msgstr[i]` onto the file's
language's CLDR categories by the file's own `Plural-Forms`.

Fuzzy entries are entries (they need a translator), with no target: their `msgstr` is msgmerge's
guess. Obsolete entries (`#~`) are history, not entries; they are written back as read.

Writing: an entry in `targets` gets `msgstr`, or `msgstr[i]` for each of the target language's
gettext forms, and loses its `fuzzy` flag and `#|` previous strings; an entry not in targets keeps
its `msgstr`, a plural one refitted to the target's forms by category so the new header's
Plural-Forms fits it (an untranslated one gets the target's number of empty forms). The header
gets the target's `Language` and `Plural-Forms`, `charset=UTF-8`, and loses a template's `fuzzy`.
`write_with_comments` also adds lines of translator comments (`# `) to the entries it names, after
those the entry has (the comments people left on its segments).
polib re-serialises the file, in gettext's layout (`po_lines`): the wrap width is the one of 76
to 80 columns that reproduces the original's lines best, strings are cut as msgmerge cuts them,
comments are written as read and header fields keep their order, so GTK's pl.po written with no
targets differs only in its header and in one line old gettext had cut inside `%s`. What can
change: where the original broke a line elsewhere than after a space or inside a hyphenated word,
obsolete entries move to the end, a comment's leading spaces are trimmed, and any charset is
written as UTF-8 (a CRLF file stays CRLF).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import polib  # type: ignore[import-untyped]

from langfacts import bcp47, normalize_tag, plurals
from langfacts.codes import find_codes

from ..limits import MAX_SEGMENTS
from ._encoding import text_codec
from .base import Entry, FileFormat, FormatError, Resource, Target
from .po_lines import adopt, join_lines

_FLAG_SYNTAXES: dict[str, tuple[str, ...]] = {
    "c-format": ("printf",),
    "objc-format": ("printf",),
    "php-format": ("printf",),
    "perl-format": ("printf",),
    "javascript-format": ("printf",),
    "python-format": ("python", "printf"),
    "python-brace-format": ("brace",),
    "java-format": ("brace",),
    "csharp-format": ("brace",),
    "ruby-format": ("ruby", "printf"),
    "sh-format": ("dollar_brace",),
}
"""The code syntaxes of each gettext format flag this module knows."""
_DETECTED = ("python", "printf", "strftime", "brace")
"""What an entry with no format flag is searched for."""
_WIDTHS = (79, 76, 77, 78, 80)
"""Wrap widths tried on a file (gettext's 79 first: it wins ties)."""
_MAX_NAME_FIELD = 200
"""How much of a `Language-Team` or `X-Poedit-Language` field is read for a language name (and an address)."""
_CHARSET = re.compile(rb"charset=([A-Za-z0-9._:-]+)")
_SYNTAX = re.compile(r"\(line (\d+)\)(?::\s*(.*))?")


class _POFile(polib.POFile):  # type: ignore[misc]  # polib is untyped
    """polib's file with the header's fields written in the order they were read."""

    def ordered_metadata(self) -> list[tuple[str, str]]:
        return list(self.metadata.items())

    def metadata_as_entry(self) -> Any:
        return adopt(super().metadata_as_entry())


def _decode(data: bytes) -> str:
    head = data[:4096]
    match = _CHARSET.search(head)
    charset = match.group(1).decode("ascii") if match else "utf-8"
    if charset.upper() == "CHARSET":  # a template's placeholder
        charset = "utf-8"
    text_codec(charset, "The PO header's charset")
    try:
        return data.decode(charset).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"Line {line}: the text is not valid {charset}.") from exc
    except UnicodeError as exc:  # a codec that fails without a position
        raise FormatError(f"The text is not valid {charset}: {exc}.") from exc


def _parse(data: bytes) -> Any:
    text = _decode(data)
    if text.startswith("msgid ") + text.count("\nmsgid ") > MAX_SEGMENTS + 1:  # a header and the messages
        raise FormatError(f"The file has more than {MAX_SEGMENTS} messages, the most a file takes; split it.")
    if "\n" not in text.strip() or "msgid" not in text:
        raise FormatError("The file has no string to translate (no msgid).")
    joined, origin = join_lines(text)
    try:
        po = polib.pofile(joined, klass=_POFile)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        match = _SYNTAX.search(str(exc))
        if not match:
            raise FormatError(f"Not a PO file: {exc}") from exc
        index = int(match.group(1)) - 1
        line = origin[index] if 0 <= index < len(origin) else index + 1
        raise FormatError(f"Line {line}: {match.group(2) or 'syntax error'}.") from exc
    for entry in po:
        adopt(entry)
        if entry.linenum is not None and 0 < entry.linenum <= len(origin):
            entry.linenum = origin[entry.linenum - 1]
    return po


MAX_REFS = 20
"""The most `#:` references an entry carries (a string used in hundreds of places shows the first)."""


def _key(entry: Any) -> str:
    return f"{entry.msgctxt} | {entry.msgid}" if entry.msgctxt is not None else str(entry.msgid)


def _refs(entry: Any) -> tuple[str, ...]:
    return tuple(f"{path}:{line}" if line else str(path) for path, line in entry.occurrences[:MAX_REFS])


MAX_FLAGS = 10
"""The most `#,` flags an entry carries; each is cut to MAX_FLAG_CHARS."""
MAX_FLAG_CHARS = 60


def _flags(entry: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(f)[:MAX_FLAG_CHARS] for f in entry.flags if str(f).strip()))[:MAX_FLAGS]


def _syntaxes(flags: list[str]) -> tuple[tuple[str, ...], bool]:
    """The code syntaxes of an entry's flags, and whether they were detected (no format flag)."""
    named = [_FLAG_SYNTAXES[f] for f in flags if f in _FLAG_SYNTAXES]
    if named:
        return tuple(dict.fromkeys(s for group in named for s in group)), False
    refused = {s for f in flags if f.startswith("no-") for s in _FLAG_SYNTAXES.get(f[3:], ())}
    return tuple(s for s in _DETECTED if s not in refused), True


def _codes(entry: Any, texts: list[str]) -> tuple[str, ...]:
    syntaxes, detected = _syntaxes(entry.flags)
    found: list[str] = []
    for text in texts:
        codes = find_codes(text, (*syntaxes, "html"))
        # an unflagged "50% off" is a percent and a word, not `% o`
        found.extend(c for c in codes if not (detected and c.startswith("%") and " " in c))
    return tuple(found)


def _note(entry: Any) -> str | None:
    parts = [p for p in (entry.comment, entry.tcomment) if p and p.strip()]
    return "\n".join(parts) or None


def _file_language(po: Any) -> str | None:
    """The file's language: its `Language` header, else Poedit's or the team's language name."""
    language = _language_tag(po.metadata.get("Language"))
    if language:
        return language
    for field in ("X-Poedit-Language", "Language-Team"):
        name = (po.metadata.get(field) or "")[:_MAX_NAME_FIELD].split("<")[0].strip()
        tag = bcp47(name) if name else None
        if tag:
            return tag
    return None


_HEADER_PLURAL_FORMS = b'"Plural-Forms:'


def header_categories(data: bytes, language: str) -> tuple[str, ...] | None:
    """The category each `msgstr[i]` holds by the file's own `Plural-Forms` header (None: it has none
    or it cannot be read): what a check of the file's plural entries expects, whatever gettext's
    default for the language is (French files say `nplurals=2`, babel's table 3)."""
    head = data[:8192]
    start = head.find(_HEADER_PLURAL_FORMS)
    end = head.find(b'"', start + len(_HEADER_PLURAL_FORMS)) if start >= 0 else -1
    if end < 0:
        return None
    value = head[start + len(_HEADER_PLURAL_FORMS) : end].decode("utf-8", "replace").removesuffix("\\n")
    try:
        return _categories(value, language)
    except ValueError:
        return None


def _categories(header: str, language: str | None) -> tuple[str, ...] | None:
    """The categories of a `Plural-Forms` header's indexes for `language`; None for a template's
    placeholder (`nplurals=INTEGER; plural=EXPRESSION;`) or no language; ValueError when it cannot be
    read (its bounds are checked whether or not the language is known)."""
    if "INTEGER" in header and "EXPRESSION" in header:
        return None
    nplurals, expression = plurals.plural_forms(header)
    return plurals.index_categories(expression, nplurals, language) if language else None


def _file_categories(po: Any, language: str | None) -> tuple[str, ...] | None:
    """The category each `msgstr[i]` of the file holds, by its Plural-Forms and language; FormatError
    when the header is there and cannot be read (too long, `nplurals` outside 1 to 6, no expression)."""
    header = po.metadata.get("Plural-Forms")
    if not header or not header.strip():
        return None
    try:
        return _categories(header, language)
    except ValueError as exc:
        raise FormatError(f"The header's Plural-Forms cannot be read: {exc}.") from exc


def _target(entry: Any, categories: tuple[str, ...] | None) -> Target | None:
    if "fuzzy" in entry.flags:
        return None
    if not entry.msgid_plural:
        return entry.msgstr or None
    forms = entry.msgstr_plural
    if categories is None or not any(forms.values()):
        return None
    found: dict[str, str] = {}
    for index, category in enumerate(categories):
        found.setdefault(category, forms.get(index, ""))
    return found


def _entry(entry: Any, categories: tuple[str, ...] | None) -> Entry:
    plural = {"one": entry.msgid, "other": entry.msgid_plural} if entry.msgid_plural else None
    texts = [entry.msgid, entry.msgid_plural] if plural else [entry.msgid]
    return Entry(
        key=_key(entry),
        source=entry.msgid_plural or entry.msgid,
        note=_note(entry),
        refs=_refs(entry),
        flags=_flags(entry),
        codes=_codes(entry, texts),
        plural=plural,
        target=_target(entry, categories),
    )


def _language_tag(value: str | None) -> str | None:
    """The `Language` header as a tag (`pt_BR@latin` → `pt-BR`, "French" → `fr`), or None."""
    text = (value or "").strip().split("@")[0]
    return (normalize_tag(text) or bcp47(text)) if text else None


def _gettext_language(tag: str) -> str:
    return tag.replace("-", "_")


def _fill(entry: Any, target: Target, forms: plurals.GettextForms) -> None:
    if entry.msgid_plural:
        by_category = {c: target for c in forms.categories} if isinstance(target, str) else target
        fallback = by_category.get("other") or next(iter(by_category.values()), "")
        entry.msgstr_plural = {i: by_category.get(c, fallback) for i, c in enumerate(forms.categories)}
    else:
        entry.msgstr = target if isinstance(target, str) else target.get("other") or next(iter(target.values()), "")
    if "fuzzy" in entry.flags:
        entry.flags.remove("fuzzy")
    entry.previous_msgctxt = entry.previous_msgid = entry.previous_msgid_plural = None


def _refit(msgstrs: dict[int, str], own: tuple[str, ...] | None, forms: plurals.GettextForms) -> dict[int, str]:
    """An untranslated plural entry's forms as the target's number of empty ones, and a translated
    one's as the target's forms, each taken by category from the file's (`other`'s text where the
    file has no such category), so the header's new Plural-Forms fits every entry."""
    if not any(msgstrs.values()):
        return dict.fromkeys(range(forms.nplurals), "")
    if own is None or own == forms.categories:
        return msgstrs
    by_category = {c: msgstrs.get(i, "") for i, c in reversed(list(enumerate(own)))}
    fallback = by_category.get("other") or msgstrs[max(msgstrs)]
    return {i: by_category.get(c) or fallback for i, c in enumerate(forms.categories)}


def _with_field(metadata: dict[str, str], name: str, value: str, after: str) -> dict[str, str]:
    if name in metadata or after not in metadata:
        metadata[name] = value
        return metadata
    out: dict[str, str] = {}
    for key, old in metadata.items():
        out[key] = old
        if key == after:
            out[name] = value
    return out


def _width(po: Any, text: str) -> int:
    """The wrap width that reproduces most of the original's lines, tried on its wrapped messages."""
    lines = set(text.splitlines())
    sample = [e for e in po if not e.obsolete and max(len(e.msgid), len(e.msgstr)) > 60][:300]
    if not sample:
        return _WIDTHS[0]
    scores = {w: sum(line in lines for e in sample for line in e.__unicode__(w).splitlines()) for w in _WIDTHS}
    return max(_WIDTHS, key=lambda w: scores[w])


class PoFormat(FileFormat):
    """gettext PO and POT files."""

    name = "po"
    extensions = (".po", ".pot")
    media_type = "text/x-gettext-translation; charset=utf-8"

    def read(self, data: bytes) -> Resource:
        """The file's messages, header and obsolete ones left out."""
        po = _parse(data)
        language = _file_language(po)
        categories = _file_categories(po, language)
        entries: list[Entry] = []
        lines: dict[str, int] = {}
        for item in po:
            if item.obsolete or not item.msgid:  # the header, or an empty message: nothing to translate
                continue
            key = _key(item)
            if key in lines:
                raise FormatError(f"Line {item.linenum}: the message {key!r} repeats the one of line {lines[key]}.")
            lines[key] = item.linenum
            entries.append(_entry(item, categories))
        if not entries:
            raise FormatError("The file has no string to translate.")
        if len(entries) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} messages, the most a file takes; split it.")
        return Resource(entries=tuple(entries), target_language=language)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The file with the targets in `msgstr` and the header set to the target language."""
        return self.write_with_comments(data, targets, target_language=target_language, comments={})

    def write_with_comments(
        self,
        data: bytes,
        targets: Mapping[str, Target],
        *,
        target_language: str,
        comments: Mapping[str, Sequence[str]],
    ) -> bytes:
        """`write`, and each entry named in `comments` (by key) with those lines added to its translator
        comments (`# `), in order, after its own."""
        po = _parse(data)
        text = _decode(data)
        po.wrapwidth = _width(po, text)
        forms = plurals.gettext_forms(target_language)
        own = _file_categories(po, _file_language(po))
        for item in po:
            if item.obsolete:
                continue
            if lines := comments.get(_key(item)):
                item.tcomment = "\n".join([*([item.tcomment] if item.tcomment else []), *lines])
            target = targets.get(_key(item))
            if target is not None:
                _fill(item, target, forms)
            elif item.msgid_plural:
                item.msgstr_plural = _refit(item.msgstr_plural, own, forms)
        metadata = _with_field(dict(po.metadata), "Language", _gettext_language(target_language), "Language-Team")
        metadata = _with_field(metadata, "Plural-Forms", forms.header, "Content-Transfer-Encoding")
        if not re.search(r"charset=utf-?8\b", metadata.get("Content-Type", ""), re.I):
            metadata["Content-Type"] = "text/plain; charset=UTF-8"
        po.metadata = metadata
        po.metadata_is_fuzzy = False
        out = str(po)
        if "\r\n" in text:
            out = out.replace("\n", "\r\n")
        return out.encode("utf-8")


FORMAT = PoFormat()
