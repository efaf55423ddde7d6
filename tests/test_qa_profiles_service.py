"""QA profiles in the service: the findings on a person's text with their levels, and the units an
approval of many leaves for a person (a profile check at `error` level, found in one walk)."""

from __future__ import annotations

from agent_core.effects import UnitWrite
from agent_core.qa_profiles import parse_profile
from agent_core.segment import Segment, SegmentContext
from service.qa_profiles import blocked_units, profile_warnings

SOURCE = "Save changes\n\nInbox\n\nSettings"


def unit(start: int, end: int, text: str) -> UnitWrite:
    return UnitWrite(file_id="f1", start=start, end=end, cover_end=end, text=text, call_id="c", status="approved")


def segments() -> tuple[Segment, ...]:
    notes = ("Button [CHAR LIMIT=12]", None, "Title [CHAR LIMIT=5]")
    spans = ((0, 12), (14, 19), (21, 29))
    return tuple(
        Segment(k, a, b, False, SegmentContext(key=f"k{k}", note=note))
        for k, ((a, b), note) in enumerate(zip(spans, notes, strict=True))
    )


def test_the_units_an_error_keeps_for_a_person() -> None:
    units = [unit(21, 29, "Réglages"), unit(0, 12, "Enregistrer les modifications"), unit(14, 19, "Boîte ")]
    assert blocked_units("strings.xml", segments(), units, SOURCE, target_language="fr") == {0, 21}
    # the trailing space of "Boîte " is a warning: it keeps nothing from an approval
    relaxed = parse_profile({"base": "strings", "checks": {"max_length": "warning"}})
    assert blocked_units("strings.xml", segments(), units, SOURCE, target_language="fr", chosen=relaxed) == set()
    strict = parse_profile({"base": "strings", "checks": {"edge_whitespace": "error", "max_length": "off"}})
    assert blocked_units("strings.xml", segments(), units, SOURCE, target_language="fr", chosen=strict) == {14}
    assert blocked_units("strings.xml", (), [], SOURCE, target_language=None) == set()


def test_profile_warnings_skip_a_plural_entry_and_carry_levels() -> None:
    plural = SegmentContext(key="n", plural=(("one", "%d file"), ("other", "%d files")))
    assert profile_warnings("strings.xml", [plural], "%d files", "x" * 500, target_language="fr") == []
    found = profile_warnings(
        "strings.xml", [SegmentContext(key="k", note="[CHAR LIMIT=3]")], "Save", "Sauver ", target_language="fr"
    )
    assert [(w.code, w.level) for w in found] == [("max_length", "error"), ("edge_whitespace", "warning")]
