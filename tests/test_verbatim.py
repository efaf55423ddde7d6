"""Verbatim spans: code blocks, front matter, HTML, rules, references and bare URLs, found by position."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from agent_core.pseudo_text import split_units
from agent_core.verbatim import VerbatimSpan, breaks_block, code_block_spans, span_at, verbatim_spans

ROOT = Path(__file__).resolve().parent.parent
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT / "shared")
CORPUS = sorted([*SHARED.glob("corpus/*.md"), *SHARED.glob("seeds/*.txt")])


def kinds(text: str, **options: bool) -> list[tuple[str, str]]:
    return [(s.kind, text[s.start : s.end]) for s in verbatim_spans(text, **options)]


def test_fenced_blocks_of_any_length_and_both_markers() -> None:
    text = "Intro.\n\n````md\n```\ninner\n```\n````\n\n~~~\n$ typer main.py run --help\n~~~\n\nEnd.\n"
    assert kinds(text) == [
        ("fence", "````md\n```\ninner\n```\n````"),
        ("fence", "~~~\n$ typer main.py run --help\n~~~"),
    ]


def test_unterminated_fence_runs_to_the_end() -> None:
    text = "Intro.\n\n```python\nprint(1)\n\nprint(2)\n"
    assert kinds(text) == [("fence", "```python\nprint(1)\n\nprint(2)")]


def test_indented_code_but_not_a_list_continuation_or_a_lazy_line() -> None:
    text = (
        "A paragraph\n    continued lazily, not code.\n\n"
        "    $ pip install httpx\n    $ httpx --help\n\n"
        "* An item\n\n    its second paragraph, not code.\n\n"
        "End.\n"
    )
    assert kinds(text) == [("indented", "$ pip install httpx\n    $ httpx --help")]


def test_code_inside_a_list_item_is_verbatim() -> None:
    text = "* Install:\n\n  ```sh\n  pip install x\n  ```\n\n* Done.\n"
    assert kinds(text) == [("fence", "```sh\n  pip install x\n  ```")]


def test_front_matter_whole_or_only_its_keys() -> None:
    text = '---\ntitle: "Getting started"\ndate: 2024-01-01\ntags:\n  - guide\ndraft: false\n---\n\n# Hi\n'
    assert kinds(text) == [("front_matter", text[: text.index("\n\n")])]
    kept = kinds(text, translate_front_matter=True)
    assert kept == [
        ("front_matter", "---"),
        ("front_matter", "date: 2024-01-01\ntags:"),
        ("front_matter", "draft: false\n---"),
    ]
    assert "title" not in "".join(k for _, k in kept) and "guide" not in "".join(k for _, k in kept)


def test_a_rule_after_a_paragraph_is_a_setext_heading_not_front_matter() -> None:
    text = "Title\n---\n\nText.\n\n---\n\nMore.\n"
    assert kinds(text) == [("hr", "---")]


def test_html_without_prose_rules_references_and_bare_urls() -> None:
    text = (
        '<p align="center">\n  <img src="logo.png">\n</p>\n\n'
        "<details>\n<summary>Click to expand</summary>\n</details>\n\n"
        "<!-- more -->\n\n"
        "***\n\n"
        "See [the docs][docs].\n\n"
        "[docs]: https://example.com/docs\n\n"
        "https://example.com/a\n<https://example.com/b>\n\n"
        "Read https://example.com/c today.\n"
    )
    assert kinds(text) == [
        ("html", '<p align="center">\n  <img src="logo.png">\n</p>'),
        ("html", "<!-- more -->"),
        ("hr", "***"),
        ("reference", "[docs]: https://example.com/docs"),
        ("url", "https://example.com/a\n<https://example.com/b>"),
    ]


def test_windows_line_ends_keep_offsets() -> None:
    text = "Text.\r\n\r\n```\r\ncode\r\n```\r\n\r\nEnd.\r\n"
    (span,) = verbatim_spans(text)
    assert text[span.start : span.end] == "```\r\ncode\r\n```"


def test_span_lookup_and_the_block_rule() -> None:
    text = "Intro.\n\n```\na\nb\n```\n\nEnd.\n"
    (code,) = code_block_spans(text)
    assert span_at([code], code.start) == code and span_at([code], code.end) is None
    assert span_at([code], 0) is None
    assert not breaks_block([code], 0, 6)  # "Intro."
    assert not breaks_block([code], code.start, code.end)
    assert not breaks_block([code], code.start, code.start + 5)  # a piece of the block
    assert breaks_block([code], code.start + 4, len(text) - 1)  # from inside to outside
    assert breaks_block([code], 0, code.start + 4)  # from outside to inside


def check_spans(text: str, spans: list[VerbatimSpan]) -> None:
    for previous, span in itertools.pairwise(spans):
        assert previous.end <= span.start
    for span in spans:
        piece = text[span.start : span.end]
        assert piece == piece.strip() and piece
        assert span.end == len(text) or text[span.end] in "\r\n \t"
        assert span.start == 0 or text[text.rfind("\n", 0, span.start) + 1 : span.start].strip(" \t>*-+") == ""


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_spans_are_whole_lines_and_every_fence_is_found(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    spans = verbatim_spans(text)
    check_spans(text, spans)
    fences = [s for s in spans if s.kind == "fence"]
    opening = re.findall(r"^ {0,3}(?:`{3,}|~{3,})", text, re.M)
    assert len(fences) == len(opening) // 2 + len(opening) % 2
    for fence in fences:
        assert text[fence.start : fence.end].splitlines()[-1].strip()[:3] in ("```", "~~~")
    # The offline splitter never lets a unit cross a code block's edge.
    code = code_block_spans(text)
    position = 0
    for unit in split_units(text):
        start = text.index(unit, position)
        position = start + len(unit)
        assert not breaks_block(code, start, position), unit[:80]


def test_corpus_is_present() -> None:
    if not CORPUS:
        pytest.skip("the shared corpus is not checked out next to the repository")
    assert any(p.name == "httpx-CHANGELOG.md" for p in CORPUS)


# --- the pseudo model never alters code -----------------------------------------------------------

FILE_ID = "f1"
TYPER = (
    "Run it:\n\n```console\n"
    + "".join(f"$ typer main.py run --help\nUsage: main.py run [OPTIONS] {n}\n\n  Run the app.\n\n" for n in range(12))
    + "```\n\nThat is all.\n\n"
    + "".join(f"    $ pip install httpx=={n}\n" for n in range(20))
    + "\nDone, see the docs.\n"
)


async def propose(text: str, window: int) -> list[tuple[int, str, str]]:
    """Drive the pseudo model through `text` window by window: (position, unit, translation) each."""
    from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolReturnPart
    from pydantic_ai.models import ModelRequestParameters

    from agent_core.pseudo import PseudoModel
    from agent_core.tools.units import with_unit_calls  # its one call of many units, a call a unit

    model = PseudoModel()
    history: list[ModelRequest] = [ModelRequest(parts=[SystemPromptPart(f"Files:\n- {FILE_ID}: 'a.md'")])]
    out: list[tuple[int, str, str]] = []
    position = 0
    while text[position:].strip():
        position += len(text[position:]) - len(text[position:].lstrip())
        end = min(position + window, len(text))
        content = {"file_id": FILE_ID, "start": position, "text": text[position:end], "more": end < len(text)}
        history.append(ModelRequest(parts=[ToolReturnPart("Read", content, tool_call_id=f"r{position}")]))
        response = with_unit_calls(await model.request(list(history), None, ModelRequestParameters()))
        calls = [c.args_as_dict() for c in response.tool_calls if c.tool_name == "Translate"]
        assert calls, text[position : position + 80]
        for args in calls:
            unit = args["src_string"]
            assert text.startswith(unit, position)
            out.append((position, unit, args.get("translate_string", args.get("translation"))))
            position += len(unit)
            position += len(text[position:]) - len(text[position:].lstrip())
    return out


@pytest.mark.parametrize("window", [3000, 420, 250])
async def test_pseudo_keeps_every_code_line_whatever_the_unit_boundaries(window: int) -> None:
    code = code_block_spans(TYPER)
    changed_prose = 0
    for position, unit, translation in await propose(TYPER, window):
        assert not breaks_block(code, position, position + len(unit))
        offset = position
        for line, translated in zip(unit.split("\n"), translation.split("\n"), strict=True):
            if span_at(code, offset) or any(s.start < offset + len(line) and offset < s.end for s in code):
                assert translated == line
            elif line.strip():
                changed_prose += translated != line
            offset += len(line) + 1
    assert changed_prose >= 3


def test_pseudo_keeps_front_matter_keys_and_handles() -> None:
    from agent_core.pseudo_text import pseudo_translate, unpseudo

    text = "---\ntitle: Getting started\nauthor: '@tiangolo'\ndate: 2024-01-01\n---\n\n"
    text += "Thanks @tiangolo for @app.command()."
    out = pseudo_translate(text)
    lines = out.split("\n")
    assert lines[0] == "---" and lines[4] == "---"
    assert lines[1].startswith("title: [") and unpseudo(lines[1]).startswith("title: [Getting started")
    assert lines[2] == "author: '@tiangolo'" and lines[3] == "date: 2024-01-01"
    assert "@tiangolo" in lines[-1] and "@app.command()" in lines[-1] and lines[-1] != text.split("\n")[-1]
