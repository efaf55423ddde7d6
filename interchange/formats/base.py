"""The one interface every file format implements: read a file into entries, write it back filled.

A format is a way of producing the strings to translate (`Entry`: a key, the source, the developer's
note, the locked codes, the plural forms) and of writing the original back with targets filled and
everything else unchanged (comments, order, keys, whitespace outside strings, the format's escaping).
Each format is one module of this package with one `FileFormat` object; `formats.registry` picks
one by a file's name. Formats are pure functions of bytes: no HTTP, storage or agent.

Plural entries carry their forms by CLDR category (`zero`, `one`, `two`, `few`, `many`, `other`),
in the source language's categories when read and in the target language's when written
(`langfacts.plurals`). Locked codes are the literal substrings of the source that a translation must
keep exactly (printf `%1$s`, `{name}`, `{{name}}`, ICU arguments, HTML tags, Android `<xliff:g>`…):
`Entry.codes` lists them in source order, as often as they occur.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

Forms: TypeAlias = Mapping[str, str]
"""A plural entry's texts by CLDR category, in the language's own categories."""
Target: TypeAlias = str | Forms
"""What a translated entry is written as: a text, or for a plural entry its forms by category."""


class FormatError(ValueError):
    """A file that cannot be read as its format: the message says where (a line, a key, a path)
    and what is wrong, in words a person can act on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One translatable string of a file."""

    key: str
    """Unique in the file and stable: what `write` finds the entry by (a PO msgctxt+msgid, a JSON
    path `a.b.c`, an Android name, a cue number, a block's path in an HTML or DOCX document)."""
    source: str
    """The text to translate. For a plural entry, its `other` form (what a list shows)."""
    note: str | None = None
    """The developer's comment for translators, where the format has one (PO `#.`, ARB `@key`
    `description`, `.strings` comments, xcstrings `comment`, Android's preceding XML comment)."""
    refs: tuple[str, ...] = ()
    """Where the program uses the string (PO `#:` references, `src/main.c:42`), for the reviewer."""
    flags: tuple[str, ...] = ()
    """The format's flags on the entry (PO `#,` flags: `c-format`, `fuzzy`, `no-wrap`, …), for the reviewer."""
    codes: tuple[str, ...] = ()
    """The locked codes of `source` (every form's, for a plural entry), literal, in order, with
    repeats: a translation keeps each exactly, as often, in any order."""
    plural: Forms | None = None
    """For a plural entry, the source's forms by CLDR category; None for a plain string."""
    plural_argument: str | None = None
    """The variable the plural depends on, where the format names it (ICU `count`, stringsdict
    `NSStringFormatValueTypeKey`), for the reviewer and the model."""
    target: Target | None = None
    """The translation the file already holds (a PO `msgstr`, an xcstrings localization, an XLIFF
    target), for checks of existing translations; None where there is none."""
    document: bool = False
    """True for a document's block (HTML, DOCX paragraphs, a subtitle cue): long text that is cut
    further into sentences; False for a resource string, which is one segment."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resource:
    """What `read` found: the entries to translate, in file order, and the languages the file names."""

    entries: tuple[Entry, ...]
    source_language: str | None = None
    """The source language the file declares (a PO header, an xcstrings `sourceLanguage`), if any."""
    target_language: str | None = None
    """The target language the file declares, if any (PO `Language`, XLIFF `trgLang`)."""


class FileFormat(ABC):
    """A file format: its name, the file names it reads, and its reader and writer."""

    name: str
    """Short and stable: `po`, `json`, `android`, `strings`, … (what API answers and logs say)."""
    extensions: tuple[str, ...]
    """The lower-case extensions it reads, with the dot (`.po`, `.pot`)."""
    binary: bool = False
    """True when the file is uploaded as `contentBase64` (DOCX)."""
    media_type: str = "text/plain; charset=utf-8"
    """The media type of the written file."""

    def accepts(self, name: str, data: bytes) -> bool:
        """True when this format reads the file `name` (by default, by its extension; a format that
        shares an extension, such as Android `.xml`, may also look at the content)."""
        return name.lower().endswith(self.extensions)

    @abstractmethod
    def read(self, data: bytes) -> Resource:
        """The file's entries; FormatError for a file that is not of this format or is malformed."""

    @abstractmethod
    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original `data` with each entry named in `targets` (by key) translated, and the file's
        own target-language fields set to `target_language` (a PO header's `Language` and
        `Plural-Forms`, an xcstrings localization's key) where it has them. Plural targets come
        with exactly the target language's categories; the writer writes those. An entry not in
        `targets` is written as it was read: empty where the format keeps translations apart from
        sources (PO, xcstrings), its source text where the file is the translation (JSON,
        `.strings`, Android, HTML, DOCX, subtitles). Everything else is byte for byte as it was,
        except where the format's own library must re-serialise (documented in its module)."""

    def export(
        self, data: bytes, fill: Callable[[Resource], tuple[Mapping[str, Target], str]]
    ) -> tuple[Resource, bytes]:
        """`data` read, then written with the targets and the target language `fill` gives for what
        was read: an export in one call. A format whose parse is the costly part (Rails YAML's
        round trip) overrides it to parse the file once."""
        resource = self.read(data)
        targets, language = fill(resource)
        return resource, self.write(data, targets, target_language=language)
