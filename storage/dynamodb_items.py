"""DynamoDB item shapes for `storage.dynamodb`: keys, attribute encodings, cursors, records ↔ items.

Private to the DynamoDB backend (which owns the table layout described in its docstring); kept apart
so the backend module reads as its operations.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from .errors import InvalidCursorError
from .records import (
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    MemoryEntryRecord,
    MessageRecord,
    SessionRecord,
    UnitRecord,
)

Item = dict[str, Any]
BUCKET = 100
"""Messages (and the verdicts on them) per partition."""
UNIT_SPAN = 32_000
"""Source characters whose units share a partition."""


def _s(value: str) -> Item:
    return {"S": value}


def _n(value: int) -> Item:
    return {"N": str(value)}


def _opt(value: str | None) -> Item:
    return {"NULL": True} if value is None else {"S": value}


def _get_opt(item: Item, key: str) -> str | None:
    value = item.get(key)
    return None if value is None or "NULL" in value else str(value["S"])


def _pk(session_id: str) -> str:
    return f"S#{session_id}"


def _bucket_pk(session_id: str, index: int) -> str:
    return f"S#{session_id}#B#{index // BUCKET:06d}"


def _unit_pk(session_id: str, file_id: str, start: int) -> str:
    return f"S#{session_id}#U#{file_id}#{start // UNIT_SPAN:05d}"


def _idem_pk(owner: str, key: str) -> str:
    """Keys are scoped to the caller; hashed so any string up to 255 characters fits a key."""
    digest = hashlib.sha256(f"{owner}\x00{key}".encode()).hexdigest()
    return f"I#{digest}"


def _encode_cursor(key: Item) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode()


def _decode_index(cursor: str | None) -> int:
    if not cursor:
        return 0
    index = _decode_cursor(cursor).get("i")
    if not isinstance(index, int) or index < 0:
        raise InvalidCursorError("Invalid cursor.")
    return index


def _decode_cursor(cursor: str) -> Item:
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if not isinstance(value, dict):
        raise InvalidCursorError("Invalid cursor.")
    return value


def _session_item(r: SessionRecord) -> Item:
    return {
        "pk": _s(_pk(r.session_id)),
        "sk": _s("META"),
        "owner": _s(r.owner),
        "createdAt": _s(r.created_at),
        "updatedAt": _s(r.updated_at),
        "version": _n(r.version),
        "messageCount": _n(r.message_count),
        "copilotResponseCount": _n(r.copilot_response_count),
        "userInputs": _s(json.dumps(list(r.user_inputs))),
        "schemaVersion": _n(r.schema_version),
        "telemetry": _s(json.dumps([r.steps, r.model_requests, r.input_tokens, r.output_tokens, r.model_ms])),
        "gsi1pk": _s(f"O#{r.owner}"),
        "gsi1sk": _s(f"{r.updated_at}#{r.session_id}"),
    }


def _session(i: Item) -> SessionRecord:
    return SessionRecord(
        session_id=i["pk"]["S"].removeprefix("S#"),
        owner=i["owner"]["S"],
        created_at=i["createdAt"]["S"],
        updated_at=i["updatedAt"]["S"],
        version=int(i["version"]["N"]),
        message_count=int(i["messageCount"]["N"]),
        copilot_response_count=int(i["copilotResponseCount"]["N"]),
        user_inputs=tuple(json.loads(i["userInputs"]["S"])),
        schema_version=int(i["schemaVersion"]["N"]),
        **_telemetry(i),
    )


def _telemetry(i: Item) -> dict[str, int]:
    """Telemetry counters; a record written before they existed (schema 1) reads as zeros."""
    names = ("steps", "model_requests", "input_tokens", "output_tokens", "model_ms")
    values = json.loads(i["telemetry"]["S"]) if "telemetry" in i else [0] * len(names)
    return dict(zip(names, (int(v) for v in values), strict=True))


def _message(i: Item) -> MessageRecord:
    return MessageRecord(index=int(i["sk"]["S"][2:]), data=i["data"]["S"])


def _response(i: Item) -> CopilotResponseRecord:
    _, index, call_id = i["sk"]["S"].split("#", 2)
    return CopilotResponseRecord(
        response_index=int(index), call_id=call_id, data=i["data"]["S"], created_at=i["createdAt"]["S"]
    )


def _file(i: Item) -> FileRecord:
    return FileRecord(
        file_id=i["sk"]["S"][2:],
        name=i["name"]["S"],
        chars=int(i["chars"]["N"]),
        covered=tuple((int(s), int(e)) for s, e in json.loads(i["covered"]["S"])),
        created_at=i["createdAt"]["S"],
    )


def _unit_item(session_id: str, u: UnitRecord) -> Item:
    return {
        "pk": _s(_unit_pk(session_id, u.file_id, u.start)),
        "sk": _s(f"{u.start:010d}"),
        "fileId": _s(u.file_id),
        "end": _n(u.end),
        "coverEnd": _n(u.cover_end),
        "text": _s(u.text),
        "callId": _s(u.call_id),
        "status": _s(u.status),
    }


def _unit(i: Item) -> UnitRecord:
    return UnitRecord(
        file_id=i["fileId"]["S"],
        start=int(i["sk"]["S"]),
        end=int(i["end"]["N"]),
        cover_end=int(i["coverEnd"]["N"]),
        text=i["text"]["S"],
        call_id=i["callId"]["S"],
        status=i["status"]["S"],
    )


def _correction_item(c: CorrectionRecord) -> Item:
    return {
        "pk": _s(f"O#{c.owner}"),
        "sk": _s(f"K#{c.created_at}#{c.correction_id}"),
        "sessionId": _s(c.session_id),
        "fileId": _s(c.file_id),
        "status": _s(c.status),
        "source": _s(c.source),
        "proposal": _s(c.proposal),
        "final": _opt(c.final),
        "reason": _opt(c.reason),
    }


def _correction(i: Item) -> CorrectionRecord:
    _, created_at, correction_id = i["sk"]["S"].split("#", 2)
    return CorrectionRecord(
        correction_id=correction_id,
        owner=i["pk"]["S"][2:],
        session_id=i["sessionId"]["S"],
        file_id=i["fileId"]["S"],
        status=i["status"]["S"],
        source=i["source"]["S"],
        proposal=i["proposal"]["S"],
        final=_get_opt(i, "final"),
        reason=_get_opt(i, "reason"),
        created_at=created_at,
    )


def _memory_item(r: MemoryEntryRecord) -> Item:
    # No gsi1pk: the by-owner index lists sessions only.
    return {
        "pk": _s(f"O#{r.owner}"),
        "sk": _s(f"P#{r.entry_id}"),
        "kind": _s(r.kind),
        "source": _s(r.source),
        "text": _s(r.text),
        "languages": _s(r.languages),
        "origin": _s(r.origin),
        "createdAt": _s(r.created_at),
        "updatedAt": _s(r.updated_at),
    }


def _memory_entry(i: Item) -> MemoryEntryRecord:
    return MemoryEntryRecord(
        entry_id=i["sk"]["S"][2:],
        owner=i["pk"]["S"][2:],
        kind=i["kind"]["S"],
        source=i["source"]["S"],
        text=i["text"]["S"],
        languages=i["languages"]["S"],
        origin=i["origin"]["S"],
        created_at=i["createdAt"]["S"],
        updated_at=i["updatedAt"]["S"],
    )
