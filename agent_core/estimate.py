"""What translating a text will cost in model requests and tokens, before any request is made.

The loop shows the model a screen of the next untranslated segments a request (`BATCH_CHARS`
characters and `BATCH_SEGMENTS` segments at most, across text already written) and is answered
with Translate calls. A request's input is the fixed prefix (tool definitions, system prompt, task),
the progress note with the screen, and the latest responses with their tool returns (not the
screens before: the note is rebuilt each request); its output is the calls.

What a segment costs is counted from what the model is shown of it and what it writes back
(`Asked`): its text and its id mark (`【s12】`) on the screen, once, and for a resource string its
context line (`⟪key: … | note: …⟫`), once too; a Translate call's framing and the translation in
the output, and both again (with the tool's return) in every later request whose window keeps the
response. The unit a call covers is where the families differ: an app string (i18next JSON, Android
XML, PO) is a unit of its own, a subtitle cue split at sentences is one unit (its segments share a
context line: the cue's number and timing), and a document's (Markdown) segments are joined into
units of about DOCUMENT_UNIT_CHARS. The constants are fitted to the loop as `bench/provider_cost.py`
meters it (a model that translates all it is shown, a reviewer who edits 1 unit in 10 and rejects 1
in 20, o200k token counts); docs/benchmarks.md gives the error per family.

Tokens are estimated without a tokenizer. A screen's text and context lines are counted by their
pieces (`pieces`: words, digit groups, punctuation; CJK_TOKENS a Chinese, Japanese or Korean
character), which o200k follows across English UI strings, prose, French subtitles, keys and
timings (by characters, the same texts range from 1.5 to 4.9 characters a token); `estimate_tokens`,
by characters (CHARS_PER_TOKEN), is the cheaper count the budget applies to whole requests.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .ahead import BATCH_CHARS, BATCH_SEGMENTS

__all__ = ["Asked", "JobEstimate", "estimate_job", "estimate_tokens", "pieces", "text_tokens"]

PREFIX_TOKENS: Final = 1_900
"""What every request starts with: the tool definitions (1,300 o200k tokens), the system prompt with
one file listed and the user's task."""
NOTE_TOKENS: Final = 200
"""A request's progress note beside its screen: the file's progress line, what the reviewer taught
(glossary and recent corrections) and the memory's references (175–290 tokens measured)."""
HISTORY_REQUESTS: Final = 4
"""The context window's cycle: request r (from 0) shows the responses of the ((r - 1) mod 4) + 1
screens before it (measured: 0, 1, 2, 3, 4, 1, 2, … earlier responses, its start moving past a
whole batch of tool returns at once), so a response is sent again in 2.5 later requests on average,
not 4."""
MARK_TOKENS: Final = 10
"""A segment's id mark on the screen (`【s12】`, 8 tokens: the brackets are rare characters) and the
line break before the next."""
LABEL_TOKENS_PER_PIECE: Final = 1.2
"""A context line's tokens per piece (see `pieces`), with its brackets and line break: keys, codes
and timings are pieces a token each or less; measured 0.77–0.87 pieces a token."""
TRANSLATION_TOKENS_PER_TOKEN: Final = 1.3
"""A proposal's translation per source token: French from English (1.2) quoted and JSON-escaped in
the arguments."""
OUTPUT_TOKENS_PER_TOKEN: Final = 1.6
"""The most a response writes per token of the state note it answers (its screen with the marks and
context lines): the budget's reservation for one request, an upper bound (0.8–1.0 measured)."""
OUTPUT_TOKENS_PER_CALL: Final = 22
"""A Translate call's framing in the output: its name, the file, the segment ids (`Translate`
`{"file_id": "f1", "segments": ["s1"], "translate_string": "…"}`: 22 written with spaces as the
bench's model does, 18 without)."""
HISTORY_TOKENS_PER_CALL: Final = 42
"""What a call costs again each time its response is sent back, besides its output: the message's
own framing (its id, type and the arguments quoted again) and the tool's return (`approve`, 18; an
edit's return more); 42–47 measured."""
OUTPUT_TOKENS_PER_REQUEST: Final = 10
"""Output that does not grow with the text: the response's own framing."""
DOCUMENT_UNIT_CHARS: Final = 100
"""How many characters of a document a Translate call covers on average (its paragraphs' sentences
joined, at most 300; headings and list items are short): 98 measured on a changelog."""
RETRIED: Final = 0.08
"""The share of calls made again or beside the proposals: units the reviewer rejects (the bench's
reviewer rejects 1 in 20) or the tool refuses, and Remember calls for the reviewer's edits."""

CHARS_PER_TOKEN: Final = 3.9
"""o200k on English prose and Markdown."""
CJK_TOKENS: Final = 0.85
"""o200k tokens a Chinese, Japanese or Korean character."""

_PIECE: Final = re.compile(r"[^\W\d_]+|\d{1,3}|[^\w\s]|_")
_CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


@dataclass(frozen=True, slots=True)
class JobEstimate:
    """The model requests and tokens a job is expected to take."""

    model_requests: int
    input_tokens: int
    output_tokens: int


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` is (see the module's note)."""
    cjk = len(_CJK.findall(text))
    return math.ceil(cjk * CJK_TOKENS + (len(text) - cjk) / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class Asked:
    """A segment the model will be asked to translate: its source text, the context line the screen
    shows with it ("" for none), and for a resource string its entry's key (the segments of one entry,
    such as a subtitle cue's sentences, are one unit; None: a document's text, joined into units)."""

    source: str
    label: str = ""
    entry: str | None = None


def estimate_job(asked: Sequence[Asked], *, batch_chars: int = BATCH_CHARS) -> JobEstimate:
    """The cost of asking the model to translate `asked`: the segments left to it, in order.

    They take a screen a request: at most `batch_chars` characters and BATCH_SEGMENTS segments (text
    already written between them does not end a screen), with room for the units proposed again and
    a screen for the last one's rejected units; and one request more, in which the model answers
    that the job is done. Every request's input is the prefix, its progress note and screen,
    and the responses of the screens before it that the context window keeps (HISTORY_REQUESTS); each
    response is a Translate call a unit. A unit is a resource entry (its segments, shown with one
    context line each; a subtitle cue split at sentences is one entry) or about DOCUMENT_UNIT_CHARS of
    a document."""
    if not asked:
        return JobEstimate(0, 0, 0)
    screens = _screens(asked, batch_chars)
    requests = screens + 1
    text = sum(text_tokens(a.source) for a in asked)
    firsts = [a for k, a in enumerate(asked) if a.entry is None or k == 0 or asked[k - 1].entry != a.entry]
    labels = sum(LABEL_TOKENS_PER_PIECE * pieces(f"⟪{a.label}⟫") for a in firsts if a.label)
    shown = text + labels + MARK_TOKENS * len(asked)
    entries = sum(1 for k, a in enumerate(asked) if a.entry is not None and (k == 0 or asked[k - 1].entry != a.entry))
    document_chars = sum(len(a.source) for a in asked if a.entry is None)
    calls = (entries + math.ceil(document_chars / DOCUMENT_UNIT_CHARS)) * (1 + RETRIED)
    answers = text * (1 + RETRIED) * TRANSLATION_TOKENS_PER_TOKEN + calls * OUTPUT_TOKENS_PER_CALL
    resent = sum((r - 1) % HISTORY_REQUESTS + 1 for r in range(1, requests))
    history = (answers + calls * HISTORY_TOKENS_PER_CALL) * resent / screens
    return JobEstimate(
        model_requests=requests,
        input_tokens=round(requests * (PREFIX_TOKENS + NOTE_TOKENS) + shown + history),
        output_tokens=round(answers + requests * OUTPUT_TOKENS_PER_REQUEST),
    )


def text_tokens(text: str) -> float:
    """About how many o200k tokens `text` of a screen is, counted by its pieces: CJK_TOKENS a Chinese,
    Japanese or Korean character, a token a piece of the rest (measured 0.88–1.08 pieces a token on
    English UI strings and prose, Markdown and French subtitles, where characters a token range from
    3.3 to 4.9)."""
    cjk = _CJK.findall(text)
    return len(cjk) * CJK_TOKENS + pieces(_CJK.sub(" ", text)) if cjk else pieces(text)


def pieces(text: str) -> int:
    """How many pieces `text` is: runs of letters, groups of up to three digits, and every other
    character that is not a space (an o200k token is about one piece)."""
    return len(_PIECE.findall(text))


def _screens(run: Sequence[Asked], batch_chars: int) -> int:
    """Screens for `run` and the units proposed again (RETRIED), which take room on later screens;
    and one more, for those the reviewer rejects on the last screen."""
    chars = sum(len(a.source) + 1 for a in run) * (1 + RETRIED)
    return 1 + max(math.ceil(chars / batch_chars), math.ceil(len(run) * (1 + RETRIED) / BATCH_SEGMENTS))
