"""QA profiles: which of the profile checks (`agent_core.qa_checks`) run on a unit, at which level, with
which limits. Plain data: a profile is named, parsed from JSON-like values and chosen by a file's name.

A check's level is `off` (not run), `warning` (shown; the reviewer decides) or `error` (shown, and it
keeps the unit out of a bulk approval and an automatic one; a person's own verdict is never refused,
and `translation-agent check` fails on it). Three profiles are built in, and a file gets the one of its
kind unless the session or project names another: `strings` for resource files (length limits count,
a string's edges matter to the program), `documents` for prose (Markdown, HTML, DOCX, …), `subtitles`
for SRT and WebVTT (characters per line and per second). A profile given as an object starts from a
built-in one (`base`) and changes what it names:

    {"base": "strings", "checks": {"max_length": "error"}, "maxLength": 40, "maxLengthByKey": {"button_": 20}}

A string's own limit, where its file states one (the segment's context), wins over the profile's rule.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final, Literal, cast, get_args

__all__ = [
    "BUILT_IN",
    "CHECKS",
    "Check",
    "Level",
    "QaProfile",
    "default_profile_name",
    "parse_profile",
    "profile_for",
]

Level = Literal["off", "warning", "error"]
Check = Literal[
    "max_length",
    "line_length",
    "reading_speed",
    "edge_whitespace",
    "double_space",
    "end_punctuation",
    "numbers",
    "brackets",
    "quotes",
    "source_language",
]
CHECKS: Final[tuple[Check, ...]] = get_args(Check)
"""Every profile check, in the order findings are listed."""
LEVELS: Final[tuple[Level, ...]] = get_args(Level)
MAX_LIMIT: Final = 1_000_000
"""The largest length limit a profile may state (a larger one is no limit worth a rule)."""
MAX_KEY_RULES: Final = 100
"""The most key-prefix rules a profile may have (each string's key is compared with every one)."""
MAX_PREFIX: Final = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class QaProfile:
    """The levels of the profile checks and their limits."""

    name: str
    levels: Mapping[str, Level]
    base: str = ""
    """The built-in profile it starts from (its own name for a built-in one)."""
    """Each check's level (a built-in or parsed profile names every check; one not named is `off`)."""
    max_length: int | None = None
    """The most characters a string may have when neither its file nor a key rule says otherwise."""
    max_length_by_key: tuple[tuple[str, int], ...] = ()
    """Limits by key prefix: a string whose key starts with a prefix gets its limit (the longest prefix wins)."""
    chars_per_line: int = 42
    """The most characters a subtitle line may have (tags not counted)."""
    chars_per_second: float = 17.0
    """The most characters a subtitle may show per second of its cue (tags and line breaks not counted)."""

    def level(self, check: Check) -> Level:
        """The level of `check` in this profile."""
        return self.levels.get(check, "off")

    def length_limit(self, key: str | None, stated: int | None) -> int | None:
        """The limit of a string: the one its file states, else its key's rule, else the profile's."""
        if stated is not None:
            return stated
        if key is not None:
            matched = [(len(prefix), limit) for prefix, limit in self.max_length_by_key if key.startswith(prefix)]
            if matched:
                return max(matched)[1]
        return self.max_length

    def errors_only(self) -> QaProfile:
        """This profile with its `warning` checks off: what keeps a unit from an approval, checked alone."""
        levels: dict[str, Level] = {
            check: "error" if level == "error" else "off" for check, level in self.levels.items()
        }
        return replace(self, levels=MappingProxyType(levels))

    def as_json(self) -> dict[str, object]:
        """The profile as the API shows it (the object `parse_profile` reads back)."""
        out: dict[str, object] = {
            "name": self.name,
            "base": self.base,
            "checks": {c: self.level(c) for c in CHECKS},
            "charsPerLine": self.chars_per_line,
            "charsPerSecond": self.chars_per_second,
        }
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.max_length_by_key:
            out["maxLengthByKey"] = dict(self.max_length_by_key)
        return out


_EDGES: Final[dict[str, Level]] = {
    "edge_whitespace": "warning",
    "double_space": "warning",
    "end_punctuation": "warning",
    "numbers": "warning",
    "brackets": "warning",
    "quotes": "warning",
    "source_language": "warning",
}


def _levels(**changed: Level) -> Mapping[str, Level]:
    """The levels every built-in profile shares, with `changed` set."""
    return MappingProxyType({**dict.fromkeys(CHECKS, "off"), **_EDGES, **changed})


BUILT_IN: Final[Mapping[str, QaProfile]] = MappingProxyType(
    {
        "strings": QaProfile(name="strings", base="strings", levels=_levels(max_length="error")),
        "documents": QaProfile(name="documents", base="documents", levels=_levels(max_length="warning")),
        "subtitles": QaProfile(
            name="subtitles",
            base="subtitles",
            levels=_levels(line_length="error", reading_speed="warning", edge_whitespace="off"),
        ),
    }
)
"""The built-in profiles by name."""

_SUBTITLES: Final = (".srt", ".vtt")
_DOCUMENTS: Final = (".md", ".markdown", ".txt", ".html", ".htm", ".docx", ".xhtml", ".rst")


def default_profile_name(file_name: str) -> str:
    """The built-in profile of a file by its name: `subtitles`, `documents` (prose, and a name without a
    known extension: pasted text), else `strings` (every resource format, XLIFF and TMX)."""
    lowered = file_name.lower()
    if lowered.endswith(_SUBTITLES):
        return "subtitles"
    if lowered.endswith(_DOCUMENTS) or "." not in lowered.rsplit("/", 1)[-1]:
        return "documents"
    return "strings"


def profile_for(file_name: str, chosen: QaProfile | None = None) -> QaProfile:
    """The profile a file's units are checked with: the one chosen (the session's or project's), else the
    built-in one of the file's kind."""
    return chosen if chosen is not None else BUILT_IN[default_profile_name(file_name)]


def parse_profile(value: object) -> QaProfile:
    """A profile given by name (`"subtitles"`) or as an object (see the module's note); ValueError in
    words a person can act on for anything else."""
    if isinstance(value, str):
        if value not in BUILT_IN:
            raise ValueError(f"Unknown QA profile {value!r}: use one of {', '.join(BUILT_IN)}, or an object.")
        return BUILT_IN[value]
    if not isinstance(value, Mapping):
        raise ValueError("A QA profile is a name (strings, documents, subtitles) or an object.")
    raw = cast(Mapping[str, object], value)
    known = {"base", "name", "checks", "maxLength", "maxLengthByKey", "charsPerLine", "charsPerSecond"}
    extra = sorted(str(k) for k in raw if k not in known)
    if extra:
        raise ValueError(f"A QA profile has no field {', '.join(extra)}: it has {', '.join(sorted(known))}.")
    base_name = raw.get("base", "documents")
    if not isinstance(base_name, str) or base_name not in BUILT_IN:
        raise ValueError(f"A QA profile's base is one of {', '.join(BUILT_IN)}.")
    name = raw.get("name", base_name)
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_PREFIX:
        raise ValueError(f"A QA profile's name is 1 to {MAX_PREFIX} characters.")
    base = BUILT_IN[base_name]
    levels = dict(base.levels) | _parse_levels(raw.get("checks", {}))
    profile = replace(base, name=name.strip(), base=base_name, levels=MappingProxyType(levels))
    if "maxLength" in raw:
        profile = replace(profile, max_length=_limit(raw["maxLength"], "maxLength", nullable=True))
    if "maxLengthByKey" in raw:
        profile = replace(profile, max_length_by_key=_key_rules(raw["maxLengthByKey"]))
    if "charsPerLine" in raw:
        profile = replace(profile, chars_per_line=cast(int, _limit(raw["charsPerLine"], "charsPerLine")))
    if "charsPerSecond" in raw:
        profile = replace(profile, chars_per_second=_rate(raw["charsPerSecond"]))
    return profile


def _parse_levels(value: object) -> dict[str, Level]:
    if not isinstance(value, Mapping):
        raise ValueError('A QA profile\'s "checks" is an object of check names and levels.')
    out: dict[str, Level] = {}
    for check, level in cast(Mapping[object, object], value).items():
        if check not in CHECKS:
            raise ValueError(f"Unknown QA check {str(check)[:60]!r}: the checks are {', '.join(CHECKS)}.")
        if level not in LEVELS:
            raise ValueError(f"The level of {check} is off, warning or error, not {str(level)[:60]!r}.")
        out[str(check)] = level
    return out


def _limit(value: object, name: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise ValueError(f"{name} is a whole number from 1 to {MAX_LIMIT}" + (" or null." if nullable else "."))
    return value


def _rate(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 1000:
        raise ValueError("charsPerSecond is a number from 1 to 1000.")
    return float(value)


def _key_rules(value: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping) or len(value) > MAX_KEY_RULES:
        raise ValueError(f"maxLengthByKey is an object of at most {MAX_KEY_RULES} key prefixes and limits.")
    rules: list[tuple[str, int]] = []
    for prefix, limit in cast(Mapping[object, object], value).items():
        if not isinstance(prefix, str) or not 1 <= len(prefix) <= MAX_PREFIX:
            raise ValueError(f"A key prefix of maxLengthByKey is 1 to {MAX_PREFIX} characters.")
        rules.append((prefix, cast(int, _limit(limit, f"maxLengthByKey[{prefix[:40]!r}]"))))
    return tuple(rules)


def stored_profile(raw: str | None) -> QaProfile | None:
    """A profile as a session or project keeps it (`profile_json`), read back; None for none (or, should
    the built-in ones have changed since it was kept, one that no longer reads: its file's kind's then)."""
    if raw is None:
        return None
    try:
        return parse_profile(json.loads(raw))
    except ValueError:
        return None


def profile_json(value: object) -> str:
    """A profile given by name or object, checked (`parse_profile`: ValueError in words) and written as it
    is kept: compact JSON, keys sorted."""
    parse_profile(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
