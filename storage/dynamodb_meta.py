"""A session's META item as a value (storage.dynamodb owns the layout and the calls): its key, a step's
conditional write of it, and the SessionRecord it reads as. Nothing here calls DynamoDB."""

from __future__ import annotations

import json
from typing import cast

from pydantic_ai.messages import ModelResponse

from agent_core.effects import Budget, StepEffects, StepToken, Telemetry
from agent_core.review_modes import ReviewMode

from . import dynamodb_items as di
from .dynamodb_items import Item, n, num, s
from .records import SessionClaim, SessionHold, SessionRecord

TELEMETRY = {
    "steps": "steps",
    "model_requests": "modelRequests",
    "input_tokens": "inputTokens",
    "output_tokens": "outputTokens",
    "model_ms": "modelMs",
    "cached_tokens": "cachedTokens",
    "cost_micro_usd": "costMicroUsd",
}
"""Telemetry's fields and their attributes in META."""
# A new session must not overwrite an existing one (two "create" steps racing on one id).
IS_NEW = "attribute_not_exists(pk)"


def session_pk(session_id: str) -> str:
    """The partition key of a session's items."""
    return f"S#{session_id}"


def meta_key(session_id: str) -> Item:
    """The key of a session's META item."""
    return {"pk": s(session_pk(session_id)), "sk": s("META")}


def meta_write(token: StepToken, effects: StepEffects, now: str) -> Item:
    """The step's write of META: one Update, conditional on the version loaded (a new session's: on
    there being none), whose counters count from nothing for a new session."""
    sid, version = token.session_id, token.version
    responses = [token.message_count + k for k, m in enumerate(effects.messages) if isinstance(m, ModelResponse)]
    names: dict[str, str] = {}
    values: Item = {":zero": n(0), ":none": n(-1), ":d": n(1 if effects.verdicts else 0)}
    sets: list[str] = []

    def put(attr: str, value: Item, expression: str = "") -> None:
        names[f"#{attr}"], values[f":{attr}"] = attr, value
        sets.append(f"#{attr} = {expression or ':' + attr}")

    def add(attr: str, amount: int) -> None:
        put(attr, n(amount), f"if_not_exists(#{attr}, :zero) + :{attr}")

    put("version", n(version + 1))
    put("updatedAt", s(now))
    put("gsi1sk", s(f"{now}#{sid}"))
    add("messageCount", len(effects.messages))
    add("hiddenMessages", effects.hidden_messages)
    add("responseCount", len({v.tool.call_id for v in effects.verdicts} - token.verdict_ids))
    for field, attr in TELEMETRY.items():
        add(attr, getattr(effects.telemetry, field))
    if version == 0:
        for attr, value in (("gsi1pk", f"O#{token.owner}"), ("owner", token.owner), ("createdAt", token.created_at)):
            put(attr, s(value))
        put("files", {"M": {}})
        put("fileCount", n(0))
        budget = effects.budget.dumps() if effects.budget else None
        settings = (
            ("sourceLanguage", effects.source_language),
            ("targetLanguage", effects.target_language),
            ("budget", budget),
        )
        auto = str(effects.auto_approve) if effects.auto_approve is not None else None
        review = effects.review if effects.review != "single" else None
        sample = repr(effects.auto_sample) if effects.auto_sample else None
        routing = (("autoApprove", auto), ("review", review), ("autoSample", sample), ("qaProfile", effects.qa_profile))
        for attr, setting in (*settings, ("model", effects.model), *routing):
            if setting:
                put(attr, s(setting))
    if version == 0 or effects.user_inputs is not None:
        put("userInputs", s(di.meta_json(list(effects.user_inputs or ()))))
    if version == 0 or effects.queued_inputs is not None:
        put("queuedInputs", s(di.meta_json(list(effects.queued_inputs or ()))))
    if responses:  # the latest response: the one before it becomes the previous, with this step's record
        one = len(responses) == 1
        put(
            "previousResponse",
            n(responses[-2]) if not one else n(-1),
            "if_not_exists(#latestResponse, :none)" if one else "",
        )
        put("previousRecords", n(0), "if_not_exists(#latestRecords, :zero) + :d" if one else "")
        put("latestResponse", n(responses[-1]))
        put("latestRecords", n(0))
    elif effects.verdicts:
        put("latestRecords", n(1), "if_not_exists(#latestRecords, :zero) + :d")
    for k, (file_id, covered) in enumerate(effects.coverage.items()):
        names[f"#f{k}"], values[f":c{k}"] = file_id, s(di.meta_json(covered))
        names["#files"] = "files"
        sets.append(f"#files.#f{k}.covered = :c{k}")
    if version > 0:
        values[":expected"] = n(version)
    names["#hold"] = "hold"  # a commit ends whatever held the session
    update: Item = {
        "Key": meta_key(sid),
        "UpdateExpression": "SET " + ", ".join(sets) + " REMOVE #hold",
        "ConditionExpression": IS_NEW if version == 0 else "#version = :expected",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    return {"Update": update}


def session_record(item: Item) -> SessionRecord:
    return SessionRecord(
        session_id=item["pk"]["S"][2:],
        owner=item["owner"]["S"],
        created_at=item["createdAt"]["S"],
        updated_at=item["updatedAt"]["S"],
        version=num(item, "version"),
        message_count=num(item, "messageCount"),
        hidden_messages=num(item, "hiddenMessages"),
        copilot_response_count=num(item, "responseCount"),
        user_inputs=tuple(json.loads(item["userInputs"]["S"])),
        queued_inputs=tuple(json.loads(item["queuedInputs"]["S"])),
        telemetry=Telemetry(**{field: num(item, attr) for field, attr in TELEMETRY.items()}),
        source_language=item.get("sourceLanguage", {}).get("S"),
        target_language=item.get("targetLanguage", {}).get("S"),
        budget=Budget.loads(item["budget"]["S"]) if "budget" in item else None,
        model=item.get("model", {}).get("S"),
        hold=SessionHold.loads(item["hold"]["S"]) if "hold" in item else None,
        auto_approve=int(item["autoApprove"]["S"]) if "autoApprove" in item else None,
        review=cast(ReviewMode, item["review"]["S"]) if "review" in item else "single",
        auto_sample=float(item["autoSample"]["S"]) if "autoSample" in item else 0.0,
        qa_profile=item.get("qaProfile", {}).get("S"),
        claim=SessionClaim(by=item["claimBy"]["S"], until=item["claimUntil"]["S"]) if "claimBy" in item else None,
    )
