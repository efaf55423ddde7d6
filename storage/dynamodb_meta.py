"""The session's META item (for `storage.dynamodb`): its fields, and the item each commit puts whole.

Layout (in the table of `storage.dynamodb`):

    S#<session>  META   version    the session's version (a commit's condition: the version it loaded)
                        gsi1pk,    the `by-owner` index: O#<owner>, <updatedAt>#<session>
                        gsi1sk
                        state      the rest, compact JSON: owner, createdAt, updatedAt, messageCount,
                                   hiddenMessages, copilotResponseCount, userInputs, queuedInputs,
                                   hot (storage.dynamodb_hot), stamps (`seen_whole`),
                                   schemaVersion, and the telemetry's counters (steps,
                                   modelRequests, inputTokens, outputTokens, modelMs, cachedTokens)

Its only writers are the session's commits, each over the version it loaded, so a commit puts it
whole from the META its step loaded, its counters raised: DynamoDB bills a write by the item's size
either way, and one packed attribute is what the step's Query returns and the commit sends, parsed
once, where an attribute per field was parsed and serialised field by field (by botocore, and by
moto in the benchmarks). Releases before this one kept each field as an attribute of its own, and
schema 2 the telemetry's totals as JSON (`telemetry`): read the same, packed by the next commit. Any
other attribute of theirs (the file count, `fileCount`, that uploads go on from) is kept as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_core.effects import StepEffects, StepToken, Telemetry

from .dynamodb_items import Item, n, s, session_pk, to_json
from .records import SCHEMA_VERSION, SessionRecord

TELEMETRY = {
    "steps": "steps",
    "model_requests": "modelRequests",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "model_ms": "modelMs",
    "cached_tokens": "cachedTokens",
}
"""Telemetry fields and the names of the counters that total them."""
STATE = "state"
"""The attribute that packs META's fields."""
_OWN = {"pk", "sk", "version", "gsi1pk", "gsi1sk", STATE}
_FIELDS = {
    "owner",
    "createdAt",
    "updatedAt",
    "messageCount",
    "hiddenMessages",
    "copilotResponseCount",
    "userInputs",
    "queuedInputs",
    "hot",
    "schemaVersion",
    "telemetry",
    *TELEMETRY.values(),
}
"""META's fields as attributes of their own, as releases before this one kept them."""


@dataclass(frozen=True, slots=True)
class Meta:
    """A session's META, as read or about to be put: the session's record and what only this layout keeps."""

    record: SessionRecord
    hot: int | None = 0
    """The history index from which every message has its slot (storage.dynamodb_hot; None: no slots)."""
    kept: Item = field(default_factory=dict)
    """Attributes of older releases that are not META's fields (put back as they are)."""
    stamps: Mapping[str, int] = field(default_factory=dict)
    """The session's files and verdict items (by sort key) that commits rewrite, each with the
    version of the last commit that wrote it (`seen_whole`)."""


def read(item: Item) -> Meta:
    """A META item, packed (`state`) or as releases before this one wrote it."""
    if STATE in item:
        f: dict[str, Any] = json.loads(item[STATE]["S"])
    else:
        f = {k: _plain(v) for k, v in item.items() if k in _FIELDS}
        f["userInputs"] = json.loads(f.get("userInputs", "[]"))
        f["queuedInputs"] = json.loads(f.get("queuedInputs", "[]"))
    legacy = json.loads(f["telemetry"]) if isinstance(f.get("telemetry"), str) else []
    legacy += [0] * (len(TELEMETRY) - len(legacy))  # a schema-2 record has no cached tokens
    totals = {k: int(old) + int(f.get(name, 0)) for (k, name), old in zip(TELEMETRY.items(), legacy, strict=True)}
    record = SessionRecord(
        session_id=item["pk"]["S"].removeprefix("S#"),
        owner=f["owner"],
        created_at=f["createdAt"],
        updated_at=f["updatedAt"],
        version=int(item["version"]["N"]) if "version" in item else 0,
        message_count=int(f.get("messageCount", 0)),
        hidden_messages=int(f.get("hiddenMessages", 0)),
        copilot_response_count=int(f.get("copilotResponseCount", 0)),
        user_inputs=tuple(f["userInputs"]),
        queued_inputs=tuple(f["queuedInputs"]),
        schema_version=int(f.get("schemaVersion", SCHEMA_VERSION)),
        telemetry=Telemetry(**totals),
        source_language=f.get("sourceLanguage"),
        target_language=f.get("targetLanguage"),
    )
    hot = None if f.get("hot") is None else int(f["hot"])
    kept = {k: v for k, v in item.items() if k not in _OWN and k not in _FIELDS}
    return Meta(record, hot, kept, {k: int(v) for k, v in f.get("stamps", {}).items()})


def _plain(value: Item) -> Any:
    """An attribute's value (N as int, S as str)."""
    return int(value["N"]) if "N" in value else value.get("S")


def item(m: Meta) -> Item:
    """The META item to put."""
    r = m.record
    state = {
        "owner": r.owner,
        "createdAt": r.created_at,
        "updatedAt": r.updated_at,
        "messageCount": r.message_count,
        "hiddenMessages": r.hidden_messages,
        "copilotResponseCount": r.copilot_response_count,
        "userInputs": list(r.user_inputs),
        "queuedInputs": list(r.queued_inputs),
        "hot": m.hot,
        "stamps": dict(m.stamps),
        "schemaVersion": r.schema_version,
        "sourceLanguage": r.source_language,
        "targetLanguage": r.target_language,
    } | {name: getattr(r.telemetry, k) for k, name in TELEMETRY.items()}
    return m.kept | {
        "pk": s(session_pk(r.session_id)),
        "sk": s("META"),
        "version": n(r.version),
        "gsi1pk": s(f"O#{r.owner}"),
        "gsi1sk": s(f"{r.updated_at}#{r.session_id}"),
        STATE: s(to_json(state)),
    }


def message_count(item: Item) -> int:
    """A META item's message count, read from an item projected to `pk, sk, state, messageCount`."""
    if STATE in item:
        return int(json.loads(item[STATE]["S"]).get("messageCount", 0))
    return int(item.get("messageCount", {"N": "0"})["N"])


def committed(
    loaded: Meta | None,
    token: StepToken,
    effects: StepEffects,
    *,
    new_verdicts: int,
    now: str,
    written: Sequence[str] = (),
    deleted: Sequence[str] = (),
) -> Meta:
    """The META a commit puts over the token's version: the one its step `loaded` (None: a session the
    commit creates), counters raised by the step's share, inputs replaced where the step set them,
    `hot` set where absent (at the history's end), and the stamps of the items the commit `written`
    (now the new version's) and `deleted` (gone)."""
    new = SessionRecord(
        session_id=token.session_id,
        owner=token.owner,
        created_at=token.created_at,
        updated_at=now,
        version=0,
        source_language=effects.source_language,
        target_language=effects.target_language,
    )
    base = loaded or Meta(new)
    r, spent = base.record, effects.telemetry
    record = replace(
        r,
        updated_at=now,
        version=token.version + 1,
        message_count=token.message_count + len(effects.messages),
        hidden_messages=r.hidden_messages + effects.hidden_messages,
        copilot_response_count=r.copilot_response_count + new_verdicts,
        user_inputs=r.user_inputs if effects.user_inputs is None else tuple(effects.user_inputs),
        queued_inputs=r.queued_inputs if effects.queued_inputs is None else tuple(effects.queued_inputs),
        telemetry=Telemetry(**{k: getattr(r.telemetry, k) + getattr(spent, k) for k in TELEMETRY}),
    )
    stamps = {k: v for k, v in base.stamps.items() if k not in deleted} | dict.fromkeys(written, record.version)
    return replace(base, record=record, hot=token.message_count if base.hot is None else base.hot, stamps=stamps)


def seen_whole(m: Meta, head: Sequence[Item]) -> bool:
    """True if `head`, read with META `m`, holds every stamped item as the commit that stamped it
    wrote it, or later. A Query reads each item as committed, not the partition as of one
    transaction: read while a commit is applied, it can return its META and an older file or
    verdict item (read again, then)."""
    found = {i["sk"]["S"]: i for i in head}
    for key, version in m.stamps.items():
        item = found.get(key)
        if item is None or int(item.get("v", {"N": "0"})["N"]) < version:
            return False
    return True
