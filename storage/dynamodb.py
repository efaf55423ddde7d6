"""DynamoDBSessionStorage: one table, one item per message, verdict, unit and file chunk.

Layout (pk / sk; template.yaml declares the table and its `by-owner` index):

    S#<session>                  META                      the session: owner, times, counters, version
    S#<session>                  H#…, V#…                  the hot window: the latest messages and verdicts
                                                           (storage.dynamodb_hot)
    S#<session>                  F#<file>                  a file: name, size, coverage
    S#<session>                  C#<file>#<n:05>           a chunk of the file's text (CHUNK_CHARS characters)
    S#<session>                  D#<file>#<n:05>           a chunk of the document the file was taken from
    S#<session>                  A#<digest>                marks the session's kept answer I#<digest>
    S#<session>#B#<bucket:06>    M#<index:010>             one pydantic-ai message (JSON)
    S#<session>#B#<bucket:06>    R#<response:010>#<call>   a verdict on a call of the response at <response>
    S#<session>#U#<file>#<n:05>  <start:010>               a written unit (n = start // UNIT_SPAN)
    I#<digest>                   IDEMPOTENCY               a kept answer (digest of owner and key; TTL expiresAt)
    O#<owner>                    K#<time>#<n>              a correction for the owner's memory
    O#<owner>                    P#<entry>                 a glossary entry or style note of the owner's memory
    O#<owner>                    N#<kind>                  how many entries of that kind the owner has
    O#<owner>…                   T#…, TN                   the owner's translation memory (storage.dynamodb_tm)

No item grows with the session, and no partition either: messages and verdicts live in buckets of
BUCKET messages (bucket = index // BUCKET), units in spans of the source. A step reads META, the
files and the hot window (the latest messages and the verdicts on the latest two responses,
compressed, in small items beside META: storage.dynamodb_hot) in one Query, so the buckets are read
only for what the hot window lacks. It commits in one
TransactWriteItems whose conditions are named below (a unit is written with the commit's time; a
revision updates it in place, so nothing is counted twice). The `by-owner` index (gsi1pk = O#<owner>,
gsi1sk = <updatedAt>#<session>) lists an owner's sessions newest first, and under TM#<owner> the
owner's translation-memory entries by the time they were written. Sizes are checked before
DynamoDB is called, as DynamoDB counts them (names plus UTF-8 values), so an oversized record is a
TooLargeError that says what to shorten; an idempotency answer too large to keep is dropped rather
than failing its request.
"""

from __future__ import annotations

import os
import random
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse

from agent_core.document import FileState
from agent_core.effects import Correction, SessionSnapshot, StepEffects, StepToken, StoredAnswer, UnitWrite, Verdict
from agent_core.errors import InvalidRequestError, TooLargeError
from agent_core.tm import TmEntry

from . import dynamodb_hot as hot
from . import dynamodb_items as di
from . import dynamodb_tm as tm
from .codec import dump_message, dump_verdict, load_messages, load_verdict
from .dynamodb_items import BUCKET, UNIT_SPAN, Item, n, s
from .errors import ConflictError, InvalidCursorError, NotFoundError, StorageUnavailableError
from .interface import CHUNK_CHARS, MAX_TM_ENTRIES, Storage, TmRecord, chunks, tm_record
from .records import MemoryEntryRecord, Page, SessionRecord

INDEX = "by-owner"

# Conditions, each named for why it is there:
# A new session must not overwrite an existing one (two "create" steps racing on one id).
IS_NEW = "attribute_not_exists(pk)"
# Optimistic concurrency: a step commits only over the version it loaded.
SAME_VERSION = "version = :expected"
# History is append-only: a message, unit, file or new memory entry is never overwritten (a replay fails whole).
NOT_WRITTEN = "attribute_not_exists(sk)"
# A file's coverage is updated only while the file (and so its session) still exists.
FILE_EXISTS = "attribute_exists(sk)"
# A revision replaces a written unit: one that is not written fails the step (NotFoundError).
UNIT_WRITTEN = "attribute_exists(sk)"
# A file is added only to a session that exists, and only while it holds fewer than :max files
# (the count is raised in the same transaction, so concurrent uploads cannot pass the cap together).
FILE_ROOM = "attribute_exists(pk) AND (attribute_not_exists(fileCount) OR fileCount < :max)"
# An owner's entries of one kind are counted in the same transaction that adds one, capped at :max.
ENTRY_ROOM = "attribute_not_exists(entryCount) OR entryCount < :max"
# A replaced (or deleted) memory entry is still the one that was read: its kind decides its counter.
SAME_KIND = "kind = :kind"
# An Idempotency-Key's answer is written once; an expired one (TTL not yet swept) may be replaced.
KEY_FREE = "attribute_not_exists(pk) OR expiresAt <= :now"


@lru_cache(maxsize=4)
def dynamodb_client(endpoint_url: str | None = None) -> Any:
    """A boto3 DynamoDB client, reused across warm invocations."""
    import boto3

    return boto3.client("dynamodb", endpoint_url=endpoint_url)


class DynamoDBSessionStorage(Storage):
    """Sessions and owners' memory in one DynamoDB table, through an injected boto3 client."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        self.client = boto3_client
        self.table = table_name
        self._writer = secrets.token_hex(8)
        """Names this instance's translation-memory writes, which its own reads of the changes leave out."""
        self._entries_seen: dict[str, int] = {}
        """How many memory entries each owner had at the last read: sizes the next read's page (a hint)."""

    @classmethod
    def from_env(cls) -> DynamoDBSessionStorage:
        """The table `SESSIONS_TABLE`, through a cached client (`AWS_ENDPOINT_URL_DYNAMODB` works)."""
        table = os.environ.get("SESSIONS_TABLE")
        if not table:
            raise ValueError("STORAGE_BACKEND=dynamodb needs SESSIONS_TABLE, the table's name.")
        return cls(dynamodb_client(), table_name=table)

    # -- sessions and steps --------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record."""
        item = self._get({"pk": s(di.session_pk(session_id)), "sk": s("META")})
        if item is None:
            raise NotFoundError(f"No session {session_id}.")
        return di.session_record(item)

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        """META (with its hot window) and the files in one Query; the buckets only for what META lacks."""
        head = list(self._query(di.session_pk(session_id), "sk >= :f", {":f": s("F#")}))
        meta = next((i for i in head if i["sk"]["S"] == "META"), None)
        if meta is None:
            raise NotFoundError(f"No session {session_id}.")
        count = int(meta["messageCount"]["N"])
        first = max(0, count - max(window, 0))
        data = hot.window(meta, head, first, count)
        if data is None:
            items = (i for b in di.buckets(first, count) for i in self._messages(session_id, b, first, count))
            data = [i["data"]["S"] for i in items]
        messages = load_messages(data)
        responses = [first + k for k, m in enumerate(messages) if isinstance(m, ModelResponse)]
        latest = responses[-1] if responses else -1
        previous = responses[-2] if len(responses) > 1 else -1
        return di.snapshot(
            session_id,
            meta,
            head,
            messages,
            first,
            latest=(latest, self._verdicts(session_id, meta, head, latest)),
            previous=(previous, self._verdicts(session_id, meta, head, previous)),
        )

    def _messages(self, session_id: str, bucket: int, first: int, count: int) -> Iterator[Item]:
        """The bucket's messages in `[first, count)`."""
        start, end = max(first, bucket * BUCKET), min(count, (bucket + 1) * BUCKET) - 1
        values = {":a": s(di.message_sk(start)), ":b": s(di.message_sk(end))}
        return self._query(di.bucket_pk(session_id, start), "sk BETWEEN :a AND :b", values)

    def _verdicts(self, session_id: str, meta: Item, head: Sequence[Item], response_index: int) -> list[str]:
        """The stored verdicts on the response at `response_index`: from the hot window, else its bucket."""
        found = hot.verdicts(meta, head, response_index)
        if found is not None:
            return found
        prefix = {":r": s(di.verdict_sk(response_index, ""))}
        items = self._query(di.bucket_pk(session_id, response_index), "begins_with(sk, :r)", prefix)
        return [i["data"]["S"] for i in items]

    def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None = None) -> None:
        """One TransactWriteItems, conditional on the session's version.

        `answer` is kept with the step unless its item would exceed DynamoDB's limits: then it is
        dropped (the step still commits; a retry is answered by the session's state, not by replay).
        """
        sid, now = token.session_id, di.now_iso()
        verdicts = {v.tool.call_id: v for v in effects.verdicts}  # one write per call: the last verdict wins
        if verdicts and token.response_index < 0:
            raise InvalidRequestError("There is no model response for these copilot responses to answer.")
        new_verdicts = len(verdicts.keys() - token.verdict_ids)
        with di.storable():
            dumped = [dump_message(m) for m in effects.messages]
            answers = {call_id: dump_verdict(v) for call_id, v in verdicts.items()}
            responses = [isinstance(m, ModelResponse) for m in effects.messages]
            actions = [self._meta_write(token, effects, new_verdicts, now)]
            pk = di.session_pk(sid)
            actions += hot.hot_writes(token, pk, dumped, responses, answers)
            for k, data in enumerate(dumped):
                index = token.message_count + k
                actions.append(di.put(di.message_item(sid, index, data), f"Message {index}", NOT_WRITTEN))
            for call_id, data in answers.items():
                item = di.verdict_item(sid, token.response_index, call_id, data, now)
                actions.append(di.put(item, f"The copilot response to {call_id}"))
            revised = _unit_writes(sid, effects, now, actions)
            for file_id, covered in effects.coverage.items():
                key = {"pk": s(di.session_pk(sid)), "sk": s(f"F#{file_id}")}
                values = {":c": s(di.to_json(covered))}
                actions.append(di.update(key, "SET covered = :c", values, FILE_EXISTS, "The file's coverage"))
            for order, c in enumerate(effects.corrections):
                actions.append(di.put(di.correction_item(sid, token.owner, c, now, order), "A correction"))
            remembered = [tm_record(e) for e in effects.memory]
            memory = tm.step_writes(token.owner, remembered, effects.memory_added, now, self._writer)
        di.check_transaction([size for _, size in actions])
        later = not tm.fits(memory, beside=[size for _, size in actions])
        if not later:
            actions += memory
        if answer is not None:
            actions += self._answer_writes(sid, answer, int(time.time()), beside=[size for _, size in actions])
        try:
            self._transact([action for action, _ in actions])
        except di.Refused as exc:
            missing = [u for k, u in revised.items() if exc.failed(k)]
            if missing and not exc.failed(0):  # a stale version is a ConflictError: reload, then see
                u = missing[0]
                raise NotFoundError(f"No written unit begins at {u.start} of {u.file_id}.") from exc
            raise
        if later:  # a step too large to carry its memory entries: they follow it
            self.put_tm(token.owner, remembered, max_entries=MAX_TM_ENTRIES)

    def _meta_write(self, token: StepToken, effects: StepEffects, new_verdicts: int, now: str) -> tuple[Item, int]:
        """Create META (version 0) or update it over the token's version: counters are ADDed, and `hot`
        (storage.dynamodb_hot) set where absent."""
        counts = {attr: getattr(effects.telemetry, field) for field, attr in di.TELEMETRY.items()}
        counts["copilotResponseCount"] = new_verdicts
        message_count = token.message_count + len(effects.messages)
        inputs = None if effects.user_inputs is None else s(di.to_json(list(effects.user_inputs)))
        queued = None if effects.queued_inputs is None else s(di.to_json(list(effects.queued_inputs)))
        what = "The session's user inputs"
        if token.version == 0:
            item = di.meta_item(token.session_id, token.owner, token.created_at, now)
            item |= {attr: n(v) for attr, v in counts.items()} | {"version": n(1), "messageCount": n(message_count)}
            item |= {"userInputs": inputs or s("[]"), "queuedInputs": queued or s("[]"), "hot": n(0)}
            return di.put(item, what, IS_NEW)
        values = {":next": n(token.version + 1), ":now": s(now), ":g": s(f"{now}#{token.session_id}")}
        values |= {":count": n(message_count), ":expected": n(token.version), ":since": n(token.message_count)}
        sets = "version = :next, updatedAt = :now, gsi1sk = :g, messageCount = :count, hot = if_not_exists(hot, :since)"
        if inputs is not None:
            sets, values[":u"] = sets + ", userInputs = :u", inputs
        if queued is not None:
            sets, values[":q"] = sets + ", queuedInputs = :q", queued
        added = {attr: v for attr, v in counts.items() if v}  # a counter that does not move is left alone
        values |= {f":{attr}": n(v) for attr, v in added.items()}
        adds = f" ADD {', '.join(f'{attr} :{attr}' for attr in added)}" if added else ""
        key = {"pk": s(di.session_pk(token.session_id)), "sk": s("META")}
        return di.update(key, f"SET {sets}{adds}", values, SAME_VERSION, what)

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, newest first (the by-owner index)."""
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :o",
            "ExpressionAttributeValues": {":o": s(f"O#{owner}")},
            "ScanIndexForward": False,
            "Limit": max(1, limit),
        }
        if cursor:
            start = di.decode_cursor(cursor)
            if start.get("gsi1pk") != {"S": f"O#{owner}"} or set(start) != {"pk", "sk", "gsi1pk", "gsi1sk"}:
                raise InvalidCursorError("This cursor belongs to another listing.")
            args["ExclusiveStartKey"] = start
        with _errors():
            page = self.client.query(**args)
            last = page.get("LastEvaluatedKey")
            if last and len(page["Items"]) == args["Limit"]:
                # DynamoDB may report a next key on an exactly full last page; look ahead once.
                last = last if self.client.query(**{**args, "ExclusiveStartKey": last, "Limit": 1})["Items"] else None
        return Page([di.session_record(i) for i in page["Items"]], di.encode_cursor(last) if last else None)

    def delete_session(self, session_id: str) -> None:
        """Delete every item of the session, its kept answers included; the META item goes last."""
        names = {"#m": "messageCount", "#c": "chars"}
        own = list(
            self._query(
                di.session_pk(session_id), ProjectionExpression="pk, sk, #m, #c", ExpressionAttributeNames=names
            )
        )
        partitions: list[str] = []
        answers: list[Item] = []
        for item in own:
            sk = item["sk"]["S"]
            if sk == "META":
                count = int(item["messageCount"]["N"])
                partitions += [di.bucket_pk(session_id, b * BUCKET) for b in range(count // BUCKET + 1)]
            elif sk.startswith("F#"):
                chars = int(item["chars"]["N"])
                partitions += [di.unit_pk(session_id, sk[2:], k * UNIT_SPAN) for k in range(chars // UNIT_SPAN + 1)]
            elif sk.startswith("A#"):
                answers.append({"pk": s(f"I#{sk[2:]}"), "sk": s("IDEMPOTENCY")})
        keys = [
            {"pk": i["pk"], "sk": i["sk"]} for pk in partitions for i in self._query(pk, ProjectionExpression="pk, sk")
        ]
        own_keys = sorted(({"pk": i["pk"], "sk": i["sk"]} for i in own), key=lambda k: k["sk"]["S"] == "META")
        self._batch_write([{"DeleteRequest": {"Key": key}} for key in keys + answers + own_keys])

    # -- messages and verdicts -----------------------------------------------------------------

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[ModelMessage]:
        """The messages, oldest first; the cursor is the index of the next one."""
        count = self.get_session(session_id).message_count
        start = di.cursor_number(di.decode_cursor(cursor), "i", at_most=count) if cursor else 0
        end = min(count, start + max(1, limit))
        data: list[str] = []
        for b in di.buckets(start, end):
            first, last = max(start, b * BUCKET), min(end, (b + 1) * BUCKET) - 1
            bounds = {":a": s(di.message_sk(first)), ":b": s(di.message_sk(last))}
            data += [
                i["data"]["S"] for i in self._query(di.bucket_pk(session_id, first), "sk BETWEEN :a AND :b", bounds)
            ]
        return Page(load_messages(data), di.encode_cursor({"i": end}) if end < count else None)

    def list_verdicts(self, session_id: str, *, cursor: str | None, limit: int) -> Page[Verdict]:
        """All verdicts, oldest first, bucket by bucket; the cursor names a bucket and the last key read."""
        count, limit = self.get_session(session_id).message_count, max(1, limit)
        last_bucket = (count - 1) // BUCKET if count else -1
        bucket, after = di.verdict_position(cursor, last_bucket)
        found: list[tuple[int, Item]] = []
        while bucket <= last_bucket and len(found) <= limit:
            pk = di.bucket_pk(session_id, bucket * BUCKET)
            args = di.query_args(pk, "begins_with(sk, :r)", {":r": s("R#")}) | {"Limit": limit + 1 - len(found)}
            if after:
                args["ExclusiveStartKey"] = {"pk": s(pk), "sk": s(after)}
            with _errors():
                page = self.client.query(TableName=self.table, **args)
            found += [(bucket, i) for i in page["Items"]]
            after = page.get("LastEvaluatedKey", {}).get("sk", {}).get("S")
            bucket += 0 if after else 1
        next_cursor = None
        if len(found) > limit:
            found = found[:limit]
            next_cursor = di.encode_cursor({"b": found[-1][0], "k": found[-1][1]["sk"]["S"]})
        return Page([load_verdict(i["data"]["S"]) for _, i in found], next_cursor)

    # -- files and units -----------------------------------------------------------------------

    def add_file(
        self, session_id: str, file: FileState, content: str, *, max_files: int, original: str | None = None
    ) -> None:
        """Chunks first (the original's too), then the file item and the session's file count in one transaction.

        A refused file's chunks are deleted again; a crash between leaves only chunks that no file
        item names, which deleting the session removes.
        """
        pk = s(di.session_pk(session_id))
        with di.storable():
            parts = [
                {"pk": pk, "sk": s(di.chunk_sk(file.file_id, k)), "text": s(t)} for k, t in enumerate(chunks(content))
            ]
            item = di.file_item(session_id, file, file.created_at or di.now_iso(), len(parts))
            if original is not None:
                parts += [
                    {"pk": pk, "sk": s(di.original_sk(file.file_id, k)), "text": s(t)}
                    for k, t in enumerate(chunks(original))
                ]
            for part in (*parts, item):
                di.check_size(part, "The file")
        self._batch_write([{"PutRequest": {"Item": p}} for p in parts])
        values = {":one": n(1), ":max": n(max_files)}
        count = di.update({"pk": pk, "sk": s("META")}, "ADD fileCount :one", values, FILE_ROOM, "")[0]
        count["Update"]["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        try:
            self._transact([count, di.put(item, "", NOT_WRITTEN)[0]], retries=8)
        except di.Refused as exc:
            if exc.codes[1] == "ConditionalCheckFailed":
                raise ConflictError(f"The file {file.file_id} was already added.") from exc
            self._batch_write([{"DeleteRequest": {"Key": {"pk": p["pk"], "sk": p["sk"]}}} for p in parts])
            if exc.items[0] is None:
                raise NotFoundError(f"No session {session_id}.") from exc
            raise InvalidRequestError(f"A session holds at most {max_files} files.") from exc

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """Only the chunks that hold `[start, end)`, in one query."""
        start = max(0, start)
        first, last = start // CHUNK_CHARS, min((max(end, 1) - 1) // CHUNK_CHARS, 99_999)
        texts: list[str] = []
        if end > start and first <= last:
            bounds = {":a": s(di.chunk_sk(file_id, first)), ":b": s(di.chunk_sk(file_id, last))}
            texts = [i["text"]["S"] for i in self._query(di.session_pk(session_id), "sk BETWEEN :a AND :b", bounds)]
        if not texts:
            self._file(session_id, file_id)  # NotFound for an unknown file; else the range is past its end
            return ""
        offset = first * CHUNK_CHARS
        return "".join(texts)[start - offset : end - offset]

    def read_original(self, session_id: str, file_id: str) -> str | None:
        """The document the file was taken from, in one query (None if it was stored without one)."""
        bounds = {":a": s(di.original_sk(file_id, 0)), ":b": s(di.original_sk(file_id, 99_999))}
        texts = [i["text"]["S"] for i in self._query(di.session_pk(session_id), "sk BETWEEN :a AND :b", bounds)]
        if not texts:
            self._file(session_id, file_id)  # NotFound for an unknown file
            return None
        return "".join(texts)

    def list_units(self, session_id: str, file_id: str) -> list[UnitWrite]:
        """The file's units by position, span by span."""
        chars = self._file(session_id, file_id).chars
        spans = range(chars // UNIT_SPAN + 1)
        return [di.unit_write(i) for k in spans for i in self._query(di.unit_pk(session_id, file_id, k * UNIT_SPAN))]

    def _file(self, session_id: str, file_id: str) -> FileState:
        item = self._get({"pk": s(di.session_pk(session_id)), "sk": s(f"F#{file_id}")})
        if item is None:
            raise NotFoundError(f"No file {file_id} in this session.")
        return di.file_state(item)

    # -- kept answers --------------------------------------------------------------------------

    def get_answer(self, owner: str, key: str, *, now: int) -> StoredAnswer | None:
        """The unexpired answer for the owner's key, if any."""
        item = self._get({"pk": s(f"I#{di.answer_digest(owner, key)}"), "sk": s("IDEMPOTENCY")})
        if item is None or int(item["expiresAt"]["N"]) <= now:
            return None
        return di.stored_answer(owner, key, item)

    def keep_answer(self, session_id: str | None, answer: StoredAnswer, *, now: int) -> None:
        """Keep the answer (ConflictError if an unexpired one exists); one too large to keep is dropped."""
        writes = self._answer_writes(session_id, answer, now, beside=[])
        if writes:
            self._transact([action for action, _ in writes])

    def _answer_writes(
        self, session_id: str | None, a: StoredAnswer, now: int, *, beside: Sequence[int]
    ) -> list[tuple[Item, int]]:
        """The answer's Put (and its marker in the session), or nothing if they would not fit."""
        answer = di.answer_item(a)
        put = {"Item": answer, "ConditionExpression": KEY_FREE, "ExpressionAttributeValues": {":now": n(now)}}
        writes = [({"Put": put}, di.item_size(answer))]
        if session_id is not None:
            marker = di.answer_marker(session_id, a)
            writes.append(({"Put": {"Item": marker}}, di.item_size(marker)))
        try:
            with di.storable():
                di.check_size(answer, "The answer")
            di.check_transaction([*beside, *(size for _, size in writes)])
        except InvalidRequestError:
            return []  # the request stands without its kept answer: a retry sees the session's state instead
        return writes

    # -- the owner's memory --------------------------------------------------------------------

    def recent_corrections(self, owner: str, *, limit: int) -> list[Correction]:
        """Newest first."""
        if limit <= 0:
            return []
        args = di.query_args(f"O#{owner}", "begins_with(sk, :k)", {":k": s("K#")})
        with _errors():
            items = self.client.query(TableName=self.table, **args, ScanIndexForward=False, Limit=limit)["Items"]
        return [di.correction(i) for i in items]

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes (one partition, bounded), oldest first."""
        entries = [di.memory_entry(i) for i in self._query(f"O#{owner}", "begins_with(sk, :m)", {":m": s("P#")})]
        return sorted(entries, key=lambda e: (e.created_at, e.entry_id))

    def memory_snapshot(self, owner: str, *, corrections: int) -> tuple[list[MemoryEntryRecord], list[Correction]]:
        """One Query, newest first, of the owner's partition from its entries (P#, bounded by their caps)
        down through the kinds' counters (N#) into the corrections (K#), stopped after `corrections` of
        them: its page is sized by how many entries the owner had last time, so it is normally one call."""
        args = di.query_args(f"O#{owner}", "sk BETWEEN :k AND :top", {":k": s("K#"), ":top": s("P$")})
        entries: list[MemoryEntryRecord] = []
        found: list[Correction] = []
        key: Item | None = None
        past_entries = False
        while True:
            limit = self._entries_seen.get(owner, 8) + 4 + max(corrections, 0)
            page_args = {**args, **({"ExclusiveStartKey": key} if key else {})}
            with _errors():
                page = self.client.query(TableName=self.table, **page_args, ScanIndexForward=False, Limit=limit)
            for item in page["Items"]:
                kind = item["sk"]["S"][:2]
                if kind == "P#":
                    entries.append(di.memory_entry(item))
                    continue
                past_entries = True
                if kind == "K#" and len(found) < corrections:
                    found.append(di.correction(item))
            key = page.get("LastEvaluatedKey")
            if key is None or (past_entries and len(found) >= corrections):
                break
            self._entries_seen[owner] = len(entries) + 8  # more than guessed: the next page, and next time
        self._entries_seen[owner] = len(entries)
        return sorted(entries, key=lambda e: (e.created_at, e.entry_id)), found

    def put_memory_entry(self, record: MemoryEntryRecord, *, max_entries: int) -> None:
        """Add the entry with its kind's count raised (capped) in one transaction, or replace it in place.

        A replacement keeps the entry's kind (its count stays right): one of another kind is refused.
        """
        item = di.memory_item(record)
        with di.storable():
            di.check_size(item, "The memory entry")
        add, same = di.put(item, "", NOT_WRITTEN)[0], di.put(item, "", SAME_KIND)[0]
        same["Put"]["ExpressionAttributeValues"] = {":kind": s(record.kind)}
        for _ in range(4):
            try:
                self._transact([self._entry_count(record.owner, record.kind, +1, max_entries), add], retries=8)
                return
            except di.Refused as exc:
                full = exc.codes[1] != "ConditionalCheckFailed"
            try:  # it exists (or the count is full): replace it in place, its count unchanged
                with _errors():
                    self.client.put_item(TableName=self.table, **same["Put"])
                return
            except di.Refused as exc:
                if full:
                    message = f"The memory holds at most {max_entries} {record.kind} entries; delete some first."
                    raise InvalidRequestError(message) from exc
                # deleted meanwhile: add it again
        raise ConflictError(f"The memory entry {record.entry_id} changed meanwhile, or is of another kind.")

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry and lower its kind's count, in one transaction."""
        key = {"pk": s(f"O#{owner}"), "sk": s(f"P#{entry_id}")}
        found = self._get(key)
        if found is None:
            raise NotFoundError(f"No memory entry {entry_id}.")
        kind = found["kind"]["S"]
        delete = {"Key": key, "ConditionExpression": SAME_KIND}
        delete["ExpressionAttributeValues"] = {":kind": s(kind)}
        try:
            self._transact([{"Delete": delete}, self._entry_count(owner, kind, -1, None)], retries=8)
        except di.Refused as exc:
            raise NotFoundError(f"No memory entry {entry_id}.") from exc

    def _entry_count(self, owner: str, kind: str, delta: int, cap: int | None) -> Item:
        values = {":d": n(delta)} | ({":max": n(cap)} if cap is not None else {})
        key = di.memory_counter_key(owner, kind)
        return di.update(key, "ADD entryCount :d", values, ENTRY_ROOM if cap is not None else None, "")[0]

    # -- the owner's translation memory (items and planning in storage.dynamodb_tm) --------------

    def put_tm(self, owner: str, records: Sequence[TmRecord], *, max_entries: int) -> tuple[int, int, int]:
        """Add or replace entries by source hash, in rounds; new ones past the cap are skipped.

        A round reads up to 99 entries and the owner's count (one BatchGetItem) and writes what fits in
        one TransactWriteItems: the count ADDed for the new entries (capped), each entry, its key index
        items and, for an update, the Deletes of its old ones. A round a race refused is read again.
        """
        now = di.now_iso()
        with di.storable():
            latest = tm.checked(owner, records, now)
        outcome: dict[str, tm.Outcome] = {}
        pending, refused = list(latest), 0
        while pending:
            chunk = pending[: tm.READ_CHUNK]
            found = self._batch_get([tm.counter_key(owner), *(tm.entry_key(owner, h) for h in chunk)])
            count = next((int(i["entryCount"]["N"]) for i in found if i["sk"]["S"] == "TN"), 0)
            stored = {tm.source_hash_of(i): i for i in found if i["sk"]["S"] != "TN"}
            with di.storable():
                batch = tm.plan(
                    owner, chunk, latest, stored, count, max_entries=max_entries, now=now, writer=self._writer
                )
            if batch.actions:
                try:
                    self._transact(batch.actions, retries=8)
                except di.Refused as exc:
                    if (refused := refused + 1) > 8:
                        raise ConflictError("The translation memory kept changing meanwhile; try again.") from exc
                    continue
            outcome |= batch.outcome
            pending = [h for h in pending if h not in outcome]
        return tm.tally(records, outcome)

    def tm_changes(self, owner: str, *, since: str | None, known: Mapping[str, str] | None = None) -> list[TmEntry]:
        """All: the owner's T# items (a consistent Query). Since a time: the keys and times of the
        `by-owner` index's TM#<owner> partition after it that another instance wrote (one Query,
        normally one page; this instance's own writes are filtered out by DynamoDB), then the entries
        among them that `known` does not hold (one BatchGetItem, none when nothing is new)."""
        known = known or {}
        if since is None:
            items = self._query(f"O#{owner}", "begins_with(sk, :t)", {":t": s("T#")})
            return [tm.tm_entry(i) for i in items if known.get(tm.source_hash_of(i)) != i["updatedAt"]["S"]]
        args: dict[str, Any] = {
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :p AND gsi1sk > :after",
            "ExpressionAttributeValues": {":p": s(tm.changes_pk(owner)), ":after": s(since), ":me": s(self._writer)},
            "ProjectionExpression": "sk, updatedAt",
            "FilterExpression": "writer <> :me",
        }
        changed = (i for i in self._pages(args) if known.get(tm.source_hash_of(i)) != i["updatedAt"]["S"])
        wanted = list(dict.fromkeys(tm.source_hash_of(i) for i in changed))
        return [tm.tm_entry(i) for i in self._batch_get([tm.entry_key(owner, h) for h in wanted])] if wanted else []

    def list_tm(self, owner: str, *, cursor: str | None, limit: int) -> Page[TmEntry]:
        """The owner's entries by source hash; the cursor is the last hash listed."""
        limit = max(1, limit)
        args = di.query_args(f"O#{owner}", "begins_with(sk, :t)", {":t": s("T#")})
        if cursor:
            args["ExclusiveStartKey"] = tm.entry_key(owner, tm.cursor_hash(di.decode_cursor(cursor)))
        found: list[Item] = []
        while len(found) <= limit:
            with _errors():
                page = self.client.query(TableName=self.table, **args, Limit=limit + 1 - len(found))
            found += page["Items"]
            if not page.get("LastEvaluatedKey"):
                break
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        next_cursor = di.encode_cursor({"t": tm.source_hash_of(found[limit - 1])}) if len(found) > limit else None
        return Page([tm.tm_entry(i) for i in found[:limit]], next_cursor)

    # -- primitives ----------------------------------------------------------------------------

    def _transact(self, actions: list[Item], *, retries: int = 0) -> None:
        """TransactWriteItems; one cancelled only by contention is retried `retries` times."""
        for attempt in range(retries + 1):
            try:
                with _errors():
                    self.client.transact_write_items(TransactItems=[_to(self.table, action) for action in actions])
                return
            except di.Contended:
                if attempt == retries:
                    raise
                time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))

    def _get(self, key: Item) -> Item | None:
        with _errors():
            item: Item | None = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True).get("Item")
        return item

    def _query(
        self, pk: str, sk_condition: str | None = None, values: Item | None = None, **extra: Any
    ) -> Iterator[Item]:
        """Every item of the partition `pk` matching `sk_condition`, page after page."""
        return self._pages(di.query_args(pk, sk_condition, values or {}) | extra)

    def _pages(self, args: dict[str, Any]) -> Iterator[Item]:
        """Every item a Query with `args` returns, page after page."""
        key = None
        while True:
            with _errors():
                page = self.client.query(TableName=self.table, **args, **({"ExclusiveStartKey": key} if key else {}))
            yield from page["Items"]
            key = page.get("LastEvaluatedKey")
            if not key:
                return

    def _batch_get(self, keys: Sequence[Item]) -> list[Item]:
        """The items that exist of these (distinct) keys, consistently read, 100 keys a request."""
        found: list[Item] = []
        for i in range(0, len(keys), 100):
            pending: Mapping[str, Any] = {self.table: {"Keys": list(keys[i : i + 100]), "ConsistentRead": True}}
            for attempt in range(8):
                with _errors():
                    reply = self.client.batch_get_item(RequestItems=pending)
                found += reply.get("Responses", {}).get(self.table, [])
                if not (pending := reply.get("UnprocessedKeys") or {}):
                    break
                time.sleep(0.05 * 2**attempt)
            else:
                raise StorageUnavailableError("DynamoDB kept throttling a batch read; try again.", retry_after=2)
        return found

    def _batch_write(self, requests: list[Item]) -> None:
        for i in range(0, len(requests), 25):
            pending: Mapping[str, Any] = {self.table: requests[i : i + 25]}
            for attempt in range(8):
                with _errors():
                    pending = self.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(0.05 * 2**attempt)
            else:
                raise StorageUnavailableError("DynamoDB kept throttling a batch write; try again.", retry_after=2)


TRANSACTION_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
"""The kinds of action a transaction here holds, and the IAM action each is authorized as."""


def _to(table: str, action: Item) -> Item:
    """A transaction's action addressed to `table`."""
    ((kind, body),) = action.items()
    assert kind in TRANSACTION_ACTIONS, kind  # another kind would need its IAM action in template.yaml
    return {kind: {"TableName": table, **body}}


def _unit_writes(
    session_id: str, effects: StepEffects, now: str, actions: list[tuple[Item, int]]
) -> dict[int, UnitWrite]:
    """Append the step's new units and revisions to `actions`; the revisions' positions there.

    A revision of a unit written in the same step is folded into its Put (one action per item).
    """
    written = {(u.file_id, u.start): u for u in effects.units}
    if len(written) < len(effects.units):
        raise ConflictError("A step writes each unit once.")
    revisions: dict[tuple[str, int], UnitWrite] = {}
    for r in effects.revisions:
        key = (r.file_id, r.start)
        if key in written:
            written[key] = replace(written[key], text=r.text, status=r.status, origin=r.origin, call_id=r.call_id)
        else:
            revisions[key] = r
    for u in written.values():
        actions.append(di.put(di.unit_item(session_id, u, now), f"The unit at {u.start}", NOT_WRITTEN))
    positions: dict[int, UnitWrite] = {}
    for u in revisions.values():
        expression, values = di.unit_revision(u, now)
        unit_key = di.unit_key(session_id, u.file_id, u.start)
        action, size = di.update(unit_key, expression, values, UNIT_WRITTEN, f"The revised unit at {u.start}")
        action["Update"]["ExpressionAttributeNames"] = di.UNIT_NAMES
        positions[len(actions)] = u
        actions.append((action, size))
    return positions


@contextmanager
def _errors() -> Iterator[None]:
    """botocore's errors become the project's own; nothing of botocore leaves this module."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", ""), str(error.get("Message", ""))
        if code == "ConditionalCheckFailedException":
            raise di.Refused(["ConditionalCheckFailed"], [exc.response.get("Item")]) from exc
        if code == "TransactionCanceledException":
            reasons = exc.response.get("CancellationReasons", [])
            codes = [str(r.get("Code", "None")) for r in reasons]
            if "ConditionalCheckFailed" in codes:
                raise di.Refused(codes, [r.get("Item") for r in reasons]) from exc
            if "TransactionConflict" in codes:
                raise di.Contended("The session changed concurrently; reload it and try again.") from exc
            message = " ".join(str(r.get("Message", "")) for r in reasons)
        if code in ("ValidationException", "TransactionCanceledException") and "size" in message.lower():
            raise TooLargeError(
                "What this request would store exceeds the store's size limits; send shorter text."
            ) from exc
        if code in ("ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"):
            raise StorageUnavailableError("The session store is busy; try again shortly.", retry_after=1) from exc
        raise StorageUnavailableError(f"The session store failed ({code or 'error'}); try again.") from exc
    except BotoCoreError as exc:
        raise StorageUnavailableError(f"The session store is unreachable ({type(exc).__name__}).") from exc
