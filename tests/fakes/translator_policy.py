"""A scripted translator for the fake OpenAI server: it behaves like a real model that reads what it is shown.

It reads the request (system prompt, messages, tool returns) and finds the untranslated text it has
been shown: the latest `Read` return (its JSON `file_id`, `start`, `text`) or a block of the form

    <next-text file="f_XXXX">【s1】verbatim text, 【s2】each segment's id marked…</next-text>

anywhere in a system or user message (a note's several blocks of one file are one screen, in
order). It leaves out what its own later `Translate` calls already covered (those the tool returns
approved or refined), then proposes `Translate` units for all of the rest: in marked text, the
segments of each paragraph joined up to 300 characters and named by id (the source is not copied);
in a Read result, units cut at blank lines and at most 300 characters (a long block split at line
ends, then sentence ends, then whitespace) with their `src_string`.
A resource string's context line (`⟪key: … | plural: …⟫`) is not part of its text; a plural entry is
answered with an object of the forms its line lists; markup tags and placeholders are kept as they are.
With nothing left to translate it calls `Read`; when the progress note says every file is complete,
it answers with text. Beside its proposals it calls `Remember` for the reviewer's latest edits: each
word the reviewer put in place of one the proposal kept from the source, as a glossary pair. Usage
is counted with o200k tokens, and cached tokens imitate OpenAI's prompt cache (the prefix shared
with the previous request of the same `prompt_cache_key`, in 128-token steps from 1,024).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

from tests.fakes.openai_server import Reply, ToolCallSpec, UsageSpec
from tests.fakes.tokens import common_prefix, encode, prompt_tokens

MAX_UNIT = 300
NEXT_TEXT = re.compile(r'<next-text file="([^"]+)">(.*?)</next-text>', re.DOTALL)
BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")
COMPLETE = re.compile(r"^- (f[\w-]+) .*: complete\.", re.MULTILINE)
INCOMPLETE = re.compile(r"^- (f[\w-]+) .*: \d+ of \d+ characters translated", re.MULTILINE)
LISTED = re.compile(r"^- (f[\w-]+): ", re.MULTILINE)
MARK = re.compile(r"【(s\d+)】")
KEPT = re.compile(r"(<[^<>]*>|`[^`\n]*`|https?://[^\s<>\"]+|\[[^\]]*\]\([^)]*\))")
"""What the fake copies as it is: a markup tag whole (a URL inside it included), inline code, a URL, a
Markdown link."""
CODE = re.compile(r"(<[^<>]*>|\$?\{\{?[^{}]*\}?\}|%\([^)]*\)[a-z]|%\d*\$?[a-z@])")
"""A markup tag, a brace placeholder or a printf directive: kept as it is, like a locked code."""
LABEL = re.compile(r"⟪[^⟫]*⟫\n?")
"""A string's context line with its line break, as the screen shows it before a segment's mark: not
part of the text (at the end of a segment's text it is the next string's)."""
LABELLED = re.compile(r"⟪([^⟫]*)⟫\s*【(s\d+)】")
"""A context line and the mark of the segment it describes."""
PLURAL = re.compile(r"plural: forms ([^;|]+); source (\{.*\})\s*$")
"""A plural entry's part of a context line: the target's categories and the source's forms."""
ACCEPTED = ("approve", "refined")
EDITED = re.compile(r"^- [^\n]*: edited, «(.*)» → «(.*)»$", re.MULTILINE)
"""A unit of the latest answer the reviewer edited, as the state note's outcome says it."""


@dataclass(frozen=True)
class Msg:
    """One message of the request, whatever the API: role, text, tool calls, or a tool return."""

    role: str
    text: str
    calls: tuple[tuple[str, str, str], ...] = ()
    """(call id, tool name, JSON arguments)."""
    call_id: str | None = None


@dataclass(frozen=True)
class Shown:
    """Untranslated text the model was shown, and where in the request."""

    file_id: str
    start: int
    """A Read's offset in the file; a next-text block's place in its note (a block names no offset)."""
    text: str
    position: int
    whole: bool
    """The text ends at a block boundary or at translated text (False: cut at Read's max_chars)."""
    marks: tuple[tuple[int, str], ...] = ()
    """Where each segment begins in `text`, and its id (a next-text block's marks)."""

    def segment_end(self, name: str) -> int:
        """Where the segment `name` ends in `text` (before the whitespace that follows it)."""
        starts = [offset for offset, _ in self.marks]
        k = [n for _, n in self.marks].index(name)
        end = starts[k + 1] if k + 1 < len(starts) else len(self.text)
        return len(self.text[:end].rstrip())


def unmarked(marked: str) -> tuple[str, tuple[tuple[int, str], ...]]:
    """A next-text block's text without its segment marks, and where each segment begins in it."""
    text: list[str] = []
    marks: list[tuple[int, str]] = []
    position = 0
    for m in MARK.finditer(marked):
        text.append(marked[position : m.start()])
        marks.append((sum(map(len, text)), m[1]))
        position = m.end()
    text.append(marked[position:])
    return "".join(text), tuple(marks)


def messages_of(body: dict[str, Any]) -> list[Msg]:
    """The request's messages, from Chat Completions `messages` or Responses `input`."""
    out: list[Msg] = []
    if body.get("instructions"):
        out.append(Msg("system", str(body["instructions"])))
    for item in body.get("messages") or body.get("input") or []:
        kind = item.get("type")
        if kind == "function_call":
            out.append(Msg("assistant", "", ((item["call_id"], item["name"], item.get("arguments") or "{}"),)))
        elif kind == "function_call_output":
            out.append(Msg("tool", _text(item.get("output")), call_id=item["call_id"]))
        elif item.get("role") == "tool":
            out.append(Msg("tool", _text(item.get("content")), call_id=item.get("tool_call_id")))
        else:
            calls = tuple(
                (c["id"], c["function"]["name"], c["function"].get("arguments") or "{}")
                for c in item.get("tool_calls") or []
            )
            role = "system" if item.get("role") == "developer" else str(item.get("role"))
            out.append(Msg(role, _text(item.get("content")), calls))
    return out


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))


def _json(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def shown_texts(msgs: list[Msg]) -> list[Shown]:
    """Every text shown: Read returns (not elided) and next-text blocks; a system prompt counts as newest."""
    names = {cid: name for m in msgs for cid, name, _ in m.calls}
    found: list[Shown] = []
    for index, m in enumerate(msgs):
        if m.role == "tool" and names.get(m.call_id or "") == "Read":
            data = _json(m.text) or {}
            text = data.get("text")
            if isinstance(text, str) and text.strip() and not text.startswith("(omitted"):
                whole = not data.get("more") or "translated_from" in data
                found.append(Shown(str(data["file_id"]), int(data["start"]), text, index, whole))
        elif m.role in ("system", "user"):
            position = len(msgs) if m.role == "system" else index
            for match in NEXT_TEXT.finditer(m.text):
                text, marks = unmarked(match[2])
                found.append(Shown(match[1], match.start(), text, position, True, marks))
    return found


def consumed(shown: Shown, msgs: list[Msg]) -> int:
    """How much of `shown.text` later Translate calls of this model already covered (approved or refined)."""
    returns = {
        m.call_id: {"status": "approve"} if m.text == "approve" else _json(m.text) or {}
        for m in msgs
        if m.role == "tool"
    }
    text, offset = shown.text, 0
    for m in msgs[shown.position + 1 :]:
        for call_id, name, arguments in _unit_calls(m.calls):
            args = _json(arguments) or {}
            if name != "Translate" or args.get("file_id") != shown.file_id:
                continue
            src = str(args.get("src_string", "")).strip()
            given = args.get("segments") or []
            given = given.split() if isinstance(given, str) else given
            names = [n for n in given if n in dict((n, o) for o, n in shown.marks)]
            status = returns.get(call_id, {"status": "approve"}).get("status")
            at = len(text) - len(text[offset:].lstrip())
            if status not in ACCEPTED:
                break  # the rest of this response was not written either
            if names and (at, names[0]) in shown.marks:
                offset = shown.segment_end(names[-1])
            elif src and text.startswith(src, at):
                offset = at + len(src)
            else:
                break
    return offset


def _unit_calls(calls: tuple[tuple[str, str, str], ...]) -> list[tuple[str, str, str]]:
    """The calls with a multi-unit Translate call read as a call a unit (as the loop stores it)."""
    out: list[tuple[str, str, str]] = []
    for call_id, name, arguments in calls:
        args = _json(arguments) or {}
        units = args.get("units") if name == "Translate" else None
        if isinstance(units, dict):  # translations by segment ids, in order
            units = [{"segments": names, "translation": text} for names, text in units.items()]
        if not isinstance(units, list):
            out.append((call_id, name, arguments))
            continue
        for k, unit in enumerate(units, start=1):
            one = {"file_id": args.get("file_id"), **(unit if isinstance(unit, dict) else {})}
            out.append((f"{call_id}-u{k}", name, json.dumps(one, ensure_ascii=False)))
    return out


def proposable(shown: Shown, offset: int) -> str:
    """What can be translated now: the rest, or up to the last blank line when Read cut the text short."""
    limit = len(shown.text)
    if not shown.whole:
        cuts = [m.start() for m in BLANK_LINE.finditer(shown.text)]
        limit = cuts[-1] if cuts else limit
    return shown.text[offset:limit].strip()


def segment_units(shown: Shown, offset: int) -> list[tuple[list[str], str]]:
    """The marked segments of `shown` from `offset` on as units: those of one paragraph joined up to
    MAX_UNIT characters, each with its ids and its source."""
    out: list[tuple[list[str], str]] = []
    start: int | None = None
    for at, name in shown.marks:
        if at < offset:
            continue
        end = shown.segment_end(name)
        joined = start is not None and end - start <= MAX_UNIT and not BLANK_LINE.search(shown.text[start:at])
        if joined and start is not None:
            out[-1] = ([*out[-1][0], name], shown.text[start:end])
        else:
            start = at
            out.append(([name], shown.text[at:end]))
    return out


def units(text: str) -> list[str]:
    """Consecutive units covering `text`: blocks at blank lines, long blocks cut to at most MAX_UNIT characters."""
    out: list[str] = []
    for block in BLANK_LINE.split(text):
        block = block.strip()
        while len(block) > MAX_UNIT:
            cut = _cut(block[: MAX_UNIT + 1])
            out.append(block[:cut].rstrip())
            block = block[cut:].lstrip()
        if block:
            out.append(block)
    return out


def _cut(window: str) -> int:
    """Where to end a unit within `window`: a line end, a sentence end, whitespace, or the hard limit."""
    for pattern in (r"\n", r"[.!?;:](?=\s)", r"\s"):
        ends = [m.end() for m in re.finditer(pattern, window[:MAX_UNIT]) if m.end() > MAX_UNIT // 4]
        if ends:
            return ends[-1]
    return MAX_UNIT


def pseudo_translate(src: str) -> str:
    """A deterministic stand-in translation that reads (and tokenizes) like French, as a real model's
    would: common English words replaced by French ones, the rest kept; code, URLs and links kept.
    (A stand-in that mangled every word, as an earlier one did, costs a tokenizer 2.6 tokens per
    source token where real French costs about 1.2, and would inflate every cost figure.)"""
    if src.startswith(("```", "    ")):
        return src
    pieces = KEPT.split(src)
    return "".join(p if i % 2 else _words(p) for i, p in enumerate(pieces))


def _words(text: str) -> str:
    """`text`'s words in French, its markup tags and placeholders kept as they are."""
    return "".join(p if i % 2 else _WORD.sub(_french, p) for i, p in enumerate(CODE.split(text)))


_WORD = re.compile(r"[A-Za-z]+")
_FRENCH = {
    "the": "le",
    "a": "un",
    "an": "un",
    "and": "et",
    "or": "ou",
    "of": "de",
    "to": "à",
    "in": "dans",
    "is": "est",
    "are": "sont",
    "be": "être",
    "been": "été",
    "has": "a",
    "have": "avoir",
    "with": "avec",
    "for": "pour",
    "on": "sur",
    "by": "par",
    "from": "de",
    "this": "ce",
    "that": "que",
    "it": "il",
    "not": "pas",
    "no": "non",
    "now": "maintenant",
    "new": "nouveau",
    "when": "quand",
    "if": "si",
    "we": "nous",
    "you": "vous",
    "can": "peut",
    "should": "devrait",
    "use": "utiliser",
    "used": "utilisé",
    "support": "prise en charge",
    "added": "ajouté",
    "fixed": "corrigé",
    "changed": "modifié",
    "removed": "supprimé",
    "fix": "correction",
    "request": "requête",
    "requests": "requêtes",
    "response": "réponse",
    "client": "client",
    "version": "version",
    "more": "plus",
    "other": "autre",
    "longer": "plus",
    "all": "tout",
    "any": "tout",
    "as": "comme",
    "at": "à",
    "but": "mais",
    "which": "qui",
    "will": "va",
    "was": "était",
    "were": "étaient",
    "now.": "maintenant.",
}


def _french(m: re.Match[str]) -> str:
    word = m.group(0)
    french = _FRENCH.get(word.lower())
    if french is None:
        return word
    return french[0].upper() + french[1:] if word[0].isupper() else french


def replaced_words(proposal: str, final: str) -> dict[str, str]:
    """Words of `proposal` the reviewer replaced one for one in `final` (same word count), each kept
    from the source (not in the stand-in's dictionary): what a model would remember as terms."""
    before, after = re.findall(r"[^\W\d_]{3,}", proposal), re.findall(r"[^\W\d_]{3,}", final)
    if len(before) != len(after):
        return {}
    return {a: b for a, b in zip(before, after, strict=True) if a != b and kept_word(a)}


def kept_word(word: str) -> bool:
    """True for a word the stand-in translation keeps from the source (not in its dictionary)."""
    return word.lower() not in _FRENCH


def file_states(msgs: list[Msg]) -> tuple[list[str], set[str]]:
    """The files in order and those the latest progress note calls complete."""
    listed: list[str] = []
    for m in msgs:
        if m.role == "system":
            listed += [f for f in LISTED.findall(m.text) if f not in listed]
    for m in reversed(msgs):
        if m.role in ("system", "user") and (COMPLETE.search(m.text) or INCOMPLETE.search(m.text)):
            done = set(COMPLETE.findall(m.text))
            order = [f for f in (*listed, *done, *INCOMPLETE.findall(m.text)) if f]
            return list(dict.fromkeys(order)), done
    return listed, set()


class TranslatorPolicy:
    """The fake server's policy of a translating model (one instance per session or benchmark run)."""

    def __init__(
        self, *, max_units: int | None = None, read_chars: int | None = None, call_per_unit: bool = False
    ) -> None:
        self.max_units = max_units
        self.read_chars = read_chars
        self.call_per_unit = call_per_unit
        """True: a Translate call a unit (the one-unit shape); False: one call with all the units."""
        self._ids = itertools.count(1)
        self._previous: dict[str, list[int]] = {}
        self._labels: dict[str, str] = {}
        """Each marked segment's context line in the latest request, by segment id."""
        self.decisions: list[str] = []
        """What each request was answered with: `translate`, `read`, `text` or `untooled` (a request
        without tools); `remember` counts the responses that also called Remember."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one request like a translating model would."""
        msgs = messages_of(body)
        notes = [m.text for m in msgs if m.role in ("system", "user")]
        self._labels = {m[2]: m[1] for text in notes for m in LABELLED.finditer(text)}
        if not body.get("tools"):
            # A request without tools (the agent makes none: learning rides on its proposals) gets text.
            self.decisions.append("untooled")
            reply = Reply(text="{}")
        else:
            reply = self._decide(msgs)
        return Reply(text=reply.text, tool_calls=reply.tool_calls, usage=self._usage(body, reply))

    def _decide(self, msgs: list[Msg]) -> Reply:
        files, done = file_states(msgs)
        latest: dict[str, list[Shown]] = {}  # a file's newest texts: a note's blocks, in order, or a Read
        for s in sorted(shown_texts(msgs), key=lambda s: (s.position, s.start)):
            if latest.get(s.file_id) and latest[s.file_id][-1].position == s.position:
                latest[s.file_id].append(s)
            else:
                latest[s.file_id] = [s]
        for pieces in sorted(latest.values(), key=lambda p: -p[0].position):
            if pieces[0].file_id in done:
                continue
            found: list[tuple[list[str] | None, str]] = []
            for s in pieces:
                offset = consumed(s, msgs)
                if s.marks:
                    found += [(names, src) for names, src in segment_units(s, offset)]
                else:
                    found += [(None, u) for u in units(proposable(s, offset))]
            if found:
                self.decisions.append("translate")
                lessons = self._remember(msgs)
                return Reply(tool_calls=(*self._translate(pieces[0].file_id, found), *lessons))
        todo = [f for f in files if f not in done]
        if not todo:
            self.decisions.append("text")
            return Reply(text="Every file is translated." if files else "Please add a file to translate.")
        args: dict[str, Any] = {"file_id": todo[0]}
        if self.read_chars:
            args["max_chars"] = self.read_chars
        self.decisions.append("read")
        return Reply(tool_calls=(ToolCallSpec("Read", json.dumps(args), self._call_id()),))

    def _translate(self, file_id: str, found: list[tuple[list[str] | None, str]]) -> list[ToolCallSpec]:
        """The units as one Translate call (`units`: translations by segment ids), or as a call each
        (`call_per_unit`, and a unit given by its source: text read without ids)."""
        units: list[dict[str, Any]] = []
        for names, src in found[: self.max_units]:
            src = LABEL.sub("", src).rstrip() if LABEL.search(src) else src
            translation: str | dict[str, str] = pseudo_translate(src)
            if names and len(names) == 1 and (plural := PLURAL.search(self._labels.get(names[0], ""))):
                source = json.loads(plural[2])  # a plural entry: its forms, as its context line lists them
                wanted = [c.strip() for c in plural[1].split(",")]
                translation = {c: pseudo_translate(source.get(c, source.get("other", ""))) for c in wanted}
            if self.call_per_unit:
                named: dict[str, Any] = {"segments": names} if names else {"src_string": src}
                units.append({**named, "translate_string": translation})
            else:
                named = {"segments": " ".join(names)} if names else {"src_string": src}
                units.append({**named, "translation": translation})
        if not self.call_per_unit and all("segments" in u for u in units):
            args = {"file_id": file_id, "units": {u["segments"]: u["translation"] for u in units}}
            return [ToolCallSpec("Translate", json.dumps(args, ensure_ascii=False), self._call_id())]
        return [
            ToolCallSpec("Translate", json.dumps({"file_id": file_id, **u}, ensure_ascii=False), self._call_id())
            for u in units
        ]

    def _remember(self, msgs: list[Msg]) -> list[ToolCallSpec]:
        """A Remember call for the reviewer's latest edits (none when there are none): those the latest
        tool returns hold, or the state note's outcome of the latest answer shows."""
        last = max((k for k, m in enumerate(msgs) if m.role == "assistant"), default=-1)
        proposals = {
            cid: str(json.loads(args).get("translate_string", ""))
            for m in msgs[: last + 1]
            for cid, name, args in m.calls
            if name == "Translate"
        }
        pairs: dict[str, str] = {}
        for m in msgs[last + 1 :]:
            result = _json(m.text) if m.role == "tool" else None
            if result and result.get("status") == "refined" and m.call_id in proposals:
                pairs.update(replaced_words(proposals[m.call_id], str(result.get("translated_string", ""))))
            if m.role == "user":
                for old, new in EDITED.findall(m.text):
                    pairs.update(replaced_words(old, new))
        if not pairs:
            return []
        self.decisions.append("remember")
        args = {"glossary": dict(list(pairs.items())[:5])}
        return [ToolCallSpec("Remember", json.dumps(args, ensure_ascii=False), self._call_id())]

    def _call_id(self) -> str:
        return f"call_{next(self._ids):06d}"

    def _usage(self, body: dict[str, Any], reply: Reply) -> UsageSpec:
        tokens = prompt_tokens(body)
        key = str(body.get("prompt_cache_key") or "")
        shared = common_prefix(tokens, self._previous.get(key, []))
        self._previous[key] = tokens
        cached = shared // 128 * 128 if shared >= 1024 else 0
        output = reply.text + "".join(c.name + c.arguments for c in reply.tool_calls)
        return UsageSpec(prompt_tokens=len(tokens), completion_tokens=len(encode(output)), cached_tokens=cached)
