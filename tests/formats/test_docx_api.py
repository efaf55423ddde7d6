"""Word documents through the HTTP API on every storage backend: a decompression bomb and broken
packages refused with 422 and nothing stored; a document with text in every story (body, text
boxes, a header, a footer, footnotes, endnotes, hyperlinks) analysed, translated to the end with a
reviewer's edit of the hyperlink paragraph, exported, and read back with python-docx and lxml."""

from __future__ import annotations

import base64
import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import docx
import pytest
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml.ns import qn
from fastapi.testclient import TestClient
from lxml import etree

from agent_core.models import resolve_model
from agent_core.segmentation import count_words
from handlers.app import create_app
from tests.formats.docx_documents import TEAM, URL, bomb, every_story, with_part
from tests.helpers import services_for

MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
SOURCES = {  # each story's paragraphs as the API shows them: run boundaries and objects as codes
    "body": [
        "Survey results",
        "The survey reached most households{1} in the spring.",
        "Read the {1}full methodology{/1} before you quote a figure. Questions go to {2}the survey team{/2}.",
        "Key figures are in the box.{1}",
        "The next survey starts in autumn{1}.",
    ],
    "boxes": ["Nine in ten answered", "Most answers came by post", "An old box with its own words"],
    "header": ["Annual survey of the northern region"],
    "footer": ["Printed for internal use only"],
    "footnotes": ["The survey ran from March to May.", "Households of one person{1} are counted apart{/1}"],
    "endnotes": ["Dates are set by the regional office."],
}
EDITED = "Przeczytaj {1}pełną metodologię{/1}, zanim zacytujesz liczbę."


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as found:
        yield found


def upload(client: TestClient, sid: str, data: bytes, name: str = "survey.docx") -> Any:
    body = {"name": name, "contentBase64": base64.b64encode(data).decode()}
    return client.post(f"/api/sessions/{sid}/files", json=body)


def session(client: TestClient, target: str = "pl") -> str:
    answer = client.post("/api/sessions", json={"targetLanguage": target})
    assert answer.status_code == 201, answer.text
    sid: str = answer.json()["id"]
    return sid


def stored_files(client: TestClient, sid: str) -> list[Any]:
    answer = client.get(f"/api/sessions/{sid}")
    assert answer.status_code == 200, answer.text
    files: list[Any] = answer.json()["files"]
    return files


def _encrypted_member(data: bytes) -> bytes:
    """`data` with its first member marked encrypted (the general purpose flag's bit 0, in both headers)."""
    out = bytearray(data)
    local = out.find(b"PK\x03\x04")
    central = out.find(b"PK\x01\x02")
    out[local + 6] |= 1
    out[central + 8] |= 1
    return bytes(out)


def _deflate64_member(data: bytes) -> bytes:
    """`data` with its first member's compression method set to 9 (deflate64, which zipfile cannot read)."""
    out = bytearray(data)
    local = out.find(b"PK\x03\x04")
    central = out.find(b"PK\x01\x02")
    out[local + 8 : local + 10] = (9).to_bytes(2, "little")
    out[central + 10 : central + 12] = (9).to_bytes(2, "little")
    return bytes(out)


def _ole(*, encrypted: bool) -> bytes:
    """The start of an OLE compound file, as Word writes a password-protected document (whose
    directory names an `EncryptedPackage` stream) or a Word 97–2003 `.doc`."""
    name = ("EncryptedPackage" if encrypted else "WordDocument").encode("utf-16-le")
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + name.ljust(64, b"\x00") + bytes(1024)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: bomb(20), "more than 200 times"),
        (lambda: bomb(3, method=zipfile.ZIP_STORED), "more than 500,000 elements"),
        (lambda: _encrypted_member(every_story()), "password-protected"),
        (lambda: _deflate64_member(every_story()), "deflate64, which is not supported"),
        (lambda: _ole(encrypted=True), "password-protected"),
        (lambda: _ole(encrypted=False), "Word 97–2003 document"),
        (lambda: every_story()[: len(every_story()) // 2], "not a Word document"),
        (lambda: with_part(every_story(), "word/footnotes.xml", b"<w:footnotes"), "not well-formed"),
        (
            lambda: with_part(every_story(), "word/document.xml", b'<!DOCTYPE d [<!ENTITY e "x">]><d>&e;</d>'),
            "declares a DTD",
        ),
    ],
    ids=["bomb", "elements", "encrypted-member", "deflate64", "password", "doc", "truncated", "bad-xml", "dtd"],
)
def test_a_hostile_or_broken_document_is_422_and_nothing_is_stored(
    client: TestClient, build: Any, message: str
) -> None:
    sid = session(client)
    answer = upload(client, sid, build())
    assert answer.status_code == 422, answer.text
    assert message in answer.json()["error"]
    assert stored_files(client, sid) == []
    fine = upload(client, sid, every_story())  # the session is as it was: a good file goes in
    assert fine.status_code == 201, fine.text


def drive(client: TestClient, sid: str, edit: dict[str, str]) -> list[dict[str, Any]]:
    """Translate to the end with the pseudo model: each proposal approved, except those whose source
    is a key of `edit`, refined to its value. Every request seen."""
    body: dict[str, Any] = {"sessionId": sid, "userInput": "Translate survey.docx."}
    seen: list[dict[str, Any]] = []
    for _ in range(200):
        answer = client.post("/api/next", json=body)
        assert answer.status_code == 200, answer.text
        response = answer.json()["agentResponse"]
        requests = response["copilotRequests"]
        seen += requests
        if requests:
            verdicts = []
            for r in requests:
                if r["src_string"] in edit:
                    verdicts.append(
                        {"tool": r["tool"], "status": "refined", "translated_string": edit[r["src_string"]]}
                    )
                else:
                    verdicts.append({"tool": r["tool"], "status": "approve"})
            body = {"sessionId": sid, "copilotResponses": verdicts}
        elif response["actor"] == "agent":
            body = {"sessionId": sid}
        else:
            return seen
    raise AssertionError("the translation did not end")


def plain(texts: list[str]) -> set[str]:
    return {re.sub(r"\{/?\d+\}", "", t).strip() for t in texts}


def texts(root: etree._Element) -> list[str]:
    """The text of each paragraph with text under `root`, a text box's paragraphs apart from their anchor's."""
    found = []
    for p in root.iter(qn("w:p")):
        own = [t.text or "" for t in p.iter(qn("w:t")) if _nearest_p(t) is p]
        if "".join(own).strip():
            found.append("".join(own))
    return found


def _nearest_p(node: etree._Element) -> etree._Element | None:
    return next((a for a in node.iterancestors(qn("w:p"))), None)


@pytest.mark.slow
def test_every_story_is_analysed_translated_and_exported_with_its_hyperlinks(client: TestClient) -> None:
    data = every_story()
    sid = session(client)
    uploaded = upload(client, sid, data)
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    analysis = client.get(f"/api/sessions/{sid}/files/{fid}/analysis").json()
    words = sum(count_words(text) for story in SOURCES.values() for text in story)
    assert analysis["words"] == words  # footnotes, endnotes, text boxes, header and footer counted
    # one segment a paragraph, two for the paragraph of two sentences
    assert analysis["segments"] == sum(len(story) for story in SOURCES.values()) + 1

    first = "Read the {1}full methodology{/1} before you quote a figure."
    seen = drive(client, sid, {first: EDITED})
    shown = {r["src_string"] for r in seen}
    assert {first, "Questions go to {2}the survey team{/2}."} <= shown
    assert "The survey ran from March to May." in shown  # a footnote, without its own mark
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert exported.status_code == 200, exported.text
    out = docx.Document(io.BytesIO(exported.content))

    body = texts(out.element.body)
    assert len(body) == len(SOURCES["body"]) + len(SOURCES["boxes"]) + 2  # the shape's VML fallback says its 2 again
    assert not plain(body) & plain(SOURCES["body"] + SOURCES["boxes"])  # every paragraph translated
    paragraph = next(p for p in out.paragraphs if p._p.find(qn("w:hyperlink")) is not None)
    assert paragraph.text.startswith("Przeczytaj pełną metodologię, zanim zacytujesz liczbę. ")
    links = paragraph._p.findall(qn("w:hyperlink"))
    assert "".join(t.text for t in links[0].iter(qn("w:t"))) == "pełną metodologię"
    assert "survey team" not in "".join(t.text for t in links[1].iter(qn("w:t")))  # the model's, translated
    assert [out.part.rels[link.get(qn("r:id"))].target_ref for link in links] == [URL, TEAM]
    for link in links:
        assert link.find(f"{qn('w:r')}/{qn('w:rPr')}/{qn('w:u')}") is not None  # still looks like a link

    shapes = list(out.element.body.iter(qn("w:txbxContent")))
    assert len(shapes) == 3  # the shape, its VML fallback, the old VML box
    assert texts(shapes[0]) == texts(shapes[1])  # the fallback says the same
    assert not plain([t for b in shapes for t in texts(b)]) & plain(SOURCES["boxes"])

    section = out.sections[0]
    assert section.header.paragraphs[0].text not in SOURCES["header"] + [""]
    assert section.footer.paragraphs[0].text not in SOURCES["footer"] + [""]

    with zipfile.ZipFile(io.BytesIO(exported.content)) as archive:
        for part, marks in (("footnotes", "footnoteRef"), ("endnotes", "endnoteRef")):
            root = etree.fromstring(archive.read(f"word/{part}.xml"))
            notes = texts(root)
            assert len(notes) == len(SOURCES[part]) and not plain(notes) & plain(SOURCES[part])
            for note in root.iter(qn(f"w:{part[:-1]}")):
                if note.get(qn("w:type")) is None:  # a note, not a separator: its mark stays first
                    first_run = note.find(f"{qn('w:p')}/{qn('w:r')}")
                    assert first_run.find(qn(f"w:{marks}")) is not None
        rels = etree.fromstring(archive.read("word/_rels/footnotes.xml.rels"))
        footnotes = etree.fromstring(archive.read("word/footnotes.xml"))
    note_link = footnotes.find(f".//{qn('w:hyperlink')}")
    assert note_link is not None and "".join(t.text for t in note_link.iter(qn("w:t"))).strip()
    targets = {r.get("Id"): r.get("Target") for r in rels if r.get("Type") == RELATIONSHIP_TYPE.HYPERLINK}
    assert targets[note_link.get(qn("r:id"))] == "https://example.org/notes"
    assert [r.get(qn("w:id")) for r in out.element.body.iter(qn("w:footnoteReference"))] == ["1"]
    assert [r.get(qn("w:id")) for r in out.element.body.iter(qn("w:endnoteReference"))] == ["1"]
