"""What translating a text will cost in model requests and tokens, before any request is made.

The loop shows the model a screen of the next untranslated segments a request (`BATCH_CHARS`
characters and `BATCH_SEGMENTS` segments at most, across text already written) and is answered
with one Translate call carrying the screen's units. A request's input is the fixed prefix (tool
definitions, system prompt, task) and the progress note with the screen; the model's earlier answers
are not sent again once their units are decided (the note says what became of them), so a unit
costs its output once; its output is the call. A screen shows again the units the reviewer rejected
or the tool refused, beside the next ones (RETRIED).

What a segment costs is counted from what the model is shown of it and what it writes back
(`Asked`): its text and its id mark (`【s12】`) on the screen, and for a resource string its context
line (`⟪key: … | note: …⟫`), once (again if its unit is proposed again); a unit's framing in the
call and the translation in the output. The unit is where the families differ: an app string
(i18next JSON, Android XML, PO) is a unit of its own, a subtitle cue split at sentences is one unit
(its segments share a context line: the cue's number and timing), and a document's (Markdown)
segments are joined into units of about DOCUMENT_UNIT_CHARS. The constants are fitted to the loop as
`bench/provider_cost.py` meters it (a model that translates all it is shown, a reviewer who edits 1
unit in 10 and rejects 1 in 20, o200k token counts); docs/benchmarks.md gives the error per family.

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

PREFIX_TOKENS: Final = 1_100
"""What every request starts with: the tool definitions (714 o200k tokens), the system prompt with
one file listed and the user's task (1,025 tokens the requests share), and the messages' framing
and escapes (fitted with the other constants to the metered runs)."""
NOTE_TOKENS: Final = 600
"""A request's progress note beside its screen, from the third request on: the file's progress
line, what became of the latest answer (a line an edited, rejected or refused unit), what the
reviewer taught (glossary and recent corrections) and the memory's references, and the model's
other calls still in the window (Remember and its return): 500–690 tokens measured on screens of 40
segments, the closing request's included. The first two requests' notes are short (20 and about
150 tokens: nothing answered yet, then one answer's outcome) and are left to the prefix's margin."""
MARK_TOKENS: Final = 7.5
"""A segment's id mark on the screen (`【s12】`, 4 tokens), its line breaks and the escapes the
request's JSON adds to them (5.6–6.2 measured a segment with the screens' block tags, before the
escapes)."""
LABEL_TOKENS_PER_PIECE: Final = 1.3
"""A context line's tokens per piece (see `pieces`), with its brackets, line breaks and escapes:
keys, codes and timings are pieces a token each or less; measured 1.3–1.5 on the screens."""
TRANSLATION_TOKENS_PER_TOKEN: Final = 1.05
"""A proposal's translation per source token, quoted and JSON-escaped in the arguments: fitted to
the bench's model, whose pseudo-French keeps most English words (a real model's French from English
is about 1.2 tokens a token before quoting)."""
OUTPUT_TOKENS_PER_TOKEN: Final = 1.6
"""The most a response writes per token of the state note it answers (its screen with the marks and
context lines): the budget's reservation for one request, an upper bound (0.8–1.0 measured)."""
OUTPUT_TOKENS_PER_CALL: Final = 6
"""A unit's framing in the output: its segment ids as its key in the call's `units` (`"s12": "…", `:
6 written with spaces as the bench's model does; a subtitle cue's or a document unit's several ids
a few more)."""
OUTPUT_TOKENS_PER_REQUEST: Final = 15
"""Output that does not grow with the text: the response's own framing and the call's
(`Translate`, `{"file_id": "f1", "units": {`)."""
DOCUMENT_UNIT_CHARS: Final = 100
"""How many characters of a document a unit covers on average (its paragraphs' sentences
joined, at most 300; headings and list items are short): 95–100 measured on a changelog."""
RETRIED: Final = 0.08
"""The share of units proposed (and shown) again or of calls beside the proposals: units the
reviewer rejects (the bench's reviewer rejects 1 in 20) or the tool refuses, and Remember calls for
the reviewer's edits."""

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
    already written between them does not end a screen), with room for the units shown again (see
    `_screens`); and one request more, in which the model answers that the job is done. Every
    request's input is the prefix, its progress note (from the third request on) and its screen;
    each response is a Translate call with a unit a resource entry (its segments, shown with one
    context line; a subtitle cue split at sentences is one entry) or about DOCUMENT_UNIT_CHARS of a
    document."""
    if not asked:
        return JobEstimate(0, 0, 0)
    screens = _screens(asked, batch_chars)
    requests = screens + 1
    text = sum(text_tokens(a.source) for a in asked)
    firsts = [a for k, a in enumerate(asked) if a.entry is None or k == 0 or asked[k - 1].entry != a.entry]
    labels = sum(LABEL_TOKENS_PER_PIECE * pieces(f"⟪{a.label}⟫") for a in firsts if a.label)
    shown = (text + labels + MARK_TOKENS * len(asked)) * (1 + RETRIED)
    entries = sum(1 for k, a in enumerate(asked) if a.entry is not None and (k == 0 or asked[k - 1].entry != a.entry))
    document_chars = sum(len(a.source) for a in asked if a.entry is None)
    calls = (entries + math.ceil(document_chars / DOCUMENT_UNIT_CHARS)) * (1 + RETRIED)
    answers = text * (1 + RETRIED) * TRANSLATION_TOKENS_PER_TOKEN + calls * OUTPUT_TOKENS_PER_CALL
    return JobEstimate(
        model_requests=requests,
        input_tokens=round(requests * PREFIX_TOKENS + max(requests - 2, 0) * NOTE_TOKENS + shown),
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
    """Screens for `run` and the units shown again (RETRIED), which take room on later screens; and
    one more for the last screen's rejected units when that screen is more than half full (with
    fewer units it most likely has none: the bench's reviewer rejects 1 in 20)."""
    chars = sum(len(a.source) + 1 for a in run) * (1 + RETRIED)
    filled = max(chars / batch_chars, len(run) * (1 + RETRIED) / BATCH_SEGMENTS)
    return math.ceil(filled + 0.5)
