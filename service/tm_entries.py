"""Translation-memory management (docs/api.md "Memory"): an owner's entries of one language pair listed
a page at a time, edited or deleted one by one.

A page is the pair's entries most recently changed first (by the number of the pair's write that
stored them, not by a date the data carries), optionally those whose source or target holds a text
(any case), served by the pair's replica in this process (service.tm: no storage read while it is
warm). An entry's id names its pair and its source hash (`fr.<32 hex digits>`), so an edit or a
deletion reads and writes that one entry in storage, whatever this process holds, as the pair's next
write (storage's `rewrite_tm`): an edit a new version of the entry (the later write wins), a deletion
its tombstone, which every replica that reads the pair's changes applies, so lookups, the
concordance, the analysis and the TMX export no longer see it.
"""

from __future__ import annotations

import heapq
import re

from agent_core.errors import InvalidRequestError, NotFoundError
from agent_core.tm import TmEntry, normalize, source_hash

from .blocking import blocking
from .sessions import language_tag
from .tm import TranslationMemory, tm_languages
from .tm_schemas import TmEntryView, TmPage

MAX_LIMIT = 200
"""The most entries one page holds."""
MAX_QUERY = 200
"""The longest filter text, in characters."""
_ID = re.compile(r"([a-z0-9-]{1,40})\.([0-9a-f]{32})")
_CURSOR = re.compile(r"([0-9]{1,15})\.([0-9a-f]{32})")


def entry_id(entry: TmEntry) -> str:
    """The entry's id: its pair's target language and its source hash (`fr.3f…`)."""
    return f"{entry.languages.rpartition('>')[2]}.{source_hash(normalize(entry.source), entry.languages)}"


def entry_view(entry: TmEntry) -> TmEntryView:
    """An entry as the API shows it."""
    return TmEntryView(
        id=entry_id(entry),
        source=entry.source,
        target=entry.target,
        language=entry.languages.rpartition(">")[2],
        key=entry.key,
        origin=entry.origin,
        updatedAt=entry.updated_at or None,
    )


def _order(item: tuple[str, TmEntry]) -> tuple[int, str]:
    """Where an entry (with its source hash) stands in a page: its write's number, then its hash (the
    later first)."""
    return item[1].written, item[0]


class TmEntries:
    """Lists, edits and deletes an owner's translation-memory entries."""

    def __init__(self, tm: TranslationMemory) -> None:
        self.tm = tm

    async def page(
        self, owner: str, language: str, *, q: str = "", cursor: str | None = None, limit: int = 50
    ) -> TmPage:
        """The entries for the target `language` (a BCP 47 tag or name) that hold `q` in their source or
        target (any case; blank: all), after `cursor`, at most `limit`; 422 for an unknown language, a
        cursor this did not issue, a limit out of 1 to MAX_LIMIT or a query too long."""
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequestError(f"limit is 1 to {MAX_LIMIT}.")
        if len(q) > MAX_QUERY:
            raise InvalidRequestError(f"q is at most {MAX_QUERY} characters.")
        after: tuple[int, str] | None = None
        if cursor is not None:
            if (found := _CURSOR.fullmatch(cursor)) is None:
                raise InvalidRequestError("cursor is not one this listing gave.")
            after = int(found[1]), found[2]
        tag = language_tag(language)
        if tag is None:
            raise InvalidRequestError("language names the target language (a BCP 47 tag or a name).")
        items = await self.tm.pair_items(owner, tm_languages(tag))
        return await blocking(_page, items, q.strip().casefold(), after, limit)

    async def edit(self, owner: str, entry_id: str, target: str) -> TmEntryView:
        """Give the entry a new target (it becomes `revised`, changed now); 404 for an unknown id."""
        pair, hashed = _parse(entry_id)
        return entry_view(await blocking(self.tm.rewrite, owner, pair, hashed, target))

    async def delete(self, owner: str, entry_id: str) -> None:
        """Delete the entry (its tombstone written); 404 for an unknown id."""
        pair, hashed = _parse(entry_id)
        await blocking(self.tm.rewrite, owner, pair, hashed, "")


def _page(items: list[tuple[str, TmEntry]], q: str, after: tuple[int, str] | None, limit: int) -> TmPage:
    """One page of the entries (with their source hashes; see `TmEntries.page`), with the cursor of the
    next (None: the last)."""
    shown = (
        item
        for item in items
        if (after is None or _order(item) < after)
        and (not q or q in item[1].source.casefold() or q in item[1].target.casefold())
    )
    found = heapq.nlargest(limit + 1, shown, key=_order)
    more = len(found) > limit
    found = found[:limit]
    cursor = "{}.{}".format(*_order(found[-1])) if more else None
    return TmPage(entries=[entry_view(e) for _, e in found], nextCursor=cursor)


def _parse(entry_id: str) -> tuple[str, str]:
    """The pair and the source hash an entry id names; NotFoundError for what no entry's id can be."""
    found = _ID.fullmatch(entry_id)
    if found is None:
        raise NotFoundError(f"No translation-memory entry {entry_id[:80]}.")
    return f"*>{found[1]}", found[2]
