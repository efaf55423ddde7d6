"""What the model is told: stable rules first, the step's state last.

The system prompt (rules and the session's files) is byte-identical across a session's steps, so
providers' prompt caches serve it with the tool definitions; what changes from step to step
(progress, the reviewer's memory, the next untranslated text) is the state note, which goes at the
very end of the request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .document import FileState, handle
from .marks import label_line, mark
from .segment import SegmentContext

RULES = """\
You translate the session's files with a human reviewer, who approves, edits or rejects each unit
you propose with `Translate`.

- Follow the user's requirements: target language, tone, terminology, instructions.
- Each request ends with a note: what the reviewer taught you (apply it; a correction reads «your
  text» → «theirs»), what became of your latest answer, progress, and the next untranslated text
  (a screen) in <next-text file="…"> blocks, as in the file; the text between two blocks is
  already written.
- Answer with one `Translate` call whose units cover the whole screen, in order.
- Keep Markdown, code, URLs, numbers and placeholders; translate the prose (code comments only if
  the user asks).
- Apply the reviewer's edits to later units; keep lasting ones with `Remember`. A unit not written
  comes back on the screen: translate it again following its reason.
- Use `Revise` to change written units when the user asks.
- When every file is complete, answer with a short summary in the user's language, calling no
  tool. Answer other questions briefly."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NextText:
    """A file's next untranslated text, as the state note shows it."""

    start: int
    text: str
    more: bool
    """True when untranslated text follows beyond `text`."""
    marks: tuple[tuple[int, str], ...] = ()
    """Where each segment of `text` begins (its offset in `text`) and its id, in order."""
    labels: tuple[tuple[str, str], ...] = ()
    """A resource string's context line (`context_label`) by segment id, for the segments that have one."""

    @property
    def marked(self) -> str:
        """`text` with each segment's id marked where it begins: `【s12】` (after its context line, if any)."""
        out: list[str] = []
        position = 0
        labels = dict(self.labels)
        for offset, segment in self.marks:
            label = label_line(labels[segment]) if segment in labels else ""
            out += [self.text[position:offset], label + mark(segment)]
            position = offset
        return "".join([*out, self.text[position:]])


def context_label(context: SegmentContext, target_language: str | None, source: str = "") -> str:
    """A resource string's context as the model sees it, on one line: its key, the developer's note,
    its locked codes and, for a plural entry, the forms to give (the target language's categories,
    or a word that they are unknown) and the source's forms. A key that is the segment's own text
    (`source`: a PO message without a context is keyed by its msgid) is left out, as it says nothing
    the text does not; "" when nothing is left to say."""
    key = _flat(context.key)
    parts = [f"key: {key}"] if key != _flat(source) else []
    if context.note:
        parts.append(f"note: {_flat(context.note)}")
    if context.codes:
        parts.append("locked: " + " ".join(dict.fromkeys(_flat(c) for c in context.codes)))
    if context.plural:
        from .tools.entries import target_categories  # babel's data, only for a plural entry

        categories = target_categories(target_language) if target_language else ()
        wanted = ", ".join(categories) if categories else "unknown until the target language is set"
        forms = json.dumps(dict(context.plural), ensure_ascii=False)
        parts.append(f"plural: forms {wanted}; source {forms}")
    return " | ".join(parts)


def _flat(text: str) -> str:
    return " ".join(text.split()).replace("⟫", "»").replace("|", "/")


def system_prompt(files: Sequence[FileState]) -> str:
    """The system prompt: the rules and the session's files (stable while no file is added)."""
    return "\n\n".join([RULES, _files_section(files)])


def _files_section(files: Sequence[FileState]) -> str:
    if not files:
        return "The session has no files yet. If the user asks for a translation, ask them to add one."
    lines = ["The session's files (name them by handle with Read, Translate and Revise):"]
    lines += [f"- {handle(k)}: {f.name!r}, {f.chars} characters" for k, f in enumerate(files)]
    return "\n".join(lines)


def state_note(
    files: Sequence[FileState],
    next_texts: dict[str, list[NextText]],
    *,
    memory: str = "",
    references: Sequence[tuple[str, str, float]] = (),
    outcomes: str = "",
) -> str:
    """The step's state, its most lasting parts first: the reviewer's memory, similar remembered
    units, what became of the latest answer's units (`outcomes`), progress, each file's next text.
    Consecutive requests then share a longer prefix, the part a provider's prompt cache serves (the
    memory changes only with a correction, the rest with every answer)."""
    if not files:
        return ""
    lines = ["Progress so far:"]
    blocks: list[str] = []
    for k, f in enumerate(files):
        name = handle(k)
        if f.complete:
            lines.append(f"- {name} {f.name}: complete. (Revise changes a written unit.)")
            continue
        pieces = next_texts.get(f.file_id, [])
        if not pieces or len(files) > 1:
            lines.append(f"- {name} {f.name}: {f.translated_chars} of {f.chars} characters translated.")
        for shown in pieces:
            block = f'<next-text file="{name}">{shown.marked}</next-text>'
            blocks.append(block if shown.more else f"{block}\n(Nothing untranslated follows it in {name}.)")
    parts = [memory.strip()] if memory.strip() else []
    if references:
        found = ["Reference translations from this reviewer's memory (similar sources; adapt them, keep the terms):"]
        found += [f"- ({score:.0f}%) «{source}» → «{target}»" for source, target, score in references]
        parts.append("\n".join(found))
    if outcomes:
        parts.append(outcomes)
    if len(lines) > 1:
        parts.append("\n".join(lines))
    return "\n\n".join([*parts, *blocks])
