"""The text ahead of a step: each unfinished file's next untranslated text, as the state note shows
it, and the next units the owner's translation memory holds exactly (proposed without a model request).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pydantic_ai.messages import ModelResponse, ToolCallPart

from .document import FileState, add_span, at_most_lines, file_handle, first_gap, to_block_end
from .ids import new_id
from .ports import FileReader, TranslationMemoryPort
from .prompts import NextText
from .tools.base import MAX_UNIT_CHARS, MEMORY_CALL_PREFIX

BATCH_CHARS = 3_000
"""How much of the next untranslated text the model is shown and asked to cover in one batch (a screen)."""
OTHER_FILE_CHARS = 300
"""How much of each further unfinished file's next text the state note shows."""
BATCH_LINES = 20
"""A batch is at most this many units, and a unit at least a line: the next text shows no more lines."""
MAX_MEMORY_UNITS = 20
"""The most units the translation memory proposes in one batch."""
_UNIT_END = re.compile(r"\n|(?<=[.!?:;])(?=\s)")


async def next_texts(
    reader: FileReader, files: Sequence[FileState], *, batch_chars: int = BATCH_CHARS
) -> dict[str, list[NextText]]:
    """Each unfinished file's next untranslated text: a screen for the first, a glimpse of the others.

    A screen is the file's next untranslated spans, in order, up to `batch_chars` characters and
    BATCH_LINES non-blank lines in all: text already written between them (a code block kept as it
    is, units written after a rejected one) does not end it, so one request covers what a reviewer
    sees on one screen, and a rejected unit is translated again with the text after it. A span cut
    short ends at a block's end where it has one."""
    shown: dict[str, list[NextText]] = {}
    for f in files:
        screen = not shown  # the first unfinished file; the others show the start of their next text
        pieces = await _screen(
            reader, f, batch_chars if screen else OTHER_FILE_CHARS, spans=BATCH_LINES if screen else 1
        )
        if pieces:
            shown[f.file_id] = pieces
    return shown


async def _screen(reader: FileReader, f: FileState, chars: int, *, spans: int) -> list[NextText]:
    """Up to `chars` characters and BATCH_LINES lines of the file's untranslated spans, from at most
    `spans` of them (the last piece's `more`: whether untranslated text follows it)."""
    pieces: list[NextText] = []
    covered, room, lines = f.covered, chars, BATCH_LINES
    while room > 0 and lines > 0 and len(pieces) < spans and (gap := first_gap(covered, f.chars)) is not None:
        start, gap_end = gap
        end = min(gap_end, start + room)
        text = await reader.read_text(f.file_id, start, end)
        if end < gap_end:
            text = to_block_end(text)
        text = at_most_lines(text, lines)
        covered = add_span(covered, start, start + len(text) if start + len(text) < gap_end else gap_end)
        if text.strip():
            pieces.append(NextText(start=start, text=text, more=True))
            room -= len(text)
            lines -= sum(1 for line in text.splitlines() if line.strip())
        if start + len(text) < gap_end:  # cut inside the span: the screen ends here
            break
    if pieces:
        pieces[-1] = replace(pieces[-1], more=first_gap(covered, f.chars) is not None)
    return pieces


async def memory_proposals(
    tm: TranslationMemoryPort,
    owner: str,
    languages: str,
    reader: FileReader,
    files: Sequence[FileState],
    *,
    batch_chars: int = BATCH_CHARS,
) -> ModelResponse | None:
    """Translate calls for the next units the translation memory holds exactly, with a target that is
    not blank (none: ask the model)."""
    for f in files:
        gap = f.next_gap()
        if gap is None:
            continue
        start, gap_end = gap
        text = await reader.read_text(f.file_id, start, min(gap_end, start + batch_chars))
        calls: list[ToolCallPart] = []
        position = 0
        while len(calls) < MAX_MEMORY_UNITS:
            candidates = unit_candidates(text, position)
            found = await tm.exact(owner, languages, candidates) if candidates else {}
            # A blank target is no translation (Translate would refuse it): the model translates instead.
            found = {source: entry for source, entry in found.items() if entry.target.strip()}
            if not found:
                break
            source = max(found, key=len)  # the longest remembered unit that begins here
            args = {
                "file_id": file_handle(files, f.file_id),
                "src_string": source,
                "translate_string": found[source].target,
            }
            calls.append(ToolCallPart("Translate", args, tool_call_id=f"{MEMORY_CALL_PREFIX}{new_id('t')[2:18]}"))
            end = position + len(source)
            position = end + (len(text[end:]) - len(text[end:].lstrip()))
        if not calls:
            return None
        return ModelResponse(parts=list(calls), model_name="translation-memory", finish_reason="tool_call")
    return None


def unit_candidates(text: str, position: int) -> list[str]:
    """The sources a remembered unit beginning at `position` could have: up to each line or sentence end."""
    window = text[position : position + MAX_UNIT_CHARS]
    if not window.strip():
        return []
    ends = {m.start() for m in _UNIT_END.finditer(window)} | ({len(window)} if len(window) < MAX_UNIT_CHARS else set())
    candidates = {window[:e].rstrip() for e in ends if window[:e].strip()}
    return sorted(candidates, key=len)


def first_block(text: str) -> str:
    """The next text's first block (what the next unit most likely is), at most a unit long."""
    return text.lstrip().split("\n\n", 1)[0][:MAX_UNIT_CHARS]
