"""The text ahead of a step: each unfinished file's next untranslated segments, as the state note
shows them, and the next units the owner's translation memory holds exactly (proposed without a
model request).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart

from .document import FileState, add_span, file_handle, find_file, first_gap
from .ids import new_id
from .ports import FileReader, TranslationMemoryPort, untranslated_segments
from .prompts import NextText, context_label
from .segment import BLANK_LINE, Segment, segment_names
from .tm import CONTEXT_MATCH, exact_score, string_key
from .tools.base import CONTEXT_CALL_PREFIX, MAX_CALLS_PER_RESPONSE, MAX_UNIT_CHARS, MEMORY_CALL_PREFIX

MEMORY_MODEL = "translation-memory"
"""The model name of the responses the translation memory makes (no model request)."""
BATCH_CHARS = 3_000
"""How much of the next untranslated text the model is shown and asked to cover in one batch (a screen)."""
BATCH_SEGMENTS = MAX_CALLS_PER_RESPONSE
"""The most segments a screen shows: a response proposing one unit a segment covers them all."""
MIN_SCREEN_SEGMENTS = 2
"""The fewest segments a screen shows a model that covered fewer than half its last one."""
OTHER_FILE_CHARS = 300
"""How much of each further unfinished file's next text the state note shows."""


def screen_segments(messages: Sequence[ModelMessage], files: Sequence[FileState]) -> int:
    """How many segments the next screen shows: BATCH_SEGMENTS, or twice what the model's latest
    proposing response covered (at least MIN_SCREEN_SEGMENTS). A model that proposes a few units a
    response is not shown (and billed for) a screen it leaves; one that covers its screen gets it
    back whole in a request or two. A response that finished its file covered all it was shown."""
    for message in reversed(messages):
        if not isinstance(message, ModelResponse) or message.model_name == MEMORY_MODEL:
            continue
        calls = [part for part in message.parts if isinstance(part, ToolCallPart) and part.tool_name == "Translate"]
        if not calls:
            continue
        named = [_arguments(part) for part in calls]
        finished = any((f := find_file(files, str(a.get("file_id", "")))) and f.complete for a in named)
        if finished:
            return BATCH_SEGMENTS
        covered = sum(_covered(a) for a in named)
        return min(BATCH_SEGMENTS, max(MIN_SCREEN_SEGMENTS, 2 * covered))
    return BATCH_SEGMENTS


def _arguments(part: ToolCallPart) -> dict[str, Any]:
    try:
        return part.args_as_dict()
    except ValueError:  # arguments that are not JSON: the tool refused them
        return {}


def _covered(args: dict[str, Any]) -> int:
    """The segments a Translate call names (1 for a unit given by its source)."""
    names = args.get("segments")
    if isinstance(names, str):
        names = segment_names(names)
    return len(names) if isinstance(names, list) and names else 1


MAX_MEMORY_UNITS = 20
"""The most units the translation memory proposes in one batch."""


async def next_texts(
    reader: FileReader,
    files: Sequence[FileState],
    *,
    batch_chars: int = BATCH_CHARS,
    segments: int = BATCH_SEGMENTS,
    target_language: str | None = None,
) -> dict[str, list[NextText]]:
    """Each unfinished file's next untranslated segments: a screen for the first, a glimpse of the others.

    A screen is the file's next untranslated segments, whole and in order, up to `batch_chars`
    characters and `segments` segments (at least one): text already written between them (a code
    block kept as it is, units written after a rejected one) does not end it, so one request covers
    what a reviewer sees on one screen, and a rejected unit is translated again with the text after it.
    A short screen (fewer than BATCH_SEGMENTS segments asked) goes on to the end of the paragraph it
    begins with, within a unit's length, so its model can propose that paragraph as one unit.
    A resource string's segment comes with its context line (`target_language`: the language whose
    plural categories a plural entry's forms are, None while it is not known)."""
    shown: dict[str, list[NextText]] = {}
    for f in files:
        screen = not shown  # the first unfinished file; the others show the start of their next text
        pieces = await _screen(
            reader,
            f,
            batch_chars if screen else OTHER_FILE_CHARS,
            spans=segments if screen else 1,
            paragraph=screen and segments < BATCH_SEGMENTS,
            target_language=target_language,
        )
        if pieces:
            shown[f.file_id] = pieces
    return shown


async def _screen(
    reader: FileReader,
    f: FileState,
    chars: int,
    *,
    spans: int,
    paragraph: bool = False,
    target_language: str | None = None,
) -> list[NextText]:
    """Whole segments of the file's untranslated spans, up to `chars` characters and `spans` segments
    (`paragraph`: and the rest of the first paragraph, `_rest_of_paragraph`; the last piece's `more`:
    whether untranslated text follows it)."""
    pieces: list[NextText] = []
    covered, room, count = f.covered, chars, spans
    while room > 0 and count > 0 and (gap := first_gap(covered, f.chars)) is not None:
        start, gap_end = gap
        found = await untranslated_segments(reader, f.file_id, start, start + room, gap_end)
        taken: list[Segment] = []
        for s in found[:count]:
            if s.end - start > room and (taken or pieces):
                break
            taken.append(s)
        if not taken:
            break
        extend = paragraph and not pieces and len(taken) == count < len(found)
        read = await reader.read_text(f.file_id, start, (found if extend else taken)[-1].end)
        if extend:
            rest = _rest_of_paragraph(read, start, taken, found[len(taken) :], room)
            taken += rest[: BATCH_SEGMENTS - len(taken)]
        end = taken[-1].end
        text = read[: end - start]
        marks = tuple((s.start - start, s.id) for s in taken)
        shown = (
            (s, context_label(s.context, target_language, text[s.start - start : s.end - start]))
            for s in taken
            if s.context
        )
        labels = tuple((s.id, label) for s, label in _first_of_each_entry(shown) if label)
        pieces.append(NextText(start=start, text=text, more=True, marks=marks, labels=labels))
        # Every non-blank character is in a segment: the span is shown whole when all of it was read
        # and every segment of it taken.
        whole = len(taken) == len(found) and gap_end <= start + room
        room, count = room - (end - start), count - len(taken)
        covered = add_span(covered, start, gap_end if whole else end)
        if not whole:  # the screen ends inside this span
            break
    if pieces:
        pieces[-1] = NextText(
            start=pieces[-1].start,
            text=pieces[-1].text,
            more=first_gap(covered, f.chars) is not None,
            marks=pieces[-1].marks,
            labels=pieces[-1].labels,
        )
    return pieces


def _rest_of_paragraph(
    text: str, start: int, taken: Sequence[Segment], after: Sequence[Segment], room: int
) -> list[Segment]:
    """The segments of `after` that finish the paragraph the screen begins with, when all of `taken`
    is in it, while that paragraph stays within a unit's length and the screen within `room` (`text`
    begins at `start`): a short screen does not cut its first paragraph, so its model can propose
    that paragraph as one unit."""

    def one_paragraph(a: Segment, b: Segment) -> bool:
        return not BLANK_LINE.search(text[a.end - start : b.start - start])

    if not all(one_paragraph(a, b) for a, b in pairwise(taken)):
        return []
    out: list[Segment] = []
    last = taken[-1]
    for s in after:
        if not one_paragraph(last, s) or s.end - taken[0].start > MAX_UNIT_CHARS or s.end - start > room:
            break
        out.append(s)
        last = s
    return out


async def memory_proposals(
    tm: TranslationMemoryPort,
    owner: str,
    languages: str,
    reader: FileReader,
    files: Sequence[FileState],
    *,
    batch_chars: int = BATCH_CHARS,
) -> ModelResponse | None:
    """Translate calls for the next units the translation memory holds exactly, each one segment or
    several consecutive ones joined, with a target that is not blank (none: ask the model); a unit of
    one string whose entry was written from a string of the same key is a context match (its call
    named so: `match` 101 on its card)."""
    for f in files:
        gap = f.next_gap()
        if gap is None:
            continue
        start, gap_end = gap
        found = await untranslated_segments(reader, f.file_id, start, start + batch_chars, gap_end)
        if not found:
            return None
        text = await reader.read_text(f.file_id, start, found[-1].end)
        calls: list[ToolCallPart] = []
        k = 0
        while k < len(found) and len(calls) < MAX_MEMORY_UNITS:
            runs = _runs(found, k)
            candidates = {text[found[k].start - start : found[j].end - start]: j for j in runs}
            hits = await tm.exact(owner, languages, list(candidates)) if candidates else {}
            # A blank target is no translation (Translate would refuse it): the model translates instead.
            hits = {source: entry for source, entry in hits.items() if entry.target.strip()}
            if not hits:
                break
            source = max(hits, key=len)  # the longest remembered run of segments that begins here
            last = candidates[source]
            args = {
                "file_id": file_handle(files, f.file_id),
                "segments": [s.id for s in found[k : last + 1]],
                "translate_string": hits[source].target,
            }
            score = exact_score(hits[source], string_key(s.context for s in found[k : last + 1]))
            prefix = CONTEXT_CALL_PREFIX if score == CONTEXT_MATCH else MEMORY_CALL_PREFIX
            calls.append(ToolCallPart("Translate", args, tool_call_id=f"{prefix}{new_id('t')[2:18]}"))
            k = last + 1
        if not calls:
            return None
        return ModelResponse(parts=list(calls), model_name=MEMORY_MODEL, finish_reason="tool_call")
    return None


def _runs(found: Sequence[Segment], k: int) -> list[int]:
    """The last segments of the units that could begin with `found[k]`: it alone, or joined with the
    ones after it (none locked) within the unit cap."""
    runs: list[int] = []
    for j in range(k, len(found)):
        if found[j].locked or found[j].end - found[k].start > MAX_UNIT_CHARS:
            break
        runs.append(j)
    return runs


def first_block(text: str) -> str:
    """The next text's first block (what the next unit most likely is), at most a unit long."""
    return text.lstrip().split("\n\n", 1)[0][:MAX_UNIT_CHARS]


def _first_of_each_entry(shown: Iterable[tuple[Segment, str]]) -> Iterator[tuple[Segment, str]]:
    """The segments that begin an entry on the screen, with their context lines: a string cut into
    several segments (a subtitle cue's sentences) shows its line once, before its first."""
    previous: str | None = None
    for segment, label in shown:
        key = segment.context.key if segment.context else None
        if key != previous:
            yield segment, label
        previous = key
