"""Every format through one upload path (issue 29): upload by name with content or contentBase64, a
malformed file refused with nothing stored, segments stored with their context (key, note, locked
codes, plural forms) on both backends, Translate's rules for locked codes and plural forms, the
human's edit warned of them, and the context on the segments list and in the XLIFF export."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ToolReturnPart

from agent_core.copilot import Approve, ToolRef
from agent_core.runtime import StepInput
from agent_core.segment import Segment, SegmentContext, dump_segments, load_segments
from handlers.app import create_app
from service.originals import pack_original, unpack_original
from tests.helpers import calls, harness, services_for, translate_ids

pytest.importorskip("interchange.formats.android")

STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The title of the inbox screen -->
    <string name="inbox_title">Inbox</string>
    <plurals name="new_messages">
        <item quantity="one">%d new message</item>
        <item quantity="other">%d new messages</item>
    </plurals>
    <string name="app_name" translatable="false">Mailbox</string>
    <string name="greeting">Hello, %1$s! You have %2$d mails.</string>
</resources>
"""


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    """The app over each storage backend (a scripted model is not needed: no step runs)."""
    with TestClient(create_app(services_for(storage))) as found:
        yield found


def new_session(client: TestClient, **body: Any) -> str:
    return str(client.post("/api/sessions", json=body).json()["id"])


def test_segment_context_is_stored_and_read_back() -> None:
    context = SegmentContext(key="a.b", note="n", codes=("%d", "%d"), plural=(("one", "x"), ("other", "y")))
    segments = (Segment(4, 0, 3), Segment(5, 5, 9, False, context), Segment(6, 11, 12, True))
    assert load_segments(dump_segments(segments)) == segments


def test_an_original_keeps_its_bytes_and_its_format() -> None:
    for data in ("héllo\n".encode(), "hé".encode("utf-16"), b"PK\x03\x04\x00\xff", b"a\x00b"):
        found = unpack_original(pack_original("android", data))
        assert found is not None and (found.format, found.data) == ("android", data)
    assert unpack_original(None) is None


def test_upload_by_name_stores_the_strings_with_their_context(client: TestClient) -> None:
    sid = new_session(client, targetLanguage="pl")
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": "strings.xml", "content": STRINGS})
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    assert uploaded.json()["segments"] == 3  # translatable="false" is not text to translate
    source = client.get(f"/api/sessions/{sid}/files/{fid}/source").text
    assert "Mailbox" not in source and source.split("\n\n")[0] == "Inbox"
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    assert [s["context"] for s in segments] == [
        {"key": "inbox_title", "note": "The title of the inbox screen", "refs": [], "codes": [], "flags": []},
        {"key": "new_messages", "note": None, "refs": [], "codes": ["%d"], "flags": []},
        {"key": "greeting", "note": None, "refs": [], "codes": ["%1$s", "%2$d"], "flags": []},
    ]  # the locked codes, for clients to show as chips
    xliff = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "xliff2"}).text
    assert '<note category="key">inbox_title</note>' in xliff
    assert '<note category="developer">The title of the inbox screen</note>' in xliff
    original = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert original.status_code == 200 and original.content.decode() == STRINGS  # nothing translated yet


def test_content_base64_and_its_errors(client: TestClient) -> None:
    sid = new_session(client)
    files = f"/api/sessions/{sid}/files"
    text = "# Notes\n\nHello there.\n"
    ok = client.post(files, json={"name": "notes.md", "contentBase64": base64.b64encode(text.encode()).decode()})
    assert ok.status_code == 201
    assert client.get(f"{files}/{ok.json()['fileId']}/source").text == text
    for body in (
        {"name": "a.md"},
        {"name": "a.md", "content": "x", "contentBase64": "eA=="},
        {"name": "a.md", "contentBase64": "not base64!"},
    ):
        answer = client.post(files, json=body)
        assert answer.status_code == 422, body
        assert "content" in answer.json()["error"]
    assert len(client.get(f"/api/sessions/{sid}").json()["files"]) == 1


def test_a_malformed_file_is_422_says_where_and_stores_nothing(client: TestClient) -> None:
    sid = new_session(client)
    broken = STRINGS.replace("</plurals>", "")
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": "strings.xml", "content": broken})
    assert answer.status_code == 422
    assert "line" in answer.json()["error"] and "strings.xml" in answer.json()["error"]
    assert client.get(f"/api/sessions/{sid}").json()["files"] == []


def test_an_edit_that_breaks_a_locked_code_or_the_forms_is_warned(client: TestClient) -> None:
    sid = new_session(client, targetLanguage="pl")
    fid = client.post(f"/api/sessions/{sid}/files", json={"name": "strings.xml", "content": STRINGS}).json()["fileId"]
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    greeting, plural = segments[2], segments[1]
    qa = f"/api/sessions/{sid}/files/{fid}/qa"
    body = {"source": greeting["source"], "translated_string": "Cześć, %1$s! Masz maile.", "start": greeting["start"]}
    warnings = client.post(qa, json=body).json()["warnings"]
    assert [w["code"] for w in warnings if w["code"] == "locked_code"] == ["locked_code"]
    assert any("%2$d" in w["message"] for w in warnings)
    body["translated_string"] = "Cześć, %1$s! Masz %2$d maili."
    assert not [w for w in client.post(qa, json=body).json()["warnings"] if w["code"] == "locked_code"]
    forms = {"one": "%d nowa wiadomość", "other": "%d nowych wiadomości"}
    body = {"source": plural["source"], "translated_string": json.dumps(forms), "start": plural["start"]}
    found = client.post(qa, json=body).json()["warnings"]
    assert [w["code"] for w in found] == ["plural_forms"] and "few, many" in found[0]["message"]


async def test_translate_refuses_broken_codes_and_wrong_forms_to_the_model() -> None:
    h = harness()
    sid = h.services.sessions.create(h.owner).session_id
    h.session_id = sid
    fid = h.add_file(STRINGS, name="strings.xml")
    wrong = [
        translate_ids(fid, ["s1"], "Skrzynka", call_id="c1"),
        translate_ids(fid, ["s2"], {"one": "%d nowa", "other": "%d nowych"}, call_id="c2"),  # type: ignore[arg-type]
    ]
    h.script.replies.append(calls(*wrong))
    result = (await h.runtime.step(h.owner, sid, StepInput(user_input="Translate strings.xml into Polish."))).result
    assert [r.src_string for r in result.copilot_requests] == ["Inbox"]
    assert result.copilot_requests[0].context is not None
    assert result.copilot_requests[0].context.key == "inbox_title"
    right = {"one": "%d nowa", "few": "%d nowe", "many": "%d nowych", "other": "%d nowej"}
    h.script.replies.append(
        calls(
            translate_ids(fid, ["s2"], right, call_id="c3"),  # type: ignore[arg-type]
            translate_ids(fid, ["s3"], "Cześć, %1$s!", call_id="c4"),
        )
    )
    verdict = Approve(tool=ToolRef(name="Translate", call_id="c1"), status="approve")
    done = (await h.runtime.step(h.owner, sid, StepInput(copilot_responses=[verdict]))).result
    assert "few, many" in json.dumps(tool_returns(h)["c2"], ensure_ascii=False)  # refused, naming what is missing
    assert [r.src_string for r in done.copilot_requests] == ["%d new messages"]
    plural = done.copilot_requests[0]
    assert plural.plural is not None and plural.plural.categories == ("one", "few", "many", "other")
    assert plural.translate_string == right
    assert plural.plural.source == {"one": "%d new message", "other": "%d new messages"}
    assert plural.context is not None and plural.context.codes == ("%d",)  # the card's chips
    verdict = Approve(tool=ToolRef(name="Translate", call_id="c3"), status="approve")
    h.script.replies.append(calls())
    await h.runtime.step(h.owner, sid, StepInput(copilot_responses=[verdict]))
    assert "%2$d is missing" in json.dumps(tool_returns(h)["c4"], ensure_ascii=False)
    assert h.translation().startswith("Skrzynka\n\n" + json.dumps(right, ensure_ascii=False))


def tool_returns(h: Any) -> dict[str, Any]:
    """Every tool return's content by call id."""
    return {p.tool_call_id: p.content for m in h.history() for p in m.parts if isinstance(p, ToolReturnPart)}


def test_thousands_of_short_strings_with_long_notes_fit_a_chunk(client: TestClient) -> None:
    """1,200 two-letter strings with 400-character notes: the notes are stored shortened, so the chunk's
    item stays within DynamoDB's 400 KB, and the file is stored whole."""
    note = "A long developer note. " * 18
    body = "".join(f'    <!-- {note} -->\n    <string name="k{n}">ab</string>\n' for n in range(1200))
    xml = f'<?xml version="1.0" encoding="utf-8"?>\n<resources>\n{body}</resources>\n'
    sid = new_session(client)
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": "strings.xml", "content": xml})
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments", params={"limit": 500}).json()["segments"]
    shown = segments[0]["context"]
    assert shown["key"] == "k0" and shown["note"].endswith("…") and len(shown["note"]) <= 121
    assert note.strip().startswith(shown["note"][:-1])


async def test_a_po_message_keyed_by_its_own_text_shows_no_key_line() -> None:
    h = harness()
    sid = h.services.sessions.create(h.owner).session_id
    h.session_id = sid
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#. Shown in the toolbar\nmsgid "Save file"\nmsgstr ""\n\n'
        'msgid "Quit"\nmsgstr ""\n\n'
        'msgctxt "menu"\nmsgid "Open"\nmsgstr ""\n'
    )
    h.add_file(po, name="app.pot")
    h.script.replies.append(calls())
    await h.runtime.step(h.owner, sid, StepInput(user_input="Translate app.pot into French."))
    screen = str(h.script.seen[-1])
    assert "⟪note: Shown in the toolbar⟫" in screen, "the note stays; the key, which is the text, goes"
    assert "key: Save file" not in screen and "key: Quit" not in screen and "⟪⟫" not in screen
    assert "⟪key: menu / Open⟫" in screen, "a key that is not the text is shown"


async def test_a_string_of_several_segments_shows_its_context_line_once() -> None:
    h = harness()
    sid = h.services.sessions.create(h.owner).session_id
    h.session_id = sid
    srt = (
        "1\n00:00:01,000 --> 00:00:04,000\nWhere were you? I waited all night.\n\n"
        "2\n00:00:05,000 --> 00:00:07,000\nI know.\n"
    )
    h.add_file(srt, name="movie.srt")
    h.script.replies.append(calls())
    await h.runtime.step(h.owner, sid, StepInput(user_input="Translate movie.srt into French."))
    screen = str(h.script.seen[-1])
    assert screen.count("⟪key: 1 ") == 1 and screen.count("⟪key: 2 ") == 1, "a line an entry, not a segment"
    assert "【s1】" in screen and "【s2】" in screen and "【s3】" in screen, "each segment keeps its mark"
