"""The `pseudo` model: an offline, deterministic translator policy behind pydantic-ai's Model.

It needs no key and no network, so a new user can run the whole product at once, and most tests
drive it. Like a real model it learns everything from the messages it is sent (the system prompt's
file list, the progress note with what became of its latest answer, Read and Translate returns),
never from storage: it reads a file, proposes one to three paragraph-sized units in order, in one
Translate call (each named by its segment ids where the next text marks them and a unit is whole
segments, else by its source), pseudo-translates them (accented letters, brackets, about a third
longer; code, inline code and URLs verbatim), proposes a rejected unit again differently (by its
source), and ends with a short summary when every file is done.
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from .pseudo_text import code_ranges, pseudo_translate, unit_spans
from .tools.base import result_status

_FILE_LINE = re.compile(r"^- (f\d+): ", re.MULTILINE)
_NEXT_TEXT = re.compile(r'<next-text file="(f\d+)">(.*?)</next-text>', re.DOTALL)
_MARK = re.compile(r"(?:⟪([^⟫\n]*)⟫\n)?【(s\d+)】")
_LOCKED = re.compile(r"(?:^| \| )locked: (.*?)(?= \| |$)")
_PLURAL = re.compile(r"(?:^| \| )plural: forms ([a-z, ]+); source (\{.*\})$")
MAX_BATCH = 20
"""The most units it proposes at once from the next text it is shown (a screen)."""
_COMPLETE = re.compile(r"^- (f\d+) .*: complete\.", re.MULTILINE)
_NOT_WRITTEN = re.compile(r"^- ((?:s\d+ ?)+): (?:rejected by the reviewer|refused by the tool)", re.MULTILINE)
"""A unit of the latest answer the note says was not written (the tool or the reviewer rejected it)."""


class PseudoModel(Model):
    """A pydantic-ai Model that pseudo-translates, deterministically and offline."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def model_name(self) -> str:
        """The model's name."""
        return "pseudo"

    @property
    def system(self) -> str:
        """The provider's name."""
        return "pseudo"

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Decide the next move from the messages alone (a review's verdicts when asked for them)."""
        wanted = {t.name for t in model_request_parameters.output_tools}
        if "Verdicts" in wanted:
            parts = _verdicts(messages)
        else:
            parts = _decide(messages)
            parts = _as_units(parts) if _takes_units(model_request_parameters) else parts
        sent = sum(len(_text_of(m)) for m in messages)
        produced = sum(
            len(json.dumps(p.args)) if isinstance(p, ToolCallPart) else len(p.content)
            for p in parts
            if isinstance(p, ToolCallPart | TextPart)
        )
        calls = any(isinstance(p, ToolCallPart) for p in parts)
        return ModelResponse(
            parts=parts,
            model_name=self.model_name,
            usage=RequestUsage(input_tokens=sent // 4 + 1, output_tokens=produced // 4 + 1),
            finish_reason="tool_call" if calls else "stop",
        )


def _takes_units(params: ModelRequestParameters) -> bool:
    """Whether the Translate tool offered takes many units in one call (`units`), as this project's does;
    a Translate of one unit a call (another agent's, e.g. bench/naive_agent.py) gets one call a unit."""
    found = next((t for t in params.function_tools if t.name == "Translate"), None)
    return found is None or "units" in found.parameters_json_schema.get("properties", {})


def _as_units(parts: list[TextPart | ToolCallPart]) -> list[TextPart | ToolCallPart]:
    """The Translate calls of one file that name segments, consecutive, as one call that carries their
    units (the shape the tool asks for: `units`, each unit's translation by its segment ids); a unit
    given by its source (text read without ids) stays a call of its own, `src_string` and `translation`."""
    out: list[TextPart | ToolCallPart] = []
    for part in parts:
        if not (isinstance(part, ToolCallPart) and part.tool_name == "Translate"):
            out.append(part)
            continue
        args = part.args_as_dict()
        file_id, text = args["file_id"], args["translate_string"]
        if not args.get("segments"):
            out.append(replace(part, args={"file_id": file_id, "src_string": args["src_string"], "translation": text}))
            continue
        names = " ".join(args["segments"])
        previous = out[-1] if out else None
        if isinstance(previous, ToolCallPart) and previous.tool_name == "Translate":
            merged = previous.args_as_dict()
            if merged["file_id"] == file_id and "units" in merged:
                out[-1] = replace(previous, args={**merged, "units": {**merged["units"], names: text}})
                continue
        out.append(replace(part, args={"file_id": file_id, "units": {names: text}}))
    return out


def _verdicts(messages: Sequence[ModelMessage]) -> list[TextPart | ToolCallPart]:
    """The offline reviewer (`agent_core.review`): a pair is ok unless its target is its source unchanged."""
    last = messages[-1]
    text = next((p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)), "")
    shown = json.loads(text[text.index("[") :]) if "[" in text else []
    verdicts = [
        {"key": p["key"], "ok": False, "issue": "The target is the source text, not translated."}
        if p["target"].strip() == p["source"].strip() and any(c.isalpha() for c in p["source"])
        else {"key": p["key"], "ok": True}
        for p in shown
    ]
    return [ToolCallPart(tool_name="Verdicts", args={"verdicts": verdicts}, tool_call_id="pseudo_review")]


def _decide(messages: Sequence[ModelMessage]) -> list[TextPart | ToolCallPart]:
    files = _file_ids(messages)
    if not files:
        return [TextPart("There is no file in this session yet. Add a document, then ask me to translate it.")]
    last = messages[-1]
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    reads = [r for r in returns if r.tool_name == "Read" and isinstance(r.content, dict) and "text" in r.content]
    if reads:
        return _after_read(cast(dict[str, Any], reads[-1].content), files, messages)
    if blocks := _next_texts(last):
        return _screen(blocks, files, messages)
    translated = [r for r in returns if r.tool_name == "Translate"]
    if translated:
        if (more := _continue_reading(messages)) is not None:
            return more
        file_id = _translated_file(messages, translated[-1].tool_call_id) or files[0]
        return [_call("Read", {"file_id": file_id})]
    done = _complete_files(messages)
    todo = [f for f in files if f not in done]
    if not todo:
        return [TextPart(_summary(messages))]
    return [_call("Read", {"file_id": todo[0]})]


def _next_texts(message: ModelMessage) -> list[dict[str, Any]]:
    """The first file's next-text blocks in the request's state note, each as a Read result would
    show it (a block ends at a Markdown block's end: every block in it is whole)."""
    if not isinstance(message, ModelRequest):
        return []
    for part in message.parts:
        if isinstance(part, UserPromptPart) and isinstance(part.content, str):
            found = [_unmarked(m[1], m[2]) for m in _NEXT_TEXT.finditer(part.content)]
            if found:
                return [b for b in found if b["file_id"] == found[0]["file_id"]]
    return []


def _unmarked(file_id: str, marked: str) -> dict[str, Any]:
    """A next-text block as a Read result would show it, with where each segment begins in its text
    (a block names its segments, not its offset in the file: its `start` is 0)."""
    text, marks, position = [], [], 0
    labels: dict[str, str] = {}
    for m in _MARK.finditer(marked):
        text.append(marked[position : m.start()])
        marks.append((sum(map(len, text)), m[2]))
        if m[1] is not None:
            labels[m[2]] = m[1]
        position = m.end()
    text.append(marked[position:])
    return {"file_id": file_id, "start": 0, "text": "".join(text), "more": False, "marks": marks, "labels": labels}


def _entry_translation(unit: str, label: str | None, *, variant: int) -> str | dict[str, str]:
    """A resource string's pseudo translation: its locked codes kept, and for a plural entry one form
    for each category its context line names (the source's form of that category, else its other)."""
    if label is None:
        return pseudo_translate(unit, variant=variant)
    locked = _LOCKED.search(label)
    codes = locked[1].split(" ") if locked else []

    def kept(text: str) -> str:
        # Each code becomes one private-use character (not a letter: kept as it is), then comes back.
        found: list[str] = []

        def hide(match: re.Match[str]) -> str:
            found.append(match[0])
            return chr(0xE000 + len(found) - 1)

        pattern = "|".join(re.escape(c) for c in sorted(set(codes), key=len, reverse=True) if c)
        hidden = re.sub(pattern, hide, text) if pattern else text
        out = pseudo_translate(hidden, variant=variant)
        return re.sub("[\ue000-\uefff]", lambda m: found[ord(m[0]) - 0xE000], out)

    plural = _PLURAL.search(label)
    if plural is None:
        return kept(unit)
    source = json.loads(plural[2])
    wanted = [c.strip() for c in plural[1].split(",") if c.strip()]
    return {c: kept(source.get(c, source.get("other", unit))) for c in wanted}


def _segments_of(result: dict[str, Any], a: int, b: int) -> list[str]:
    """The ids of the segments that `text[a:b]` of a marked block covers exactly (none when it begins
    or ends inside one, or the block has no marks)."""
    marks: list[tuple[int, str]] = result.get("marks") or []
    text: str = result["text"]
    starts = [offset for offset, _ in marks]
    if a not in starts:
        return []
    later = [offset for offset in starts if offset >= b]
    if (later and text[b : later[0]].strip()) or (not later and text[b:].strip()):
        return []
    return [name for offset, name in marks if a <= offset < b]


def _screen(
    blocks: list[dict[str, Any]], files: list[str], messages: Sequence[ModelMessage]
) -> list[TextPart | ToolCallPart]:
    """Units for a screen's blocks in order, as many as a batch holds; the next block only once the
    units reached the end of the one before (a unit tried again is proposed alone)."""
    calls = _after_read(blocks[0], files, messages, batch=MAX_BATCH)
    for previous, block in itertools.pairwise(blocks):
        last = calls[-1].args_as_dict() if calls and isinstance(calls[-1], ToolCallPart) else {}
        marks = previous.get("marks") or [(0, "")]
        reached = bool(last.get("segments")) and last["segments"][-1] == marks[-1][1]
        reached = reached or (
            bool(last.get("src_string")) and previous["text"].rstrip().endswith(str(last.get("src_string")))
        )
        if not reached or len(calls) >= MAX_BATCH:
            break
        calls += _after_read(block, files, messages, batch=MAX_BATCH - len(calls))
    return calls


def _continue_reading(messages: Sequence[ModelMessage]) -> list[TextPart | ToolCallPart] | None:
    """Units that follow the reviewed ones in the latest Read's text, when all of them were accepted.

    Like a careful model, it reads again instead when anything was rejected or the text ran out.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, ModelRequest):
            continue
        read = next((p for p in message.parts if isinstance(p, ToolReturnPart) and p.tool_name == "Read"), None)
        content = read.content if read is not None else None
        if not isinstance(content, dict) or not content.get("text"):
            continue
        result = cast(dict[str, Any], content)
        text: str = result["text"]
        calls = _calls_by_id(messages[index:])
        position = 0
        for later in messages[index + 1 :]:
            if not isinstance(later, ModelRequest):
                continue
            for part in later.parts:
                if not (isinstance(part, ToolReturnPart) and part.tool_name == "Translate"):
                    continue
                status = result_status(part.content)
                call = calls.get(part.tool_call_id)
                src = str(call.args_as_dict().get("src_string", "")).strip() if call else ""
                found = text.find(src, position) if src else -1
                if status not in ("approve", "refined") or found < 0:
                    return None
                position = found + len(src)
        rest = text[position:]
        if not rest.strip():
            return None
        proposals = _after_read(result, [], messages, offset=position)
        return proposals if any(isinstance(p, ToolCallPart) for p in proposals) else None
    return None


def _after_read(
    result: dict[str, Any],
    files: list[str],
    messages: Sequence[ModelMessage],
    *,
    offset: int = 0,
    batch: int | None = None,
) -> list[TextPart | ToolCallPart]:
    file_id = str(result["file_id"])
    if result.get("complete") or not result.get("text"):
        done = _complete_files(messages) | {file_id}
        todo = [f for f in files if f not in done]
        return [_call("Read", {"file_id": todo[0]})] if todo else [TextPart(_summary(messages))]
    text: str = result["text"][offset:]
    code = [(max(a - offset, 0), b - offset) for a, b in _window_code(result, messages) if b > offset]
    spans = unit_spans(text, code=code)
    if result.get("labels") and offset == 0:  # a resource file: each string is a unit, blank lines and all
        spans = _segment_spans(result)
    cut_by_window = result.get("more") and "translated_from" not in result
    if cut_by_window:
        spans = spans[:-1]  # the window may have cut the last block short
        if not spans and offset == 0:
            spans = unit_spans(text, code=code)[:1]
    start = int(result.get("start", 0)) + offset
    count = batch or 1 + (start // 97) % 4
    attempts = _rejections(messages)
    calls: list[TextPart | ToolCallPart] = []
    for a, b in spans[:count]:
        unit = text[a:b]
        segments = _segments_of(result, a + offset, b + offset)
        variant = attempts.get(",".join(segments) or unit, 0)
        labels: dict[str, str] = result.get("labels") or {}
        labelled = len(segments) == 1 and segments[0] in labels
        if variant and not labelled:  # tried again: by its source, which the tool checks character by character
            segments, variant = [], max(variant, attempts.get(unit, 0))
        # Code keeps every line, wherever the unit begins or ends in its block.
        inside = [(max(c - a, 0), d - a) for c, d in code if c < b and a < d]
        translation: str | dict[str, str] = pseudo_translate(unit, variant=variant % 2, code=inside)
        if labelled:
            translation = _entry_translation(unit, labels[segments[0]], variant=variant % 2)
        named: dict[str, Any] = {"segments": segments} if segments else {"src_string": unit}
        calls.append(_call("Translate", {"file_id": file_id, **named, "translate_string": translation}))
        if variant:
            break  # a unit tried again is proposed alone
    return calls


def _segment_spans(result: dict[str, Any]) -> list[tuple[int, int]]:
    """The spans of a marked block's segments, each up to the next one's mark (its end's whitespace left out)."""
    text: str = result["text"]
    starts = [offset for offset, _ in result.get("marks") or []]
    spans = []
    for a, b in itertools.pairwise([*starts, len(text)]):
        piece = text[a:b]
        spans.append((a, a + len(piece.rstrip())))
    return [(a, b) for a, b in spans if b > a]


def _window_code(result: dict[str, Any], messages: Sequence[ModelMessage]) -> list[tuple[int, int]]:
    """The code blocks of a Read window, seen with the text of the earlier windows of the same file before it.

    A window that begins inside a long code block does not show the block's opening fence (or the
    blank line before an indented block); the earlier windows, chained back, do.
    """
    text: str = result["text"]
    windows: dict[int, str] = {}
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, ToolReturnPart) and part.tool_name == "Read" and isinstance(part.content, dict):
                earlier = cast(dict[str, Any], part.content)
                if earlier.get("file_id") == result.get("file_id") and earlier.get("text"):
                    windows[int(earlier.get("start", 0))] = str(earlier["text"])
    start = low = int(result.get("start", 0))
    pieces: list[str] = []
    for at in sorted(windows, reverse=True):
        if at < low <= at + len(windows[at]):
            pieces.append(windows[at][: low - at])
            low = at
    shift = start - low
    context = "".join(reversed(pieces)) + text
    return [(max(a - shift, 0), b - shift) for a, b in code_ranges(context) if b > shift]


def _call(name: str, args: dict[str, Any]) -> ToolCallPart:
    return ToolCallPart(name, args, tool_call_id=f"pseudo_{uuid.uuid4().hex[:16]}")


def _file_ids(messages: Sequence[ModelMessage]) -> list[str]:
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    return _FILE_LINE.findall(part.content)
    return []


def _complete_files(messages: Sequence[ModelMessage]) -> set[str]:
    done: set[str] = set()
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    done.update(_COMPLETE.findall(part.content))
                if isinstance(part, ToolReturnPart) and part.tool_name == "Read":
                    content = part.content
                    if isinstance(content, dict) and content.get("complete"):
                        done.add(str(content.get("file_id")))
    return done


def _calls_by_id(messages: Sequence[ModelMessage]) -> dict[str, ToolCallPart]:
    return {c.tool_call_id: c for m in messages if isinstance(m, ModelResponse) for c in m.tool_calls}


def _translated_file(messages: Sequence[ModelMessage], call_id: str) -> str | None:
    call = _calls_by_id(messages).get(call_id)
    return str(call.args_as_dict().get("file_id")) if call else None


def _rejections(messages: Sequence[ModelMessage]) -> dict[str, int]:
    """How often each source unit was rejected, as far as the messages show: the returns of Translate
    calls the history still shows, and the units of the latest answer the note says were not written."""
    calls = _calls_by_id(messages)
    counts: dict[str, int] = {}
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str) and message is messages[-1]:
                for names in _NOT_WRITTEN.findall(part.content):
                    key = ",".join(names.split())
                    counts[key] = counts.get(key, 0) + 1
            if (
                isinstance(part, ToolReturnPart)
                and part.tool_name == "Translate"
                and result_status(part.content) == "reject"
            ):
                call = calls.get(part.tool_call_id)
                if call is not None:
                    args = call.args_as_dict()
                    key = ",".join(args.get("segments") or []) or str(args.get("src_string", "")).strip()
                    counts[key] = counts.get(key, 0) + 1
    return counts


def _summary(messages: Sequence[ModelMessage]) -> str:
    reviewed = sum(
        1
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
        and p.tool_name == "Translate"
        and result_status(p.content) in ("approve", "refined")
    )
    tail = f" ({reviewed} units reviewed in the latest exchanges)" if reviewed else ""
    return f"The translation is complete: every file has been translated and reviewed{tail}."


def _text_of(message: ModelMessage) -> str:
    out: list[str] = []
    for part in message.parts:
        content = getattr(part, "content", None)
        args = getattr(part, "args", None)
        out.append(content if isinstance(content, str) else json.dumps(content, default=str) if content else "")
        if args is not None:
            out.append(args if isinstance(args, str) else json.dumps(args))
    return "".join(out)
