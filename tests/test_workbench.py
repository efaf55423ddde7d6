"""The reviewer's workbench over HTTP: segments (filters, search, paging), revisions, QA, partial downloads."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ModelResponse, TextPart

from agent_core.copilot import CopilotRequest, ToolRef
from agent_core.effects import UnitWrite
from agent_core.segmentation import segment_text
from handlers.app import create_app
from handlers.identity import LOCAL_USER
from interchange import parse_tmx
from service.segments import build_segments, decode_cursor, encode_cursor
from service.tm import TranslationMemory
from storage.dynamodb import DynamoDBSessionStorage
from storage.interface import Storage
from tests.helpers import Harness, calls, harness, translate

DOC = "# Guide\n\nHello world.\n\n  Second paragraph with `code`.\n\nThird paragraph.\n"
TASK = "Translate doc.md into French."


@dataclass
class Desk:
    """A session over HTTP with one file, driven by a scripted model."""

    h: Harness
    client: TestClient
    sid: str
    fid: str

    @property
    def base(self) -> str:
        return f"/api/sessions/{self.sid}/files/{self.fid}"

    def next(self, **body: Any) -> dict[str, Any]:
        """One step with `body`, then continue steps until the loop waits for the human."""
        for _ in range(10):
            answer = self.client.post("/api/next", json={"sessionId": self.sid, **body})
            assert answer.status_code == 200, answer.text
            result: dict[str, Any] = answer.json()["agentResponse"]
            if result["actor"] == "user":
                return result
            body = {}
        raise AssertionError("the loop never waited for the human")

    def approve_all(self, requests: list[dict[str, Any]]) -> dict[str, Any]:
        return self.next(copilotResponses=[{"tool": r["tool"], "status": "approve"} for r in requests])

    def segments(self, **query: Any) -> dict[str, Any]:
        answer = self.client.get(f"{self.base}/segments", params=query)
        assert answer.status_code == 200, answer.text
        page: dict[str, Any] = answer.json()
        return page


@contextmanager
def open_desk(storage: Storage | None = None) -> Iterator[Desk]:
    """Two units written (`# Guide`, `Hello world.`), a third proposed and pending, the last paragraph untranslated."""
    h = harness([], owner=LOCAL_USER, storage=storage)
    fid = h.add_file(DOC)
    h.script.replies.extend(
        [
            calls(translate(fid, "# Guide", call_id="c1"), translate(fid, "Hello world.", call_id="c2")),
            calls(translate(fid, "Second paragraph with `code`.", call_id="c3")),
        ]
    )
    with TestClient(create_app(h.services)) as client:
        d = Desk(h, client, h.session_id, fid)
        first = d.next(userInput=TASK)
        assert [r["tool"]["callId"] for r in first["copilotRequests"]] == ["c1", "c2"]
        second = d.approve_all(first["copilotRequests"])
        assert [r["tool"]["callId"] for r in second["copilotRequests"]] == ["c3"]
        yield d


@pytest.fixture
def desk() -> Iterator[Desk]:
    """The desk over SQLite in memory."""
    with open_desk() as d:
        yield d


def finish(d: Desk) -> None:
    """Approve the pending proposal; the model then answers with text (no more reviews)."""
    d.h.script.replies.append(ModelResponse(parts=[TextPart("Done for now.")]))
    pending = d.client.get(f"/api/sessions/{d.sid}").json()["pendingCopilotRequests"]
    assert d.approve_all(pending)["copilotRequests"] == []


def test_segments_list_the_whole_file_in_order(desk: Desk) -> None:
    page = desk.segments()
    got = [(s["status"], s["source"], s["target"], s["origin"]) for s in page["segments"]]
    assert got == [
        ("approved", "# Guide", "<# Guide>", "model"),
        ("approved", "Hello world.", "<Hello world.>", "model"),
        ("pending", "Second paragraph with `code`.", "<Second paragraph with `code`.>", "model"),
        ("untranslated", "Third paragraph.", None, None),
    ]
    for s in page["segments"]:
        assert DOC[s["start"] : s["end"]] == s["source"], "offsets are the source's, whitespace outside"
    assert page["segments"][0]["updatedAt"] and page["segments"][3]["updatedAt"] is None
    assert page["nextCursor"] is None and isinstance(page["version"], int)


def test_segments_filter_search_and_page(desk: Desk) -> None:
    assert [s["start"] for s in desk.segments(status="approved")["segments"]] == [0, 9]
    statuses = [s["status"] for s in desk.segments(status="pending,untranslated")["segments"]]
    assert statuses == ["pending", "untranslated"]
    assert len(desk.segments(status="written")["segments"]) == 2
    assert [s["source"] for s in desk.segments(q="PARAGRAPH")["segments"]] == [
        "Second paragraph with `code`.",
        "Third paragraph.",
    ]
    assert [s["source"] for s in desk.segments(q="<hello")["segments"]] == ["Hello world."], "search in the target"
    assert desk.segments(q="paragraph", status="untranslated")["segments"][0]["source"] == "Third paragraph."
    whole = desk.segments()["segments"]
    paged: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(10):
        page = desk.segments(limit=1, **({"cursor": cursor} if cursor else {}))
        paged.extend(page["segments"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert paged == whole
    for bad in ({"cursor": "garbage"}, {"cursor": encode_cursor(3)[:-2] + "!!"}, {"status": "done"}, {"limit": 0}):
        answer = desk.client.get(f"{desk.base}/segments", params=bad)
        assert answer.status_code == 422, bad
        assert set(answer.json()) == {"error"}


def test_a_pending_review_makes_a_revision_409(desk: Desk) -> None:
    answer = desk.client.put(f"{desk.base}/segments/0", json={"translated_string": "# Le guide"})
    assert answer.status_code == 409
    assert "review" in answer.json()["error"]
    assert desk.segments()["segments"][0]["target"] == "<# Guide>"


def test_a_revision_changes_the_download_the_tmx_and_the_memory(desk: Desk) -> None:
    check_revision(desk)


def test_a_revision_on_dynamodb(moto_table: str) -> None:
    storage = DynamoDBSessionStorage(boto3.client("dynamodb"), table_name=moto_table)
    with open_desk(storage) as d:
        check_revision(d)


def check_revision(desk: Desk) -> None:
    """A revision with If-Match: the segment, the download, the TMX export, the corrections, the memory."""
    finish(desk)
    version = desk.segments()["version"]
    body = {"translated_string": "# Le guide", "reason": "Le titre doit être traduit."}
    answer = desk.client.put(f"{desk.base}/segments/0", json=body, headers={"If-Match": f'"{version}"'})
    assert answer.status_code == 200, answer.text
    revised = answer.json()
    assert (revised["status"], revised["origin"], revised["target"]) == ("revised", "human", "# Le guide")
    assert revised["version"] > version and answer.headers["ETag"] == f'"{revised["version"]}"'
    assert revised["warnings"] == []
    assert desk.segments(status="revised")["segments"][0]["start"] == 0
    download = desk.client.get(f"{desk.base}/translation")
    assert download.text.startswith("# Le guide\n\n<Hello world.>")
    assert download.headers["X-Translation-Complete"] == "false"
    tmx = desk.client.get(f"{desk.base}/export", params={"format": "tmx"})
    pairs = {p.source: p.target for p in parse_tmx(tmx.text)}
    assert pairs["# Guide"] == "# Le guide" and "Third paragraph." not in pairs
    corrections = desk.client.get("/api/memory").json()["corrections"]
    latest = corrections[0]
    assert (latest["status"], latest["source"], latest["proposal"], latest["final"], latest["reason"]) == (
        "revised",
        "# Guide",
        "<# Guide>",
        "# Le guide",
        "Le titre doit être traduit.",
    )
    remembered = asyncio.run(TranslationMemory(desk.h.storage).exact(desk.h.owner, "auto>french", ["# Guide"]))
    assert remembered["# Guide"].target == "# Le guide"


def test_stale_if_match_and_unknown_start(desk: Desk) -> None:
    finish(desk)
    version = desk.segments()["version"]
    body = {"translated_string": "Bonjour le monde."}
    stale = desk.client.put(f"{desk.base}/segments/9", json=body, headers={"If-Match": str(version - 1)})
    assert stale.status_code == 409
    missing = desk.client.put(f"{desk.base}/segments/1", json=body)
    assert missing.status_code == 404
    untranslated = desk.client.put(f"{desk.base}/segments/{DOC.index('Third')}", json=body)
    assert untranslated.status_code == 404
    for bad in ({"translated_string": ""}, {"translated_string": "x", "extra": 1}, {"reason": "no text"}):
        assert desk.client.put(f"{desk.base}/segments/9", json=bad).status_code == 422, bad
    assert desk.segments()["version"] == version, "nothing was committed"
    assert desk.client.put(f"{desk.base}/segments/9", json=body, headers={"If-Match": str(version)}).status_code == 200


def test_qa_checks_the_humans_text_with_the_glossary(desk: Desk) -> None:
    entry = {"source": "world", "target": "monde", "languages": "french"}
    assert desk.client.post("/api/memory/glossary", json=entry).status_code == 201
    body = {"source": "Run `make` on https://example.com/docs for the world.", "translated_string": "Lancez make."}
    answer = desk.client.post(f"{desk.base}/qa", json=body)
    assert answer.status_code == 200
    codes = {w["code"] for w in answer.json()["warnings"]}
    assert {"missing_code", "missing_url", "glossary"} <= codes
    clean = {"source": "Hello world.", "translated_string": "Bonjour le monde."}
    assert desk.client.post(f"{desk.base}/qa", json=clean).json() == {"warnings": []}
    finish(desk)
    revised = desk.client.put(f"{desk.base}/segments/9", json={"translated_string": "Bonjour la terre."}).json()
    assert [w["code"] for w in revised["warnings"]] == ["glossary"], "a revision is checked like an edit"
    assert desk.client.post(f"{desk.base}/qa", json={"source": "x"}).status_code == 422


def test_partial_download_filled_with_the_source(desk: Desk) -> None:
    plain = desk.client.get(f"{desk.base}/translation")
    filled = desk.client.get(f"{desk.base}/translation", params={"fill": "source"})
    assert plain.headers["X-Translation-Complete"] == filled.headers["X-Translation-Complete"] == "false"
    assert "Third paragraph." not in plain.text
    assert filled.text == "<# Guide>\n\n<Hello world.>\n\n  Second paragraph with `code`.\n\nThird paragraph.\n"
    assert "filename*=UTF-8''doc.translated.md" in filled.headers["Content-Disposition"]
    assert desk.client.get(f"{desk.base}/translation", params={"fill": "x"}).status_code == 422


def test_another_callers_file_is_not_found(desk: Desk) -> None:
    other = f"/api/sessions/{desk.sid}/files/f_ffffffffffffffffffffffffffffffff"
    assert desk.client.get(f"{other}/segments").status_code == 404
    assert desk.client.post(f"{other}/qa", json={"source": "a", "translated_string": "b"}).status_code == 404
    assert desk.client.get("/api/sessions/s_ffffffffffffffffffffffffffffffff/files/x/segments").status_code == 404


# -- the segment builder, pure -------------------------------------------------------------------


def _unit(start: int, end: int, text: str) -> UnitWrite:
    return UnitWrite(file_id="f", start=start, end=end, cover_end=end, text=text, call_id="c", status="approve")


def test_untranslated_text_is_listed_as_its_stored_segments_with_their_ids() -> None:
    source = "A.\n\n\n   B one\nB two. C three.\n\nD four.\n"
    stored = segment_text(source)
    segments = build_segments(source, stored, [])
    assert [(s.id, s.source, s.status) for s in segments] == [
        ("s1", "A.", "untranslated"),
        ("s2", "B one\nB two.", "untranslated"),
        ("s3", "C three.", "untranslated"),
        ("s4", "D four.", "untranslated"),
    ]
    # A unit written from the middle of s2 (a Read unit) leaves its rest untranslated under s2's id.
    middle = source.index("B two")
    segments = build_segments(source, stored, [_unit(source.index("B one"), middle - 1, "B un")])
    assert [(s.id, s.source, s.status) for s in segments][1:4] == [
        ("s2", "B one", "approved"),
        ("s2", "B two.", "untranslated"),
        ("s3", "C three.", "untranslated"),
    ]
    assert all(source[s.start : s.end] == s.source and s.source == s.source.strip() for s in segments)


def test_a_proposal_over_a_written_unit_is_not_a_segment_of_its_own() -> None:
    source = "One.\n\nTwo.\n\nThree."
    revise = CopilotRequest(
        tool=ToolRef(name="Revise", call_id="r"),
        file_id="f",
        src_string="One.",
        translate_string="Un !",
        start=0,
        end=4,
    )
    translate_ = CopilotRequest(
        tool=ToolRef(name="Translate", call_id="t"),
        file_id="f",
        src_string="Three.",
        translate_string="Trois.",
        start=12,
        end=18,
        origin="memory",
    )
    segments = build_segments(source, segment_text(source), [_unit(0, 4, "Un.")], [revise, translate_])
    assert [(s.id, s.status, s.target, s.origin) for s in segments] == [
        ("s1", "approved", "Un.", "model"),
        ("s2", "untranslated", None, None),
        ("s3", "pending", "Trois.", "memory"),
    ]


def test_cursors_are_opaque_and_checked() -> None:
    assert decode_cursor(encode_cursor(1234)) == 1234
    assert decode_cursor(None) == 0
    with pytest.raises(Exception, match="cursor"):
        decode_cursor("c2VnOi0x")  # "seg:-1"
