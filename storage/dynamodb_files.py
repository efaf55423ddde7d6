"""DynamoDB operations on a session's files: their items and text chunks, the file count, the units
written to them, and the item a commit puts with a file's new coverage. Layout in storage.dynamodb.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from agent_core.document import FileState, Spans
from agent_core.effects import UnitWrite
from agent_core.errors import InvalidRequestError

from . import dynamodb_items as di
from . import dynamodb_units as units
from .dynamodb_items import UNIT_SPAN, Item, n, s, session_pk, to_json
from .dynamodb_table import DynamoDBTable
from .errors import ConflictError, NotFoundError
from .interface import CHUNK_CHARS, chunks

# A file is added once (a second add of its id is refused).
NEW_FILE = "attribute_not_exists(sk)"
# A file's coverage is updated only while the file (and so its session) still exists.
FILE_EXISTS = "attribute_exists(sk)"
# A file is added only to a session that exists, and only while it holds fewer than :max files
# (the count is raised in the same transaction, so concurrent uploads cannot pass the cap together).
# A count not kept yet starts from the one META kept before this release (:seed), if that leaves room.
SESSION_EXISTS = "attribute_exists(pk)"
FILE_ROOM = "files < :max"
FILE_ROOM_FROM_SEED = "attribute_not_exists(files) OR files < :max"


def files_key(session_id: str) -> Item:
    """The key of the item counting the session's files: outside the step's Query (`sk >= F#`), so
    only uploads read or write it, and META has the session's steps as its only writers."""
    return {"pk": s(session_pk(session_id)), "sk": s("COUNT#files")}


def chunk_sk(file_id: str, number: int) -> str:
    """The sort key of a file's chunk `number`."""
    return f"C#{file_id}#{number:05d}"


def original_sk(file_id: str, number: int) -> str:
    """The sort key of chunk `number` of the document the file was taken from (sorts before F#, which
    a step reads, so a step never reads originals)."""
    return f"D#{file_id}#{number:05d}"


def file_item(session_id: str, f: FileState, created_at: str, chunk_count: int) -> Item:
    """A file's item (its text is in chunk items)."""
    return {
        "pk": s(session_pk(session_id)),
        "sk": s(f"F#{f.file_id}"),
        "name": s(f.name),
        "chars": n(f.chars),
        "covered": s(to_json(f.covered)),
        "createdAt": s(created_at),
        "chunks": n(chunk_count),
    }


def file_state(i: Item) -> FileState:
    """A file item as the agent's FileState."""
    return FileState(
        file_id=i["sk"]["S"][2:],
        name=i["name"]["S"],
        chars=int(i["chars"]["N"]),
        covered=tuple((int(a), int(b)) for a, b in json.loads(i["covered"]["S"])),
        created_at=i["createdAt"]["S"],
    )


def upload_order(files: Iterable[FileState]) -> list[FileState]:
    """Files in the order they were added."""
    return sorted(files, key=lambda f: (f.created_at, f.file_id))


def files_in(head: Iterable[Item]) -> list[FileState]:
    """The file items among a step's read, as FileStates in upload order."""
    return upload_order(file_state(i) for i in head if i["sk"]["S"].startswith("F#"))


class DynamoDBFiles(DynamoDBTable):
    """A session's files in the table (partition S#<session>; units in S#<session>#U#<file>#<n>)."""

    def add_file(
        self, session_id: str, file: FileState, content: str, *, max_files: int, original: str | None = None
    ) -> None:
        """The session's META read (its file count, as releases before this one kept it), the chunks
        (the original's too), then the file item and the session's file count in one transaction.

        A refused file's chunks are deleted again; a crash between leaves only chunks that no file
        item names, which deleting the session removes.
        """
        pk = s(di.session_pk(session_id))
        with di.storable():
            parts = [
                {"pk": pk, "sk": s(chunk_sk(file.file_id, k)), "text": s(t)} for k, t in enumerate(chunks(content))
            ]
            item = file_item(session_id, file, file.created_at or di.now_iso(), len(parts))
            if original is not None:
                parts += [
                    {"pk": pk, "sk": s(original_sk(file.file_id, k)), "text": s(t)}
                    for k, t in enumerate(chunks(original))
                ]
            for part in (*parts, item):
                di.check_size(part, "The file")
        session = self._get({"pk": pk, "sk": s("META")})
        if session is None:
            raise NotFoundError(f"No session {session_id}.")
        self._batch_write([{"PutRequest": {"Item": p}} for p in parts])
        try:
            # Releases before this one counted the files in META: the count goes on from there.
            seed = int(session.get("fileCount", n(0))["N"])
            values = {":seed": n(seed), ":one": n(1), ":max": n(max_files)}
            count = "SET files = if_not_exists(files, :seed) + :one"
            room = FILE_ROOM_FROM_SEED if seed < max_files else FILE_ROOM
            exists = {"ConditionCheck": {"Key": {"pk": pk, "sk": s("META")}, "ConditionExpression": SESSION_EXISTS}}
            counted = di.update(files_key(session_id), count, values, room, "")[0]
            self._transact([exists, counted, di.put(item, "", NEW_FILE)[0]], retries=8)
        except di.Refused as exc:
            if exc.failed(2):
                raise ConflictError(f"The file {file.file_id} was already added.") from exc
            self._batch_write([{"DeleteRequest": {"Key": {"pk": p["pk"], "sk": p["sk"]}}} for p in parts])
            if exc.failed(0):
                raise NotFoundError(f"No session {session_id}.") from exc
            raise InvalidRequestError(f"A session holds at most {max_files} files.") from exc

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """Only the chunks that hold `[start, end)`, in one query."""
        start = max(0, start)
        first, last = start // CHUNK_CHARS, min((max(end, 1) - 1) // CHUNK_CHARS, 99_999)
        texts: list[str] = []
        if end > start and first <= last:
            bounds = {":a": s(chunk_sk(file_id, first)), ":b": s(chunk_sk(file_id, last))}
            texts = [i["text"]["S"] for i in self._query(di.session_pk(session_id), "sk BETWEEN :a AND :b", bounds)]
        if not texts:
            self._file(session_id, file_id)  # NotFound for an unknown file; else the range is past its end
            return ""
        offset = first * CHUNK_CHARS
        return "".join(texts)[start - offset : end - offset]

    def read_original(self, session_id: str, file_id: str) -> str | None:
        """The document the file was taken from, in one query (None if it was stored without one)."""
        bounds = {":a": s(original_sk(file_id, 0)), ":b": s(original_sk(file_id, 99_999))}
        texts = [i["text"]["S"] for i in self._query(di.session_pk(session_id), "sk BETWEEN :a AND :b", bounds)]
        if not texts:
            self._file(session_id, file_id)  # NotFound for an unknown file
            return None
        return "".join(texts)

    def list_units(self, session_id: str, file_id: str) -> list[UnitWrite]:
        """The file's units by position, span by span."""
        chars = self._file(session_id, file_id).chars
        spans = range(chars // UNIT_SPAN + 1)
        items = (i for k in spans for i in self._query(di.unit_pk(session_id, file_id, k * UNIT_SPAN)))
        return sorted((u for i in items for u in units.unit_writes(i)), key=lambda u: u.start)

    def _file(self, session_id: str, file_id: str) -> FileState:
        item = self._get({"pk": s(di.session_pk(session_id)), "sk": s(f"F#{file_id}")})
        if item is None:
            raise NotFoundError(f"No file {file_id} in this session.")
        return file_state(item)


def coverage_write(
    session_id: str, file_id: str, covered: Spans, loaded: Item | None, version: int
) -> tuple[Item, int]:
    """The file's new coverage, with the version that wrote it: its item put whole from the one the
    step `loaded`, else (a file the step did not load, added since) updated."""
    what = "The file's coverage"
    if loaded is not None:
        return di.put(loaded | {"covered": s(di.to_json(covered)), "v": n(version)}, what, FILE_EXISTS)
    key = {"pk": s(di.session_pk(session_id)), "sk": s(f"F#{file_id}")}
    values = {":c": s(di.to_json(covered)), ":v": n(version)}
    return di.update(key, "SET covered = :c, v = :v", values, FILE_EXISTS, what)
