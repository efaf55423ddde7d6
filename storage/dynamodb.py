"""DynamoDBSessionStorage: one table; an item per message, per commit's verdicts, per unit and per file chunk.

Layout (pk / sk; template.yaml declares the table and its `by-owner` index):

    S#<session>                  META                      the session: its version, and owner, times, counters
                                                           packed in one attribute (storage.dynamodb_meta)
    S#<session>                  V#…, W#…                  the hot window: the latest verdicts and messages
                                                           (storage.dynamodb_hot)
    S#<session>                  F#<file>                  a file: name, size, coverage
    S#<session>                  COUNT#files               how many files the session holds (`files`;
                                                           META's `fileCount` before this release)
    S#<session>                  C#<file>#<n:05>           a chunk of the file's text (CHUNK_CHARS characters)
    S#<session>                  D#<file>#<n:05>           a chunk of the document the file was taken from
    S#<session>                  A#<digest>                marks the session's kept answer I#<digest>
    S#<session>#B#<bucket:06>    M#<index:010>             one pydantic-ai message (JSON)
    S#<session>#B#<bucket:06>    R#<response:010>#~<v:010> the verdicts (by call) that the commit over
                                                           version <v> gave on calls of the response
    S#<session>#B#<bucket:06>    R#<response:010>#<call>   a verdict on a call of the response at <response>
                                                           (a commit whose verdicts fill more than an item;
                                                           every verdict, before this release)
    S#<session>#U#<file>#<n:05>  <start:010>               a commit's units in that span of the file
                                                           (storage.dynamodb_units)
    I#<digest>                   IDEMPOTENCY               a kept answer (digest of owner and key; TTL expiresAt)
    O#<owner>                    K#<time>#<n>              a correction for the owner's memory
    O#<owner>                    P#<entry>                 a glossary entry or style note of the owner's memory
    O#<owner>                    N#<kind>                  how many entries of that kind the owner has
    O#<owner>…                   T#…, J#…, N#tm            the owner's translation memory: its entries, the
                                                           notes of their writes, its counter
                                                           (storage.dynamodb_tm); N#tm also counts
                                                           the changes of the owner's memory
                                                           (`changes`: storage.dynamodb_owner_reads)
    O#<owner>                    TJ#…                      the steps' translation-memory entries, a
                                                           journal each (storage.dynamodb_journal)

No item grows with the session, and no partition either: messages and verdicts live in buckets of
BUCKET messages (bucket = index // BUCKET), units in spans of the source. A step reads META, the
files and the hot window (the latest messages and the verdicts on the latest two responses,
compressed, in small items beside META: storage.dynamodb_hot) in one Query, normally (a second for
slots another process wrote since), so the buckets are read only for what the hot window lacks; in
the process that committed the session's latest step, which holds what that commit put, one
BatchGetItem of META, the file count and the owner's memory version shows they are still current;
a read that met a commit half applied is read again (META's stamps, storage.dynamodb_meta). The
layout changes of this release read older releases' items, but an older release cannot read this
one's (META packed, the slots under W#, the file count and the translation memory's notes): it
cannot be rolled back to. It commits in one
TransactWriteItems whose conditions are named below (a commit's units are written with its time, one
item per span; a unit lies outside the coverage the step loaded, storage.interface.check_units, and
the commit is conditional on the version it loaded; a revision updates the unit in place, in the
item that holds it, so nothing is counted twice). The `by-owner` index (gsi1pk = O#<owner>,
gsi1sk = <updatedAt>#<session>) lists an owner's sessions newest first, and under TM#<owner> the
notes of the owner's translation-memory writes by the time they were written (storage.dynamodb_tm).
Sizes are checked before DynamoDB is called, as DynamoDB counts them (names plus UTF-8 values), so
an oversized record is a TooLargeError that says what to shorten; an idempotency answer too large
to keep is dropped rather than failing its request.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from types import EllipsisType
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse

from agent_core.effects import SessionSnapshot, StepEffects, StepToken, StoredAnswer, Verdict
from agent_core.errors import InvalidRequestError

from . import dynamodb_hot as hot
from . import dynamodb_items as di
from . import dynamodb_meta as meta
from . import dynamodb_tm as tm
from . import dynamodb_units as units
from .codec import dump_message, dump_verdict, load_messages, load_verdict
from .dynamodb_files import DynamoDBFiles, coverage_write, files_in, files_key
from .dynamodb_hot import HeldHead
from .dynamodb_items import BUCKET, UNIT_SPAN, Item, n, s
from .dynamodb_memory import DynamoDBMemoryStorage
from .dynamodb_owner_reads import MemoryVersion, memory_version
from .dynamodb_table import INDEX, dynamodb_client, errors
from .errors import ConflictError, NotFoundError
from .interface import MAX_TM_ENTRIES, Storage, check_units, tm_record
from .records import Page, SessionRecord

READS = 4
"""Reads of a step's snapshot before one that keeps meeting a commit half applied is a conflict."""

# Conditions, each named for why it is there:
# A new session must not overwrite an existing one (two "create" steps racing on one id).
IS_NEW = "attribute_not_exists(pk)"
# Optimistic concurrency: a step commits only over the version it loaded.
SAME_VERSION = "version = :expected"
# History is append-only: a message, file or new memory entry is never overwritten (a replay fails whole).
NOT_WRITTEN = "attribute_not_exists(sk)"
# An Idempotency-Key's answer is written once; an expired one (TTL not yet swept) may be replaced.
KEY_FREE = "attribute_not_exists(pk) OR expiresAt <= :now"


class DynamoDBSessionStorage(DynamoDBFiles, DynamoDBMemoryStorage, Storage):
    """Sessions and owners' memory in one DynamoDB table, through an injected boto3 client (the files'
    operations in storage.dynamodb_files, the owner's memory's in storage.dynamodb_memory, the shared
    primitives in storage.dynamodb_table)."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        super().__init__(boto3_client, table_name=table_name)
        self._held = hot.Held()
        """The latest messages of the sessions this process stepped (their slots are not read again)."""

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
        return meta.read(item).record

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        """META, the files and the verdicts in one Query, with the hot window's slots only when this
        process holds none of the session's messages (`hot.Held`); the slots of messages committed
        elsewhere since, then the buckets, only for what that lacks.

        A Query reads each item as committed, not the partition as of one transaction: one that
        read a commit half applied (its META, but not yet an item or message it wrote: META's
        stamps, the message count) is read again, a few times, then refused as a conflict."""
        for attempt in range(READS):
            loaded = self._read_step(session_id, window)
            if loaded is not None:
                return loaded
            time.sleep(0.01 * (attempt + 1))
        raise ConflictError("The session is being written by another request; reload it and try again.")

    def _read_step(self, session_id: str, window: int) -> SessionSnapshot | None:
        """One read of the step's snapshot (`load_step`); None if it saw a commit half applied."""
        pk = di.session_pk(session_id)
        held = self._held.get(session_id) if window > 0 else None
        holding = self._held.latest_head(session_id)
        tried = held is not None and holding is not None and not holding.moved
        current = self._held_head(session_id, holding) if tried and holding is not None else None
        head, seen = current or (None, None)
        if head is None and window > 0 and held is None:
            head = list(self._query(pk, "sk >= :f", {":f": s("F#")}))
        elif head is None:  # up to the slots
            head = self._up_to_slots(pk)
        found = next((i for i in head if i["sk"]["S"] == "META"), None)
        if found is None:
            raise NotFoundError(f"No session {session_id}.")
        loaded = meta.read(found)
        if not tried and holding is not None:
            # Stepped elsewhere lately: the version this process holds is still the session's, or not.
            self._held.moved(
                session_id,
                on=(holding.created_at, holding.version) != (loaded.record.created_at, loaded.record.version),
            )
        if held is not None and held.created_at != loaded.record.created_at:  # of a session deleted since
            self._held.forget(session_id)
            return self._read_step(session_id, window)
        count = loaded.record.message_count
        first = max(0, count - max(window, 0))
        if held is not None and count - first <= hot.HOT and not held.first <= first <= count <= held.end:
            # Committed elsewhere since (or a longer window than held): the slots of the messages not held.
            values = {":w": s(hot.SLOTS), ":lo": n(held.first), ":hi": n(held.end)}
            head += self._query(pk, "sk >= :w", values, FilterExpression="i < :lo OR i >= :hi")
        if not meta.seen_whole(loaded, head):
            return None
        data = hot.window(loaded.hot, head, first, count, held.by_index() if held else None)
        if data is None:
            items = (i for b in di.buckets(first, count) for i in self._messages(session_id, b, first, count))
            data = [di.message_data(i) for i in items]
            if len(data) != count - first:  # a message of the latest commit not read yet
                return None
        if data:
            self._held.keep(session_id, loaded.record.created_at, first, data)
        self._held.keep_head(loaded, head)
        messages = load_messages(data)
        responses = [first + k for k, m in enumerate(messages) if isinstance(m, ModelResponse)]
        latest = responses[-1] if responses else -1
        previous = responses[-2] if len(responses) > 1 else -1
        snapshot = di.snapshot(
            session_id,
            loaded.record,
            files_in(head),
            messages,
            first,
            latest=(latest, self._verdicts(session_id, loaded.hot, head, latest)),
            previous=(previous, self._verdicts(session_id, loaded.hot, head, previous)),
        )
        return replace(snapshot, owner_memory=seen) if seen is not None else snapshot

    def _held_head(self, session_id: str, held: HeldHead) -> tuple[list[Item], MemoryVersion] | None:
        """META, the files and the verdict items as this process last loaded or committed them
        (`held`), if they are still the session's, with the owner's memory version: one BatchGetItem
        of META, the file count (an upload adds a file without a commit, so without a new version) and
        the owner's version item shows the version held and as many files as held. None when it does
        not (the step's Query reads them; after a commit elsewhere, the next steps go to the Query
        at once until it finds the version this process holds is the session's: `Held.moved`)."""
        pk = s(di.session_pk(session_id))
        version = di.memory_version_key(held.owner)
        keys = [{"pk": pk, "sk": s("META")}, files_key(session_id), version]
        # Only what tells: META's version and fields (the creation time), the counts.
        shown = ("sk", "version", meta.STATE, "fileCount", "files", "changes", "writes", "merged")
        read = {i["sk"]["S"]: i for i in self._batch_get(keys, attributes=shown)}
        seen = memory_version(read.get(version["sk"]["S"]))
        self._snapshots.observe(held.owner, seen)
        current = read.get("META")
        if current is None or meta.STATE not in current:  # gone, or as an older release kept it: the Query
            self._held.moved(session_id, on=current is not None)
            return None
        if (json.loads(current[meta.STATE]["S"])["createdAt"], int(current["version"]["N"])) != (
            held.created_at,
            held.version,
        ):
            self._held.moved(session_id, on=True)
            return None
        counted = read.get("COUNT#files", {}).get("files") or current.get("fileCount") or n(0)
        if int(counted["N"]) != sum(sk.startswith("F#") for sk in held.items):
            return None
        return list(held.items.values()), seen  # META as held: the version read is that one

    def _up_to_slots(self, pk: str) -> list[Item]:
        """The session's files, META and verdict items: its partition from F# up to the slots."""
        return list(self._query(pk, "sk BETWEEN :f AND :w", {":f": s("F#"), ":w": s(hot.SLOTS)}))

    def _messages(self, session_id: str, bucket: int, first: int, count: int) -> Iterator[Item]:
        """The bucket's messages in `[first, count)`."""
        start, end = max(first, bucket * BUCKET), min(count, (bucket + 1) * BUCKET) - 1
        values = {":a": s(di.message_sk(start)), ":b": s(di.message_sk(end))}
        return self._query(di.bucket_pk(session_id, start), "sk BETWEEN :a AND :b", values)

    def _verdicts(self, session_id: str, since: int | None, head: Sequence[Item], response_index: int) -> list[str]:
        """The stored verdicts on the response at `response_index`: from the hot window (written since
        `since`, META's `hot`), else its bucket."""
        found = hot.verdicts(since, head, response_index)
        if found is not None:
            return found
        prefix = {":r": s(di.verdict_sk(response_index, ""))}
        stored: dict[str, str] = {}
        for item in self._query(di.bucket_pk(session_id, response_index), "begins_with(sk, :r)", prefix):
            stored |= di.stored_verdicts(item)  # in key order, so commits in order: a later verdict wins
        return [stored[call_id] for call_id in sorted(stored)]

    def _head(self, token: StepToken) -> Mapping[str, Item]:
        """META, the files and the verdict items as the token's step loaded them: as this process
        holds them (`hot.Held.head`), else read again (ConflictError if the session moved on since,
        as the commit's condition on the version would be)."""
        if token.version == 0:
            return {}
        held = self._held.head(token)
        if held is not None:
            return held
        pk = di.session_pk(token.session_id)
        items = self._up_to_slots(pk)
        found = next((meta.read(i) for i in items if i["sk"]["S"] == "META"), None)
        if found is None or (found.record.created_at, found.record.version) != (token.created_at, token.version):
            raise ConflictError("The session changed concurrently; reload it and try again.")
        if not meta.seen_whole(found, items):  # the commit of that version not read whole yet
            raise ConflictError("The session is being written by another request; reload it and try again.")
        return {i["sk"]["S"]: i for i in items}

    def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None = None) -> None:
        """One TransactWriteItems, conditional on the session's version.

        `answer` is kept with the step unless its item would exceed DynamoDB's limits: then it is
        dropped (the step still commits; a retry is answered by the session's state, not by replay).
        """
        sid, now = token.session_id, di.now_iso()
        check_units(token, effects)
        verdicts = {v.tool.call_id: v for v in effects.verdicts}  # one write per call: the last verdict wins
        if verdicts and token.response_index < 0:
            raise InvalidRequestError("There is no model response for these copilot responses to answer.")
        new_verdicts = len(verdicts.keys() - token.verdict_ids)
        with di.storable():
            dumped = [dump_message(m) for m in effects.messages]
            answers = {call_id: dump_verdict(v) for call_id, v in verdicts.items()}
            responses = [isinstance(m, ModelResponse) for m in effects.messages]
            head = self._head(token)
            actions: list[tuple[Item, int]] = [({}, 0)]  # META's, once the others are known (its stamps)
            pk = di.session_pk(sid)
            packed = [di.pack(data) for data in dumped]  # each compressed once: its slot's and its bucket item's
            actions += hot.hot_writes(token, pk, packed, responses, answers, head)
            legacy = hot.legacy_deletes(head)
            for k, (data, compressed) in enumerate(zip(dumped, packed, strict=True)):
                index = token.message_count + k
                item = di.message_item(sid, index, data, compressed)
                actions.append(di.put(item, f"Message {index}", NOT_WRITTEN))
            actions += _verdict_writes(token, answers, now)
            revised = units.unit_writes_of(sid, effects, now, actions, lambda pk: list(self._query(pk)))
            for file_id, covered in effects.coverage.items():
                actions.append(coverage_write(sid, file_id, covered, head.get(f"F#{file_id}"), token.version + 1))
            actions[0] = _meta_write(token, effects, new_verdicts, now, head.get("META"), _stamped(pk, actions))
            corrections = [di.correction_item(sid, token.owner, c, now, k) for k, c in enumerate(effects.corrections)]
            actions += [di.put(item, "A correction") for item in corrections]
            remembered = [tm_record(e) for e in effects.memory]
            changed = bool(corrections)  # the owner's memory changes: counted with the entries' writes, or alone
            memory = tm.step_writes(token.owner, remembered, effects.memory_added, now, self._writer, changed=changed)
        if len(actions) + len(legacy) <= di.MAX_TRANSACTION_ITEMS // 2:  # else a later commit deletes them
            actions += legacy
        later = not tm.fits(memory, beside=[size for _, size in actions])
        if not later:
            actions += memory
        if changed and (later or not memory):  # the memory's change counted alone
            actions.append((di.memory_changed(token.owner), 200))
        di.check_transaction([size for _, size in actions])
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
        if dumped:
            self._held.keep(sid, token.created_at, token.message_count, dumped)
        self._hold_committed(sid, head, actions)
        if memory and not later:
            self._merge_due(token.owner)
        if later:  # a step too large to carry its memory entries: they follow it
            self.put_tm(token.owner, remembered, max_entries=MAX_TM_ENTRIES)

    def _hold_committed(self, sid: str, loaded: Mapping[str, Item], actions: Sequence[tuple[Item, int]]) -> None:
        """Hold META, the files and the verdict items as the commit of `actions` left them: those it
        put whole over what its step `loaded`, without those it deleted (nothing, if it updated one
        in place: the next step reads them)."""
        head = dict(loaded)
        for kind, sk, body in _session_actions(di.session_pk(sid), actions):
            if not hot.HEAD_FIRST <= sk < hot.SLOTS:
                continue
            if kind == "Put":
                head[sk] = body["Item"]
            elif kind == "Delete":
                head.pop(sk, None)
            else:
                self._held.drop_head(sid)
                return
        self._held.keep_head(meta.read(head["META"]), list(head.values()))

    def update_session(
        self,
        session_id: str,
        *,
        source_language: str | EllipsisType | None = ...,
        target_language: str | EllipsisType | None = ...,
    ) -> SessionRecord:
        """Set the session's languages: META put again over the version read, one higher (so a step
        loaded before it fails its commit, and it never overwrites one: read again and retried)."""
        for attempt in range(5):
            item = self._get({"pk": s(di.session_pk(session_id)), "sk": s("META")})
            if item is None:
                raise NotFoundError(f"No session {session_id}.")
            loaded = meta.read(item)
            r = loaded.record
            record = replace(
                r,
                version=r.version + 1,
                source_language=r.source_language if isinstance(source_language, EllipsisType) else source_language,
                target_language=r.target_language if isinstance(target_language, EllipsisType) else target_language,
            )
            # Only over the version read: a commit in between would be lost by this put.
            action = di.put(meta.item(replace(loaded, record=record)), "The session", "version = :v")
            action[0]["Put"]["ExpressionAttributeValues"] = {":v": n(loaded.record.version)}
            try:
                self._transact([action[0]])
            except di.Refused:
                if attempt == 4:
                    raise
                continue
            self._held.forget(session_id)
            return record
        raise AssertionError("unreachable")

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
            args["ExclusiveStartKey"] = di.session_listing_key(owner, di.decode_cursor(cursor))
        with errors():
            page = self.client.query(**args)
            last = page.get("LastEvaluatedKey")
            if last and len(page["Items"]) == args["Limit"]:
                # DynamoDB may report a next key on an exactly full last page; look ahead once.
                last = last if self.client.query(**{**args, "ExclusiveStartKey": last, "Limit": 1})["Items"] else None
        return Page(
            [meta.read(i).record for i in page["Items"]], di.encode_cursor({"k": last["gsi1sk"]["S"]}) if last else None
        )

    def delete_session(self, session_id: str) -> None:
        """Delete every item of the session, its kept answers included; the META item goes last."""
        self._held.forget(session_id)
        names = {"#m": "messageCount", "#s": meta.STATE, "#c": "chars"}
        own = list(
            self._query(
                di.session_pk(session_id), ProjectionExpression="pk, sk, #m, #s, #c", ExpressionAttributeNames=names
            )
        )
        partitions: list[str] = []
        answers: list[Item] = []
        for item in own:
            sk = item["sk"]["S"]
            if sk == "META":
                count = meta.message_count(item)
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
        data = [di.message_data(i) for b in di.buckets(start, end) for i in self._messages(session_id, b, start, end)]
        return Page(load_messages(data), di.encode_cursor({"i": end}) if end < count else None)

    def list_verdicts(self, session_id: str, *, cursor: str | None, limit: int) -> Page[Verdict]:
        """The latest verdict on each call, by response index then call id, as SQLite lists them; the
        cursor names the last listed (response, call). A bucket's verdict items are read whole, so a
        verdict replaced by a later commit's is never listed."""
        count, limit = self.get_session(session_id).message_count, max(1, limit)
        after = di.verdict_position(cursor, count)
        found: list[tuple[int, str, str]] = []  # response index, call id, the verdict
        for bucket in range(after[0] // BUCKET, (count - 1) // BUCKET + 1 if count else 0):
            bounds = {":a": s(di.verdict_sk(max(after[0], bucket * BUCKET), "")), ":z": s("R$")}
            latest: dict[int, dict[str, str]] = {}
            for item in self._query(di.bucket_pk(session_id, bucket * BUCKET), "sk BETWEEN :a AND :z", bounds):
                # in key order, so commits in order: a later verdict on a call wins, as the step's load has it
                latest.setdefault(di.verdict_response(item), {}).update(di.stored_verdicts(item))
            found += [(r, c, v) for r, by_call in sorted(latest.items()) for c, v in sorted(by_call.items())]
            found = [f for f in found if f[:2] > after]
            if len(found) > limit:
                break
        more = len(found) > limit
        found = found[:limit]
        next_cursor = di.encode_cursor({"r": found[-1][0], "c": found[-1][1]}) if more else None
        return Page([load_verdict(v) for *_, v in found], next_cursor)

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


def _meta_write(
    token: StepToken,
    effects: StepEffects,
    new_verdicts: int,
    now: str,
    loaded: Item | None,
    stamped: tuple[list[str], list[str]],
) -> tuple[Item, int]:
    """META put whole: a new session's (version 0, where none exists), or over the token's version
    from the META its step `loaded`, with the stamps of the items the commit writes and deletes
    (`stamped`, storage.dynamodb_meta.seen_whole)."""
    written, deleted = stamped
    if token.version == 0:
        new = meta.committed(None, token, effects, new_verdicts=new_verdicts, now=now, written=written)
        return di.put(meta.item(new), "The session's user inputs", IS_NEW)
    if loaded is None:  # not in what the step loaded: the session is gone
        raise ConflictError("The session changed concurrently; reload it and try again.")
    base = meta.read(loaded)
    new = meta.committed(base, token, effects, new_verdicts=new_verdicts, now=now, written=written, deleted=deleted)
    action, size = di.put(meta.item(new), "The session's user inputs", SAME_VERSION)
    action["Put"]["ExpressionAttributeValues"] = {":expected": n(token.version)}
    return action, size


def _session_actions(pk: str, actions: Sequence[tuple[Item, int]]) -> Iterator[tuple[str, str, Item]]:
    """The kind, sort key and body of each of these actions on the session's own partition `pk`."""
    for action, _ in actions:
        for kind, body in action.items():
            key = body.get("Item") or body.get("Key") or {}
            if key.get("pk") == s(pk):
                yield kind, key["sk"]["S"], body


def _stamped(pk: str, actions: Sequence[tuple[Item, int]]) -> tuple[list[str], list[str]]:
    """The sort keys of the session's file and verdict items these actions put, and of those they delete."""
    written: list[str] = []
    deleted: list[str] = []
    for kind, sk, _ in _session_actions(pk, actions):
        if sk.startswith(("F#", "V#")):
            (deleted if kind == "Delete" else written).append(sk)
    return written, deleted


def _verdict_writes(token: StepToken, answers: Mapping[str, str], now: str) -> list[tuple[Item, int]]:
    """A commit's verdicts (call id → dumped) on the token's latest response: one item, or one item
    per verdict when together they would not fit in one."""
    if not answers:
        return []
    sid, response = token.session_id, token.response_index
    item = di.verdicts_item(sid, response, token.version, answers, now)
    if di.item_size(item) <= di.MAX_ITEM_BYTES:
        return [di.put(item, "The copilot responses", NOT_WRITTEN)]
    return [
        di.put(di.verdict_item(sid, response, call_id, data, now), f"The copilot response to {call_id}")
        for call_id, data in answers.items()
    ]
