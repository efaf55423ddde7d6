"""Review at volume through the Lambda handler, on both backends: glossary kinds on proposals and edits,
the quality estimate on cards and in the segment list, approve all shown, and auto-approval."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolReturnPart

import handlers.api as api
from handlers.deps import LazyServices
from service.container import Services
from storage.interface import Storage
from tests.client import lambda_transport
from tests.conftest import make_backend
from tests.helpers import Script, services_for, translate_ids

DOC = (
    "Open the e-mail in Clippy.\n\n"
    "Send the e-mail now.\n\n"
    "Clippy helps you write 3 letters.\n\n"
    "Save the file before you close it.\n"
)
GOOD = {
    "s1": "Ouvrez le courriel dans Clippy.",
    "s2": "Envoyez le courriel maintenant.",
    "s3": "Clippy vous aide à écrire 3 lettres.",
    "s4": "Enregistrez le fichier avant de le fermer.",
}


@pytest.fixture(params=["memory", "dynamodb"])
def backend(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Storage]:
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    storage = make_backend(request.param, tmp_path)
    assert isinstance(storage, Storage)
    yield storage


def serve(storage: Storage, script: Script) -> Services:
    services = services_for(storage, model=script.model)
    api.app.state.services = LazyServices(services)
    return services


@pytest.fixture(autouse=True)
def _restore_services() -> Iterator[None]:
    previous = api.app.state.services
    yield
    api.app.state.services = previous


def batch(texts: dict[str, str], **more: dict[str, Any]) -> ModelResponse:
    """One response proposing each segment's text (`more`: extra arguments by segment)."""
    return ModelResponse(
        parts=[translate_ids("f1", [sid], text, call_id=f"c_{sid}", **more.get(sid, {})) for sid, text in texts.items()]
    )


def start(call: Any, *, session: dict[str, Any] | None = None) -> tuple[str, str]:
    status, created = call("POST", "/api/sessions", session or {})
    assert status == 201, created
    status, uploaded = call("POST", f"/api/sessions/{created['id']}/files", {"name": "doc.md", "content": DOC})
    assert status == 201
    return created["id"], uploaded["fileId"]


def glossary(call: Any) -> None:
    for entry in (
        {"source": "e-mail", "target": "courriel", "languages": "French"},
        {"source": "e-mail", "target": "mél", "kind": "forbidden", "languages": "French"},
    ):
        status, _ = call("POST", "/api/memory/glossary", entry)
        assert status == 201


def returns(seen: list[ModelMessage]) -> dict[str, Any]:
    """The tool returns a model request carried, by call id."""
    return {
        p.tool_call_id: p.content
        for m in seen
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }


def test_glossary_kinds_on_proposals_edits_and_the_memory(backend: Storage) -> None:
    script = Script()
    services = serve(backend, script)
    alice = lambda_transport(api.handler)
    glossary(alice)
    # A learned identity (the reported annoyance): a term to keep, whatever kind a lesson gives it.
    from agent_core.memory import GlossaryEntry, Lessons

    services.memory.learn_now("user-alice", Lessons(glossary=(GlossaryEntry(source="Clippy", target="Clippy"),)))
    status, memory = alice("GET", "/api/memory", None)
    kinds = sorted((g["source"], g["target"], g["kind"], g["origin"]) for g in memory["glossary"])
    assert kinds == [
        ("Clippy", "Clippy", "keep", "learned"),
        ("e-mail", "courriel", "preferred", "user"),
        ("e-mail", "mél", "forbidden", "user"),
    ]
    status, refused = alice("POST", "/api/memory/glossary", {"source": "x", "target": "y", "kind": "banned"})
    assert status == 422 and "kind" in refused["error"]
    assert len(alice("GET", "/api/memory", None)[1]["glossary"]) == 3

    sid, fid = start(alice)
    script.replies = [
        batch({**GOOD, "s2": "Envoyez le mél maintenant.", "s3": "Le trombone vous aide à écrire 3 lettres."})
    ]
    status, step = alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    assert status == 200
    cards = {r["segments"][0]: r for r in step["agentResponse"]["copilotRequests"]}
    assert sorted(cards) == ["s1", "s3", "s4"], "the forbidden proposal never reaches the human"
    assert cards["s1"]["warnings"] == [], "a unit that keeps a term to keep draws no warning"
    assert sorted((h["term"], h["kind"], h["expected"], h["found"]) for h in cards["s1"]["glossary"]) == [
        ("Clippy", "keep", "Clippy", True),
        ("e-mail", "forbidden", "mél", False),
        ("e-mail", "preferred", "courriel", True),
    ]
    assert [w["code"] for w in cards["s3"]["warnings"]] == ["glossary_keep"]
    assert cards["s3"]["glossary"] == [{"term": "Clippy", "kind": "keep", "expected": "Clippy", "found": False}]

    verdicts = [{"tool": cards[s]["tool"], "status": "approve"} for s in ("s1", "s4")]
    # The human edit may use the forbidden word: QA warns, the verdict is still the human's.
    status, qa = alice(
        "POST",
        f"/api/sessions/{sid}/files/{fid}/qa",
        {"source": "Send the e-mail now.", "translated_string": "Le mél."},
    )
    assert [w["code"] for w in qa["warnings"]] == ["glossary", "glossary_forbidden"]
    edited = "Clippy vous aide, avec le mél, à écrire 3 lettres."
    verdicts.append({"tool": cards["s3"]["tool"], "status": "refined", "translated_string": edited})
    script.replies = [ModelResponse(parts=[TextPart("done")])]
    status, step = alice("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    assert status == 200
    note = str(script.seen[-1][-1].parts[-1].content)  # the refusal's reason, in the next note
    assert "- s2: refused by the tool:" in note and "«mél» for «e-mail»" in note
    status, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments?status=written", None)
    assert [(s["id"], s["status"], s["target"]) for s in page["segments"]] == [
        ("s1", "approved", GOOD["s1"]),
        ("s3", "refined", edited),
        ("s4", "approved", GOOD["s4"]),
    ]


def test_the_estimate_on_cards_and_in_the_segment_list_filtered_and_sorted(backend: Storage) -> None:
    script = Script()
    serve(backend, script)
    alice = lambda_transport(api.handler)
    glossary(alice)
    sid, fid = start(alice)
    script.replies = [
        batch(
            {**GOOD, "s3": "Clippy vous aide à écrire des lettres.", "s4": GOOD["s4"] * 3},
            s2={"rating": 60},
        )
    ]
    status, step = alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    cards = {r["segments"][0]: r for r in step["agentResponse"]["copilotRequests"]}
    estimates = {s: (c["estimate"], c["estimateReasons"]) for s, c in cards.items()}
    assert estimates == {
        "s1": (90, ["no translation-memory match"]),
        "s2": (70, ["model's own rating 60", "no translation-memory match"]),
        "s3": (75, ["QA: missing number", "no translation-memory match"]),
        "s4": (70, ["length 3.7× the source (usual 1.1×)", "no translation-memory match"]),
    }
    base = f"/api/sessions/{sid}/files/{fid}/segments"
    _, page = alice("GET", f"{base}?minEstimate=75", None)
    assert [(s["id"], s["estimate"]) for s in page["segments"]] == [("s1", 90), ("s3", 75)]
    _, page = alice("GET", f"{base}?maxEstimate=70&sort=estimate&limit=1", None)
    assert [s["id"] for s in page["segments"]] == ["s2"] and page["nextCursor"]
    _, more = alice("GET", f"{base}?maxEstimate=70&sort=estimate&limit=1&cursor={page['nextCursor']}", None)
    assert [s["id"] for s in more["segments"]] == ["s4"] and more["nextCursor"] is None
    status, _ = alice("GET", f"{base}?minEstimate=101", None)
    assert status == 422

    # Approve all shown: only what the filter shows with QA clean; the rest stays pending.
    status, done = alice("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"filter": {"minEstimate": 75}})
    assert status == 200 and (done["approved"], done["skipped"]) == (1, 1)
    left = {r["segments"][0] for r in done["agentResponse"]["copilotRequests"]}
    assert left == {"s2", "s3", "s4"}
    _, view = alice("GET", f"/api/sessions/{sid}", None)
    assert {r["segments"][0] for r in view["pendingCopilotRequests"]} == {"s2", "s3", "s4"}
    status, _bad = alice("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"filter": {"minEstimate": "high"}})
    assert status == 422
    status, none = alice("POST", f"/api/sessions/{sid}/files/{fid}/approve", {"filter": {"q": "nothing like it"}})
    assert (status, none["approved"], none["skipped"]) == (200, 0, 0)


def test_approve_all_shown_is_one_verdict_step_idempotent_and_conditional(backend: Storage) -> None:
    script = Script()
    serve(backend, script)
    alice = lambda_transport(api.handler)
    sid, fid = start(alice)
    script.replies = [batch({**GOOD, "s3": "Clippy vous aide à écrire des lettres."})]
    alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    path = f"/api/sessions/{sid}/files/{fid}/approve"
    # A stale If-Match is 409 and changes nothing.
    from tests.events import FakeLambdaContext, http_event

    def approve(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any], dict[str, str]]:
        import json

        event = http_event("POST", path, body, sub="user-alice")
        event["headers"].update(headers)
        result = api.handler(event, FakeLambdaContext())
        return result["statusCode"], json.loads(result["body"]), result.get("headers") or {}

    status, _, _ = approve({"filter": {}}, {"if-match": '"999"'})
    assert status == 409
    script.replies = [ModelResponse(parts=[TextPart("done")])]
    status, first, _ = approve({"filter": {}}, {"idempotency-key": "k1"})
    assert (status, first["approved"], first["skipped"]) == (200, 3, 1)
    status, again, headers = approve({"filter": {}}, {"idempotency-key": "k1"})
    assert (status, again) == (200, first) and headers.get("idempotent-replayed") == "true"
    _, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments", None)
    # Approved while one card is left: the verdicts are kept, the units written with the batch's last
    # (listed as approved already; a unit's list is the committed ones).
    assert [(s["id"], s["status"], s["updatedAt"]) for s in page["segments"]] == [
        ("s1", "approved", None),
        ("s2", "approved", None),
        ("s3", "pending", None),
        ("s4", "approved", None),
    ]
    _, units = alice("GET", f"/api/sessions/{sid}/files/{fid}/units", None)
    assert units["units"] == []
    # The one left (QA warned) answered, the batch's units are written, as through POST /api/next.
    _, view = alice("GET", f"/api/sessions/{sid}", None)
    [left] = view["pendingCopilotRequests"]
    verdict = {"tool": left["tool"], "status": "refined", "translated_string": GOOD["s3"]}
    status, _step = alice("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]})
    assert status == 200
    _, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments?status=written", None)
    assert [(s["id"], s["status"], s["estimate"], s["auto"]) for s in page["segments"]] == [
        ("s1", "approved", 90, False),
        ("s2", "approved", 90, False),
        ("s3", "refined", 75, False),
        ("s4", "approved", 90, False),
    ]
    assert len(script.seen) == 2, "the approvals made no model request of their own: the batch's last verdict did"


def test_auto_approval_is_off_by_default_and_never_with_a_qa_warning(backend: Storage) -> None:
    script = Script()
    serve(backend, script)
    alice = lambda_transport(api.handler)
    sid, fid = start(alice)
    _, view = alice("GET", f"/api/sessions/{sid}", None)
    assert view["autoApprove"] is None
    script.replies = [batch({"s1": GOOD["s1"]})]
    _, step = alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    assert len(step["agentResponse"]["copilotRequests"]) == 1, "off by default: a card"

    sid, fid = start(alice, session={"autoApprove": {"minEstimate": 85}})
    _, view = alice("GET", f"/api/sessions/{sid}", None)
    assert view["autoApprove"] == {"minEstimate": 85, "sample": 0.0}
    script.replies = [batch({**GOOD, "s3": "Clippy vous aide à écrire des lettres."}, s4={"rating": 50})]
    _, step = alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    cards = {r["segments"][0]: r["estimate"] for r in step["agentResponse"]["copilotRequests"]}
    assert cards == {"s3": 75, "s4": 65}, "a QA warning or a low estimate goes to a card"
    _, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments", None)
    assert [s["status"] for s in page["segments"]][2:] == ["pending", "pending"]
    answers = [{"tool": r["tool"], "status": "approve"} for r in step["agentResponse"]["copilotRequests"]]
    script.replies = [ModelResponse(parts=[TextPart("done")])]
    alice("POST", "/api/next", {"sessionId": sid, "copilotResponses": answers})
    _, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments?status=written", None)
    assert [(s["id"], s["auto"], s["estimate"]) for s in page["segments"]] == [
        ("s1", True, 90),
        ("s2", True, 90),
        ("s3", False, 75),
        ("s4", False, 65),
    ]
    # Revisable like any unit: a revision is the human's.
    status, revised = alice(
        "PUT",
        f"/api/sessions/{sid}/files/{fid}/segments/{page['segments'][0]['start']}",
        {"translated_string": "Ouvrez."},
    )
    assert status == 200 and (revised["status"], revised["auto"]) == ("revised", False)
    # The analysis says what the threshold did, after the fact for the model's proposals.
    status, analysis = alice("GET", f"/api/sessions/{sid}/files/{fid}/analysis", None)
    assert status == 200
    report = analysis["autoApprove"]
    assert report["minEstimate"] == 85 and report["memory"] == {"segments": 0, "words": 0}
    assert report["written"]["segments"] == 4 and report["atOrAbove"]["segments"] == 2
    assert (report["edited"], report["auto"]) == (1, 1), "the revised unit was auto-approved and is no more"
    _, analysis = alice("GET", f"/api/sessions/{sid}/files/{fid}/analysis?minEstimate=70", None)
    assert analysis["autoApprove"]["atOrAbove"]["segments"] == 3
    status, _ = alice("PATCH", f"/api/sessions/{sid}", {"autoApprove": None})
    _, view = alice("GET", f"/api/sessions/{sid}", None)
    assert status == 200 and view["autoApprove"] is None
    status, _ = alice("PATCH", f"/api/sessions/{sid}", {"autoApprove": {"minEstimate": 101}})
    assert status == 422


@pytest.mark.parametrize("fmt", ["csv", "tbx"])
def test_kinds_round_trip_through_the_memory_export_and_import(backend: Storage, fmt: str) -> None:
    serve(backend, Script())
    alice = lambda_transport(api.handler)
    glossary(alice)
    status, _ = alice("POST", "/api/memory/glossary", {"source": "Clippy", "target": "Clippy", "languages": "French"})
    assert status == 201

    def kinds() -> list[tuple[str, str, str]]:
        _, memory = alice("GET", "/api/memory", None)
        return sorted((g["source"], g["target"], g["kind"]) for g in memory["glossary"])

    before = kinds()
    assert before == [
        ("Clippy", "Clippy", "keep"),
        ("e-mail", "courriel", "preferred"),
        ("e-mail", "mél", "forbidden"),
    ]
    status, exported = alice("GET", f"/api/memory/export?format={fmt}", None)
    assert status == 200 and isinstance(exported, str)
    if fmt == "tbx" and not exported.startswith("<"):  # API Gateway sends a body of this media type in base64
        exported = base64.b64decode(exported).decode()
    for entry in alice("GET", "/api/memory", None)[1]["glossary"]:
        assert alice("DELETE", f"/api/memory/{entry['id']}", None)[0] == 204
    status, result = alice("POST", "/api/memory/import", {"format": fmt, "content": exported})
    assert status == 200 and result["added"] == 3, result
    assert kinds() == before
    status, again = alice("POST", "/api/memory/import", {"format": fmt, "content": exported})
    assert (status, again["added"], again["updated"], again["skipped"]) == (200, 0, 0, 3)
    bad = "source,target,kind\r\nmail,mél,banned\r\n"
    status, refused = alice("POST", "/api/memory/import", {"format": "csv", "content": bad})
    assert status == 422 and "banned" in refused["error"] and kinds() == before


PAIRS = (
    ("Open the e-mail in Clippy.", "Ouvrez le courriel dans Clippy."),
    ("Send the e-mail now.", "Envoyez le message maintenant."),
    ("Clippy helps you write 3 letters.", "Clippy vous aide à écrire 3 lettres."),
)
TMX = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" datatype="plaintext" '
    'segtype="sentence" adminlang="en" creationtool="test" creationtoolversion="1" o-tmf="test"/><body>'
    + "".join(
        f'<tu><tuv xml:lang="en"><seg>{a}</seg></tuv><tuv xml:lang="fr"><seg>{b}</seg></tuv></tu>' for a, b in PAIRS
    )
    + "</body></tmx>"
)


def test_exact_memory_matches_with_qa_clean_are_auto_approved_and_a_warned_one_gets_a_card(backend: Storage) -> None:
    script = Script()
    serve(backend, script)
    alice = lambda_transport(api.handler)
    glossary(alice)
    status, imported = alice("POST", "/api/memory/import", {"format": "tmx", "content": TMX})
    assert status == 200 and imported["added"] == 3
    sid, fid = start(alice, session={"autoApprove": {"minEstimate": 95}})
    status, step = alice("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    assert status == 200 and script.seen == [], "the memory proposes: no model request"
    [card] = step["agentResponse"]["copilotRequests"]
    assert (card["segments"], card["origin"], card["match"]) == (["s2"], "memory", 100)
    assert [w["code"] for w in card["warnings"]] == ["glossary"] and card["estimate"] == 85
    # The memory proposed s1 to s3 in one batch: s1 and s3 clean, approved without a card; the verdict on
    # s2 writes the batch and the same step goes on to the model, as any verdict step.
    script.replies = [batch({"s4": GOOD["s4"]})]
    verdict = {"tool": card["tool"], "status": "approve"}
    status, step = alice("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]})
    assert status == 200 and len(script.seen) == 1
    assert [r["segments"] for r in step["agentResponse"]["copilotRequests"]] == [["s4"]]
    _, page = alice("GET", f"/api/sessions/{sid}/files/{fid}/segments?status=written", None)
    assert [(s["id"], s["origin"], s["estimate"], s["auto"]) for s in page["segments"]] == [
        ("s1", "memory", 100, True),
        ("s2", "memory", 85, False),
        ("s3", "memory", 100, True),
    ]
    _, analysis = alice("GET", f"/api/sessions/{sid}/files/{fid}/analysis?to=fr", None)
    assert analysis["autoApprove"]["memory"]["segments"] == 3 and analysis["autoApprove"]["auto"] == 2
