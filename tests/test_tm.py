"""Translation memory matching: normalisation, keys, exact and fuzzy matches, word diffs."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from agent_core.pseudo_text import split_units
from agent_core.tm import (
    DiffPart,
    TmEntry,
    candidate_keys,
    fuzzy_matches,
    normalize,
    source_hash,
    word_diff,
)

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT / "shared")
EN_FR = "english>french"


def entry(source: str, target: str = "t", *, languages: str = EN_FR, at: str = "2025-01-01T00:00:00Z") -> TmEntry:
    return TmEntry(source=source, target=target, languages=languages, origin="approved", updated_at=at)


def test_normalize_whitespace_and_unicode() -> None:
    assert normalize("  ### Fixed \n") == "### Fixed"
    assert normalize("a\t b\r\n\n c") == "a b c"
    assert normalize("Cafe\u0301") == normalize("Café") == "Café"
    assert normalize("Fixed") != normalize("fixed")  # case matters to a translation


def test_source_hash_is_stable_and_depends_on_the_language_pair() -> None:
    key = source_hash(normalize(" ###  Fixed\n"), EN_FR)
    assert key == source_hash("### Fixed", EN_FR) and len(key) == 32
    # Stored keys must survive releases: the definition is fixed.
    assert key == hashlib.sha256(f"{EN_FR}\x1f### Fixed".encode()).hexdigest()[:32]
    assert key != source_hash("### Fixed", "english>german")
    assert key != source_hash("### Added", EN_FR)


def test_fuzzy_matches_rank_threshold_limit_and_diff() -> None:
    memory = [
        entry("Fix SSL case where verify=False together with client side certificates.", "A"),
        entry("Fix SSL case where verify=True together with client side certificates.", "B"),
        entry("Drop support for Python 3.8", "C"),
        entry("Fix SSL case where verify=False together with client side certificates.", "D", languages="en>de"),
    ]
    new = "Fix the SSL case where verify=False together with client certificates."
    matches = fuzzy_matches(new, EN_FR, memory)
    assert [m.entry.target for m in matches] == ["A", "B"]
    assert all(75 <= m.score < 100 for m in matches) and matches[0].score > matches[1].score
    changed = [(p.op, p.text.strip()) for p in matches[0].diff if p.op != "equal"]
    assert changed == [("insert", "the"), ("delete", "side")]
    assert len(fuzzy_matches(new, EN_FR, memory, limit=1)) == 1
    assert fuzzy_matches(new, EN_FR, memory, threshold=99) == []
    # An identical source is an exact match, not a fuzzy one.
    assert fuzzy_matches(memory[0].source, EN_FR, memory[:1]) == []


def test_word_diff_reassembles_both_texts() -> None:
    old, new = "会话状态是 Agent 的核心。", "会话的状态是 agent 核心！"
    diff = word_diff(old, new)
    assert "".join(p.text for p in diff if p.op != "insert") == old
    assert "".join(p.text for p in diff if p.op != "delete") == new
    assert DiffPart("insert", "的") in diff


def test_candidate_keys_are_stable_bounded_and_shared_by_similar_texts() -> None:
    a = "Fix SSL case where verify=False together with client side certificates."
    b = "Fix the SSL case where verify=True together with client certificates."
    assert candidate_keys(a, EN_FR) == candidate_keys("  " + a.replace(" ", "\n"), EN_FR)
    assert len(candidate_keys(a, EN_FR)) == 4 and len(candidate_keys(a, EN_FR, count=2)) == 2
    assert set(candidate_keys(a, EN_FR)) & set(candidate_keys(b, EN_FR))
    assert not set(candidate_keys(a, EN_FR)) & set(candidate_keys(a, "english>german"))
    assert candidate_keys("会话状态是核心", EN_FR) and candidate_keys("123 456", EN_FR) == ()


def _mutate(rng: random.Random, unit: str) -> str:
    words = unit.split(" ")
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(words))
        op = rng.choice(["replace", "insert", "delete", "number"])
        if op == "replace":
            words[at] = rng.choice(["new", "client", "value", "request", "说明", "the"])
        elif op == "insert":
            words.insert(at, rng.choice(["now", "also", "并且", "very"]))
        elif op == "delete" and len(words) > 2:
            del words[at]
        else:
            words[at] = str(rng.randint(0, 999))
    return " ".join(words)


def test_candidate_keys_find_the_best_fuzzy_match_without_a_scan() -> None:
    """On real units and edited copies of them: the keys reach the best ≥75% match almost always."""
    paths = [SHARED / "corpus" / "httpx-CHANGELOG.md", *sorted((SHARED / "seeds").glob("*.txt"))]
    paths = [p for p in paths if p.is_file()]
    if not paths:
        pytest.skip("the shared corpus is absent")
    units = sorted({normalize(u) for p in paths for u in split_units(p.read_text("utf-8")) if len(u) >= 20})
    index: dict[str, set[int]] = {}
    for number, unit in enumerate(units):
        for key in candidate_keys(unit, EN_FR):
            index.setdefault(key, set()).add(number)
    rng = random.Random(1)
    queries = [_mutate(rng, rng.choice(units)) for _ in range(300)] + units
    reached = total = 0
    read = []
    for query in queries:
        scores = {n: fuzz.ratio(query, u) for n, u in enumerate(units) if u != query}
        good = {n: s for n, s in scores.items() if s >= 75}
        found = set().union(*(index.get(k, set()) for k in candidate_keys(query, EN_FR)))
        read.append(len(found))
        if good:
            total += 1
            reached += max(good, key=lambda n: good[n]) in found
    assert total > 250
    assert reached / total >= 0.95
    assert sum(read) / len(read) < len(units) / 10  # a few dozen entries read, not the memory
