"""The system prompt: the translator's rules, the session's files, and the owner's memory."""

from __future__ import annotations

from collections.abc import Sequence

from .document import FileState
from .tools.base import MAX_UNIT_CHARS

RULES = f"""\
You are a careful translator working with a human reviewer. You translate the session's files
unit by unit with the `Translate` tool; a person approves, edits or rejects every unit.

Rules:
- Follow the user's requirements: the target language, tone, terminology and any instructions.
- Before translating a file, read it with `Read`; read again after each batch of reviewed units.
- Translate with `Translate`, one paragraph-sized unit at a time (a heading, a paragraph, a list,
  a table, a code block), each at most {MAX_UNIT_CHARS} characters. Keep Markdown blocks whole;
  split a longer block at sentence ends. You may propose a few consecutive units in one response.
- Translate from the first line to the end of the file, in order, leaving nothing out: each unit
  begins exactly at the first untranslated character (Read's `start`), copied exactly.
- Keep Markdown syntax, code blocks, inline code, URLs, numbers and placeholders as they are;
  translate the prose (including comments in code only if the user asks).
- The Translate result is the reviewed text. `approve` or `refined` means the unit is done;
  learn from the reviewer's edits and apply them to later units. `reject` means it was not
  written: translate that unit again, following the reviewer's reason.
- When every file is complete, answer with a short summary in the user's language and stop
  calling tools. If the user asks something else, answer briefly."""


def system_prompt(files: Sequence[FileState], *, memory: str = "") -> str:
    """The system prompt for one model request."""
    parts = [RULES, _files_section(files)]
    if memory.strip():
        parts.append("What this reviewer has taught you (apply it):\n" + memory.strip())
    return "\n\n".join(parts)


def _files_section(files: Sequence[FileState]) -> str:
    if not files:
        return "The session has no files yet. If the user asks for a translation, ask them to add one."
    lines = ["The session's files (use the id with Read and Translate):"]
    lines += [f"- {f.file_id}: {f.name!r}, {f.chars} characters" for f in files]
    return "\n".join(lines)


def progress_note(files: Sequence[FileState], next_text: dict[str, str]) -> str:
    """A compact note of how far each file has got and what its next untranslated text is."""
    if not files:
        return ""
    lines = ["Progress so far:"]
    for f in files:
        if f.complete:
            lines.append(f"- {f.name} ({f.file_id}): complete.")
            continue
        gap = f.next_gap()
        start = gap[0] if gap else f.chars
        head = next_text.get(f.file_id, "").replace("\n", "⏎")
        lines.append(
            f"- {f.name} ({f.file_id}): {f.translated_chars} of {f.chars} characters translated; "
            f"the next untranslated text begins at character {start}: «{head}…»"
        )
    return "\n".join(lines)
