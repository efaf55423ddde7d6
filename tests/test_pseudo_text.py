"""Tests for agent_core.pseudo_text: unit splitting by position and offline pseudo-translation."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from agent_core.pseudo_text import first_unit, pseudo_translate, split_units, unpseudo

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

CODE_FENCE = "```python\ndef handler(event):\n    return {'ok': True}\n```"

DOC = f"""# Guide

Intro paragraph. It has two sentences!

## Install

Run the installer.

{CODE_FENCE}

## Install

Run the installer.

{CODE_FENCE}

- item one
- item two
  - nested item
    - deeper item
- item three

1. first
2. second

    indented code line
        more indented
    back

| name | value |
|------|-------|
| a    | 1     |
| b    | 2     |

> A quote. With two sentences.
> Second line of the quote.
# Heading without blank line
Paragraph right under it.
"""

ENGLISH_SENTENCES = " ".join(
    f"Sentence number {i} talks about translation units and careful review." for i in range(40)
)
CHINESE_700 = ("翻译工具需要从整篇内容内逐段进行翻译顺序翻译不能重复翻译也不能遗漏翻译" * 25)[:700]


def assert_reassembles(text: str, units: list[str], max_chars: int = 300) -> None:
    """Walk `text` by position: only whitespace may lie before, between and after the units."""
    pos = 0
    for unit in units:
        assert unit, "empty unit"
        assert unit == unit.strip(), f"unit not stripped: {unit!r}"
        assert len(unit) <= max_chars, f"unit too long ({len(unit)})"
        while pos < len(text) and text[pos].isspace():
            pos += 1
        assert text[pos : pos + len(unit)] == unit, f"unit not at position {pos}: {unit!r}"
        pos += len(unit)
    assert not text[pos:].strip(), f"text left after the last unit: {text[pos : pos + 80]!r}"


# --- split_units --------------------------------------------------------------------------------

VARIED = [
    DOC,
    ENGLISH_SENTENCES,
    CHINESE_700,
    "x" * 500,
    "word " * 200,
    "  leading and trailing whitespace  \n\n\n",
    "a\r\nb\r\n\r\nc",
    "中文，" * 150,
    "- " + "long item text " * 30 + "\n- short item\n" * 3,
    "| col |\n|---|\n" + "| some cell text here |\n" * 40,
    "```\n" + "print('hello world')\n" * 40 + "```\n",
    "~~~\nunclosed fence\n\nwith a blank line",
    "",
    "   \n\t\n",
]


@pytest.mark.parametrize("text", VARIED)
@pytest.mark.parametrize("max_chars", [300, 80, 7, 1])
def test_units_reassemble_the_text(text: str, max_chars: int) -> None:
    units = split_units(text, max_chars=max_chars)
    assert_reassembles(text, units, max_chars)
    assert first_unit(text, max_chars=max_chars) == (units[0] if units else None)


def test_doc_units_are_its_blocks() -> None:
    units = split_units(DOC)
    assert units == [
        "# Guide",
        "Intro paragraph. It has two sentences!",
        "## Install",
        "Run the installer.",
        CODE_FENCE,
        "## Install",
        "Run the installer.",
        CODE_FENCE,
        "- item one\n- item two\n  - nested item\n    - deeper item\n- item three",
        "1. first\n2. second",
        "indented code line\n        more indented\n    back",
        "| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |",
        "> A quote. With two sentences.\n> Second line of the quote.",
        "# Heading without blank line",
        "Paragraph right under it.",
    ]
    assert_reassembles(DOC, units)


def test_blocks_that_fit_are_never_merged_or_split() -> None:
    blocks = [
        "First paragraph.",
        "## A heading",
        "- a\n- b",
        "| x |\n|---|\n| 1 |",
        "Last one.",
    ]
    assert split_units("\n\n".join(blocks)) == blocks
    assert split_units("Para\n```\ncode\n```\nAfter") == [
        "Para",
        "```\ncode\n```",
        "After",
    ]


def test_long_english_paragraph_splits_after_sentences() -> None:
    units = split_units(ENGLISH_SENTENCES)
    assert len(units) > 6
    assert all(unit.endswith("review.") for unit in units)


def test_chinese_without_spaces_splits_hard_or_after_punctuation() -> None:
    units = split_units(CHINESE_700)
    assert [len(u) for u in units] == [300, 300, 100]
    sentences = "这是一个没有空格的句子，它很长很长。" * 40
    units = split_units(sentences)
    assert_reassembles(sentences, units)
    assert all(unit.endswith("。") for unit in units)
    clauses = ("很长的分句没有句号但是有逗号" * 3 + "，") * 20
    assert all(unit.endswith("，") for unit in split_units(clauses))


def test_a_long_word_is_cut_hard() -> None:
    assert split_units("x" * 500) == ["x" * 300, "x" * 200]


def test_long_list_splits_between_top_level_items() -> None:
    items = [f"- item {i} " + "with some words " * 5 + f"\n  - nested {i}" for i in range(12)]
    text = "\n".join(items)
    units = split_units(text)
    assert len(units) > 1
    assert all(unit.startswith("- item") for unit in units)
    assert_reassembles(text, units)


def test_long_table_and_code_split_at_rows_and_lines() -> None:
    table = "| key | value |\n|---|---|\n" + "".join(f"| k{i} | v{i}. x |\n" for i in range(60))
    for unit in split_units(table)[1:]:
        assert unit.startswith("| k") and unit.endswith("|")
    code = "```js\n" + "".join(f"  const v{i} = call({i});\n" for i in range(40)) + "```"
    units = split_units(code)
    assert units[0].startswith("```js\n  const v0") and units[-1].endswith("```")
    assert all(unit.endswith(";") for unit in units[:-1])
    assert_reassembles(code, units)


def test_first_unit_of_a_window_matches_the_full_text() -> None:
    text = DOC * 3 + ENGLISH_SENTENCES
    assert first_unit(text[:4096]) == split_units(text)[0]
    assert first_unit(ENGLISH_SENTENCES[:1000]) == split_units(ENGLISH_SENTENCES)[0]
    assert first_unit("") is None


def test_a_remainder_that_starts_inside_a_code_block() -> None:
    # What is left of a file after the first piece of a long code block was translated.
    rest = "    y = 2\n" * 40 + "```\n\nProse after.\n\n```\ncode\n```\n"
    units = split_units(rest)
    assert_reassembles(rest, units)
    assert units[-3].endswith("y = 2\n```")
    assert units[-2:] == ["Prose after.", "```\ncode\n```"]
    assert all(unit.endswith("y = 2") for unit in units[:-3])  # code tails split at lines
    assert first_unit(rest) == units[0]


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(ValueError):
        split_units("text", max_chars=0)


def _shared_documents() -> list[Path]:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    return [
        SHARED / "corpus" / "httpx-CHANGELOG.md",
        *sorted((SHARED / "seeds").glob("*.txt")),
    ]


def _walk_by_windows(text: str, window: int = 4096) -> list[str]:
    """Units as a caller finds them: `first_unit` of a window on what is still untranslated."""
    units: list[str] = []
    pos = 0
    while (unit := first_unit(text[pos : pos + window])) is not None:
        while text[pos].isspace():  # the unit starts at the first non-whitespace character
            pos += 1
        assert text.startswith(unit, pos)
        units.append(unit)
        pos += len(unit)
    return units


def test_real_documents_reassemble() -> None:
    for path in _shared_documents():
        text = path.read_text(encoding="utf-8")
        for max_chars in (300, 120):
            units = split_units(text, max_chars=max_chars)
            assert_reassembles(text, units, max_chars)
            assert first_unit(text[:4096], max_chars=max_chars) == units[0]
        assert _walk_by_windows(text) == split_units(text)


def test_random_markdown_reassembles() -> None:
    fragments = ["# H", "## H", "Text. More!", "- a", "  - b", "1. one", "```", "~~~py", "code  x", "| a | b |"]
    fragments += ["|---|---|", "> q.", "", " ", "\t", "中文。句子，", "x" * 50, "word " * 20, "    indented", "1."]
    rng = random.Random(7)
    for _ in range(300):
        text = rng.choice(["\n", "\r\n"]).join(rng.choice(fragments) for _ in range(rng.randint(0, 30)))
        for max_chars in (1, 5, 40, 300):
            units = split_units(text, max_chars=max_chars)
            assert_reassembles(text, units, max_chars)
            assert first_unit(text, max_chars=max_chars) == (units[0] if units else None)
        assert pseudo_translate(text).count("\n") == text.count("\n")


def test_real_documents_have_repeated_units() -> None:
    text = (_shared_documents()[0]).read_text(encoding="utf-8")
    units = split_units(text)
    assert units.count("### Fixed") > 3


# --- pseudo_translate ---------------------------------------------------------------------------

PROSE = (
    "The translator reads each paragraph carefully and proposes a faithful rendering.\n"
    "Reviewers approve, refine or reject every unit before it is written to the file.\n"
    "Rejected units come back to the model, which then tries again with a new attempt."
)


def test_pseudo_translate_accents_and_brackets_lines() -> None:
    out = pseudo_translate("Hello world, this is a plain sentence.")
    assert out.startswith("[Ĥéĺĺó ŵóŕĺď, ţĥíš íš á ṕĺáíñ šéñţéñçé.")
    assert out.endswith("]")
    assert "Hello" not in out


def test_pseudo_translate_keeps_markdown_prefixes() -> None:
    text = "## Title here\n- item one\n  * nested two\n3. third\n> quoted text\n    indented"
    lines = pseudo_translate(text).split("\n")
    for prefix, line in zip(["## [", "- [", "  * [", "3. [", "> [", "    ["], lines, strict=True):
        assert line.startswith(prefix), line


def test_pseudo_translate_table_cells() -> None:
    out = pseudo_translate("| name | value |\n|---|:---:|\n| alpha | 42 |")
    rows = out.split("\n")
    assert rows[0].startswith("| [ñáḿé] | [ṽáĺúé] |")
    assert rows[1] == "|---|:---:|"
    assert rows[2] == "| [áĺṕĥá] | 42 |"


def test_pseudo_translate_keeps_code_urls_numbers_and_placeholders() -> None:
    protected = [
        "`client.get(url)`",
        "https://example.com/path?q=1",
        "](docs/advanced/ssl.md)",
        "<a href='x'>",
        "{name}",
        "{{count}}",
        "%s",
        "3.14159",
        "0x1F",
        "#3699",
        "dev.team+x@example.com",
    ]
    text = "Call `client.get(url)` at https://example.com/path?q=1 see [SSL](docs/advanced/ssl.md)"
    text += (
        " or <a href='x'>link</a> for {name} with {{count}} and %s, pi 3.14159, 0x1F, #3699, dev.team+x@example.com."
    )
    out = pseudo_translate(text)
    for token in protected:
        assert token in out, token


def test_pseudo_translate_keeps_fenced_code_verbatim() -> None:
    text = f"Before the code.\n\n{CODE_FENCE}\n\n~~~\nplain tilde fence\n~~~\nAfter the code."
    out = pseudo_translate(text)
    assert CODE_FENCE in out and "~~~\nplain tilde fence\n~~~" in out
    assert "Before" not in out and "After" not in out
    head = "```python\ndef handler(event):\n    return event"
    assert pseudo_translate(head) == head  # first piece of a split code block
    tail = "    return event\n```"
    assert pseudo_translate(tail) == tail  # last piece of a split code block


def test_pseudo_translate_preserves_lines_and_cjk() -> None:
    for text in [
        DOC,
        PROSE,
        CHINESE_700,
        "a\n\n\nb\n",
        "\n",
        "中文 mixed 文本\r\nline two",
    ]:
        out = pseudo_translate(text)
        assert out.count("\n") == text.count("\n")
    assert re.sub(r"[\[\]~ ]", "", pseudo_translate(CHINESE_700)) == CHINESE_700


@pytest.mark.parametrize("text", ["a", "Fix.", "x = 1", "`code` and text", "中文 a"])
def test_pseudo_translate_is_never_the_identity_on_letters(text: str) -> None:
    for variant in range(4):
        assert pseudo_translate(text, variant=variant) != text


def test_pseudo_translate_leaves_letterless_text_alone() -> None:
    for text in ["", "123 456", "`only_code`", "https://example.com", "---", "| --- |"]:
        assert pseudo_translate(text) == text


def test_variants_differ_and_are_deterministic() -> None:
    outs = [pseudo_translate(PROSE, variant=v) for v in range(4)]
    assert len(set(outs)) == 4
    assert outs[0] == pseudo_translate(PROSE)
    assert "à" in outs[1] and "á" not in outs[1]


def test_length_ratio_for_english_prose() -> None:
    for text in [PROSE, ENGLISH_SENTENCES]:
        ratio = len(pseudo_translate(text)) / len(text)
        assert 1.2 <= ratio <= 1.6, ratio


def test_pseudo_translated_units_keep_their_structure() -> None:
    for unit in split_units(DOC):
        out = pseudo_translate(unit, variant=1)
        assert out.count("\n") == unit.count("\n")
        assert out == out.strip()


def test_pseudo_keeps_every_locked_code_of_the_table_and_no_percent_of_prose() -> None:
    text = "Due %b %-d, %Y at %H:%M for %{name}, %1$@ and {count}: 100% of 50%off"
    out = pseudo_translate(text)
    for code in ("%b", "%-d", "%Y", "%H", "%M", "%{name}", "%1$@", "{count}"):
        assert code in out, code
    assert "% of" not in out and "%off" not in out  # the words after a percent sign are translated
    assert "100% of 50%off" in unpseudo(out)
