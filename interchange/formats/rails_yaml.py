"""Rails i18n YAML (`config/locales/en.yml`), read and written with ruamel.yaml's round trip.

The one top-level key is the locale (`en:`); `write` renames it to the target language. Every
string leaf under it is an entry keyed by its path without the locale (`errors.messages.blank`;
an array item's index is a part: `date.day_names.0`). A mapping whose keys are all CLDR categories
and include `other` (`one:` / `other:`) is one plural entry keyed by the mapping's path, written
back with exactly the target's categories (forms the target lacks are removed; new ones take the
quoting of the `other` form). Numbers, booleans, nulls, Ruby symbols (`:year`), empty strings
and what Rails reads as data (`round_mode`, `date.order`) are not entries, nor are the keys a
mapping merges (`<<: *defaults`: they are their anchor's). Two keys whose paths join to one
(`b.c:` beside `b:` / `c:`) are refused, naming both: one translation would be written to both.
Nesting is bounded (MAX_DEPTH) before ruamel's composer recurses. Codes: `%{name}`, `%<name>s`,
strftime and number-format directives (`%Y`, `%-d`, `%u %n`), HTML tags.

ruamel keeps comments, key order, quoting styles, block scalars and the `---` marker (rails-i18n's
en.yml written with no targets comes back byte for byte); what can change is whitespace ruamel
normalises (the indentation is measured from the original and kept; an end-of-line comment moves
right when a longer value reaches it), the quoting ruamel must add to a new value (`'PL: Sun'`), and
the comments of a plural form the target lacks, which goes with it. Aliases are followed once: an
anchored value is an entry at its anchor only. Comments are not notes (ruamel attaches a comment
to the key before it, so which string one describes is a guess).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from babel import localedata
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import ScalarString

from langfacts import plurals
from langfacts.codes import find_codes

from ..limits import MAX_SEGMENTS
from .base import Entry, FileFormat, FormatError, Resource, Target

_SYNTAXES = ("ruby", "strftime", "html")
_SYMBOL = re.compile(r":[A-Za-z_]\w*[?!]?")
_DASH = re.compile(r"^( *)- ", re.M)
_KEY_LINE = re.compile(r"^( *)[^\s#-][^:\n]*:[ \t]*$", re.M)
_MAX_NODES = 4 * MAX_SEGMENTS
MAX_DEPTH = 64
"""The deepest nesting of mappings and sequences read."""
_LOCALE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
_FIRST_KEY = re.compile(r"""^(?:---[ \t]*\n|[ \t]*(?:#[^\n]*)?\n)*(["']?)([^\s:"'#]+)\1:[ \t]*(?:#[^\n]*)?$""", re.M)


def _is_locale(tag: str) -> bool:
    """True for a tag whose language CLDR knows (`en`, `pt-BR`, `zh_Hant`), not for `web` or `services`."""
    return bool(_LOCALE.fullmatch(tag)) and localedata.exists(re.split("[-_]", tag)[0].lower())


@dataclass(frozen=True, slots=True)
class _Leaf:
    """A string (or a plural mapping) of the tree, where it is, and its key."""

    key: str
    parent: Any
    index: Any
    forms: CommentedMap | None = None


class _Composer(Composer):
    """ruamel's composer with nesting bounded before it recurses (a deep file is a FormatError, never
    a RecursionError)."""

    levels = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.levels += 1
        try:
            if self.levels > MAX_DEPTH:
                mark = self.parser.peek_event().start_mark
                raise FormatError(f"Line {mark.line + 1}: values nested deeper than {MAX_DEPTH} levels.")
            return super().compose_node(parent, index)
        finally:
            self.levels -= 1


class _Map(CommentedMap):
    """ruamel's mapping whose anchor records the mappings that merge it (`<<: *defaults`) in constant
    time: ruamel's own looks each up in a list by equality, quadratic in the merges of one anchor."""

    __slots__ = ()

    def add_referent(self, cm: Any) -> None:
        self._ref.append(cm)


class _Constructor(RoundTripConstructor):
    def construct_yaml_map(self, node: Any) -> Iterator[CommentedMap]:
        data = _Map()
        data._yaml_set_line_col(node.start_mark.line, node.start_mark.column)
        yield data
        self.construct_mapping(node, data, deep=True)
        self.set_collection_style(data, node)


_Constructor.add_constructor("tag:yaml.org,2002:map", _Constructor.construct_yaml_map)


class _Representer(RoundTripRepresenter):
    pass


_Representer.add_representer(_Map, RoundTripRepresenter.represent_dict)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    yaml.Representer = _Representer
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the original kept whole
    return yaml


def _load(data: bytes) -> tuple[CommentedMap, str]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"Line {line}: the file is not UTF-8 text.") from exc
    try:
        root = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"Line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise FormatError(f"{where}not valid YAML: {exc.problem or exc.context}.") from exc
    except YAMLError as exc:
        raise FormatError(f"Not valid YAML: {exc}.") from exc
    except FormatError:
        raise
    except (ValueError, TypeError) as exc:  # a tagged value its type refuses (`!!int x`, a 5,000-digit number)
        raise FormatError(f"A value cannot be read: {exc}.") from exc
    if root is None:
        raise FormatError("The file has no string to translate.")
    if not isinstance(root, CommentedMap) or len(root) != 1:
        raise FormatError("A Rails locale file is a mapping with one top-level key, the locale (`en:`).")
    locale = next(iter(root))
    if not isinstance(locale, str) or not _is_locale(locale):
        raise FormatError(f"The top-level key {locale!r} is not a locale (`en`, `pt-BR`): not a Rails locale file.")
    return root, text


def _is_plural(value: Any) -> bool:
    return (
        isinstance(value, CommentedMap)
        and "other" in value
        and all(isinstance(k, str) and k in plurals.ORDER for k in value)
        and all(isinstance(v, str) for v in value.values())
    )


def _translatable(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and not _SYMBOL.fullmatch(value)


def _locked(path: tuple[str, ...]) -> bool:
    """True for a value Rails reads as data, not text: `round_mode` (`number.format.round_mode:
    default`) and `date.order` and its items (`[:year, :month, :day]`)."""
    return path[-1] == "round_mode" or ("date", "order") in (path[-2:], path[-3:-1])


def _children(node: Any) -> Iterator[tuple[Any, Any]]:
    """A container's own items (a mapping's merged `<<` keys are its anchor's, not its own)."""
    return iter(node.non_merged_items() if isinstance(node, CommentedMap) else enumerate(node))


def _line(node: Any, index: Any) -> int:
    """The 1-based line of a mapping's key or a sequence's item."""
    try:
        line = node.lc.key(index)[0] if isinstance(node, CommentedMap) else node.lc.item(index)[0]
    except (AttributeError, KeyError, IndexError, TypeError):
        return 0
    return int(line) + 1


def _leaves(root: CommentedMap) -> Iterator[_Leaf]:
    """The tree's strings and plural mappings in file order, each container visited once; two keys
    whose paths join to one (`b.c:` beside `b:` / `c:`) are a FormatError naming both."""
    top = root[next(iter(root))]
    stack: list[tuple[Any, Iterator[tuple[Any, Any]], tuple[str, ...]]] = [(top, _children(top), ())]
    seen = {id(top)}
    written: dict[str, tuple[tuple[str, ...], int]] = {}
    nodes = 0
    while stack:
        node, items, path = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        index, value = item
        nodes += 1
        if nodes > _MAX_NODES:
            raise FormatError(f"The file has more than {_MAX_NODES} values, the most a file takes; split it.")
        key_path = (*path, str(index))
        plural = _is_plural(value)
        if not plural and isinstance(value, CommentedMap | CommentedSeq):
            if id(value) not in seen:
                seen.add(id(value))
                stack.append((value, _children(value), key_path))
            continue
        if not plural and (not _translatable(value) or _locked(key_path)):
            continue
        key, line = ".".join(key_path), _line(node, index)
        if key in written:
            other, other_line = written[key]
            raise FormatError(
                f"The keys {_shown(other)} (line {other_line}) and {_shown(key_path)} (line {line}) both make "
                f"the key {key}: one translation would be written to both. Rename or merge one of them."
            )
        written[key] = (key_path, line)
        yield _Leaf(key, node, index, forms=value if plural else None)


def _shown(path: tuple[str, ...]) -> str:
    """A key path as written in the file: `b` → `c`."""
    return " → ".join(f"`{part}`" for part in path)


def _entry(leaf: _Leaf) -> Entry:
    if leaf.forms is None:
        text = str(leaf.parent[leaf.index])
        return Entry(key=leaf.key, source=text, codes=find_codes(text, _SYNTAXES))
    forms = {c: str(leaf.forms[c]) for c in plurals.ORDER if c in leaf.forms}
    codes = tuple(code for text in forms.values() for code in find_codes(text, _SYNTAXES))
    return Entry(key=leaf.key, source=forms["other"], codes=codes, plural=forms, plural_argument="count")


def _styled(new: str, like: Any) -> Any:
    """`new` in the scalar style of `like` (quoted, literal block…)."""
    return type(like)(new) if isinstance(like, ScalarString) else new


def _text(target: Target) -> str:
    return target if isinstance(target, str) else target.get("other") or next(iter(target.values()), "")


def _write_plural(forms: CommentedMap, target: Target, language: str) -> None:
    wanted = plurals.categories(language)
    values = dict.fromkeys(wanted, target) if isinstance(target, str) else target
    fallback = _text(values)
    like = forms["other"]
    for category in [c for c in forms if c not in wanted]:
        del forms[category]
    for position, category in enumerate(wanted):
        value = values.get(category, fallback)
        if category in forms:
            forms[category] = _styled(value, forms[category])
        else:
            forms.insert(position, category, _styled(value, like))


def _indents(text: str) -> tuple[int, int, int]:
    """The mapping indent, sequence indent and dash offset the file uses (ruamel's defaults else)."""
    mapping = 2
    indents = sorted({len(m.group(1)) for m in _KEY_LINE.finditer(text)} - {0})
    if indents:
        mapping = indents[0]
    dash = _DASH.search(text)
    if not dash:
        return mapping, 2, 0
    before = text[: dash.start()].rstrip("\n").rsplit("\n", 1)[-1]
    parent = len(before) - len(before.lstrip(" "))
    offset = max(len(dash.group(1)) - parent, 0)
    return mapping, offset + 2, offset


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
        root, _ = _load(data)
        return _resource(root, list(_leaves(root)))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The file with the targets written in and its top-level key renamed to the target language."""
        root, text = _load(data)
        return _write(root, text, list(_leaves(root)), targets, target_language)

    def export(
        self, data: bytes, fill: Callable[[Resource], tuple[Mapping[str, Target], str]]
    ) -> tuple[Resource, bytes]:
        """Read and written on one parse of the file (ruamel's round trip is most of an export's time)."""
        root, text = _load(data)
        leaves = list(_leaves(root))
        resource = _resource(root, leaves)
        targets, language = fill(resource)
        return resource, _write(root, text, leaves, targets, language)


def _resource(root: CommentedMap, leaves: list[_Leaf]) -> Resource:
    entries = [_entry(leaf) for leaf in leaves]
    if not entries:
        raise FormatError("The file has no string to translate.")
    if len(entries) > MAX_SEGMENTS:
        raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most a file takes; split it.")
    return Resource(entries=tuple(entries), source_language=str(next(iter(root))))


def _write(root: CommentedMap, text: str, leaves: list[_Leaf], targets: Mapping[str, Target], language: str) -> bytes:
    for leaf in leaves:
        target = targets.get(leaf.key)
        if target is None:
            continue
        if leaf.forms is not None:
            _write_plural(leaf.forms, target, language)
        else:
            leaf.parent[leaf.index] = _styled(_text(target), leaf.parent[leaf.index])
    locale = next(iter(root))
    if locale != language:
        root.insert(0, language, root.pop(locale))
        if locale in root.ca.items:
            root.ca.items[language] = root.ca.items.pop(locale)
    yaml = _yaml()
    mapping, sequence, offset = _indents(text)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.explicit_start = text.lstrip().startswith("---")
    out = io.StringIO()
    yaml.dump(root, out)
    return out.getvalue().encode("utf-8")


FORMAT = RailsYamlFormat()
