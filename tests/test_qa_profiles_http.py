"""QA profiles through the app, with the offline pseudo model (API.md "QA profiles"): an Android string
over its `[CHAR LIMIT=n]` flagged on its card and by `POST …/qa` at the strings profile's `error`
level, left out of "approve all shown" but approved by a person's own verdict; a subtitle line over 42
characters flagged on its card, a cue read too fast warned; a warning alone leaves a bulk approval alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent_core.models import resolve_model
from handlers.app import create_app
from tests.helpers import services_for

STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The save button's label [CHAR LIMIT=12] -->
    <string name="save">Save changes</string>
    <string name="inbox_title">Inbox</string>
</resources>
"""
SUBTITLES = """1
00:00:01,000 --> 00:00:04,000
Where are you going at this time of night?

2
00:00:05,000 --> 00:00:05,500
Home, now.
"""


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    """The app over each storage backend, with the offline pseudo model."""
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as found:
        yield found


def first_cards(client: TestClient, name: str, content: str) -> tuple[str, str, list[dict[str, Any]]]:
    """A French session with the file uploaded, and the cards of its first screen."""
    sid = client.post("/api/sessions", json={"targetLanguage": "fr"}).json()["id"]
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": content})
    assert uploaded.status_code == 201, uploaded.text
    answer = client.post("/api/next", json={"sessionId": sid, "userInput": f"Translate {name}."})
    assert answer.status_code == 200, answer.text
    return sid, uploaded.json()["fileId"], answer.json()["agentResponse"]["copilotRequests"]


def findings(card: dict[str, Any]) -> list[tuple[str, str]]:
    return [(w["code"], w["level"]) for w in card["warnings"]]


def test_a_too_long_android_string_is_flagged_on_its_card_and_by_qa(client: TestClient) -> None:
    sid, fid, cards = first_cards(client, "strings.xml", STRINGS)
    by_source = {c["src_string"]: c for c in cards}
    save, inbox = by_source["Save changes"], by_source["Inbox"]
    assert findings(save) == [("max_length", "error")]
    assert save["warnings"][0]["message"] == f"Too long: {len(save['translate_string'])} characters, at most 12."
    assert findings(inbox) == []

    qa = f"/api/sessions/{sid}/files/{fid}/qa"
    body = {"source": "Save changes", "translated_string": "Enregistrer les modifications", "start": save["start"]}
    answer = client.post(qa, json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["warnings"] == [
        {"code": "max_length", "message": "Too long: 29 characters, at most 12.", "level": "error"}
    ]
    body["translated_string"] = "Enregistrer"
    assert client.post(qa, json=body).json()["warnings"] == []
    body["translated_string"] = "Enregistrer "  # the strings profile's warnings come with their level
    assert [(w["code"], w["level"]) for w in client.post(qa, json=body).json()["warnings"]] == [
        ("edge_whitespace", "warning")
    ]

    approved = client.post(f"/api/sessions/{sid}/files/{fid}/approve", json={})
    assert approved.status_code == 200, approved.text
    assert (approved.json()["approved"], approved.json()["skipped"]) == (1, 1)  # the error keeps it for a person
    pending = client.get(f"/api/sessions/{sid}").json()["pendingCopilotRequests"]
    assert [r["src_string"] for r in pending] == ["Save changes"]
    verdict = [{"tool": pending[0]["tool"], "status": "approve"}]  # a person's verdict is never refused
    assert client.post("/api/next", json={"sessionId": sid, "copilotResponses": verdict}).status_code == 200
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    assert [s["status"] for s in segments] == ["approved", "approved"]


def test_a_subtitle_line_over_42_characters_is_flagged_on_its_card(client: TestClient) -> None:
    sid, fid, cards = first_cards(client, "film.srt", SUBTITLES)
    long_line = next(c for c in cards if c["src_string"].startswith("Where"))
    assert len(long_line["translate_string"]) > 42
    assert ("line_length", "error") in findings(long_line)
    message = next(w["message"] for w in long_line["warnings"] if w["code"] == "line_length")
    assert message == f"Line 1: {len(long_line['translate_string'].strip())} characters, at most 42 a line."
    fast = next(c for c in cards if c["src_string"] == "Home, now.")
    assert findings(fast) == [("reading_speed", "warning")]  # shown half a second
    qa = f"/api/sessions/{sid}/files/{fid}/qa"
    body = {"source": long_line["src_string"], "translated_string": "Tu vas où ?", "start": long_line["start"]}
    assert client.post(qa, json=body).json()["warnings"] == []
    body["translated_string"] = "Où est-ce que tu vas comme ça, à cette heure-ci de la nuit ?"
    assert [(w["code"], w["level"]) for w in client.post(qa, json=body).json()["warnings"]] == [
        ("line_length", "error"),
        ("reading_speed", "warning"),
    ]
    approved = client.post(f"/api/sessions/{sid}/files/{fid}/approve", json={}).json()
    assert (approved["approved"], approved["skipped"]) == (1, 1)  # a warning alone leaves the approval alone
    pending = client.get(f"/api/sessions/{sid}").json()["pendingCopilotRequests"]
    assert [r["src_string"] for r in pending] == [long_line["src_string"]]


def test_auto_approval_passes_warnings_and_leaves_errors_to_a_person(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"targetLanguage": "fr", "autoApprove": {"minEstimate": 0}}).json()["id"]
    fid = client.post(f"/api/sessions/{sid}/files", json={"name": "film.srt", "content": SUBTITLES}).json()["fileId"]
    answer = client.post("/api/next", json={"sessionId": sid, "userInput": "Translate film.srt."}).json()
    cards = answer["agentResponse"]["copilotRequests"]
    assert [c["src_string"] for c in cards] == ["Where are you going at this time of night?"]  # line_length: error
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    fast = next(s for s in segments if s["source"] == "Home, now.")
    assert (fast["status"], fast["auto"]) == ("approved", True)  # its reading speed is a warning


def test_a_session_s_profile_changes_a_level_and_a_limit(client: TestClient) -> None:
    profile = {"base": "strings", "checks": {"max_length": "warning"}, "maxLength": 6}
    sid = client.post("/api/sessions", json={"targetLanguage": "fr", "qaProfile": profile}).json()["id"]
    assert client.get(f"/api/sessions/{sid}").json()["qaProfile"] == profile
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": "strings.xml", "content": STRINGS})
    step = client.post("/api/next", json={"sessionId": sid, "userInput": "Translate strings.xml."}).json()
    by_source = {c["src_string"]: c for c in step["agentResponse"]["copilotRequests"]}
    assert findings(by_source["Save changes"]) == [("max_length", "warning")], (
        "the stated limit, at the session's level"
    )
    assert findings(by_source["Inbox"]) == [("max_length", "warning")], "the profile's own limit of 6"
    qa = f"/api/sessions/{sid}/files/{uploaded.json()['fileId']}/qa"
    body = {"source": "Inbox", "translated_string": "Boîte de réception", "start": by_source["Inbox"]["start"]}
    assert [w["level"] for w in client.post(qa, json=body).json()["warnings"]] == ["warning"]

    assert client.patch(f"/api/sessions/{sid}", json={"qaProfile": None}).status_code == 200
    assert client.get(f"/api/sessions/{sid}").json()["qaProfile"] is None
    assert [w["level"] for w in client.post(qa, json=body).json()["warnings"]] == [], "the strings profile: no limit"
    for bad, words in (({"checks": {"max_length": "fatal"}}, "level"), ("films", "Unknown QA profile")):
        refused = client.patch(f"/api/sessions/{sid}", json={"qaProfile": bad})
        assert refused.status_code == 422 and words in refused.json()["error"], refused.text
    assert client.get(f"/api/sessions/{sid}").json()["qaProfile"] is None, "a refused profile changes nothing"


def test_a_project_s_profile_is_its_new_sessions(client: TestClient) -> None:
    pid = client.post("/api/projects", json={"name": "App", "qaProfile": "subtitles"}).json()["id"]
    assert client.get(f"/api/projects/{pid}").json()["qaProfile"] == "subtitles"
    sid = client.post("/api/sessions", json={"project": pid, "targetLanguage": "fr"}).json()["id"]
    assert client.get(f"/api/sessions/{sid}").json()["qaProfile"] == "subtitles"
    patched = client.patch(f"/api/projects/{pid}", json={"sourceLanguage": "en"})
    assert patched.status_code == 200 and patched.json()["sourceLanguage"] == "en", patched.text
    assert client.patch(f"/api/projects/{pid}", json={"qaProfile": {"base": "nope"}}).status_code == 422
