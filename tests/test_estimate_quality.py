"""The quality estimate: each input lowers it by what agent_core/estimate_quality.py documents."""

from __future__ import annotations

from agent_core.estimate_quality import estimate_quality, length_norm
from agent_core.memory import GlossaryEntry
from agent_core.qa import glossary_hits, proposal_checks

SOURCE = "Open the settings and choose a language."
GOOD = "Ouvrez les paramètres et choisissez une langue."


def score(target: str = GOOD, **inputs: object) -> tuple[int, tuple[str, ...]]:
    found = estimate_quality(SOURCE, target, languages="auto>french", **inputs)  # type: ignore[arg-type]
    return found.score, found.reasons


def test_a_memory_match_with_nothing_found_is_100_and_a_model_proposal_90() -> None:
    assert score(origin="memory", match=100) == (100, ())
    assert score() == (90, ("no translation-memory match",))


def test_each_qa_warning_takes_15_the_glossary_warnings_are_counted_by_their_hits() -> None:
    assert score(warnings=["missing_number", "missing_url"]) == (
        60,
        ("QA: missing number", "QA: missing url", "no translation-memory match"),
    )
    assert score(warnings=["glossary", "glossary_forbidden"])[0] == 90


def test_glossary_hits_lower_it_by_kind() -> None:
    glossary = (
        GlossaryEntry(source="settings", target="réglages"),
        GlossaryEntry(source="language", target="langue", kind="forbidden"),
        GlossaryEntry(source="Open", target="Open", kind="keep"),
    )
    hits = glossary_hits(SOURCE, GOOD, glossary)
    assert [(h.term, h.kind, h.found) for h in hits] == [
        ("settings", "preferred", False),
        ("language", "forbidden", True),
        ("Open", "keep", False),
    ]
    codes = [w.code for w in proposal_checks(SOURCE, GOOD, glossary=glossary)]
    assert codes == ["glossary", "glossary_forbidden", "glossary_keep"]
    found = estimate_quality(SOURCE, GOOD, warnings=codes, glossary=hits, languages="auto>french")
    assert found.score == 100 - 15 - 40 - 15 - 10
    assert found.reasons[0] == "forbidden «langue» used"


def test_the_length_against_the_pairs_norm_with_a_wide_tolerance() -> None:
    assert length_norm(SOURCE, "auto>french") == 1.15
    assert round(length_norm("打开设置并选择一种语言，然后保存。", "auto>english"), 2) == 2.5
    assert score(GOOD + " " + GOOD[:38])[0] == 90, "1.9 times the usual length is within the tolerance"
    assert score(GOOD + " " + GOOD)[0] == 70, "2.1 times is not"
    assert score(GOOD * 3) == (70, ("length 3.5× the source (usual 1.1×)", "no translation-memory match"))
    assert score("Ouvrez.")[0] == 70
    assert estimate_quality("Open it.", "Ouvrez-le, s'il vous plaît, maintenant.").score == 90, "short: not judged"
    assert score(GOOD * 3, origin="memory", match=100)[0] == 100, "a remembered text is not judged by its length"


def test_the_models_own_rating_takes_half_of_what_it_is_below_100() -> None:
    assert score(rating=100)[0] == 90
    assert score(rating=60) == (70, ("model's own rating 60", "no translation-memory match"))
    assert score(rating=0)[0] == 40
    assert score(rating=60, warnings=["missing_number"] * 9)[0] == 0, "never below 0"
