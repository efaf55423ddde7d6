"""The checks a QA profile runs (`agent_core.qa_profiles`): pure functions of a unit's source, its text
and what the file says about it (`QaHints`), each linear in the text.

- `max_length`: more characters than the string's limit (its file's, else the profile's rule);
- `line_length`: a subtitle line longer than the profile's characters per line (tags not counted);
- `reading_speed`: more characters a second than the profile allows over the cue's duration;
- `edge_whitespace`: leading or trailing whitespace not the source's;
- `double_space`: more runs of spaces inside the text than the source has;
- `end_punctuation`: an ending mark of another class than the source's (`langfacts.punctuation`:
  a language's own spelling of a full stop or a question mark is the same mark);
- `numbers`: a number the source does not have (a number the text drops is `missing_number`, always);
- `brackets`: brackets of a kind counted otherwise than in the source, or closed before they open;
- `quotes`: another count of quotation marks than the source's (numbers, brackets and quotes are
  counted in the prose: URLs, inline code and placeholders, which other checks guard, left out);
- `source_language`: a text that shares at least half its words with the source and reads as the
  source's language when the target's is another (`langfacts.identify`, asked only then: it costs
  milliseconds a text, the word test microseconds; too little text to tell is never a finding).

A finding carries its check's level in the profile; a check at `off` is not run. A pseudo-localized
text (`agent_core.pseudo_text`: each line's words wrapped in `[`…`]`, padded with `~` or `·`) is
judged by what its brackets wrap for `end_punctuation` and `brackets`, when the source has no square
bracket: the envelope marks the string's bounds, it is not the translation's punctuation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from langfacts.punctuation import BRACKETS, end_mark, quote_marks, same_end

from .qa import number_key, prose_numbers, without_codes
from .qa_profiles import Check, QaProfile

__all__ = ["ProfileFinding", "QaHints", "cue_seconds", "profile_checks", "stated_limit", "unwrapped"]

_TAG: Final = re.compile(r"</?[A-Za-z0-9][^<>\n]{0,400}>|\{\\[^{}\n]{1,80}\}")
"""A subtitle's markup (`<i>`, `<font color="…">`, `{\\an8}`), never shown as characters."""
_TIME: Final = re.compile(r"(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})[,.](\d{1,3})")
_TIMING: Final = re.compile(rf"({_TIME.pattern})[ \t]*-->[ \t]*({_TIME.pattern})")
_CHAR_LIMIT: Final = re.compile(r"\[\s{0,3}CHAR[ _-]?LIMIT\s{0,3}=\s{0,3}(\d{1,6})\s{0,3}\]", re.IGNORECASE)
_WORD: Final = re.compile(r"[^\W\d_]+")
_SPACES: Final = re.compile(r"(?<=\S) {2,}(?=\S)")
_SHOWN: Final = 3


@dataclass(frozen=True, slots=True)
class ProfileFinding:
    """A profile check the text fails: the check, words for the reviewer, and its level in the profile."""

    code: Check
    message: str
    level: Literal["warning", "error"]


@dataclass(frozen=True, slots=True, kw_only=True)
class QaHints:
    """What is known of a unit beside its text: from its file (the segment's context) and its session."""

    key: str | None = None
    """The string's key in a resource file (key rules of `max_length` match it)."""
    max_length: int | None = None
    """The limit the file states for the string (an XLIFF `maxwidth` in characters, …), if any."""
    seconds: float | None = None
    """How long the subtitle cue the unit is in is shown, if it is one."""
    source_language: str | None = None
    """The session's source language (BCP 47), when known; else it is told from the source."""
    target_language: str | None = None
    """The session's target language (BCP 47); without it `source_language` is not checked."""
    identify: Callable[[str], str | None] | None = None
    """Tells a text's language (a primary subtag); None: `source_language` is not checked."""


def stated_limit(note: str | None) -> int | None:
    """The length limit a string's developer note states, Android's way (`[CHAR LIMIT=20]`, AOSP's
    convention for `strings.xml` comments; `[CHAR-LIMIT=20]` too), or None."""
    found = _CHAR_LIMIT.search(note) if note else None
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


def cue_seconds(note: str | None) -> float | None:
    """The duration of a subtitle cue from the timing its segment's note carries (`00:00:01,000 -->
    00:00:04,500`: 3.5), or None when the note is not a timing."""
    found = _TIMING.search(note[:200]) if note else None
    if found is None:
        return None
    start, end = _clock(found.group(1)), _clock(found.group(6))
    return end - start if end > start else None


def _clock(value: str) -> float:
    match = _TIME.fullmatch(value)
    assert match is not None
    hours, minutes, seconds, millis = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis.ljust(3, "0")) / 1000


def profile_checks(
    source: str, text: str, profile: QaProfile, hints: QaHints | None = None
) -> tuple[ProfileFinding, ...]:
    """The checks of `profile` (those not `off`) that `text` fails as the translation of `source`."""
    hints = hints or QaHints()
    found: list[ProfileFinding] = []
    for check, run in _RUNS:
        level = profile.level(check)
        if level == "off":
            continue
        found += [ProfileFinding(check, message, level) for message in run(source, text, profile, hints)]
    return tuple(found)


Run = Callable[[str, str, QaProfile, QaHints], Sequence[str]]


def _max_length(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    limit = profile.length_limit(hints.key, hints.max_length)
    if limit is None or len(text) <= limit:
        return []
    return [f"Too long: {len(text)} characters, at most {limit}."]


def _shown(text: str) -> str:
    return _TAG.sub("", text)


def _line_length(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    limit = profile.chars_per_line
    lines = enumerate(_shown(text).split("\n"), 1)
    long = [(n, len(line.strip())) for n, line in lines if len(line.strip()) > limit]
    return [f"Line {n}: {chars} characters, at most {limit} a line." for n, chars in long[:_SHOWN]]


def _reading_speed(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    if not hints.seconds:
        return []
    chars = sum(len(line.strip()) for line in _shown(text).split("\n"))
    speed = chars / hints.seconds
    if speed <= profile.chars_per_second:
        return []
    return [
        f"Reading speed: {speed:.1f} characters a second over the cue's {hints.seconds:g} s, "
        f"at most {profile.chars_per_second:g}."
    ]


def _edges(text: str) -> tuple[str, str]:
    """The whitespace `text` starts and ends with (all of it leads a blank text)."""
    lead = len(text) - len(text.lstrip())
    return text[:lead], text[lead + len(text[lead:].rstrip()) :]


def _visible(space: str) -> str:
    shown = space.replace(" ", "␠").replace("\u00a0", "⍽").replace("\t", "⇥").replace("\n", "↵")
    return f"«{shown[:20]}»" if shown else "none"


def _edge_whitespace(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    (source_lead, source_trail), (lead, trail) = _edges(source), _edges(text)
    out = []
    if lead != source_lead:
        out.append(f"Leading whitespace: {_visible(lead)} here, {_visible(source_lead)} in the source.")
    if trail != source_trail:
        out.append(f"Trailing whitespace: {_visible(trail)} here, {_visible(source_trail)} in the source.")
    return out


def _double_space(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    here = [m.start() for m in _SPACES.finditer(text)]
    there = sum(1 for _ in _SPACES.finditer(source))
    if len(here) <= there:
        return []
    return [f"Double space: {len(here)} here, {there} in the source (first at character {here[0] + 1})."]


def unwrapped(source: str, text: str) -> str:
    """`text` without its pseudo-localization envelope, when every line with letters has one (a Markdown
    table row: every cell with letters outside inline code) and the source has no square bracket (see
    the module's note); else `text` as it is."""
    if "[" in source or "]" in source:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if line.lstrip().startswith("|"):
            cells = [_unwrapped_piece(cell, code_ok=True) for cell in line.split("|")]
            if any(cell is None for cell in cells):
                return text
            out.append("|".join(cell for cell in cells if cell is not None))
            continue
        piece = _unwrapped_piece(line)
        if piece is None:
            return text
        out.append(piece)
    return "\n".join(out)


def _unwrapped_piece(piece: str, *, code_ok: bool = False) -> str | None:
    """A line (or a table cell) without its envelope; itself when it has no letters (or, `code_ok`, only
    letters inside inline code); None when it has letters and no envelope."""
    bare = re.sub(r"`[^`]*`", "", piece) if code_ok else piece
    first = next((k for k, ch in enumerate(piece) if ch.isalpha()), None)
    if first is None or not any(ch.isalpha() for ch in bare):
        return piece
    body = piece.rstrip()
    opens = piece.find("[", 0, first + 1)
    if opens < 0 or not body.endswith("]"):
        return None
    inner = body[opens + 1 : -1]
    padding = inner.rstrip("~·")
    if padding != inner and padding.endswith(" "):
        inner = padding[:-1]
    return piece[:opens] + inner + piece[len(body) :]


def _end_punctuation(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    wanted, ends = end_mark(source), end_mark(unwrapped(source, text))
    if same_end(wanted, ends):
        return []
    return [f"Ends with {_mark(ends)}; the source with {_mark(wanted)}."]


def _mark(name: str | None) -> str:
    if name is None:
        return "no punctuation"
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def _numbers(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    have = Counter(number_key(n) for n in prose_numbers(source))
    extra: list[str] = []
    for number in prose_numbers(text):
        key = number_key(number)
        if have[key] > 0:
            have[key] -= 1
        elif number not in extra:
            extra.append(number)
    if not extra:
        return []
    listed = ", ".join(f"«{n if len(n) <= 20 else n[:19] + '…'}»" for n in extra[:_SHOWN]) + (
        f" and {len(extra) - _SHOWN} more" if len(extra) > _SHOWN else ""
    )
    return [f"Number not in the source: {listed}."]


def _bracket_counts(text: str) -> tuple[Counter[str], str | None]:
    """Each bracket kind's opening and closing counts, and the first kind closed before it opens."""
    counts: Counter[str] = Counter()
    depth: Counter[str] = Counter()
    unmatched = None
    for ch in text:
        found = BRACKETS.get(ch)
        if found is None:
            continue
        kind, opens = found
        counts[f"{kind} {'open' if opens else 'close'}"] += 1
        depth[kind] += 1 if opens else -1
        if depth[kind] < 0 and unmatched is None:
            unmatched = kind
    return counts, unmatched


def _brackets(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    wanted, source_unmatched = _bracket_counts(without_codes(source))
    counts, unmatched = _bracket_counts(without_codes(unwrapped(source, text)))
    out = []
    for kind in ("round", "square", "curly"):
        a = wanted[f"{kind} open"], wanted[f"{kind} close"]
        b = counts[f"{kind} open"], counts[f"{kind} close"]
        if a != b:
            out.append(f"Brackets: {_pair(*b)} {kind} here, {_pair(*a)} in the source.")
    if not out and unmatched is not None and source_unmatched != unmatched:
        out.append(f"Brackets: a {unmatched} bracket closes before it opens.")
    return out


def _pair(opened: int, closed: int) -> str:
    return f"{opened} opening and {closed} closing"


def _quotes(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    wanted, here = quote_marks(without_codes(source)), quote_marks(without_codes(text))
    return [] if wanted == here else [f"Quotation marks: {here} here, {wanted} in the source."]


def _shares_words(source: str, text: str) -> bool:
    """Whether at least half of `text`'s words (case aside) are words of `source`: what a text left in the
    source's language does, and a translation seldom does (names and numbers alone)."""
    known = {w.casefold() for w in _WORD.findall(source)}
    words = [w.casefold() for w in _WORD.findall(text)]
    return bool(words) and 2 * sum(w in known for w in words) >= len(words)


def _source_language(source: str, text: str, profile: QaProfile, hints: QaHints) -> list[str]:
    if hints.identify is None or not hints.target_language or not _shares_words(source, text):
        return []
    target = _primary(hints.target_language)
    source_language = _primary(hints.source_language) if hints.source_language else hints.identify(source)
    if source_language is None or source_language == target:
        return []
    if hints.identify(text) != source_language:
        return []
    return [f"Reads as the source's language ({source_language}), not {target}: left untranslated?"]


def _primary(tag: str) -> str:
    return tag.split("-")[0].split("_")[0].lower()


_RUNS: Final[tuple[tuple[Check, Run], ...]] = (
    ("max_length", _max_length),
    ("line_length", _line_length),
    ("reading_speed", _reading_speed),
    ("edge_whitespace", _edge_whitespace),
    ("double_space", _double_space),
    ("end_punctuation", _end_punctuation),
    ("numbers", _numbers),
    ("brackets", _brackets),
    ("quotes", _quotes),
    ("source_language", _source_language),
)
