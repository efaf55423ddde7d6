"""A document's segments, found once the way CAT tools find them: blocks first, then sentences.

A segment is a span `[start, end)` of the file's text, stripped of the whitespace around it, with a
stable id (`s1`, `s2`, … in document order). Text kept verbatim (code blocks, front matter, HTML
blocks, rules, link reference definitions, bare URLs: `agent_core.verbatim`, the same rule the upload
writes them by) is one locked segment a block. The rest is cut at blank lines, then at each line that
begins a Markdown item of its own (a heading, a list item, a table row, a quoted line), then into
sentences by pysbd's rules (the Golden Rules of SRX-style segmentation: abbreviations, numbers, URLs,
quotes) for the block's language: Japanese for text with kana, Chinese for other Han text, else the
language given. A sentence longer than the unit cap is cut at its last clause boundary (a comma, a
semicolon, a colon, a dash, an ideographic comma) before the cap, else at its last space, else at the
end of the last tag, placeholder, code span or URL before the cap, else at the cap. No cut (a sentence
end or the cap's) falls inside a markup tag, an entity, a placeholder (`{1}`, `{name}`, `%s`, `%(n)s`,
`${x}`), a code span, a URL or a path: the export puts each unit's text back whole, so a tag split
between two units would be broken in every format. Segmenting is a pure function of the text and the
language, so the counts of a stored file never change.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Final

import pysbd

from langfacts.codes import PROSE
from langfacts.codes import pattern as code_pattern

from .markdown_structure import non_prose_spans
from .segment import BLANK_LINE, Segment
from .tools.base import MAX_UNIT_CHARS
from .verbatim import verbatim_spans

__all__ = ["Segment", "count_words", "segment_prose", "segment_spans", "segment_text"]

_PYSBD_LANGUAGES: Final = frozenset(
    "en hi mr zh es am ar hy bg ur ru pl fa nl da fr my el it ja de kk sk".split()  # noqa: SIM905
)
_KANA: Final = re.compile(r"[\u3040-\u30ff]")
_CJK_WORD: Final = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD: Final = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_ITEM_START: Final = re.compile(r"[ \t]{0,3}(?:#{1,6}(?:[ \t\r]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|\||>)")
_HEADING: Final = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t\r]|$)")
_MARKER: Final = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+|>[ \t]?)*")
_CLAUSE_END: Final = re.compile(r"[,;:，；：、—–](?=\s|$)|[，；：、]")
_LETTER: Final = re.compile(r"[^\W\d_]")
_INNER_END: Final = re.compile(r"[.!?…][\"'’”)\]]*\s|[。！？](?=.)")
_WHOLE: Final = re.compile(
    r"<!--[^>]{0,400}?-->"  # a markup comment
    r"|&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"  # an entity
    r"|\{[^{}\n]{1,80}(?:\{[^{}\n]{0,80}\}[^{}\n]{0,80}){1,12}\}"  # an ICU plural or select: {n, plural, one {…}}
    "|" + code_pattern((*PROSE, "html", "numbered_tags", "nesting", "apple_variable")).pattern  # the locked codes
)
"""What a unit boundary never falls inside (with `non_prose_spans`): each pattern bounded; the codes are
`langfacts.codes`' table's."""


def segment_text(text: str, language: str | None = None) -> tuple[Segment, ...]:
    """The segments of a Markdown or plain text, in order (locked ones for text kept verbatim)."""
    return _segment_text(text, _base(language))


def segment_spans(text: str, spans: Sequence[tuple[int, int]]) -> tuple[Segment, ...]:
    """Segments that are given spans of `text` already (an XLIFF file's own segments), in order; a span
    longer than the unit cap is cut as a long sentence is."""
    pieces = [piece for start, end in spans for piece in _capped(text, start, end)]
    return tuple(Segment(i, start, end) for i, (start, end) in enumerate(pieces))


def segment_prose(text: str, start: int, end: int, language: str | None = None) -> list[tuple[int, int]]:
    """The sentence spans of `text[start:end]` (a document's block: an HTML or DOCX paragraph, a
    subtitle cue), cut as Markdown prose is but with nothing kept verbatim."""
    return list(_prose(text, start, end, _base(language)))


def count_words(text: str) -> int:
    """Words the way CAT tools count them: each Chinese, Japanese or Korean character is one word,
    and so is each other run of letters and digits (joined by an apostrophe, a dot or a hyphen)."""
    cjk = len(_CJK_WORD.findall(text))
    return cjk + len(_WORD.findall(_CJK_WORD.sub(" ", text)))


def _base(language: str | None) -> str:
    base = (language or "en").split("-")[0].split("_")[0].lower()
    return base if base in _PYSBD_LANGUAGES else "en"


@lru_cache(maxsize=8)
def _segment_text(text: str, language: str) -> tuple[Segment, ...]:
    spans: list[tuple[int, int, bool]] = []
    position = 0
    for kept in verbatim_spans(text):
        spans += [(s, e, False) for s, e in _prose(text, position, kept.start, language)]
        spans.append((kept.start, kept.end, True))
        position = kept.end
    spans += [(s, e, False) for s, e in _prose(text, position, len(text), language)]
    return tuple(Segment(i, s, e, locked) for i, (s, e, locked) in enumerate(spans))


def _prose(text: str, start: int, end: int, language: str) -> Iterator[tuple[int, int]]:
    """The segments of the prose in `text[start:end]`: blocks, items, then sentences, then the cap."""
    items = [item for block in _split(text, start, end, BLANK_LINE) for item in _items(text, *block)]
    cuts = _sentence_starts(text, items, language)
    for k, (item_start, item_end) in enumerate(items):
        pieces: list[tuple[int, int]] = []
        for s, e in pairwise([item_start, *cuts.get(k, ()), item_end]):
            for piece in _stripped(text, s, e):
                if pieces and not _LETTER.search(text, *piece):  # "(#3699)" after a sentence belongs to it
                    pieces[-1] = (pieces[-1][0], piece[1])
                else:
                    pieces.append(piece)
        for s, e in pieces:
            yield from _capped(text, s, e)


def _sentence_starts(text: str, items: Sequence[tuple[int, int]], language: str) -> dict[int, list[int]]:
    """Where sentences begin inside each item that has more than one (by item number), found by the
    rules in one pass a language. An item is given to the rules with its line breaks read as spaces (a
    soft wrap ends no sentence), its leading Markdown marker blanked (`1. ` is no sentence) and its code
    spans, URLs and paths read as words; items are joined by line breaks, which end a sentence."""
    groups: dict[str, list[tuple[int, int, str]]] = {}
    for k, (s, e) in enumerate(items):
        marker = _MARKER.match(text, s, e)
        body = marker.end() if marker else s
        rules = _masked(text[body:e].replace("\n", " "))
        if _INNER_END.search(rules.rstrip()):
            groups.setdefault(_language_of(rules, language), []).append((k, body, rules))
    starts: dict[int, list[int]] = {}
    for rules_language, group in groups.items():
        joined = "\n".join(rules for _, _, rules in group)
        offsets = list(itertools.accumulate((len(rules) + 1 for _, _, rules in group[:-1]), initial=0))
        for span in _segmenter(rules_language).segment(joined):  # pysbd's spans: no second search of ours
            sentence = span.sent.lstrip()
            if not sentence.strip():
                continue
            at = span.start + len(span.sent) - len(sentence)
            n = bisect.bisect_right(offsets, at) - 1
            k, body, _ = group[n]
            if at > offsets[n]:
                starts.setdefault(k, []).append(body + at - offsets[n])
    return starts


def _split(text: str, start: int, end: int, separator: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """The stripped, non-blank pieces of `text[start:end]` between matches of `separator`."""
    position = start
    for m in separator.finditer(text, start, end):
        yield from _stripped(text, position, m.start())
        position = m.end()
    yield from _stripped(text, position, end)


def _stripped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    trimmed = len(piece.rstrip())
    if trimmed > lead:
        yield start + lead, start + trimmed


def _items(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A block cut at each line that begins a Markdown item of its own (heading, list item, table row,
    quoted line) and after a heading's line; a line that does not continues the item before it (a
    paragraph's soft wrap)."""
    item = line_start = start
    line = text.find("\n", start, end)
    while line != -1:
        following = line + 1
        heading = _HEADING.match(text, line_start, line)  # a heading is one line (CommonMark)
        if heading or _ITEM_START.match(text, following, end):
            yield from _stripped(text, item, following)
            item = following
        line_start, line = following, text.find("\n", following, end)
    yield from _stripped(text, item, end)


def _masked(item: str) -> str:
    """`item` with its tags, placeholders, code spans, URLs and paths read as one word each (no
    sentence ends inside)."""
    chars = list(item)
    for s, e in _whole_spans(item, 0, len(item)):
        e = s + len(item[s:e].rstrip(".,;:!?"))  # a path's match takes the full stop after it
        chars[s:e] = "x" * (e - s)
    return "".join(chars)


def _whole_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of `text[start:end]` no cut may fall inside (tags, entities, placeholders, code spans,
    URLs, paths), as absolute `(start, end)`, merged where they overlap, in order."""
    piece = text[start:end]
    found = sorted([m.span() for m in _WHOLE.finditer(piece)] + non_prose_spans(piece))
    merged: list[tuple[int, int]] = []
    for s, e in found:
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return [(start + s, start + e) for s, e in merged]


def _capped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A sentence cut into pieces of at most MAX_UNIT_CHARS, each at its last clause boundary (else
    space, else end of a whole span) outside the whole spans; a span that runs past the cap from the
    piece's start is kept whole, the piece longer than the cap."""
    if end - start <= MAX_UNIT_CHARS:
        yield start, end
        return
    whole = _whole_spans(text, start, end)
    ends = [e for _, e in whole]

    def inside(position: int) -> tuple[int, int] | None:
        """The whole span `position` falls strictly inside, if any."""
        k = bisect.bisect_right(ends, position)
        return whole[k] if k < len(whole) and whole[k][0] < position else None

    while end - start > MAX_UNIT_CHARS:
        limit = start + MAX_UNIT_CHARS
        window = text[start:limit]
        least = MAX_UNIT_CHARS // 3
        clauses = (m.end() for m in _CLAUSE_END.finditer(window) if m.end() > least)
        spaces = [m.end() for m in re.finditer(r"\s+", window) if not inside(start + m.start())]
        span_ends = [e - start for e in ends[bisect.bisect_right(ends, start) : bisect.bisect_right(ends, limit)]]
        cut = (
            max((c for c in clauses if not inside(start + c)), default=0)
            or max((c for c in spaces if c > least), default=0)
            or max([*spaces, *span_ends], default=0)
        )
        if not cut:
            covering = inside(limit)
            cut = (covering[1] if covering else limit) - start
        yield from _stripped(text, start, start + cut)
        start = next(_stripped(text, start + cut, end), (end, end))[0]
    if end > start:
        yield start, end


def _language_of(text: str, language: str) -> str:
    """Japanese for an item that is mostly Chinese characters and kana with some kana, Chinese for one
    mostly Han, else `language` (a Latin sentence quoting one ideograph keeps its own rules)."""
    letters = sum(c.isalpha() for c in text) or 1
    if len(_CJK_WORD.findall(text)) * 2 < letters:
        return language
    return "ja" if _KANA.search(text) or language == "ja" else "zh"


@lru_cache(maxsize=32)
def _segmenter(language: str) -> pysbd.Segmenter:
    return pysbd.Segmenter(language=language, clean=False, char_span=True)
