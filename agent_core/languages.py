"""Language pairs of the owner's memory: `"<source>><target>"`, lower case, e.g. `"auto>french"`.

The target is what the user's task states ("Translate guide.md into French." → `french`), or
`unknown`; the source is `auto` (not detected). `*` as a target means any language: entries the
owner adds by hand without a pair apply everywhere. An entry applies to a session when the targets
are equal or either is `*` or `unknown`, and the sources are equal or either is `auto`.
"""

from __future__ import annotations

import re

from langfacts import same_language

ANY = "auto>*"
"""The pair of an entry that applies to every session."""
UNKNOWN = "unknown"
_WILD_TARGETS = frozenset({"*", UNKNOWN})
_MAX_PART = 40

# "into French", "into Portuguese (Brazil)": up to the end of the sentence or the clause.
# Every repeat is bounded: a run of spaces costs each "into" a constant, not the run's square.
_INTO = re.compile(
    r"\binto\s{1,5}([^\W\d_][\w ()'-]{0,60}?)\s{0,5}(?:[.,;:!?\n]|\s{1,5}(?:and|with|using|please)\b|$)", re.I
)
# "to German", "in Japanese" (a capitalised name), when there is no "into".
_TO = re.compile(r"\b(?:to|in)\s{1,5}([A-Z][\w'-]+(?:\s\([^)\n]{1,30}\))?)")


def task_target(task: str) -> str:
    """The target language the user's task names (lower case), or `unknown`."""
    match = _INTO.search(task) or _TO.search(task)
    if match is None:
        return UNKNOWN
    name = " ".join(match.group(1).split()).casefold()
    return name[:_MAX_PART] if name else UNKNOWN


def task_languages(task: str, target_language: str | None = None) -> str:
    """The language pair of a session: the target its first user input names, else the session's own
    target language (`target_language`, a BCP 47 tag), else `unknown`."""
    target = task_target(task)
    if target == "unknown" and target_language:
        target = target_language.casefold()
    return f"auto>{target}"


def normalize_languages(value: str) -> str:
    """A pair as stored: `"en>French"` → `"en>french"`; a lone name is the target (`"de"` → `"auto>de"`).

    Raises ValueError for an empty part or a part longer than 40 characters.
    """
    source, sep, target = value.partition(">")
    if not sep:
        source, target = "auto", value
    parts = [" ".join(p.split()).casefold() for p in (source, target)]
    if not all(parts) or any(len(p) > _MAX_PART or ">" in p for p in parts):
        raise ValueError("languages must look like 'auto>french' (source>target, each 1 to 40 characters)")
    return f"{parts[0]}>{parts[1]}"


def languages_match(entry: str, session: str) -> bool:
    """True when an entry stored for the pair `entry` applies to a session translating `session`."""
    entry_source, _, entry_target = entry.partition(">")
    session_source, _, session_target = session.partition(">")
    targets = (
        entry_target == session_target
        or bool({entry_target, session_target} & _WILD_TARGETS)
        or same_language(entry_target, session_target)  # an imported `fr` term serves a session "into French"
    )
    sources = entry_source == session_source or "auto" in (entry_source, session_source)
    return targets and sources
