"""DynamoDB operations on comments: each comment an item of its session's partition, the counts in one.

    S#<session> / T#<file>#<segment>#<comment>   a comment: `by`, `at`, `text` (written once); `resolved`,
                                                 `resolvedBy`, `resolvedAt` (its one changing mark)
    S#<session> / TALLY                          the session's threads' counts: `n:<file>:<segment>` (comments)
                                                 and `o:<file>:<segment>` (open ones), one number each
    S#<session> / META                           `comments`: how many the session holds

A post is one TransactWriteItems: META's count (the session must exist; MAX_COMMENTS_PER_SESSION), the
segment's counts in TALLY (MAX_COMMENTS_PER_SEGMENT) and the comment's Put. A resolve is the comment's
mark (conditional on it differing) and the open count, in one transaction. A file's counts are one
consistent GetItem of TALLY, of at most MAX_COMMENTS_PER_SESSION segments' numbers (under 200 KB): the
segment list's read does not grow with the file or the threads' text. The `T#` and `TALLY` keys sort
outside every range a step or a listing of the session reads (`M#`…`META`, `META`…`R$`), and a
session's deletion deletes every item of its partition, these with them.
"""

from __future__ import annotations

from . import comments as limits
from . import dynamodb_items as di
from .comments import (
    CommentRecord,
    CommentStore,
    ThreadCount,
    cap_error,
)
from .dynamodb_items import Item, n, s
from .dynamodb_table import DynamoDBTable
from .errors import ConflictError, NotFoundError

# Conditions, each named for why it is there:
# A comment belongs to a session that exists, and a session holds at most MAX_COMMENTS_PER_SESSION.
SESSION_HAS_ROOM = "attribute_exists(pk) AND (attribute_not_exists(comments) OR comments < :cap)"
# A segment's thread holds at most MAX_COMMENTS_PER_SEGMENT.
THREAD_HAS_ROOM = "attribute_not_exists(#n) OR #n < :cap"
# A comment is written once.
COMMENT_IS_NEW = "attribute_not_exists(sk)"
# A resolve changes a comment that exists, whose mark differs from the one asked.
MARK_DIFFERS = "attribute_exists(sk) AND resolved <> :r"


def _pk(session_id: str) -> Item:
    return s(f"S#{session_id}")


def _comment_key(session_id: str, file_id: str, segment_id: str, comment_id: str) -> Item:
    return {"pk": _pk(session_id), "sk": s(f"T#{file_id}#{segment_id}#{comment_id}")}


def _tally_key(session_id: str) -> Item:
    return {"pk": _pk(session_id), "sk": s("TALLY")}


def _names(file_id: str, segment_id: str) -> dict[str, str]:
    return {"#n": f"n:{file_id}:{segment_id}", "#o": f"o:{file_id}:{segment_id}"}


def _comment_of(session_id: str, item: Item) -> CommentRecord:
    _, file_id, segment_id, comment_id = item["sk"]["S"].split("#", 3)
    return CommentRecord(
        comment_id=comment_id,
        session_id=session_id,
        file_id=file_id,
        segment_id=segment_id,
        by=item["by"]["S"],
        at=item["at"]["S"],
        text=item["text"]["S"],
        resolved=item["resolved"]["BOOL"],
        resolved_by=item["resolvedBy"]["S"] if "resolvedBy" in item else None,
        resolved_at=item["resolvedAt"]["S"] if "resolvedAt" in item else None,
    )


class DynamoDBCommentStorage(DynamoDBTable, CommentStore):
    """Comments in their sessions' partitions (S#<session>)."""

    def _add_comment(self, comment: CommentRecord) -> None:
        """One transaction: META's count, the thread's counts, the comment."""
        c = comment
        actions: list[Item] = [
            {
                "Update": {
                    "Key": {"pk": _pk(c.session_id), "sk": s("META")},
                    "UpdateExpression": "ADD comments :one",
                    "ConditionExpression": SESSION_HAS_ROOM,
                    "ExpressionAttributeValues": {":one": n(1), ":cap": n(limits.MAX_COMMENTS_PER_SESSION)},
                }
            },
            {
                "Update": {
                    "Key": _tally_key(c.session_id),
                    "UpdateExpression": "ADD #n :one, #o :one",
                    "ConditionExpression": THREAD_HAS_ROOM,
                    "ExpressionAttributeNames": _names(c.file_id, c.segment_id),
                    "ExpressionAttributeValues": {":one": n(1), ":cap": n(limits.MAX_COMMENTS_PER_SEGMENT)},
                }
            },
            di.put(
                {
                    **_comment_key(c.session_id, c.file_id, c.segment_id, c.comment_id),
                    "by": s(c.by),
                    "at": s(c.at),
                    "text": s(c.text),
                    "resolved": {"BOOL": False},
                },
                COMMENT_IS_NEW,
            ),
        ]
        with di.storable():
            di.check_transaction(actions)
            try:
                self._transact(actions, retries=2)
            except di.Refused as exc:
                if exc.failed(0):
                    if self._get({"pk": _pk(c.session_id), "sk": s("META")}) is None:
                        raise NotFoundError(f"No session {c.session_id}.") from exc
                    raise cap_error("session") from exc
                if exc.failed(1):
                    raise cap_error("segment") from exc
                raise ConflictError("A comment with this id exists already.") from exc

    def thread(self, session_id: str, file_id: str, segment_id: str) -> list[CommentRecord]:
        """One consistent Query of the thread's items (at most MAX_COMMENTS_PER_SEGMENT)."""
        prefix = s(f"T#{file_id}#{segment_id}#")
        items = self._query(f"S#{session_id}", "begins_with(sk, :t)", {":t": prefix})
        return [_comment_of(session_id, i) for i in items]

    def resolve_comment(
        self, session_id: str, file_id: str, segment_id: str, comment_id: str, *, resolved: bool, by: str, at: str
    ) -> CommentRecord:
        """One transaction: the comment's mark where it differs, the open count; then the item as stored."""
        key = _comment_key(session_id, file_id, segment_id, comment_id)
        actions: list[Item] = [
            {
                "Update": {
                    "Key": key,
                    "UpdateExpression": "SET resolved = :r, resolvedBy = :by, resolvedAt = :at",
                    "ConditionExpression": MARK_DIFFERS,
                    "ExpressionAttributeValues": {":r": {"BOOL": resolved}, ":by": s(by), ":at": s(at)},
                }
            },
            {
                "Update": {
                    "Key": _tally_key(session_id),
                    "UpdateExpression": "ADD #o :d",
                    "ExpressionAttributeNames": {"#o": _names(file_id, segment_id)["#o"]},
                    "ExpressionAttributeValues": {":d": n(-1 if resolved else 1)},
                }
            },
        ]
        with di.storable():
            try:
                self._transact(actions, retries=2)
            except di.Refused as exc:
                if not exc.failed(0):
                    raise
        item = self._get(key)
        if item is None:
            raise NotFoundError(f"No comment {comment_id[:80]} on this segment.")
        return _comment_of(session_id, item)

    def comment_counts(self, session_id: str, file_id: str) -> dict[str, ThreadCount]:
        """One consistent GetItem of TALLY."""
        tally = self._get(_tally_key(session_id)) or {}
        prefix = f"n:{file_id}:"
        out: dict[str, ThreadCount] = {}
        for name, value in tally.items():
            if name.startswith(prefix):
                segment_id = name.removeprefix(prefix)
                total = int(value["N"])
                if total > 0:
                    out[segment_id] = ThreadCount(total, int(tally.get(f"o:{file_id}:{segment_id}", n(0))["N"]))
        return out

    def session_comments(self, session_id: str) -> list[CommentRecord]:
        """One consistent Query of the session's comment items, page after page (bounded by the cap)."""
        items = self._query(f"S#{session_id}", "begins_with(sk, :t)", {":t": s("T#")})
        return [_comment_of(session_id, i) for i in items]
