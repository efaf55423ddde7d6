"""A document's segments: blocks, then sentences by the language's rules, locked verbatim text, the
unit cap, and invariants on the real corpus (in order, none overlapping, no text left out)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core.segmentation import count_words, segment_spans, segment_text
from agent_core.tools.base import MAX_UNIT_CHARS

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = sorted([*SHARED.glob("corpus/*.md"), *SHARED.glob("seeds/*.txt"), *(ROOT / "tests" / "data").glob("*.md")])


def texts(source: str, language: str | None = None) -> list[str]:
    return [source[s.start : s.end] for s in segment_text(source, language)]


def test_prose_is_cut_into_sentences_with_abbreviations_and_numbers_kept() -> None:
    source = 'Dr. Smith moved to version 1.2 last week. He said: "It works!" Then he left, e.g. for lunch.'
    assert texts(source) == [
        "Dr. Smith moved to version 1.2 last week.",
        'He said: "It works!"',
        "Then he left, e.g. for lunch.",
    ]


def test_chinese_and_japanese_sentences_end_at_their_own_marks() -> None:
    assert texts("今天天气很好。我们去公园吧！你觉得呢？", "zh") == ["今天天气很好。", "我们去公园吧！", "你觉得呢？"]
    assert texts("今日は晴れです。公園に行きましょう！", "en") == ["今日は晴れです。", "公園に行きましょう！"]


def test_blocks_and_markdown_items_each_begin_a_segment_and_a_soft_wrap_does_not() -> None:
    source = (
        "# Install\n\nRun the installer\nthen restart. It is quick.\n\n"
        "1. Open the file.\n2. Save it.\n- [ ] a task\n\n| a | b |\n| c | d |\n"
    )
    assert texts(source) == [
        "# Install",
        "Run the installer\nthen restart.",
        "It is quick.",
        "1. Open the file.",
        "2. Save it.",
        "- [ ] a task",
        "| a | b |",
        "| c | d |",
    ]


def test_a_heading_is_one_line_and_crlf_line_ends_cut_as_lf_ones_do() -> None:
    source = "# Install\nRun it.\n\nThen.\n"
    assert texts(source) == ["# Install", "Run it.", "Then."]
    assert texts(source.replace("\n", "\r\n")) == ["# Install", "Run it.", "Then."]
    assert texts("0 0 0\r\n\r\nNext") == ["0 0 0", "Next"], "a CRLF blank line ends a block"


def test_code_spans_urls_and_paths_hold_no_sentence_end() -> None:
    source = "Call `client.get()`. See https://example.com/a.b for docs in docs/ssl.md. Done."
    assert texts(source) == ["Call `client.get()`.", "See https://example.com/a.b for docs in docs/ssl.md.", "Done."]


def test_a_reference_after_a_sentence_stays_with_it() -> None:
    assert texts("* Expose `FunctionAuth` from the public API. (#3699)") == [
        "* Expose `FunctionAuth` from the public API. (#3699)"
    ]


def test_verbatim_blocks_are_locked_segments_and_end_no_prose_around_them() -> None:
    source = "---\ntitle: A\n---\n\nIntro text.\n\n```python\nx = 1. y = 2.\n```\n\nAfter it.\n"
    segments = segment_text(source)
    assert [(source[s.start : s.end], s.locked) for s in segments] == [
        ("---\ntitle: A\n---", True),
        ("Intro text.", False),
        ("```python\nx = 1. y = 2.\n```", True),
        ("After it.", False),
    ]
    assert [s.id for s in segments] == ["s1", "s2", "s3", "s4"]


def test_a_sentence_over_the_unit_cap_is_cut_at_a_clause_boundary() -> None:
    clause = "the reviewer reads every proposal with care and patience"
    source = ", ".join([clause] * 8) + "."
    pieces = texts(source)
    assert len(pieces) > 1 and all(len(p) <= MAX_UNIT_CHARS for p in pieces)
    assert all(p.endswith((",", ".")) for p in pieces)
    words = " ".join(["word"] * 100)  # no clause boundary: the last space before the cap
    assert all(len(p) <= MAX_UNIT_CHARS and not p.startswith(" ") for p in texts(words))
    assert "".join(texts("x" * 700)) == "x" * 700


def test_words_are_counted_as_cat_tools_count_them() -> None:
    assert count_words("Don't stop: version 1.2 works, e-mail me.") == 7
    assert count_words("今天天气很好 and more") == 8


def test_given_spans_are_segments_and_a_long_one_is_cut_at_a_clause() -> None:
    long = "word " * 50 + "and more, " + "word " * 40
    text = "Head\n\nTail" + "\n\n" + long.strip()
    spans = [(0, 4), (6, 10), (12, len(text))]
    found = segment_spans(text, spans)
    assert [(s.id, s.start, s.end) for s in found[:2]] == [("s1", 0, 4), ("s2", 6, 10)]
    assert len(found) == 4 and all(s.end - s.start <= 300 for s in found)
    assert text[found[2].start : found[2].end].endswith("and more,")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_the_corpus_is_segmented_in_order_with_nothing_left_out(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    segments = segment_text(source, "zh" if path.suffix == ".txt" else "en")
    assert [s.index for s in segments] == list(range(len(segments)))
    position = 0
    outside = []
    for s in segments:
        assert position <= s.start < s.end
        piece = source[s.start : s.end]
        assert piece == piece.strip()
        assert s.locked or len(piece) <= MAX_UNIT_CHARS
        outside.append(source[position : s.start])
        position = s.end
    outside.append(source[position:])
    assert re.sub(r"\s", "", "".join(outside)) == ""
    assert segment_text(source, "zh" if path.suffix == ".txt" else "en") == segments  # the same every time
