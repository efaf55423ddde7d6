"""Distillation: short preferences learned from a reviewer's corrections, deterministically.

`RuleDistiller` (used with the offline `pseudo` model, whose translations it can map back to their
sources) learns two things:

- Glossary entries, from an edit (a refinement, or a revision), from prose only: no entry's term or
  target is code, a URL, a path, a @handle or a number, or lies inside a code span or block (those
  are blanked out of the texts first, `markdown_structure.prose_only`). The proposal and the
  human's text are split into words and diffed (difflib, on lower-cased words). A replaced run of
  at most 3 proposal words, by at most 4 new words, is a term substitution when the proposal's
  words can be found in the source: a pseudo translation keeps the source's words in order, only
  with accented letters, so a proposal word maps back to its source word by de-accenting
  (`unpseudo`, then Unicode accents stripped); a word the proposal kept verbatim maps to itself.
  Only a substitution in place is learned: the run has unchanged words beside it (on one side, and
  unchanged words or the text's edge on the other), no word the diff takes out comes back
  elsewhere, and no word (other than function words) is only added or only taken out (a reorder:
  the diff's runs would pair words that do not mean the same, "Take the pill" → "Ein pill nehmen"
  is not Take → Ein; nothing is learned from such an edit). Runs of equal length with at most one
  word other than function words are paired word by word ("the tool" → "le outil": tool → outil).
  The entry's source term is copied from the source and its target from the human's text, never
  from the proposal: a target word that also occurs in the proposal (words merely moved) is not
  learned, and neither is a source term made only of function words ("the", "of", …). At most 3
  per correction.
- Style notes, from a reason (a rejection's, or an edit's) that reads like a rule: a clause that
  begins with an instruction ("use …", "never …", "keep …", "don't …") or that says "should",
  "must", "instead of" or "rather than". The note is the reason as the reviewer wrote it.

A real model learns without a request of its own: it keeps lessons with the `Remember` tool, in
the response it makes anyway (`agent_core.tools.remember`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Protocol

from pydantic_ai.models import Model

from .effects import Correction
from .markdown_structure import prose_only
from .memory import GlossaryEntry, Lessons, StyleNote
from .pseudo_text import unpseudo

MAX_TERMS = 3
"""Glossary entries learned from one correction at most."""
MAX_PROPOSAL_WORDS = 3
MAX_TARGET_WORDS = 4
MAX_NOTE_CHARS = 300

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_STOPWORDS = frozenset(
    {"a", "an", "the", "of", "to", "and", "or", "in", "on", "at", "for", "by", "with", "from", "is", "are", "was"}
    | {"be", "it", "its", "this", "that", "these", "those", "as", "not", "no"}
)
# Characters that prose terms do not have and code, paths and handles do.
_CODE_CHARS = re.compile(r"[`(){}\[\]<>=_$\\/|;#@*~^]|\w\.\w|::|->")
_CLAUSES = re.compile(r"[.;:!?\n]+")
_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:always|never|use|don['’]?t|do\s+not|avoid|keep|prefer|write|translate|say|call|spell|"
    r"address|capitali[sz]e|leave|put|rephrase|stick\s+to|no\s+more)\b",
    re.I,
)
_RULE_WORDS = re.compile(r"\b(?:should|must|instead\s+of|rather\s+than)\b", re.I)


class Distiller(Protocol):
    """Turns a step's corrections into preferences for the owner's memory."""

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        """The lessons of `corrections`, for the language pair `languages` (empty when none)."""
        ...


def distiller_for(model: Model) -> Distiller | None:
    """The rules for the offline `pseudo` model (it calls no Remember); None for a real model."""
    return RuleDistiller() if model.system == "pseudo" else None


class RuleDistiller:
    """Deterministic distillation: term pairs from word diffs, style notes from rule-like reasons."""

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        """Glossary entries from edits and style notes from reasons; nothing from proposals."""
        glossary: list[GlossaryEntry] = []
        notes: list[StyleNote] = []
        for c in corrections:
            if c.status != "reject" and c.final:
                for source, target in term_pairs(c.source, c.proposal, c.final):
                    glossary.append(GlossaryEntry(source=source, target=target, languages=languages, origin="learned"))
            if c.reason and reads_like_rule(c.reason):
                text = " ".join(c.reason.split())[:MAX_NOTE_CHARS]
                notes.append(StyleNote(text=text, languages=languages, origin="learned"))
        return Lessons(glossary=tuple(glossary), style_notes=tuple(notes))


def term_pairs(source: str, proposal: str, final: str) -> list[tuple[str, str]]:
    """`(source term, human's translation)` pairs for the words the human replaced in the proposal.

    Only prose counts: the words of code spans and blocks, URLs, paths and @handles are left out
    of all three texts before they are compared.
    """
    src = list(_WORD.finditer(prose_only(source)))
    pro = list(_WORD.finditer(prose_only(proposal)))
    fin = list(_WORD.finditer(prose_only(final)))
    src_keys = [word_key(m.group()) for m in src]
    pro_words = [m.group().casefold() for m in pro]
    proposed = set(pro_words)
    fin_words = [m.group().casefold() for m in fin]
    opcodes = SequenceMatcher(a=pro_words, b=fin_words, autojunk=False).get_opcodes()
    if _reordered(opcodes, pro_words, fin_words):
        return []  # the human moved words: no changed run can be told to stand for the same source words
    pairs: list[tuple[str, str]] = []
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "replace" or i2 - i1 > MAX_PROPOSAL_WORDS or j2 - j1 > MAX_TARGET_WORDS:
            continue
        if not _anchored(opcodes, k):
            continue  # nothing unchanged beside it: the run may be any rewrite of the sentence
        runs = []
        content = sum(word_key(m.group()) not in _STOPWORDS for m in pro[i1:i2])
        if i2 - i1 == j2 - j1 and content <= 1:  # "the tool" → "le outil": one term among function words
            runs = [(i, i + 1, j1 + i - i1, j1 + i - i1 + 1) for i in range(i1, i2)]
        for a1, a2, b1, b2 in runs or [(i1, i2, j1, j2)]:
            at = _find_run(src_keys, [word_key(m.group()) for m in pro[a1:a2]])
            if at is None or all(k in _STOPWORDS for k in src_keys[at : at + a2 - a1]):
                continue
            if any(m.group().casefold() in proposed for m in fin[b1:b2]):
                continue  # the "new" words are the proposal's, moved: nothing the human wrote
            term = source[src[at].start() : src[at + a2 - a1 - 1].end()]
            target = final[fin[b1].start() : fin[b2 - 1].end()]
            if len(term) >= 2 and is_prose(term) and is_prose(target) and (term, target) not in pairs:
                pairs.append((term, target))
    return pairs[:MAX_TERMS]


def _reordered(opcodes: Sequence[tuple[str, int, int, int, int]], old: list[str], new: list[str]) -> bool:
    """True when a word the diff takes out of the proposal comes back elsewhere in the human's text
    (by its de-accented form), or words other than function words are only added or only taken out:
    the human reordered, and the diff's runs do not line up with meaning."""
    removed: dict[str, set[int]] = {}
    added: dict[str, set[int]] = {}
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            for w in old[i1:i2]:
                removed.setdefault(word_key(w), set()).add(k)
            for w in new[j1:j2]:
                added.setdefault(word_key(w), set()).add(k)
    # A word taken out and put back in the same run is kept in place (a term left untranslated).
    if any(key not in _STOPWORDS and added.get(key, runs) - runs for key, runs in removed.items()):
        return True
    # Words only added or only taken out ("Take the pill" → "Ein pill nehmen"): the meaning moved.
    return any(
        word_key(w) not in _STOPWORDS
        for tag, i1, i2, j1, j2 in opcodes
        if tag in ("insert", "delete")
        for w in (old[i1:i2] if tag == "delete" else new[j1:j2])
    )


def _anchored(opcodes: Sequence[tuple[str, int, int, int, int]], k: int) -> bool:
    """True when the k-th (replace) run has unchanged words on at least one side and, on the other, unchanged
    words or the text's edge: a substitution in place, not a rewrite."""
    before = opcodes[k - 1][0] if k > 0 else None
    after = opcodes[k + 1][0] if k + 1 < len(opcodes) else None
    return "equal" in (before, after) and before in ("equal", None) and after in ("equal", None)


def is_prose(term: str) -> bool:
    """True when `term` is words a glossary can hold: not code, a URL, a path, a @handle or a number."""
    if not any(ch.isalpha() for ch in term) or _CODE_CHARS.search(term):
        return False
    return prose_only(term) == term


def word_key(word: str) -> str:
    """A word compared across languages' spellings: pseudo letters and accents removed, lower case."""
    plain = unicodedata.normalize("NFKD", unpseudo(word))
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()


def reads_like_rule(reason: str) -> bool:
    """True when a reason states a rule for later units, not only what was wrong with this one."""
    if _RULE_WORDS.search(reason):
        return True
    return any(_INSTRUCTION.match(clause.strip()) for clause in _CLAUSES.split(reason))


def _find_run(keys: list[str], run: list[str]) -> int | None:
    """Where `run` first occurs in `keys` as consecutive items."""
    n = len(run)
    for i in range(len(keys) - n + 1):
        if keys[i : i + n] == run:
            return i
    return None
