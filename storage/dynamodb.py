"""DynamoDBSessionStorage: sessions in one table, all of a session's mutable state in one item.

Layout of a session's partition `S#<session>` (template.yaml declares the table and its index):

    META                         the one mutable item: version, owner, times, counters (messageCount,
                                 hiddenMessages, responseCount), userInputs, queuedInputs, settings
                                 (sourceLanguage, targetLanguage, budget, model, autoApprove,
                                 autoSample, qaProfile, review: "double" or "pretranslate" when
                                 the units await a reviewer), telemetry,
                                 the files and their coverage, and the latest two model responses'
                                 indexes (latestResponse, previousResponse) with how many verdict records
                                 each has (latestRecords, previousRecords)
    M#<index:010>                a message (pydantic-ai JSON, compressed in `packed`)
    R#<response:010>#<v:010>     the verdicts the commit over version <v> gave on the response's calls
    C#<file>#<n:05>              a chunk of the file's `text` (CHUNK_CHARS characters) and the `segments`
                                 that begin in it
    D#<file>#<n:05>              a chunk of the `text` of the document the file was taken from
    U#<file>#<start:010>         the units one commit wrote to the file, from its first unit's start
    U#<file>#K#<v:010>           the corrections the commit over version <v> recorded of the file (its
                                 review log: the owner's memory keeps its own copy, which outlives the session)
    U#<file>#R#<v:010>           the revisions the commit over version <v> made to the file's units
    A#<digest>                   marks the session's kept answer I#<digest> (deleted with the session)

Every written-once record keeps its rows as compressed JSON in `packed` and its commit's time in
`writtenAt`.

META's `hold` (why the latest step failed: a provider's throttle or refusal) is set by an UpdateItem
of its own that leaves the version alone, and removed by the next commit's Update. META's `claimBy` and
`claimUntil` (who drives a project's session, until when) are set by a conditional UpdateItem of their
own (no other identity's claim lasting), which a commit leaves as they are. A job is one
item, `J#<job>` / `JOB`, written once: its `languages`' session ids and estimates.

Everything but META is written once and never changed, so a read cannot be torn in a way it cannot
see: META names what the session holds (its message count, each latest response's record count), and
a load that meets a commit half applied (META newer than an item it names) reads again, and a tear
that outlasts a few short pauses is refused as the conflict it is. A step's load is one Query of META
and the latest messages beside one of the latest verdict records (in parallel); its commit is one
TransactWriteItems conditional on META's version, which also writes the owner's corrections and
translation memory (storage.dynamodb_memory). The `by-owner` index (gsi1pk = O#<owner>,
gsi1sk = <updatedAt>#<session>) lists an owner's sessions, newest first. META as a value (its key, a
step's write, the record it reads as) is storage.dynamodb_meta's; the written-once items' values
(messages' indexes, verdict records, unit rows) are storage.dynamodb_records'.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from types import EllipsisType
from typing import Any

from pydantic_ai.messages import ModelMessage

from agent_core.document import FileState
from agent_core.effects import (
    Budget,
    StepEffects,
    StepToken,
    StoredAnswer,
    Telemetry,
    UnitWrite,
    Verdict,
)
from agent_core.errors import InvalidRequestError
from agent_core.review_modes import ReviewMode
from agent_core.segment import Segment

from . import dynamodb_items as di
from .codec import dump_message, dump_verdict, load_messages
from .dynamodb_comments import DynamoDBCommentStorage
from .dynamodb_items import Item, n, num, s
from .dynamodb_memory import DynamoDBMemoryStorage, correction_of, correction_rows
from .dynamodb_meta import IS_NEW, TELEMETRY, meta_key, meta_write, session_pk, session_record
from .dynamodb_projects import DynamoDBProjectStorage
from .dynamodb_records import item_kind, merged_verdicts, message_index, unit_rows, unit_writes, verdict_record
from .dynamodb_table import INDEX, dynamodb_client, errors, parallel
from .errors import ConflictError, InvalidCursorError, NotFoundError
from .interface import FileChunk, Storage, StoredSession, chunk_segments, chunks
from .records import JobRecord, Page, ReviewLog, SessionClaim, SessionHold, SessionRecord

VERDICT_READ = 4
"""Verdict records a load reads beside META (the latest two responses rarely have more)."""
NEWER = 4
"""Messages a load reads beside those the process holds (another process's commits since)."""
HELD_MESSAGES, HELD_SESSIONS = 48, 64
"""A process holds the latest 48 messages of the 64 sessions it stepped last."""
TORN = "The session is being written by another request; reload it and try again."
TORN_PAUSES = (0.025, 0.05, 0.1)
"""Pauses before a load that met a commit half applied is read again."""


class Torn(Exception):
    """A load met a commit half applied: META names an item the reads did not return."""


# Conditions, each named for why it is there:
# History is append-only: a unit item is never overwritten (a replayed step fails whole).
NOT_WRITTEN = "attribute_not_exists(sk)"
# An Idempotency-Key's answer is written once; an expired one (TTL not yet swept) may be replaced.
KEY_FREE = "attribute_not_exists(pk) OR expiresAt <= :now"


class DynamoDBSessionStorage(DynamoDBMemoryStorage, DynamoDBProjectStorage, DynamoDBCommentStorage, Storage):
    """Sessions and owners' memory in one DynamoDB table, through an injected boto3 client."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        super().__init__(boto3_client, table_name=table_name)
        self._held: OrderedDict[str, tuple[str, dict[int, str]]] = OrderedDict()
        """The latest messages (JSON) of the sessions this process stepped, by session: its creation
        time and the messages by index. Committed messages never change; META says which exist."""
        self._lock = threading.Lock()

    def _hold(self, session_id: str, created_at: str, messages: dict[int, str], *, joined: bool = False) -> None:
        """Keep the session's latest HELD_MESSAGES messages (`joined`: added to those held, if they reach them)."""
        with self._lock:
            created, held = self._held.pop(session_id, ("", {}))
            if joined and (created != created_at or (messages and min(messages) - 1 not in held and min(messages))):
                held = {}
            kept = {**held, **messages} if joined else dict(messages)
            self._held[session_id] = (created_at, {k: kept[k] for k in sorted(kept)[-HELD_MESSAGES:]})
            while len(self._held) > HELD_SESSIONS:
                self._held.popitem(last=False)

    @classmethod
    def from_env(cls) -> DynamoDBSessionStorage:
        """The table `SESSIONS_TABLE`, through a cached client (`AWS_ENDPOINT_URL_DYNAMODB` works)."""
        table = os.environ.get("SESSIONS_TABLE")
        if not table:
            raise ValueError("STORAGE_BACKEND=dynamodb needs SESSIONS_TABLE, the table's name.")
        return cls(dynamodb_client(), table_name=table)

    # -- sessions and steps --------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record (one consistent GetItem of META)."""
        return session_record(self._meta(session_id))

    def _load(self, session_id: str, *, window: int) -> StoredSession:
        """META with the latest `window` messages (one Query, newest first) beside the latest verdict
        records (one Query); a further page only when they did not reach what META names.

        A Query is read-committed per item, not per transaction, so it can meet a commit half applied
        (META names an item not there yet). Such a commit is over in milliseconds: the load is read
        again after 25, 50 and 100 ms, and only a tear that outlasts them is a ConflictError."""
        pauses = iter(TORN_PAUSES)
        while True:
            try:
                return self._read(session_id, window=window)
            except Torn as exc:
                if (pause := next(pauses, None)) is None:
                    raise ConflictError(TORN) from exc
                time.sleep(pause)

    def _read(self, session_id: str, *, window: int) -> StoredSession:
        pk = session_pk(session_id)
        newest: dict[str, Any] = {"ScanIndexForward": False}
        verdict_records = (pk, "begins_with(sk, :r)", {":r": s("R#")})
        created, held = self._held.get(session_id, ("", {}))
        guess = min(window, NEWER if held else window)  # held: only what another process committed since
        (items, _), (records, more_records) = parallel(
            lambda: self._query_page(
                pk, "sk BETWEEN :m AND :meta", {":m": s("M#"), ":meta": s("META")}, **newest, Limit=guess + 1
            ),
            lambda: self._query_page(*verdict_records, **newest, Limit=VERDICT_READ),
        )
        if not items or items[0]["sk"]["S"] != "META":
            raise NotFoundError(f"No session {session_id}.")
        meta, record = items[0], session_record(items[0])
        count = record.message_count
        first = max(0, count - window)
        held = held if created == record.created_at else {}
        data = {k: held[k] for k in range(first, count) if k in held}
        data |= {message_index(i): di.unpacked(i)["m"] for i in items[1:] if first <= message_index(i) < count}
        if missing := [k for k in range(first, count) if k not in data]:  # committed elsewhere: just those
            bounds = {":a": s(f"M#{missing[0]:010d}"), ":b": s(f"M#{missing[-1]:010d}")}
            data |= {message_index(i): di.unpacked(i)["m"] for i in self._query(pk, "sk BETWEEN :a AND :b", bounds)}
        latest, previous = (
            (num(meta, "latestResponse", -1), num(meta, "latestRecords")),
            (num(meta, "previousResponse", -1), num(meta, "previousRecords")),
        )
        wanted = {r: c for r, c in (latest, previous) if r >= 0 and c > 0}
        kept: list[Item] = []
        for i in self._read_on(records, more_records, *verdict_records, **newest, Limit=VERDICT_READ) if wanted else ():
            if verdict_record(i)[0] < min(wanted):
                break
            if verdict_record(i)[0] in wanted and verdict_record(i)[1] < record.version:
                kept.append(i)
            if len(kept) == sum(wanted.values()):
                break
        if len(data) != count - first or len(kept) != sum(wanted.values()):
            raise Torn
        self._hold(session_id, record.created_at, data)
        verdicts = {r: merged_verdicts([i for i in kept if verdict_record(i)[0] == r]) for r in wanted}
        return StoredSession(
            record=record,
            messages=load_messages([data[k] for k in range(first, count)]),
            response_index=latest[0],
            verdicts=list(verdicts.get(latest[0], {}).values()),
            previous_index=previous[0],
            previous=list(verdicts.get(previous[0], {}).values()),
            files=di.files_of(meta),
        )

    def _commit(self, token: StepToken, effects: StepEffects, answer: StoredAnswer | None) -> None:
        """One TransactWriteItems: META (conditional on the token's version), the new messages, the
        verdicts, units and revisions, the owner's corrections and translation-memory write, the answer."""
        with di.storable():
            new_units = {(u.file_id, u.start) for u in effects.units}
            for u in effects.revisions:
                covered = token.covered.get(u.file_id, ())
                if (u.file_id, u.start) not in new_units and not any(a <= u.start and u.end <= b for a, b in covered):
                    raise NotFoundError(f"No written unit begins at {u.start} of {u.file_id}.")
            for file_id in effects.coverage:
                if file_id not in token.covered:
                    raise NotFoundError(f"No file {file_id} in this session.")
            now = di.now_iso()
            dumped = {token.message_count + k: dump_message(m) for k, m in enumerate(effects.messages)}
            actions = [meta_write(token, effects, now), *self._history(token, effects, dumped, now)]
            if effects.corrections:
                actions.append(
                    self.corrections_put(token.owner, token.session_id, token.version, effects.corrections, now)
                )
            answers = len(actions)
            if answer is not None:
                actions += _answer_puts(token.session_id, answer)
        memory = self.tm_write(
            token.owner, effects.memory, added=effects.memory_added, room=di.MAX_TRANSACTION_ITEMS - len(actions)
        )
        for attempt in range(memory.attempts if memory else 1):
            written = [*actions, *(memory.actions if memory else ())]
            di.check_transaction(written)
            try:
                self._transact(written, retries=2)
                self._hold(token.session_id, token.created_at, dumped, joined=True)
                if memory is not None:
                    self._heads[token.owner, memory.pair] = memory.seq + 1
                return
            except di.Refused as exc:
                if exc.failed(0):
                    raise ConflictError("The session advanced concurrently; reload it and try again.") from exc
                if any(exc.failed(k) for k in range(answers, len(actions))):
                    raise ConflictError("A request with this Idempotency-Key is already recorded.") from exc
                if memory is None or not exc.failed(len(actions)) or attempt == memory.attempts - 1:
                    raise
                memory = memory.again(self)  # only the owner's memory moved on: its next number, and again

    def _history(self, token: StepToken, effects: StepEffects, messages: dict[int, str], now: str) -> list[Item]:
        """The immutable items of the step: messages, its verdict record, units, revisions."""
        pk, version = s(session_pk(token.session_id)), token.version
        found = [di.put({"pk": pk, "sk": s(f"M#{k:010d}"), "packed": di.packed({"m": m})}) for k, m in messages.items()]
        if effects.verdicts:
            dumped = {v.tool.call_id: dump_verdict(v) for v in effects.verdicts}
            sk = f"R#{token.response_index:010d}#{version:010d}"
            found.append(di.put({"pk": pk, "sk": s(sk), "packed": di.packed(dumped), "writtenAt": s(now)}))
        for file_id in dict.fromkeys(u.file_id for u in effects.units):
            written = sorted((u for u in effects.units if u.file_id == file_id), key=lambda u: u.start)
            sk = f"U#{file_id}#{written[0].start:010d}"
            found.append(
                di.put(
                    {"pk": pk, "sk": s(sk), "packed": di.packed(unit_rows(written)), "writtenAt": s(now)}, NOT_WRITTEN
                )
            )
        for file_id in dict.fromkeys(c.file_id for c in effects.corrections):
            rows = correction_rows(c for c in effects.corrections if c.file_id == file_id)
            sk = f"U#{file_id}#K#{version:010d}"
            found.append(di.put({"pk": pk, "sk": s(sk), "packed": di.packed(rows), "writtenAt": s(now)}))
        for file_id in dict.fromkeys(u.file_id for u in effects.revisions):
            revised = [u for u in effects.revisions if u.file_id == file_id]
            sk = f"U#{file_id}#R#{version:010d}"
            found.append(di.put({"pk": pk, "sk": s(sk), "packed": di.packed(unit_rows(revised)), "writtenAt": s(now)}))
        for item in found:
            di.check_size(item["Put"]["Item"], "A record of this step")
        return found

    def update_session(
        self,
        session_id: str,
        *,
        source_language: str | EllipsisType | None = ...,
        target_language: str | EllipsisType | None = ...,
        budget: Budget | EllipsisType | None = ...,
        model: str | EllipsisType | None = ...,
        auto_approve: int | EllipsisType | None = ...,
        review: ReviewMode | EllipsisType = ...,
        auto_sample: float | EllipsisType = ...,
        qa_profile: str | EllipsisType | None = ...,
    ) -> SessionRecord:
        """One UpdateItem of META's settings and version (a commit in progress on it: tried again)."""
        sets, removes, values, names = ["version = version + :one"], ["#hold"], {":one": n(1)}, {"#hold": "hold"}
        stored = budget.dumps() if isinstance(budget, Budget) else budget
        auto = str(auto_approve) if isinstance(auto_approve, int) else auto_approve
        settings = (
            ("sourceLanguage", source_language),
            ("targetLanguage", target_language),
            ("budget", stored),
            ("model", model),
            ("autoApprove", auto),
            ("review", review if review is ... else (review if review != "single" else None)),
            ("autoSample", auto_sample if auto_sample is ... else (repr(auto_sample) if auto_sample else None)),
            ("qaProfile", qa_profile),
        )
        for name, value in settings:
            if value is not ...:
                names[f"#{name}"] = name
            if value is None:
                removes.append(f"#{name}")
            elif value is not ...:
                sets.append(f"#{name} = :{name}")
                values[f":{name}"] = s(value)
        expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        reply = self._update_meta(session_id, expression, values, names, ReturnValues="ALL_NEW")
        return session_record(reply["Attributes"])

    def hold_session(self, session_id: str, hold: SessionHold) -> None:
        """One UpdateItem of META's `hold` alone (its version left as it is)."""
        self._update_meta(session_id, "SET #hold = :hold", {":hold": s(hold.dumps())}, {"#hold": "hold"})

    def claim_session(self, session_id: str, claim: SessionClaim, *, now: str, take_over: bool = False) -> SessionClaim:
        """One UpdateItem of META's claim, on the condition that no other identity's lasts past `now`
        (none with `take_over`); refused, one consistent GetItem of META says whose claim refused it."""
        names = {"#by": "claimBy", "#until": "claimUntil"}
        values: Item = {":by": s(claim.by), ":until": s(claim.until)}
        free = "attribute_exists(pk)"
        if not take_over:
            free += " AND (attribute_not_exists(#by) OR #by = :by OR #until <= :now)"
            values[":now"] = s(now)
        for _ in range(3):  # a claim that ended between the refusal and the read: ask again
            try:
                with errors():
                    self.client.update_item(
                        TableName=self.table,
                        Key=meta_key(session_id),
                        UpdateExpression="SET #by = :by, #until = :until",
                        ConditionExpression=free,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                    )
                return claim
            except di.Refused:
                held = session_record(self._meta(session_id)).claim
                if held is not None and held.by != claim.by and held.until > now:
                    return held
        raise ConflictError("The session's claim changed concurrently; try again.")

    def release_claim(self, session_id: str, by: str | None) -> bool:
        """One UpdateItem removing META's claim, on the condition that `by` holds it."""
        names = {"#by": "claimBy", "#until": "claimUntil"}
        values: Item = {":by": s(by)} if by is not None else {}
        held = "#by = :by" if by is not None else "attribute_exists(#by)"
        try:
            with errors():
                self.client.update_item(
                    TableName=self.table,
                    Key=meta_key(session_id),
                    UpdateExpression="REMOVE #by, #until",
                    ConditionExpression=f"attribute_exists(pk) AND {held}",
                    ExpressionAttributeNames=names,
                    **({"ExpressionAttributeValues": values} if values else {}),
                )
        except di.Refused:
            self._meta(session_id)  # NotFoundError when there is no session
            return False
        return True

    def add_spent(self, session_id: str, spent: Telemetry) -> None:
        """One UpdateItem adding to META's counters alone (its version left as it is)."""
        adds = ", ".join(f"#{attr} :{attr}" for attr in TELEMETRY.values())
        values = {f":{attr}": n(getattr(spent, field)) for field, attr in TELEMETRY.items()}
        self._update_meta(session_id, f"ADD {adds}", values, {f"#{attr}": attr for attr in TELEMETRY.values()})

    def _update_meta(self, session_id: str, expression: str, values: Item, names: dict[str, str], **more: Any) -> Item:
        """One UpdateItem of an existing META (`names`: the expression's attribute names), tried again
        while a commit is being applied to it (it is over in milliseconds); NotFoundError when there is
        no session."""
        attempt = 0
        while True:
            try:
                with errors():
                    reply: Item = self.client.update_item(
                        TableName=self.table,
                        Key=meta_key(session_id),
                        UpdateExpression=expression,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                        ConditionExpression="attribute_exists(pk)",  # never creates a session
                        **more,
                    )
                return reply
            except di.Refused as exc:
                raise NotFoundError(f"No session {session_id}.") from exc
            except di.Contended:
                if (attempt := attempt + 1) == 5:
                    raise
                time.sleep(0.01 * attempt)

    def put_job(self, job: JobRecord) -> None:
        """One PutItem, on the condition that the job is new."""
        try:
            with errors():
                self.client.put_item(
                    TableName=self.table,
                    Item=di.job_item(job),
                    ConditionExpression=IS_NEW,  # a job is written once
                )
        except di.Refused as exc:
            raise ConflictError(f"A job {job.job_id} exists already.") from exc

    def get_job(self, job_id: str) -> JobRecord:
        """One GetItem."""
        with errors():
            item = self.client.get_item(TableName=self.table, Key=di.job_key(job_id)).get("Item")
        if item is None:
            raise NotFoundError(f"No job {job_id}.")
        return di.job_of(item)

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first (the `by-owner` index)."""
        args: dict[str, Any] = {
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :o",
            "ExpressionAttributeValues": {":o": s(f"O#{owner}")},
            "ScanIndexForward": False,
            "Limit": max(limit, 1),
        }
        if cursor is not None:
            key = di.decode_cursor(cursor, {"k": str})["k"]
            updated_at, _, session_id = key.rpartition("#")
            if not updated_at or not session_id:
                raise InvalidCursorError("Invalid cursor.")
            args["ExclusiveStartKey"] = meta_key(session_id) | {"gsi1pk": s(f"O#{owner}"), "gsi1sk": s(key)}
        with errors():
            page = self.client.query(TableName=self.table, **args)
        records = [session_record(i) for i in page["Items"]][: max(limit, 0)]
        after = page.get("LastEvaluatedKey")
        next_cursor = di.encode_cursor({"k": after["gsi1sk"]["S"]}) if after and records else None
        return Page(records, next_cursor)

    def delete_session(self, session_id: str) -> None:
        """Delete META first (the session is gone at once), then every other item and its kept answers."""
        pk = session_pk(session_id)
        keys = list(self._query(pk, "sk >= :a", {":a": s(" ")}, ProjectionExpression="pk, sk"))
        with errors():
            self.client.delete_item(TableName=self.table, Key=meta_key(session_id))
        answers = [
            {"pk": s(f"I#{k['sk']['S'][2:]}"), "sk": s("IDEMPOTENCY")} for k in keys if k["sk"]["S"].startswith("A#")
        ]
        rest = [k for k in keys if k["sk"]["S"] != "META"] + answers
        self._batch_write([{"DeleteRequest": {"Key": k}} for k in rest])

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[ModelMessage]:
        """The session's messages, oldest first, a page at a time (its cursor: the last index)."""
        after = di.decode_cursor(cursor, {"m": int})["m"] if cursor else -1
        values = {":a": s(f"M#{after + 1:010d}"), ":b": s("M#9999999999")}
        items, _ = self._query_page(session_pk(session_id), "sk BETWEEN :a AND :b", values, Limit=max(limit, 0) + 1)
        if not items:
            self._meta(session_id)  # NotFoundError for a missing session
        shown = items[: max(limit, 0)]
        messages = load_messages([di.unpacked(i)["m"] for i in shown])
        following = len(items) > len(shown)
        return Page(messages, di.encode_cursor({"m": message_index(shown[-1])}) if following and shown else None)

    def list_verdicts(self, session_id: str, *, cursor: str | None, limit: int) -> Page[Verdict]:
        """All the session's verdicts by response, then call id (a replaced one: its latest), a page at
        a time (its cursor: the last response and call id); the first page's Query starts at META, which
        tells a missing session."""
        start = di.decode_cursor(cursor, {"r": int, "c": str}) if cursor else {"r": 0, "c": ""}
        first = "META" if cursor is None else f"R#{start['r']:010d}"  # META sorts just before the records
        found = self._query(session_pk(session_id), "sk BETWEEN :a AND :b", {":a": s(first), ":b": s("R$")})
        if cursor is None and next(found, {"sk": s("")})["sk"]["S"] != "META":
            raise NotFoundError(f"No session {session_id}.")
        records = (i for i in found if i["sk"]["S"].startswith("R#"))
        listed: list[tuple[int, str, Verdict]] = []
        group: list[Item] = []
        for item in itertools.chain(records, [None]):
            if group and (item is None or verdict_record(item)[0] != verdict_record(group[0])[0]):
                r = verdict_record(group[0])[0]
                listed += [
                    (r, c, v) for c, v in sorted(merged_verdicts(group).items()) if (r, c) > (start["r"], start["c"])
                ]
                group = []
                if len(listed) > limit:
                    break
            if item is not None:
                group.append(item)
        if not listed and cursor is not None:
            self._meta(session_id)
        shown = listed[: max(limit, 0)]
        following = len(listed) > len(shown) and shown
        return Page(
            [v for _, _, v in shown], di.encode_cursor({"r": shown[-1][0], "c": shown[-1][1]}) if following else None
        )

    # -- files and units ---------------------------------------------------------------------

    def add_file(
        self,
        session_id: str,
        file: FileState,
        content: str,
        *,
        segments: Sequence[Segment],
        max_files: int,
        original: str | None = None,
    ) -> None:
        """The chunks, each with the segments that begin in it, and the original's (BatchWriteItem:
        unseen until META names the file), then META's file entry and count in one conditional
        UpdateItem (the cap and the id checked there); an upload refused there deletes its chunks
        (BatchWriteItem): a file of more chunks than one transaction holds cannot be written with its slot."""
        meta = self._meta(session_id)
        if num(meta, "fileCount") >= max_files:
            raise InvalidRequestError(f"A session holds at most {max_files} files.")
        texts = chunks(content)
        items = [
            di.chunk_item(session_id, file.file_id, k, part, found)
            for k, (part, found) in enumerate(zip(texts, chunk_segments(segments, len(texts)), strict=True))
        ]
        items += [
            di.chunk_item(session_id, file.file_id, k, part, None)
            for k, part in enumerate(chunks(original) if original is not None else [])
        ]
        with di.storable():
            self._batch_write([{"PutRequest": {"Item": item}} for item in items])
        entry = di.file_entry(file, num(meta, "fileCount"), original=original is not None)
        try:
            with errors():
                self.client.update_item(
                    TableName=self.table,
                    Key=meta_key(session_id),
                    UpdateExpression="SET files.#f = :file ADD fileCount :one",
                    ConditionExpression="attribute_exists(pk) AND attribute_not_exists(files.#f) AND fileCount < :max",
                    ExpressionAttributeNames={"#f": file.file_id},
                    ExpressionAttributeValues={":file": entry, ":one": n(1), ":max": n(max_files)},
                )
        except di.Refused as exc:  # the race for the last slot lost (or the id taken): its chunks go too
            self._batch_write([{"DeleteRequest": {"Key": {"pk": i["pk"], "sk": i["sk"]}}} for i in items])
            meta = self._meta(session_id)
            if num(meta, "fileCount") >= max_files:
                raise InvalidRequestError(f"A session holds at most {max_files} files.") from exc
            raise ConflictError(f"The session already holds a file {file.file_id}.") from exc

    def read_original(self, session_id: str, file_id: str) -> str | None:
        """The document the file was taken from (its D# chunks, one Query), or None."""
        self._file(session_id, file_id)
        found = self._query(session_pk(session_id), "begins_with(sk, :d)", {":d": s(f"D#{file_id}#")})
        parts = [i["text"]["S"] for i in found]
        return "".join(parts) if parts else None

    def _chunks(self, session_id: str, file_id: str, numbers: range, *, segments: bool) -> list[FileChunk]:
        """META's entry of the file and the chunks, in one BatchGetItem (their segments only if asked)."""
        keys = [di.chunk_key(session_id, file_id, k) for k in numbers]
        attributes = ("sk", "text", *(("segments",) if segments else ()), "files")
        found = {i["sk"]["S"]: i for i in self._batch_get([meta_key(session_id), *keys], attributes=attributes)}
        meta = found.get("META")
        if meta is None:
            raise NotFoundError(f"No session {session_id}.")
        if file_id not in meta.get("files", {}).get("M", {}):
            raise NotFoundError(f"No file {file_id} in this session.")
        return [di.chunk_of(found.get(k["sk"]["S"])) for k in keys]

    def review_log(self, session_id: str, file_id: str) -> ReviewLog:
        """The file's unit items, revisions and corrections (the same one Query as `list_units`)."""
        items = list(self._query(session_pk(session_id), "begins_with(sk, :u)", {":u": s(f"U#{file_id}#")}))
        if not items:
            self._file(session_id, file_id)
        first: dict[int, UnitWrite] = {}
        writes: list[UnitWrite] = []
        for unit in unit_writes(file_id, items):
            held = first.get(unit.start)
            if held is None:
                first[unit.start] = unit
            else:
                writes.append(replace(unit, end=held.end, cover_end=held.cover_end))
        logged = sorted((i for i in items if item_kind(i) == "K"), key=lambda i: i["sk"]["S"])
        corrections = [
            correction_of(row, session_id=session_id, created_at=i["writtenAt"]["S"])
            for i in logged
            for row in di.unpacked(i)
        ]
        return ReviewLog(writes=sorted(first.values(), key=lambda u: u.updated_at) + writes, corrections=corrections)

    # -- answers -------------------------------------------------------------------------------

    def get_answer(self, owner: str, key: str, *, now: int) -> StoredAnswer | None:
        """The unexpired answer for the owner's key (one GetItem), if any."""
        item = self._get(di.answer_key(owner, key))
        return None if item is None or num(item, "expiresAt") <= now else di.answer_of(owner, key, item)

    def _keep_answer(self, session_id: str | None, answer: StoredAnswer, *, now: int) -> None:
        """Keep an answer (with its session's marker) unless an unexpired one exists (ConflictError)."""
        actions = _answer_puts(session_id, answer)
        actions[0]["Put"]["ExpressionAttributeValues"] = {":now": n(now)}
        try:
            self._transact(actions, retries=2)
        except di.Refused as exc:
            raise ConflictError("A request with this Idempotency-Key is already recorded.") from exc

    # -- reads --------------------------------------------------------------------------------

    def _meta(self, session_id: str) -> Item:
        item = self._get(meta_key(session_id))
        if item is None:
            raise NotFoundError(f"No session {session_id}.")
        return item

    def _file(self, session_id: str, file_id: str) -> None:
        """NotFoundError unless the session holds the file."""
        if file_id not in self._meta(session_id).get("files", {}).get("M", {}):
            raise NotFoundError(f"No file {file_id} in this session.")


def _answer_puts(session_id: str | None, answer: StoredAnswer) -> list[Item]:
    """The answer's Put (conditional: KEY_FREE) and, for a session's request, its marker."""
    item = di.answer_item(answer)
    actions = [di.put(item, KEY_FREE)]
    actions[0]["Put"]["ExpressionAttributeValues"] = {":now": n(int(time.time()))}
    if session_id is not None:
        marker = {
            "pk": s(session_pk(session_id)),
            "sk": s(f"A#{item['pk']['S'][2:]}"),
            "expiresAt": n(answer.expires_at),
        }
        actions.append(di.put(marker))
    return actions
