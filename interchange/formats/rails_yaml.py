"""Rails i18n YAML (`config/locales/en.yml`), read and written with ruamel.yaml's round trip.

The one top-level key is the locale (`en:`); `write` renames it to the target language. Every
string leaf under it is an entry keyed by its path without the locale (`errors.messages.blank`;
an array item's index is a part: `date.day_names.0`). A mapping whose keys are all CLDR categories
and include `other` (`one:` / `other:`) is one plural entry keyed by the mapping's path, written
back with exactly the target's categories (forms the target lacks are removed; new ones take the
quoting of the `other` form). Numbers, booleans, nulls, Ruby symbols (`:year`) and empty strings
are not entries. Codes: `%{name}`, `%<name>s`, strftime and number-format directives (`%Y`, `%-d`,
`%u %n`), HTML tags.

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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from babel import localedata
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
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


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
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


def _leaves(root: CommentedMap) -> Iterator[_Leaf]:
    """The tree's strings and plural mappings in file order, each container visited once."""
    locale = next(iter(root))
    stack: list[tuple[Any, tuple[str, ...]]] = [(root[locale], ())]
    seen: set[int] = set()
    nodes = 0
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        items = list(node.items()) if isinstance(node, CommentedMap) else list(enumerate(node))
        children: list[tuple[Any, tuple[str, ...]]] = []
        for index, value in items:
            nodes += 1
            if nodes > _MAX_NODES:
                raise FormatError(f"The file has more than {_MAX_NODES} values, the most a file takes; split it.")
            key_path = (*path, str(index))
            if _is_plural(value):
                yield _Leaf(".".join(key_path), node, index, forms=value)
            elif isinstance(value, CommentedMap | CommentedSeq):
                children.append((value, key_path))
            elif _translatable(value):
                yield _Leaf(".".join(key_path), node, index)
        stack.extend(reversed(children))


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
        entries = [_entry(leaf) for leaf in _leaves(root)]
        if not entries:
            raise FormatError("The file has no string to translate.")
        if len(entries) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most a file takes; split it.")
        return Resource(entries=tuple(entries), source_language=str(next(iter(root))))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The file with the targets written in and its top-level key renamed to the target language."""
        root, text = _load(data)
        for leaf in list(_leaves(root)):
            target = targets.get(leaf.key)
            if target is None:
                continue
            if leaf.forms is not None:
                _write_plural(leaf.forms, target, target_language)
            else:
                leaf.parent[leaf.index] = _styled(_text(target), leaf.parent[leaf.index])
        locale = next(iter(root))
        if locale != target_language:
            root.insert(0, target_language, root.pop(locale))
            if locale in root.ca.items:
                root.ca.items[target_language] = root.ca.items.pop(locale)
        yaml = _yaml()
        mapping, sequence, offset = _indents(text)
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        yaml.explicit_start = text.lstrip().startswith("---")
        out = io.StringIO()
        yaml.dump(root, out)
        return out.getvalue().encode("utf-8")


FORMAT = RailsYamlFormat()
