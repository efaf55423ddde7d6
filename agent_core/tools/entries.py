"""Translate's rules for a proposal's text: the screen's markup, locked codes and plural forms.

A proposal holding the screen's own markup that its source does not (an id mark `【s12】`, a context
line `⟪key: …⟫`: `agent_core.marks`) is refused. A unit's segments carry their entry's context
(`agent_core.segment.SegmentContext`). A proposal that drops, adds or alters a locked code of the
unit's source is refused to the model, naming the code. A plural entry's unit is its one segment,
and its proposal is an object of forms, one for each CLDR category of the target language, no more
(`agent_core.plural`); the target language must be known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langfacts.codes import code_changes

from ..copilot import PluralInfo
from ..marks import screen_markup
from ..plural import forms_problems, parse_forms
from ..segment import SegmentContext


def target_categories(language: str) -> tuple[str, ...]:
    """The CLDR plural categories of `language` (babel's data, imported when a plural entry is met)."""
    from langfacts.plurals import categories

    return categories(language)


def unit_codes(contexts: Sequence[SegmentContext], source: str) -> tuple[str, ...]:
    """The locked codes of a unit's source: its segments' codes, as often as the unit's text holds
    each (a unit of a long string's first part holds only the codes of that part)."""
    codes = [code for c in contexts for code in c.codes]
    return tuple(c for c in dict.fromkeys(codes) for _ in range(min(codes.count(c), source.count(c))))


def code_problems(codes: Sequence[str], source: str, text: str) -> tuple[str, ...]:
    """What `text` does to the locked `codes`, less what the source itself shows (a malformed tag in
    the source, `<a href="#x"</a>`, holds a code the reading of the translation finds again)."""
    own = set(code_changes(codes, source))
    return tuple(p for p in code_changes(codes, text) if p not in own)


def entry_proposal(
    contexts: Sequence[SegmentContext],
    proposal: str | Mapping[str, str],
    target_language: str | None,
    *,
    source: str = "",
) -> str | tuple[str | dict[str, str], PluralInfo | None]:
    """The proposal for a unit of `source` as the card shows it and the plural it answers, or why it
    is refused."""
    texts = [proposal] if isinstance(proposal, str) else [v for v in proposal.values() if isinstance(v, str)]
    if marked := next((m for t in texts if (m := screen_markup(t, source))), None):
        return (
            f"translate_string holds {marked!r}, which the screen shows around the text (an id mark or a "
            "context line), not part of it: give the translation of the segments' text alone."
        )
    plural = next((c for c in contexts if c.plural), None)
    if plural is None:
        if not isinstance(proposal, str):
            return "translate_string is an object, but these segments are not a plural entry: give one string."
        changes = code_problems(unit_codes(contexts, source), source, proposal)
        if changes:
            return "translate_string breaks the locked codes of the source: " + "; ".join(changes) + "."
        return proposal, None
    if len(contexts) > 1:
        return f"The plural entry {plural.key!r} is a unit of its own: name its segment alone."
    if target_language is None:
        return (
            "The session's target language is not known, so the plural categories are not either: "
            "ask the user to set the target language, then translate this plural entry."
        )
    wanted = target_categories(target_language)
    forms = parse_forms(proposal)
    if forms is None:
        example = ", ".join(f'"{c}": "…"' for c in wanted)
        return f"translate_string for the plural entry {plural.key!r} is an object of forms: {{{example}}}."
    source_forms = dict(plural.plural)
    problems = forms_problems(forms, wanted, codes=plural.codes, source_other=source_forms.get("other", ""))
    if problems:
        return (
            f"The forms of the plural entry {plural.key!r} (target categories {', '.join(wanted)}): "
            + "; ".join(problems)
            + "."
        )
    ordered = {c: forms[c] for c in wanted}
    return ordered, PluralInfo(categories=wanted, source=source_forms)


def edit_warnings(
    contexts: Sequence[SegmentContext], source: str, text: str, target_language: str | None
) -> tuple[tuple[str, str], ...]:
    """What a human's text does to a resource string's locked codes (`locked_code`) or a plural
    entry's forms (`plural_forms`), as (code, message) warnings: the human still decides."""
    plural = next((c for c in contexts if c.plural), None)
    if plural is None:
        changes = code_problems(unit_codes(contexts, source), source, text)
        return tuple(("locked_code", f"Locked code: {change}.") for change in changes)
    forms = parse_forms(text)
    if forms is None:
        return (("plural_forms", "This plural entry's text is its forms, one for each plural category."),)
    if target_language is None:
        return ()
    wanted = target_categories(target_language)
    source_forms = dict(plural.plural)
    problems = forms_problems(forms, wanted, codes=plural.codes, source_other=source_forms.get("other", ""))
    return tuple(("plural_forms", f"Plural forms: {p}.") for p in problems)
