"""Records say what happened, through the HTTP routes on both backends: an Idempotency-Key keeps every
answer of "approve all shown" (none approved included), the audit trail's events each carry their own
text, reason and actor in order, and a changed auto-approval threshold leaves the shown cards pending."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelResponse

from storage.interface import Storage
from tests.conftest import make_backend
from tests.helpers import AsyncApi, Script, services_for, translate_ids

DOC = "Open the file.\n\nSend the letter now.\n\nSave the page before you close it.\n"
GOOD = {
    "s1": "Ouvrez le fichier.",
    "s2": "Envoyez la lettre maintenant.",
    "s3": "Enregistrez la page avant de la fermer.",
}
TASK = "Translate doc.md into French."


@pytest.fixture(params=["sqlite", "dynamodb"])
def backend(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Storage]:
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    storage = make_backend(request.param, tmp_path)
    assert isinstance(storage, Storage)
    yield storage


def batch(texts: dict[str, str], **more: dict[str, Any]) -> ModelResponse:
    """One response proposing each segment's text (`more`: extra arguments by segment)."""
    return ModelResponse(
        parts=[translate_ids("f1", [s], text, call_id=f"c_{s}", **more.get(s, {})) for s, text in texts.items()]
    )


async def test_an_approve_all_that_approved_nothing_keeps_its_answer_for_the_key(backend: Storage) -> None:
    script = Script()
    api = AsyncApi(services_for(backend, model=script.model))
    sid, fid = await api.start(DOC)
    path = f"/api/sessions/{sid}/files/{fid}/approve"
    # Nothing is shown yet: the first call approves nothing, and its answer is kept for the key.
    first = await api.client.post(path, json={"filter": {}}, headers={"Idempotency-Key": "look-1"})
    assert first.status_code == 200 and (first.json()["approved"], first.json()["skipped"]) == (0, 0)
    script.replies = [batch(GOOD)]
    await api.next(sid, userInput=TASK)
    shown = (await api.ok("GET", f"/api/sessions/{sid}"))["pendingCopilotRequests"]
    assert len(shown) == 3
    # The same key again, once proposals exist the reviewer never saw: the first answer, nothing approved.
    again = await api.client.post(path, json={"filter": {}}, headers={"Idempotency-Key": "look-1"})
    assert again.status_code == 200 and again.json() == first.json()
    assert again.headers.get("idempotent-replayed") == "true"
    assert len((await api.ok("GET", f"/api/sessions/{sid}"))["pendingCopilotRequests"]) == 3
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert {s["status"] for s in segments} == {"pending"}
    # The same key with another body is refused; a new key approves what is shown now.
    other = await api.client.post(path, json={"filter": {"q": "letter"}}, headers={"Idempotency-Key": "look-1"})
    assert other.status_code == 422
    fresh = await api.client.post(path, json={"filter": {}}, headers={"Idempotency-Key": "look-2"})
    assert fresh.status_code == 200 and fresh.json()["approved"] == 3


async def test_a_new_threshold_leaves_the_shown_cards_pending_and_routes_later_proposals(backend: Storage) -> None:
    script = Script()
    api = AsyncApi(services_for(backend, model=script.model))
    sid, fid = await api.start(DOC)
    script.replies = [batch({"s1": GOOD["s1"], "s2": GOOD["s2"]})]
    await api.next(sid, userInput=TASK)
    shown = (await api.ok("GET", f"/api/sessions/{sid}"))["pendingCopilotRequests"]
    assert [(r["segments"], r["estimate"]) for r in shown] == [(["s1"], 90), (["s2"], 90)]
    view = await api.ok("PATCH", f"/api/sessions/{sid}", {"autoApprove": {"minEstimate": 50}})
    assert view["autoApprove"] == {"minEstimate": 50, "sample": 0.0}
    assert [r["tool"] for r in view["pendingCopilotRequests"]] == [r["tool"] for r in shown], "still cards"
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert [(s["id"], s["status"], s["auto"]) for s in segments] == [
        ("s1", "pending", False),
        ("s2", "pending", False),
        ("s3", "untranslated", False),
    ]
    # A person decides the shown cards; the next proposal is routed by the new threshold.
    script.replies = [batch({"s3": GOOD["s3"]})]
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in shown]
    await api.next(sid, copilotResponses=verdicts)
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert [(s["id"], s["status"], s["auto"]) for s in segments] == [
        ("s1", "approved", False),
        ("s2", "approved", False),
        ("s3", "approved", True),
    ]


async def test_turning_auto_approval_off_keeps_the_batchs_routing(backend: Storage) -> None:
    script = Script()
    api = AsyncApi(services_for(backend, model=script.model))
    sid = (await api.ok("POST", "/api/sessions", {"autoApprove": {"minEstimate": 80}}))["id"]
    fid = (await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC}))["fileId"]
    script.replies = [batch(GOOD, s2={"rating": 60})]
    await api.next(sid, userInput=TASK)
    [card] = (await api.ok("GET", f"/api/sessions/{sid}"))["pendingCopilotRequests"]
    assert card["segments"] == ["s2"]
    view = await api.ok("PATCH", f"/api/sessions/{sid}", {"autoApprove": None})
    assert [r["tool"] for r in view["pendingCopilotRequests"]] == [card["tool"]], "no card appears"
    await api.next(sid, copilotResponses=[{"tool": card["tool"], "status": "approve"}])
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert [(s["id"], s["status"], s["auto"]) for s in segments] == [
        ("s1", "approved", True),
        ("s2", "approved", False),
        ("s3", "approved", True),
    ]


def trail(segment: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(e["action"], e["by"], e["rule"], e["text"], e["proposal"], e["reason"]) for e in segment["history"]]


async def test_each_audit_event_carries_its_own_text_reason_and_actor(backend: Storage) -> None:
    script = Script()
    api = AsyncApi(services_for(backend, model=script.model))
    sid = (await api.ok("POST", "/api/sessions", {"autoApprove": {"minEstimate": 80}}))["id"]
    fid = (await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC}))["fileId"]
    low = {"rating": 60}  # estimated 70: a card, below the threshold
    script.replies = [batch({"s1": "Ouvre fichier.", "s2": "Envoyez la lettre.", "s3": GOOD["s3"]}, s1=low, s2=low)]
    await api.next(sid, userInput=TASK)
    cards = {r["segments"][0]: r for r in (await api.ok("GET", f"/api/sessions/{sid}"))["pendingCopilotRequests"]}
    assert set(cards) == {"s1", "s2"}, "s3 was approved by the rule"
    # s1 rejected with a reason, and its next proposal approved by the rule in the same step; s2 edited.
    script.replies = [ModelResponse(parts=[translate_ids("f1", ["s1"], GOOD["s1"], call_id="c_s1b")])]
    verdicts = [
        {"tool": cards["s1"]["tool"], "status": "reject", "reason": "Too literal, article missing."},
        {"tool": cards["s2"]["tool"], "status": "refined", "translated_string": GOOD["s2"], "reason": "Keep now."},
    ]
    await api.next(sid, copilotResponses=verdicts)
    page = await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments")
    by_id = {s["id"]: s for s in page["segments"]}
    owner = by_id["s2"]["history"][0]["by"]
    assert owner
    rule = {"rule": "autoApprove"}
    assert trail(by_id["s1"]) == [
        ("rejected", owner, None, "Ouvre fichier.", None, "Too literal, article missing."),
        ("approved", None, rule, GOOD["s1"], None, None),
    ]
    assert trail(by_id["s2"]) == [("refined", owner, None, GOOD["s2"], "Envoyez la lettre.", "Keep now.")]
    assert trail(by_id["s3"]) == [("approved", None, rule, GOOD["s3"], None, None)]
    # A revision carries its own text, the text it replaced and its reason; the earlier events keep theirs.
    body = {"translated_string": "Envoyez cette lettre maintenant.", "reason": "Closer to the brief."}
    revised = await api.ok("PUT", f"/api/sessions/{sid}/files/{fid}/segments/{by_id['s2']['start']}", body)
    assert trail(revised) == [
        ("refined", owner, None, GOOD["s2"], "Envoyez la lettre.", "Keep now."),
        ("revised", owner, None, body["translated_string"], GOOD["s2"], "Closer to the brief."),
    ]
    # The audit download: each row the event's own text, not the unit's text now.
    rows = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/audit?format=json"))["events"]
    assert [(r["action"], r["by"], r["rule"], r["target"], r["reason"]) for r in rows] == [
        ("rejected", owner, None, "Ouvre fichier.", "Too literal, article missing."),
        ("approved", None, "autoApprove", GOOD["s1"], None),
        ("refined", owner, None, GOOD["s2"], "Keep now."),
        ("revised", owner, None, body["translated_string"], "Closer to the brief."),
        ("approved", None, "autoApprove", GOOD["s3"], None),
    ]


def test_through_the_lambda_handler_an_empty_approve_all_is_replayed(backend: Storage) -> None:
    import json

    import handlers.api as lambda_api
    from handlers.deps import LazyServices
    from tests.client import lambda_transport
    from tests.events import FakeLambdaContext, http_event

    script = Script()
    previous = lambda_api.app.state.services
    lambda_api.app.state.services = LazyServices(services_for(backend, model=script.model))
    try:
        alice = lambda_transport(lambda_api.handler)
        status, created = alice("POST", "/api/sessions", {})
        sid = created["id"]
        status, uploaded = alice("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})
        fid = uploaded["fileId"]

        def approve() -> tuple[int, dict[str, Any], dict[str, str]]:
            event = http_event("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"filter": {}}, sub="user-alice")
            event["headers"]["idempotency-key"] = "seen-nothing"
            result = lambda_api.handler(event, FakeLambdaContext())
            return result["statusCode"], json.loads(result["body"]), result.get("headers") or {}

        status, first, _ = approve()
        assert (status, first["approved"]) == (200, 0)
        script.replies = [batch(GOOD)]
        alice("POST", "/api/next", {"sessionId": sid, "userInput": TASK})
        status, again, headers = approve()
        assert (status, again) == (200, first) and headers.get("idempotent-replayed") == "true"
        _, view = alice("GET", f"/api/sessions/{sid}", None)
        assert len(view["pendingCopilotRequests"]) == 3, "nothing the reviewer never saw was approved"
    finally:
        lambda_api.app.state.services = previous
