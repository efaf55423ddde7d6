"""The repository's files as sync sees them: strings by key, reduced uploads, target files written.

Resource files (i18next JSON, Android `strings.xml`, PO, Rails YAML, and any format of
`interchange.formats`) are read and written by the same readers and writers the service's
`export?format=original` uses, so a target written here keeps the source's order, comments and
layout exactly as that export does. A Markdown file is cut into blocks (paragraphs, headings, lists
between blank lines; fenced code and front matter are kept as they are): a block is one string, keyed
by a digest of its text, and a target's blocks are paired with the source's in order.

A reduced upload is the source file with only the strings to translate (the format's own syntax, so
the service reads keys, notes and codes as in the whole file); where a format cannot be reduced here,
the whole file is uploaded (`reduce` answers None).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import polib  # type: ignore[import-untyped]
import yaml

from interchange.formats import TEXT, FileFormat, FormatError, format_for

BILINGUAL = frozenset({"po", "xcstrings", "xliff"})
"""The formats whose files hold each string's source beside its translation: a target's text is its target."""

Text = str | dict[str, str]
"""A string's text, or a plural string's forms by CLDR category."""

_PLURAL_SUFFIX = re.compile(r"_(?:ordinal_)?(?:zero|one|two|few|many|other)$")
_ELEMENT = re.compile(
    r"(?:<!--(?:(?!-->).)*-->[ \t]*\r?\n?[ \t]*)?"
    r"<(string|plurals|string-array)\b[^>]*?\bname=\"([^\"]+)\"[^>]*?(?:/>|>.*?</\1\s*>)[ \t]*\r?\n?",
    re.DOTALL,
)


class AlignError(Exception):
    """A target file whose strings cannot be paired with its source's (a Markdown target whose blocks
    no longer match the source's in number)."""


def text_hash(text: Text) -> str:
    """A short, stable digest of a string's text (forms in category order for a plural one)."""
    canonical = text if isinstance(text, str) else json.dumps(text, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _format(name: str, data: bytes) -> FileFormat | None:
    """The resource format of `name`, or None for Markdown and plain text."""
    found = format_for(name, data)
    return None if found is None or found.name == TEXT else found


def is_markdown(name: str, data: bytes) -> bool:
    """Whether sync treats the file as Markdown (blocks), not as a resource format."""
    return _format(name, data) is None


# ---- Markdown blocks -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Block:
    """A Markdown block: its span in the text and whether it is kept as it is (code, front matter)."""

    start: int
    end: int
    verbatim: bool


def blocks(text: str) -> list[Block]:
    """The text's blocks in order, each span without the blank lines around it."""
    found: list[Block] = []
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped:
            i += 1
            continue
        fence = re.match(r"(`{3,}|~{3,})", stripped)
        if (i == 0 and stripped == "---") or fence:
            closing = "---" if not fence else fence.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(closing):
                j += 1
            j = min(j + 1, len(lines))
            found.append(Block(offsets[i], offsets[i] + len(text[offsets[i] : offsets[j]].rstrip()), True))
            i = j
            continue
        j = i
        while j < len(lines) and lines[j].strip() and not re.match(r"(`{3,}|~{3,})", lines[j].strip()):
            j += 1
        found.append(Block(offsets[i], offsets[i] + len(text[offsets[i] : offsets[j]].rstrip()), False))
        i = j
    return found


def _markdown_strings(text: str) -> dict[str, Text]:
    """Each translatable block by a key that is a digest of its text (`~2` on a repeat)."""
    strings: dict[str, Text] = {}
    for block in blocks(text):
        if block.verbatim:
            continue
        body = text[block.start : block.end]
        key = "b" + text_hash(body)[:12]
        n = 1
        while (f"{key}~{n}" if n > 1 else key) in strings:
            n += 1
        strings[f"{key}~{n}" if n > 1 else key] = body
    return strings


def _markdown_target(text: str, keys: list[str]) -> dict[str, Text]:
    """A Markdown target's blocks paired in order with `keys` (its source's blocks when it was written)."""
    bodies = [text[b.start : b.end] for b in blocks(text) if not b.verbatim]
    if len(bodies) != len(keys):
        raise AlignError(f"it has {len(bodies)} text blocks where its source had {len(keys)} when it was written")
    return dict(zip(keys, bodies, strict=True))


def _markdown_write(source: str, targets: Mapping[str, Text]) -> str:
    """The source with each translatable block replaced by its target where one is given."""
    keys = list(_markdown_strings(source))
    out: list[str] = []
    position, index = 0, 0
    for block in blocks(source):
        if block.verbatim:
            continue
        target = targets.get(keys[index])
        index += 1
        if isinstance(target, str):
            out += [source[position : block.start], target]
            position = block.end
    return "".join([*out, source[position:]])


# ---- reading and writing ---------------------------------------------------------------------


def source_strings(name: str, data: bytes) -> dict[str, Text]:
    """The source file's strings by key, in file order; FormatError for a file its format cannot read."""
    fmt = _format(name, data)
    if fmt is None:
        return _markdown_strings(data.decode("utf-8-sig"))
    return {e.key: dict(e.plural) if e.plural is not None else e.source for e in fmt.read(data).entries}


def target_strings(name: str, data: bytes, order: list[str]) -> dict[str, Text]:
    """A target file's translations by key (`order`: the keys of its source when it was last written,
    which pairs a Markdown target's blocks); FormatError, AlignError when it cannot be read so."""
    fmt = _format(name, data)
    if fmt is None:
        return _markdown_target(data.decode("utf-8-sig"), order)
    bilingual = fmt.name in BILINGUAL
    found: dict[str, Text] = {}
    for entry in fmt.read(data).entries:
        value: object = entry.target if bilingual else (entry.plural if entry.plural is not None else entry.source)
        if isinstance(value, str) and value:
            found[entry.key] = value
        elif isinstance(value, Mapping) and any(value.values()):
            found[entry.key] = {str(k): str(v) for k, v in value.items()}
    return found


def write_target(name: str, source: bytes, targets: Mapping[str, Text], language: str) -> bytes:
    """The target file: the source with `targets` filled (by key) and the file's language set, as
    `export?format=original` writes it; strings without a target as the format keeps them (the
    source's text in a monolingual file, empty in PO)."""
    fmt = _format(name, source)
    if fmt is None:
        return _markdown_write(source.decode("utf-8-sig"), targets).encode("utf-8")
    return fmt.write(source, targets, target_language=language)


def translated_strings(name: str, keys: list[str], exported: bytes) -> dict[str, Text]:
    """What an `export?format=original` of an uploaded file holds, by key: for Markdown, each uploaded
    block's translation paired in order with `keys` (the uploaded blocks'); else each entry's target."""
    return target_strings(name, exported, keys)


# ---- reduced uploads -------------------------------------------------------------------------


def reduce(name: str, data: bytes, keys: Collection[str]) -> bytes | None:
    """The source file with only the strings `keys` names (its own format), or None when this format
    cannot be reduced here (the whole file is then uploaded)."""
    fmt = _format(name, data)
    if fmt is None:
        strings = _markdown_strings(data.decode("utf-8-sig"))
        return ("\n\n".join(str(strings[k]) for k in strings if k in keys) + "\n").encode("utf-8")
    wanted = set(keys)
    try:
        reduced = _REDUCERS[fmt.name](data, wanted) if fmt.name in _REDUCERS else None
        if reduced is None:
            return None
        got = {e.key for e in fmt.read(reduced).entries}
    except (FormatError, ValueError, yaml.YAMLError):
        return None
    return reduced if wanted <= got and got <= wanted | _array_siblings(got, wanted) else None


def _array_siblings(got: set[str], wanted: set[str]) -> set[str]:
    """Android array items uploaded beside a wanted item of the same array (an array is one element)."""
    arrays = {k.split("[", 1)[0] for k in wanted if "[" in k}
    return {k for k in got if "[" in k and k.split("[", 1)[0] in arrays}


def _tree_keep(node: Any, path: tuple[str, ...], wanted: set[str], skip: int = 0) -> Any:
    """A JSON or YAML tree with only the strings `wanted` names (by dotted path less its first `skip`
    keys, with or without a plural suffix); None when nothing of it is wanted."""
    joined = ".".join(path[skip:])
    if len(path) > skip and {joined, _PLURAL_SUFFIX.sub("", joined)} & wanted:
        return node
    if isinstance(node, dict):
        kept = {
            k: v for k, child in node.items() if (v := _tree_keep(child, (*path, str(k)), wanted, skip)) is not None
        }
        return kept or None
    return None


def _reduce_json(data: bytes, wanted: set[str]) -> bytes:
    tree = json.loads(data.decode("utf-8-sig"))
    return (json.dumps(_tree_keep(tree, (), wanted) or {}, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _reduce_yaml(data: bytes, wanted: set[str]) -> bytes:
    tree: Any = yaml.safe_load(data.decode("utf-8-sig"))
    if not isinstance(tree, dict) or len(tree) != 1:
        raise ValueError("a Rails locale file has one root key")
    ((root, body),) = tree.items()
    kept = {root: _tree_keep(body, (str(root),), wanted, 1) or {}}
    dumped: str = yaml.safe_dump(kept, allow_unicode=True, sort_keys=False, width=4096)
    return dumped.encode("utf-8")


def _reduce_android(data: bytes, wanted: set[str]) -> bytes:
    text = data.decode("utf-8")

    def keep(match: re.Match[str]) -> str:
        kind, name = match.group(1), match.group(2)
        hit = any(k.startswith(f"{name}[") for k in wanted) if kind == "string-array" else name in wanted
        return match.group(0) if hit else ""

    return _ELEMENT.sub(keep, text).encode("utf-8")


def _reduce_po(data: bytes, wanted: set[str]) -> bytes:
    catalog = polib.pofile(data.decode("utf-8"))
    for entry in list(catalog):
        key = f"{entry.msgctxt} | {entry.msgid}" if entry.msgctxt else entry.msgid
        if entry.obsolete or key not in wanted:
            catalog.remove(entry)
    return str(catalog).encode("utf-8")


_REDUCERS = {"json": _reduce_json, "rails_yaml": _reduce_yaml, "android": _reduce_android, "po": _reduce_po}


def tmx(pairs: list[tuple[str, str, str]], source_language: str) -> str:
    """A TMX 1.4 document of (language, source, target) pairs: what memory import reads."""
    units = "".join(
        f"<tu><tuv xml:lang={quoteattr(source_language)}><seg>{escape(source)}</seg></tuv>"
        f"<tuv xml:lang={quoteattr(language)}><seg>{escape(target)}</seg></tuv></tu>\n"
        for language, source, target in pairs
    )
    header = (
        '<header creationtool="translation-agent sync" creationtoolversion="1" segtype="sentence" '
        f'o-tmf="sync" adminlang="en" srclang={quoteattr(source_language)} datatype="plaintext"/>'
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">{header}<body>\n{units}</body></tmx>\n'
