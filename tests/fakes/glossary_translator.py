"""A scripted translator that follows the instructions it is shown, for measuring what the memory teaches.

It is a pydantic-ai `FunctionModel` function. Each request, it reads only what the agent put in the
request: the screen of untranslated text (`<next-text file=…>` with each segment's `【s12】`
mark), the glossary section of the state note (`- «term» → «target»` lines under "Glossary"), and what
became of its latest proposals (the note's outcome lines, `- …: edited, «proposal» → «text»`, once
their calls are decided; a `Translate` result still in the request too). It then:

- translates every segment of the screen (one unit a segment) word by word from a fixed lexicon
  (`LEXICON`: the renderings a model would choose on its own; a word it does not know stays as it
  is), except that a word the glossary names is rendered as the glossary says (its case kept);
- calls `Remember` for each word the reviewer changed in its latest proposals (an edit whose text
  replaced one of its renderings by another word: the source word it rendered, and the
  reviewer's word), as a real model keeps a lesson it was asked to; after the last batch too, in a
  response of its own, before it says it is done.

It never sees the reviewer's preferences: only the corrections the agent shows it and the glossary
the memory gives back. With nothing left to translate, it answers with text.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

NEXT_TEXT = re.compile(r'<next-text file="([^"]+)">(.*?)</next-text>', re.DOTALL)
MARK = re.compile(r"【(s\d+)】")
GLOSSARY_LINE = re.compile(r"^- «(.+?)» → «(.+?)»$", re.MULTILINE)
EDITED = re.compile(r"^- [^\n]*: edited, «(.*)» → «(.*)»$", re.MULTILINE)
"""A unit of the latest answer the reviewer edited, as the state note's outcome says it."""
WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
KEPT = re.compile(r"(`[^`\n]*`|https?://\S+|\]\([^)]*\))")

LEXICON = {
    "request": "demande",
    "requests": "demandes",
    "response": "retour",
    "responses": "retours",
    "timeout": "temporisation",
    "timeouts": "temporisations",
    "header": "entête",
    "headers": "entêtes",
    "redirect": "renvoi",
    "redirects": "renvois",
    "proxy": "relais",
    "proxies": "relayeurs",
    "support": "soutien",
    "added": "additionné",
    "fixed": "réparé",
    "changed": "altéré",
    "client": "chaland",
    "the": "le",
    "and": "et",
    "when": "quand",
    "with": "avec",
    "for": "pour",
    "of": "de",
    "to": "à",
    "in": "dans",
    "is": "est",
    "now": "maintenant",
}
"""What the scripted model writes for a source word when nothing tells it otherwise."""


def _cased(word: str, like: str) -> str:
    """`word` with the case of `like` (capitalised or upper case)."""
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def in_prose(text: str, change: Any) -> str:
    """`text` with `change` (a `re.Match` of a word → its replacement) applied to its words outside code
    spans, links' targets and URLs, which stay as they are."""
    pieces = KEPT.split(text)  # prose, kept, prose, kept, ...
    return "".join(piece if k % 2 else WORD.sub(change, piece) for k, piece in enumerate(pieces))


def render(source: str, glossary: dict[str, str]) -> str:
    """`source` translated word by word: the glossary's rendering first, else the lexicon's, else the word."""

    def one(match: re.Match[str]) -> str:
        word = match.group()
        key = word.casefold()
        chosen = glossary.get(key) or LEXICON.get(key)
        return _cased(chosen, word) if chosen else word

    return in_prose(source, one)


def _screen(request: ModelRequest) -> list[tuple[str, str, str]]:
    """The segments the request shows as untranslated: (file handle, segment id, source text)."""
    out: list[tuple[str, str, str]] = []
    for part in request.parts:
        if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
            continue
        for block in NEXT_TEXT.finditer(part.content):
            pieces = MARK.split(block.group(2))  # text, id, text, id, text, ...
            for k in range(1, len(pieces) - 1, 2):
                text = pieces[k + 1].strip()
                if text:
                    out.append((block.group(1), pieces[k], text))
    return out


def _glossary(request: ModelRequest) -> dict[str, str]:
    """The glossary section of the request's state note, by term (case folded)."""
    found: dict[str, str] = {}
    for part in request.parts:
        if isinstance(part, UserPromptPart) and isinstance(part.content, str) and "Glossary" in part.content:
            section = part.content.split("Glossary", 1)[1]
            found |= {term.casefold(): target.casefold() for term, target in GLOSSARY_LINE.findall(section)}
    return found


def _edits(messages: list[ModelMessage], request: ModelRequest) -> list[tuple[str, str]]:
    """The reviewer's edits of its latest proposals, (proposal, their text): from the state note's outcome
    lines (`- …: edited, «proposal» → «text»`), where the agent shows them once their calls are decided,
    else from `Translate` results still in the request."""
    edits: list[tuple[str, str]] = []
    for part in request.parts:
        if isinstance(part, UserPromptPart) and isinstance(part.content, str):
            edits += EDITED.findall(part.content)
    proposals = {
        p.tool_call_id: p.args_as_dict()
        for m in messages
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.tool_name == "Translate"
    }
    for part in request.parts:
        if not (isinstance(part, ToolReturnPart) and part.tool_name == "Translate"):
            continue
        content = part.content if isinstance(part.content, dict) else {}
        proposal = str(proposals.get(part.tool_call_id, {}).get("translate_string", ""))
        if content.get("status") == "refined" and proposal:
            edits.append((proposal, str(content.get("translated_string", ""))))
    return edits


def _lessons(messages: list[ModelMessage], request: ModelRequest) -> dict[str, str]:
    """What the reviewer's edits of its latest proposals teach: source word → their word."""
    reverse = {target: source for source, target in LEXICON.items()}
    found: dict[str, str] = {}
    for proposal, edited in _edits(messages, request):
        old = [w.casefold() for w in WORD.findall(proposal)]
        new = [w.casefold() for w in WORD.findall(edited)]
        for op, a, b, c, d in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
            if op == "replace" and b - a == 1 and old[a] in reverse:
                found[reverse[old[a]]] = " ".join(new[c:d])
    return found


class GlossaryTranslator:
    """The scripted translator: call it as a `FunctionModel` function (see the module's note)."""

    def __init__(self) -> None:
        self.calls = itertools.count(1)
        self.requests = 0
        """How many model requests it answered."""
        self.glossary_seen: set[str] = set()
        """Every glossary term it was shown."""

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """One response: the lessons of the latest edits, then the screen's units."""
        self.requests += 1
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        screen = _screen(request)
        glossary = _glossary(request)
        self.glossary_seen |= set(glossary)
        parts: list[Any] = []
        if lessons := _lessons(messages, request):  # the last batch's edits are kept too, before the closing text
            parts.append(ToolCallPart("Remember", {"glossary": lessons}, tool_call_id=f"r{next(self.calls)}"))
        if not screen:
            return ModelResponse(parts=parts or [TextPart("The files are translated.")])
        for handle, segment, source in screen:
            args = {"file_id": handle, "segments": [segment], "translate_string": render(source, glossary)}
            parts.append(ToolCallPart("Translate", json.dumps(args), tool_call_id=f"t{next(self.calls)}"))
        return ModelResponse(parts=parts)

    @property
    def model(self) -> FunctionModel:
        """The translator as a pydantic-ai model."""
        return FunctionModel(self, model_name="glossary-translator")
