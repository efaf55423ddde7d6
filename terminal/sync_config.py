"""The repository's sync config, `translation-agent.toml`: languages, file groups, project and API.

TOML, read by the standard library (`tomllib`): no dependency, and no implicit typing (YAML 1.1 reads
the language code `no` as false). A file group maps a source pattern to a target pattern per
language; `*` matches within a folder, `**/` any folders, and each wildcard of the target takes what
the same wildcard of the source matched, in order. `{lang}` is the language's tag as configured,
`{android_lang}` its Android resource qualifier (`pt-BR` → `pt-rBR`), `{lang_underscore}` the tag
with `_` (`pt_BR`, gettext's); in a source pattern they name the source language.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

CONFIG_NAME = "translation-agent.toml"
LOCK_NAME = "translation-agent.lock"
_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")
_WILDCARD = re.compile(r"\*\*/|\*")
_TOP_KEYS = {"source", "languages", "project", "api", "model", "files"}
_GROUP_KEYS = {"source", "target", "languages"}


class ConfigError(Exception):
    """The config cannot be used as written: the message names the key and what to change."""


@dataclass(frozen=True, slots=True)
class FileGroup:
    """Source files found by a pattern, each with a target path per language."""

    source: str
    target: str
    languages: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pair:
    """One source file and its target file in one language, as paths relative to the repository."""

    source: str
    target: str
    language: str


@dataclass(frozen=True, slots=True)
class SyncConfig:
    """What `translation-agent.toml` says."""

    source_language: str
    languages: tuple[str, ...]
    groups: tuple[FileGroup, ...]
    project: str | None = None
    api: str | None = None
    model: str | None = None

    def pairs(self, root: Path) -> list[Pair]:
        """Every (source, target, language) the groups name, sources in path order; a file that is some
        pair's target is never a source."""
        found: list[Pair] = []
        for group in self.groups:
            for source, captured in _sources(root, _fill(group.source, self.source_language)):
                for language in group.languages:
                    found.append(Pair(source, _target(_fill(group.target, language), captured), language))
        targets = {p.target for p in found}
        pairs = [p for p in found if p.source not in targets]
        clash = {p.target for p in pairs if p.target == p.source}
        if clash:
            raise ConfigError(f"A target pattern names its source file: {sorted(clash)[0]}.")
        return pairs


def android_qualifier(tag: str) -> str:
    """`fr` → `fr`, `pt-BR` → `pt-rBR`, `zh-Hans-CN` → `b+zh+Hans+CN` (Android's resource qualifiers)."""
    parts = tag.split("-")
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2 and re.fullmatch(r"[A-Za-z]{2}|[0-9]{3}", parts[1]):
        return f"{parts[0]}-r{parts[1].upper()}"
    return "b+" + "+".join(parts)


def _fill(pattern: str, language: str) -> str:
    return (
        pattern.replace("{lang}", language)
        .replace("{android_lang}", android_qualifier(language))
        .replace("{lang_underscore}", language.replace("-", "_"))
    )


def _sources(root: Path, pattern: str) -> list[tuple[str, list[str]]]:
    """The files under `root` that `pattern` matches, each with what its wildcards matched."""
    regex = re.compile(
        "".join(
            f"(?P<w{n}>(?:[^/]+/)*)" if token == "**/" else f"(?P<w{n}>[^/]*)" if token == "*" else re.escape(token)
            for n, token in enumerate(_tokens(pattern))
        )
    )
    found: list[tuple[str, list[str]]] = []
    for path in sorted(root.glob(pattern)) if _WILDCARD.search(pattern) else [root / pattern]:
        if not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        match = regex.fullmatch(relative)
        if match is not None:
            found.append((relative, [v for k, v in match.groupdict().items() if k.startswith("w")]))
    return found


def _tokens(pattern: str) -> list[str]:
    """`a/**/b*.md` → `a/`, `**/`, `b`, `*`, `.md`."""
    tokens: list[str] = []
    position = 0
    for match in _WILDCARD.finditer(pattern):
        tokens += [pattern[position : match.start()], match.group()]
        position = match.end()
    return [t for t in [*tokens, pattern[position:]] if t]


def _target(pattern: str, captured: list[str]) -> str:
    values = iter(captured)
    return _WILDCARD.sub(lambda m: next(values, ""), pattern)


def load_config(root: Path) -> SyncConfig:
    """The config at the repository's root; ConfigError naming what is wrong."""
    path = root / CONFIG_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"No {CONFIG_NAME} at {root}: docs/sync.md shows one.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{CONFIG_NAME} is not valid TOML: {exc}.") from exc
    return parse_config(data)


def parse_config(data: dict[str, object]) -> SyncConfig:
    """The config from parsed TOML; ConfigError for an unknown key, a missing one or a bad value."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"Unknown key {unknown[0]!r} in {CONFIG_NAME}: the keys are {', '.join(sorted(_TOP_KEYS))}.")
    source = _tag(data.get("source"), "source")
    languages = _languages(data.get("languages"), "languages")
    if source in languages:
        raise ConfigError(f"languages lists the source language {source!r}.")
    groups = data.get("files")
    if not isinstance(groups, list) or not groups:
        raise ConfigError('files must list at least one group: [[files]] source = "…" target = "…".')
    return SyncConfig(
        source_language=source,
        languages=languages,
        groups=tuple(_group(g, n, languages) for n, g in enumerate(groups, 1)),
        project=_optional(data.get("project"), "project"),
        api=_optional(data.get("api"), "api"),
        model=_optional(data.get("model"), "model"),
    )


def _group(raw: object, n: int, languages: tuple[str, ...]) -> FileGroup:
    if not isinstance(raw, dict):
        raise ConfigError(f"files group {n} must be a table with source and target.")
    unknown = sorted(set(raw) - _GROUP_KEYS)
    if unknown:
        raise ConfigError(f"Unknown key {unknown[0]!r} in files group {n}: the keys are source, target, languages.")
    source, target = raw.get("source"), raw.get("target")
    if not isinstance(source, str) or not isinstance(target, str) or not source.strip() or not target.strip():
        raise ConfigError(f"files group {n} needs source and target patterns (text).")
    if source.startswith("/") or ".." in source.split("/") or target.startswith("/") or ".." in target.split("/"):
        raise ConfigError(f"files group {n}: patterns are paths inside the repository (no leading / or ..).")
    if [t for t in _tokens(source) if t in ("*", "**/")] != [t for t in _tokens(target) if t in ("*", "**/")]:
        raise ConfigError(f"files group {n}: the target must have the source's wildcards (* and **/) in order.")
    if not any(p in target for p in ("{lang}", "{android_lang}", "{lang_underscore}")):
        raise ConfigError(f"files group {n}: the target needs {{lang}}, {{android_lang}} or {{lang_underscore}}.")
    own = raw.get("languages")
    chosen = _languages(own, f"files group {n} languages") if own is not None else languages
    return FileGroup(source=source, target=target, languages=chosen)


def _tag(value: object, key: str) -> str:
    if not isinstance(value, str) or not _TAG.match(value):
        raise ConfigError(f"{key} must be a BCP 47 language tag such as 'en' or 'pt-BR'; it is {value!r}.")
    return value


def _languages(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{key} must list the target languages, e.g. ['fr', 'de'].")
    tags = tuple(_tag(v, key) for v in value)
    if len(set(tags)) != len(tags):
        raise ConfigError(f"{key} names a language twice.")
    return tags


def _optional(value: object, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{key} must be text.")
    return value
