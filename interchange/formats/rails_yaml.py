"""Rails i18n YAML (`config/locales/en.yml`): read from libyaml's node tree, written by editing the
original text where its strings stand.

The one top-level key is the locale (`en:`); `write` renames it to the target language. Every
string leaf under it is an entry keyed by its path without the locale (`errors.messages.blank`;
an array item's index is a part: `date.day_names.0`). A mapping whose keys are all CLDR categories
and include `other` (`one:` / `other:`) is one plural entry keyed by the mapping's path, written
back with exactly the target's categories (forms the target lacks are removed with their lines; new
ones are inserted before the next form, in the key quoting and value style of `other`). Strings are
what YAML 1.1 reads as strings, as Psych does (`yes`, `~`, `12` are not); numbers, booleans, nulls,
Ruby symbols (`:year`), empty strings, values of other tags and what Rails reads as data
(`round_mode`, `date.order`) are not entries, nor are the keys a mapping merges (`<<: *defaults`:
they are their anchor's). Two keys whose paths join to one (`b.c:` beside `b:` / `c:`) are refused,
naming both: one translation would be written to both; so is a key twice in one mapping. Nesting is
bounded (MAX_DEPTH) by a pass over libyaml's events before its composer, which recurses in C, builds
the tree. Codes: `%{name}`, `%<name>s`, strftime and number-format directives (`%Y`, `%-d`,
`%u %n`), HTML tags.

`write` replaces each translated string's text at its position in the file (how a new text is
quoted: `_yaml_edits`) and the locale key's; everything else (comments, key order, blank lines,
indentation, line ends, a byte order mark, the `---` marker, anchors and tags) stays byte for byte.
Aliases are followed once: an anchored value is an entry at its anchor only. Comments are not
notes (which string a comment describes is a guess).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import yaml
from babel import localedata
from yaml import CSafeLoader, MappingNode, Node, ScalarNode, SequenceNode

from langfacts import plurals
from langfacts.codes import find_codes

from ..limits import MAX_SEGMENTS
from ._yaml_edits import STR, Edit, edited, key_text, mapping_edits, scalar_text, value_start
from .base import Entry, FileFormat, FormatError, Resource, Target

_SYNTAXES = ("ruby", "strftime", "html")
_SYMBOL = re.compile(r":[A-Za-z_]\w*[?!]?")
_MERGE = "tag:yaml.org,2002:merge"
_MAX_NODES = 4 * MAX_SEGMENTS
MAX_DEPTH = 64
"""The deepest nesting of mappings and sequences read."""
_LOCALE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
_FIRST_KEY = re.compile(
    r"""^(?:---[ \t\r]*\n|[ \t\r]*(?:#[^\n]*)?\n)*(["']?)([^\s:"'#]+)\1:[ \t]*(?:#[^\r\n]*)?\r?$""", re.M
)
_OPENS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _is_locale(tag: str) -> bool:
    """True for a tag whose language CLDR knows (`en`, `pt-BR`, `zh_Hant`), not for `web` or `services`."""
    return bool(_LOCALE.fullmatch(tag)) and localedata.exists(re.split("[-_]", tag)[0].lower())


@dataclass(frozen=True, slots=True)
class _Leaf:
    """A string (a scalar node) or a plural mapping of the tree, its key, and whether it stands in a
    flow collection (`[a, b]`, `{a: b}`), where plain text may hold less."""

    key: str
    node: Node
    flow: bool
    plural: bool


@dataclass(frozen=True, slots=True)
class _File:
    """A file's text (without its byte order mark, which `bom` keeps), its node tree and its locale key."""

    bom: str
    text: str
    locale: ScalarNode
    top: Node


def _nesting(text: str) -> None:
    """FormatError for mappings and sequences nested deeper than MAX_DEPTH (libyaml's events are a
    loop; its composer would recurse)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=CSafeLoader):
            if isinstance(event, _OPENS):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(event.start_mark.line)
            elif isinstance(event, _CLOSES):
                depth -= 1
    except yaml.MarkedYAMLError as exc:  # libyaml's scanner, reading ahead, stops at its own bound (1,000)
        if exc.problem_mark and "nesting depth" in str(exc.problem):
            raise _too_deep(exc.problem_mark.line) from exc
        raise


def _too_deep(line: int) -> FormatError:
    return FormatError(f"Line {line + 1}: values nested deeper than {MAX_DEPTH} levels.")


def _load(data: bytes) -> _File:
    bom = "\ufeff" if data.startswith(codecs.BOM_UTF8) else ""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"Line {line}: the file is not UTF-8 text.") from exc
    try:
        _nesting(text)
        root = yaml.compose(text, Loader=CSafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"Line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise FormatError(f"{where}not valid YAML: {exc.problem or exc.context}.") from exc
    except yaml.YAMLError as exc:
        raise FormatError(f"Not valid YAML: {exc}.") from exc
    if root is None:
        raise FormatError("The file has no string to translate.")
    if not isinstance(root, MappingNode) or len(root.value) != 1:
        raise FormatError("A Rails locale file is a mapping with one top-level key, the locale (`en:`).")
    locale, top = root.value[0]
    if not isinstance(locale, ScalarNode) or not _is_locale(locale.value):
        shown = locale.value if isinstance(locale, ScalarNode) else "(a collection)"
        raise FormatError(f"The top-level key {shown!r} is not a locale (`en`, `pt-BR`): not a Rails locale file.")
    return _File(bom, text, locale, top)


def _checked(node: ScalarNode) -> None:
    """FormatError for a value its YAML type refuses (`!!int x`, `!!timestamp 2024-14-40`, a
    5,000-digit number), which Rails could not load either."""
    if node.tag != STR and node.tag in yaml.constructor.SafeConstructor.yaml_constructors:
        try:
            yaml.constructor.SafeConstructor().construct_object(node)
        except (ValueError, TypeError, yaml.YAMLError) as exc:
            raise FormatError(f"Line {node.start_mark.line + 1}: a value cannot be read: {exc}.") from exc


def _is_string(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == STR


def _is_plural(node: Node, seen: set[int]) -> bool:
    if not isinstance(node, MappingNode):
        return False
    keys = [k.value if isinstance(k, ScalarNode) else None for k, _ in node.value]
    return (
        "other" in keys
        and len(set(keys)) == len(keys)
        and all(k in plurals.ORDER for k in keys)
        and all(_is_string(v) and id(v) not in seen for _, v in node.value)
    )


def _translatable(node: Node) -> bool:
    return _is_string(node) and bool(node.value.strip()) and not _SYMBOL.fullmatch(node.value)


def _locked(path: tuple[str, ...]) -> bool:
    """True for a value Rails reads as data, not text: `round_mode` (`number.format.round_mode:
    default`) and `date.order` and its items (`[:year, :month, :day]`)."""
    return path[-1] == "round_mode" or ("date", "order") in (path[-2:], path[-3:-1])


def _children(node: Node) -> Iterator[tuple[str, Node, int]]:
    """A container's own items: each key (an index for a sequence), value and the key's line; a
    mapping's merged `<<` keys are its anchor's, not its own. A key twice is a FormatError."""
    if isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield str(index), item, item.start_mark.line + 1
        return
    lines: dict[str, int] = {}
    for key, value in node.value:
        line = key.start_mark.line + 1
        if key.tag == _MERGE:
            continue
        if not isinstance(key, ScalarNode):
            raise FormatError(f"Line {line}: a key is a mapping or a list, which a Rails locale file never has.")
        if key.value in lines:
            raise FormatError(f"Lines {lines[key.value]} and {line}: the key `{key.value}` twice in one mapping.")
        lines[key.value] = line
        yield key.value, value, line


def _leaves(top: Node) -> Iterator[_Leaf]:
    """The tree's strings and plural mappings in file order, each node visited once; two keys whose
    paths join to one (`b.c:` beside `b:` / `c:`) are a FormatError naming both."""
    if not isinstance(top, MappingNode | SequenceNode):
        return
    stack: list[tuple[Iterator[tuple[str, Node, int]], tuple[str, ...], bool]] = [
        (_children(top), (), bool(top.flow_style))
    ]
    seen = {id(top)}
    written: dict[str, tuple[tuple[str, ...], int]] = {}
    nodes = 0
    while stack:
        items, path, flow = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        index, value, line = item
        nodes += 1
        if nodes > _MAX_NODES:
            raise FormatError(f"The file has more than {_MAX_NODES} values, the most a file takes; split it.")
        if id(value) in seen:
            continue
        key_path = (*path, index)
        plural = _is_plural(value, seen)
        seen.add(id(value))
        if plural:
            seen.update(id(v) for _, v in value.value)
        elif isinstance(value, MappingNode | SequenceNode):
            stack.append((_children(value), key_path, bool(value.flow_style)))
            continue
        elif isinstance(value, ScalarNode):
            _checked(value)
        if not plural and (not _translatable(value) or _locked(key_path)):
            continue
        key = ".".join(key_path)
        if key in written:
            other, other_line = written[key]
            raise FormatError(
                f"The keys {_shown(other)} (line {other_line}) and {_shown(key_path)} (line {line}) both make "
                f"the key {key}: one translation would be written to both. Rename or merge one of them."
            )
        written[key] = (key_path, line)
        yield _Leaf(key, value, flow, plural)


def _shown(path: tuple[str, ...]) -> str:
    """A key path as written in the file: `b` → `c`."""
    return " → ".join(f"`{part}`" for part in path)


def _entry(leaf: _Leaf) -> Entry:
    if not leaf.plural:
        text = leaf.node.value
        return Entry(key=leaf.key, source=text, codes=find_codes(text, _SYNTAXES))
    given = {key.value: value.value for key, value in leaf.node.value}
    forms = {c: given[c] for c in plurals.ORDER if c in given}
    codes = tuple(code for text in forms.values() for code in find_codes(text, _SYNTAXES))
    return Entry(key=leaf.key, source=forms["other"], codes=codes, plural=forms, plural_argument="count")


def _text(target: Target) -> str:
    return target if isinstance(target, str) else target.get("other") or next(iter(target.values()), "")


class RailsYamlFormat(FileFormat):
    """Rails i18n YAML files."""

    name = "rails_yaml"
    extensions = (".yml", ".yaml")
    media_type = "application/yaml; charset=utf-8"

    def accepts(self, name: str, data: bytes) -> bool:
        """A `.yml`/`.yaml` whose first key, alone on its line, is a locale (`en:`, `"pt-BR":`)."""
        if not name.lower().endswith(self.extensions):
            return False
        head = data[:4096].decode("utf-8-sig", errors="replace")
        match = _FIRST_KEY.match(head)
        return bool(match and _is_locale(match.group(2)))

    def read(self, data: bytes) -> Resource:
        """The file's strings and plural mappings, and its locale as the source language."""
        file = _load(data)
        return _resource(file, list(_leaves(file.top)))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The file with the targets written in and its top-level key renamed to the target language."""
        file = _load(data)
        return _write(file, list(_leaves(file.top)), targets, target_language)

    def export(
        self, data: bytes, fill: Callable[[Resource], tuple[Mapping[str, Target], str]]
    ) -> tuple[Resource, bytes]:
        """Read and written on one parse of the file."""
        file = _load(data)
        leaves = list(_leaves(file.top))
        resource = _resource(file, leaves)
        targets, language = fill(resource)
        return resource, _write(file, leaves, targets, language)


def _resource(file: _File, leaves: list[_Leaf]) -> Resource:
    entries = [_entry(leaf) for leaf in leaves]
    if not entries:
        raise FormatError("The file has no string to translate.")
    if len(entries) > MAX_SEGMENTS:
        raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most a file takes; split it.")
    return Resource(entries=tuple(entries), source_language=file.locale.value)


def _write(file: _File, leaves: list[_Leaf], targets: Mapping[str, Target], language: str) -> bytes:
    text = file.text
    newline = "\r\n" if "\r\n" in text[: text.find("\n") + 1] else "\n"
    edits: list[Edit] = []
    if file.locale.value != language:
        start = value_start(text, file.locale.start_mark.index)
        edits.append((start, file.locale.end_mark.index, key_text(language, file.locale)))
    for leaf in leaves:
        target = targets.get(leaf.key)
        if target is None:
            continue
        if isinstance(leaf.node, MappingNode):
            wanted = plurals.categories(language)
            forms: Mapping[str, str] = dict.fromkeys(wanted, target) if isinstance(target, str) else target
            texts = {category: forms.get(category, _text(forms)) for category in wanted}
            edits.extend(mapping_edits(leaf.node, texts, "other", text, newline=newline))
        elif isinstance(leaf.node, ScalarNode):
            edits.append(scalar_text(_text(target), leaf.node, text, flow=leaf.flow, newline=newline))
    return (file.bom + edited(text, edits)).encode("utf-8")


FORMAT = RailsYamlFormat()
