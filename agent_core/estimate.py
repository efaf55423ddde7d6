"""What translating a text will cost in model requests and tokens, before any request is made.

The loop shows the model a screen of the next untranslated segments a request (`BATCH_CHARS`
characters and `BATCH_SEGMENTS` segments at most, across text already written) and is answered
with Translate calls; a request's input is the fixed prefix (system prompt, tool definitions, the
task) with the progress note, the latest exchanges and the screen; its output is the calls.

What a segment costs is counted from what the model is shown of it and what it writes back
(`Asked`): its text, its id mark (`⟦s12⟧`) and, for a resource string, its context line
(`⟪key: … | note: …⟫`); and a Translate call's framing (the call, the file, the segment ids) for
every unit. A resource string is a unit of its own; a document's segments are joined into units of
about DOCUMENT_UNIT_CHARS. The constants are fitted to the loop as `bench/provider_cost.py` meters it
(a model that translates all it is shown, o200k token counts) on documents (Markdown), app strings
(i18next JSON, Android XML, PO) and subtitles; docs/benchmarks.md gives the error per family.

Tokens are estimated without a tokenizer, by characters: CJK_TOKENS a Chinese, Japanese or Korean
character, CHARS_PER_TOKEN characters of other text a token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .ahead import BATCH_CHARS, BATCH_SEGMENTS

__all__ = ["Asked", "JobEstimate", "estimate_job", "estimate_tokens"]

PREFIX_TOKENS: Final = 1_530
"""A request's input besides the text and the exchanges it shows: the system prompt, the tools,
the task and the progress note."""
HISTORY_REQUESTS: Final = 4
"""How many later requests show an exchange again (the context window keeps the latest ones: at
most four exchanges, its start moving in steps of 8 messages)."""
MARK_TOKENS: Final = 4
"""A segment's id mark on the screen (`⟦s12⟧`)."""
OUTPUT_TOKENS_PER_TOKEN: Final = 1.6
"""A response's output per source token: the translation itself."""
OUTPUT_TOKENS_PER_UNIT: Final = 24
"""A Translate call's framing: the call, its file, the ids of the segments it covers."""
OUTPUT_TOKENS_PER_REQUEST: Final = 10
"""Output that does not grow with the text: the response's own framing."""
DOCUMENT_UNIT_CHARS: Final = 200
"""How many characters of a document a unit covers on average (segments joined, at most 300)."""

CHARS_PER_TOKEN: Final = 3.9
"""o200k on English prose and Markdown."""
CJK_TOKENS: Final = 0.85
"""o200k tokens a Chinese, Japanese or Korean character."""

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
    """A segment the model will be asked to translate: its source text and, for a resource string,
    the context line the screen shows with it (which makes it a unit of its own)."""

    source: str
    label: str = ""


def estimate_job(asked: Sequence[Asked], *, batch_chars: int = BATCH_CHARS) -> JobEstimate:
    """The cost of asking the model to translate `asked`: the segments left to it, in order.

    They take a screen a request: at most `batch_chars` characters and BATCH_SEGMENTS segments (text
    already written between them does not end a screen), and one request more, in which the model
    answers that the job is done. Request r's input is the prefix, its screen, and the exchanges
    (screen and response) of the HISTORY_REQUESTS screens before it; so each exchange is paid again in
    up to that many later requests."""
    if not asked:
        return JobEstimate(0, 0, 0)
    screens = _screens(asked, batch_chars)
    requests = screens + 1
    text = sum(estimate_tokens(a.source) for a in asked)
    shown = text + sum(estimate_tokens(f"⟪{a.label}⟫") if a.label else 0 for a in asked) + MARK_TOKENS * len(asked)
    strings = sum(1 for a in asked if a.label)
    document_chars = sum(len(a.source) for a in asked if not a.label)
    units = strings + math.ceil(document_chars / DOCUMENT_UNIT_CHARS)
    output = requests * OUTPUT_TOKENS_PER_REQUEST + units * OUTPUT_TOKENS_PER_UNIT + text * OUTPUT_TOKENS_PER_TOKEN
    shown_again = sum(min(HISTORY_REQUESTS, r) for r in range(requests))
    exchange = (output + shown) / screens
    return JobEstimate(
        model_requests=requests,
        input_tokens=round(requests * PREFIX_TOKENS + shown + exchange * shown_again),
        output_tokens=round(output),
    )


def _screens(run: Sequence[Asked], batch_chars: int) -> int:
    chars = sum(len(a.source) + 1 for a in run)
    return max(math.ceil(chars / batch_chars), math.ceil(len(run) / BATCH_SEGMENTS))
