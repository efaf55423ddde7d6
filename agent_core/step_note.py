"""The state note a model request ends with: the files' progress, the next text, the memory it needs.

Built for the files as they are when the model is asked (after the step's units), with the owner's
memory for the language pair plus what the step itself learned (its Remember calls, its distilled
corrections: newest first), the corrections the request's window does not already show, and the
translation memory's entries similar to the next unit, and what became of the units of the model's
latest answer (`tools.outcomes`: the model is not sent its decided proposals again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic_ai.messages import ModelMessage

from .ahead import BATCH_CHARS, first_block, next_texts, screen_segments
from .document import FileState
from .memory import GlossaryEntry, Lessons, Memory, render_memory
from .ports import StepIO
from .prompts import state_note
from .tools.outcomes import latest_outcomes


async def step_note(
    io: StepIO,
    files: Sequence[FileState],
    messages: Sequence[ModelMessage],
    *,
    memory: Memory,
    learned: Lessons,
    reviewed: frozenset[str],
    batch_chars: int = BATCH_CHARS,
    target_language: str | None = None,
) -> str:
    """The note for `files` after `messages` (the history as the model is asked: `screen_segments`
    sizes the screen by its latest proposals); `reviewed`: the corrections the window shows."""
    screen = screen_segments(messages, files)
    shown = await next_texts(io, files, batch_chars=batch_chars, segments=screen, target_language=target_language)
    outcomes = latest_outcomes(messages)
    reviewed = reviewed | outcomes.shown
    noted = learned.style_notes
    current = replace(
        memory,
        glossary=newest_first([*learned.glossary, *memory.glossary]),
        style_notes=(*noted, *(n for n in memory.style_notes if n not in noted)),
        # A correction the window or the outcome shows (the reviewer's text) is not repeated; a small
        # screen shows the newest few.
        corrections=tuple(c for c in memory.corrections if (c.final or c.proposal) not in reviewed)[
            : corrections_shown(screen)
        ],
    )
    rendered = render_memory(current, text="\n".join(t.text for pieces in shown.values() for t in pieces))
    first = next(iter(shown.values()), [None])[0]
    similar = await io.similar(first_block(first.text)) if first else []
    return state_note(
        files,
        shown,
        memory=rendered,
        references=[(m.entry.source, m.entry.target, m.score) for m in similar],
        outcomes=outcomes.section,
    )


SEGMENTS_A_CORRECTION = 4
"""A screen shows one of the reviewer's recent corrections for every this many segments it shows
(at least MIN_CORRECTIONS)."""
MIN_CORRECTIONS = 1


def corrections_shown(segments: int) -> int:
    """How many of the reviewer's recent corrections a screen of `segments` segments shows: a model
    that answers a few units at a time is asked often, and would pay for the same corrections in every
    request; the newest stay in view for as many of its answers as a whole screen's would."""
    return max(MIN_CORRECTIONS, segments // SEGMENTS_A_CORRECTION)


def newest_first(entries: Sequence[GlossaryEntry]) -> tuple[GlossaryEntry, ...]:
    """One entry per term (ignoring case), the first given winning; forbidden translations beside it."""
    seen: set[str] = set()
    kept: list[GlossaryEntry] = []
    for entry in entries:
        key = entry.source.casefold() + (f"\x00{entry.target.casefold()}" if entry.kind == "forbidden" else "")
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return tuple(kept)
