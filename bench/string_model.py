"""The benchmark's translating model: the test suite's scripted translator, reading resource strings as
the rules say a model must.

`tests/fakes/translator_policy.py` takes a segment's text as everything up to the next segment's
mark. On a resource file's screen that text holds the next segment's context line (`⟪key: … |
plural: …⟫`, which the rules say is not part of the text): at its end for a string, in its middle
for a unit of several segments (a subtitle cue of two sentences). It answers a plural entry with one
string where the tool wants an object of forms, and its pseudo-translation turns the `a` of an HTML
tag into `un` and `{VERSION}` into `{Version}`, which the tool refuses as broken locked codes.
Metered as it is, every proposal of an app-strings file carries a key (about a third more output,
and more input where the answers are sent back), and a file with a plural entry or a link never
completes (the whole-file runs that took over 40 minutes). This model proposes each unit's text
without context lines, with markup tags and placeholders kept, and a plural entry's forms as its
line lists them (each the pseudo-translation of the source's form of that name, else of `other`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fakes.openai_server import Reply, ToolCallSpec
from tests.fakes.translator_policy import MARK, TranslatorPolicy, messages_of
from tests.fakes.translator_policy import pseudo_translate as translate_words

LABEL = re.compile(r"⟪[^⟫]*⟫\n?")
"""A context line with its line break: at the end of a segment's text (the next string's), or inside
a unit of several segments (a subtitle cue's second sentence's)."""
LABELLED = re.compile(r"⟪([^⟫]*)⟫\s*" + MARK.pattern)
"""A context line and the mark of the segment it describes."""
CODE = re.compile(r"(<[^<>]*>|\$?\{\{?[^{}]*\}?\}|%\([^)]*\)[a-z]|%\d*\$?[a-z@])")
"""A markup tag, a brace placeholder or a printf directive: kept as it is, like a locked code."""
PLURAL = re.compile(r"plural: forms ([^;|]+); source (\{.*\})\s*$")
"""A plural entry's part of a context line: the target's categories and the source's forms."""


class StringModel(TranslatorPolicy):
    """The scripted translator, with each resource string's proposal its own text (or plural forms)."""

    def __init__(self, *, max_units: int | None = None, read_chars: int | None = None) -> None:
        super().__init__(max_units=max_units, read_chars=read_chars)
        self._labels: dict[str, str] = {}

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one request, knowing each marked segment's context line."""
        notes = [msg.text for msg in messages_of(body) if msg.role in ("system", "user")]
        self._labels = {m[2]: m[1] for text in notes for m in LABELLED.finditer(text)}
        return super().__call__(body)

    def _translate(self, file_id: str, found: list[tuple[list[str] | None, str]]) -> list[ToolCallSpec]:
        calls: list[ToolCallSpec] = []
        for names, src in found[: self.max_units]:
            src = LABEL.sub("", src).rstrip()
            named: dict[str, Any] = {"segments": names} if names else {"src_string": src}
            args = {"file_id": file_id, **named, "translate_string": pseudo_translate(src)}
            calls.append(self._plural(ToolCallSpec("Translate", json.dumps(args, ensure_ascii=False), self._call_id())))
        return calls

    def _plural(self, call: ToolCallSpec) -> ToolCallSpec:
        """The call with its translation as an object of forms, when it names a plural entry."""
        args = json.loads(call.arguments)
        names = args.get("segments") or []
        label = self._labels.get(names[0], "") if len(names) == 1 else ""
        found = PLURAL.search(label)
        if not found:
            return call
        source = json.loads(found[2])
        wanted = [c.strip() for c in found[1].split(",")]
        args["translate_string"] = {c: pseudo_translate(source.get(c, source.get("other", ""))) for c in wanted}
        return ToolCallSpec(call.name, json.dumps(args, ensure_ascii=False), call.id)


def pseudo_translate(src: str) -> str:
    """The scripted translator's stand-in translation, with markup tags and placeholders kept as they are."""
    return "".join(p if i % 2 else translate_words(p) for i, p in enumerate(CODE.split(src)))
