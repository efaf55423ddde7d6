"""Interchange over HTTP: file exports (XLIFF 2.0/1.2, TMX), XLIFF sources translated to the end, memory TMX/CSV/TBX."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient
from lxml import etree

from agent_core.models import resolve_model
from handlers.app import create_app
from handlers.identity import LOCAL_USER
from handlers.limits import limit_for
from interchange import parse_tbx, parse_tmx, parse_xliff
from service.container import Services
from service.memory import MAX_GLOSSARY
from service.tm import TranslationMemory
from storage.dynamodb import DynamoDBSessionStorage
from tests.helpers import services_for
from tests.interchange.xliff_schema import assert_valid_xliff2, sample

DOC = "# Guide\n\nHello world.\n\nSecond paragraph.\n\nThird paragraph.\n"


@pytest.fixture
def app() -> Iterator[tuple[TestClient, Services]]:
    services = services_for(model=resolve_model("pseudo"))
    with TestClient(create_app(services)) as client:
        yield client, services


def new_file(client: TestClient, name: str, content: str) -> tuple[str, str]:
    sid = client.post("/api/sessions").json()["id"]
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": content})
    assert answer.status_code == 201, answer.text
    return sid, answer.json()["fileId"]


def step(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/api/next", json=body)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["agentResponse"]
    return result


def translate_to_the_end(client: TestClient, sid: str, task: str, *, max_steps: int = 80) -> None:
    """Drive POST /api/next with approve-all verdicts until the loop waits for new input."""
    result = step(client, {"sessionId": sid, "userInput": task})
    for _ in range(max_steps):
        requests = result["copilotRequests"]
        if requests:
            verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
            result = step(client, {"sessionId": sid, "copilotResponses": verdicts})
        elif result["actor"] == "agent":
            result = step(client, {"sessionId": sid})
        else:
            return
    raise AssertionError("the translation did not finish")


def first_batch(client: TestClient, sid: str, task: str) -> list[dict[str, Any]]:
    result = step(client, {"sessionId": sid, "userInput": task})
    while not result["copilotRequests"]:
        assert result["actor"] == "agent"
        result = step(client, {"sessionId": sid})
    requests: list[dict[str, Any]] = result["copilotRequests"]
    return requests


# -- file exports --------------------------------------------------------------------------------


def test_exports_of_a_file_under_review_validate_and_carry_every_segment(app: tuple[TestClient, Services]) -> None:
    client, _ = app
    sid, fid = new_file(client, "guide.md", DOC)
    base = f"/api/sessions/{sid}/files/{fid}"
    requests = first_batch(client, sid, "Translate guide.md into French.")
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests[:2]]
    verdicts += [
        {"tool": r["tool"], "status": "refined", "translated_string": "Deuxième.", "reason": "Trop long."}
        for r in requests[2:3]
    ]
    verdicts += [{"tool": r["tool"], "status": "reject", "reason": "Non."} for r in requests[3:]]
    step(client, {"sessionId": sid, "copilotResponses": verdicts})
    x2 = client.get(f"{base}/export", params={"format": "xliff2"})
    assert x2.status_code == 200 and x2.headers["content-type"].startswith("application/xliff+xml")
    assert "filename*=UTF-8''guide.md.xlf" in x2.headers["content-disposition"]
    assert_valid_xliff2(x2.text)
    root = etree.fromstring(x2.text.encode())
    assert root.get("trgLang") == "fr" and root.get("srcLang") == "en"  # detected from the guide
    ns = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
    sources = ["".join(s.itertext()) for s in root.iterfind(".//x:source", ns)]
    assert sources == ["# Guide", "Hello world.", "Second paragraph.", "Third paragraph."]
    sub_states = [s.get("subState") for s in root.iterfind(".//x:segment", ns)]
    assert sub_states[:3] == ["tagent:approved", "tagent:approved", "tagent:refined"]
    notes = ["".join(n.itertext()) for n in root.iterfind(".//x:note", ns)]
    assert "Trop long." in notes and any(n.startswith("Proposed: ") for n in notes)
    x12 = client.get(f"{base}/export", params={"format": "xliff12", "srclang": "English"})
    doc12 = parse_xliff(x12.text)
    assert doc12.version == "1.2" and doc12.source_language == "en" and doc12.target_language == "fr"
    assert [s.status for s in doc12.segments][:3] == ["approved", "approved", "refined"]
    translate_xliff = pytest.importorskip("translate.storage.xliff")
    units = translate_xliff.xlifffile.parsestring(x12.text.encode()).units
    assert [u.source for u in units][:3] == ["# Guide", "Hello world.", "Second paragraph."]
    md = client.get(f"{base}/export", params={"format": "md"})
    assert md.text == client.get(f"{base}/translation").text and md.headers["X-Translation-Complete"] == "false"


def test_exports_write_a_unit_per_segment_with_its_id_and_locked_ones_translate_no(
    app: tuple[TestClient, Services],
) -> None:
    client, _ = app
    doc = "First one. Second one.\n\n```sh\nmake install\n```\n\nThird one. Fourth one.\n"
    sid, fid = new_file(client, "guide.md", doc)
    base = f"/api/sessions/{sid}/files/{fid}"
    listed = client.get(f"{base}/segments").json()["segments"]
    assert [(s["id"], s["source"], s["status"]) for s in listed] == [
        ("s1", "First one.", "untranslated"),
        ("s2", "Second one.", "untranslated"),
        ("s3", "```sh\nmake install\n```", "verbatim"),
        ("s4", "Third one.", "untranslated"),
        ("s5", "Fourth one.", "untranslated"),
    ]
    ns = {"x": "urn:oasis:names:tc:xliff:document:2.0"}

    def xliff_units() -> list[tuple[str | None, str | None, str]]:
        root = etree.fromstring(client.get(f"{base}/export", params={"format": "xliff2"}).text.encode())
        return [
            (u.get("id"), u.get("translate"), "".join(u.find(".//x:source", ns).itertext()))
            for u in root.iterfind(".//x:unit", ns)
        ]

    assert xliff_units() == [(s["id"], "no" if s["status"] == "verbatim" else None, s["source"]) for s in listed]
    requests = first_batch(client, sid, "Translate guide.md into French.")
    assert [r["segments"] for r in requests] == [["s1", "s2"], ["s4", "s5"]], "the pseudo model joins a paragraph"
    step(client, {"sessionId": sid, "copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in requests]})
    assert xliff_units() == [  # a unit of joined segments is one XLIFF unit, named by its first
        ("s1", None, "First one. Second one."),
        ("s3", "no", "```sh\nmake install\n```"),
        ("s4", None, "Third one. Fourth one."),
    ]
    tmx = parse_tmx(client.get(f"{base}/export", params={"format": "tmx"}).text)
    assert [pair.source for pair in tmx] == ["First one. Second one.", "Third one. Fourth one."], "no code"


def test_unknown_formats_and_xliff_of_a_text_file_are_422(app: tuple[TestClient, Services]) -> None:
    client, _ = app
    sid, fid = new_file(client, "guide.md", DOC)
    base = f"/api/sessions/{sid}/files/{fid}"
    bad = client.get(f"{base}/export", params={"format": "docx"})
    assert bad.status_code == 422 and "xliff2, xliff12, tmx, md, original, xliff" in bad.json()["error"]
    assert client.get(f"{base}/export", params={"format": "xliff"}).status_code == 422
    assert client.get(f"{base}/export").status_code == 422
    assert client.get(f"{base}/export", params={"format": "tmx", "srclang": "Klingonese"}).status_code == 422


def test_a_bad_xliff_upload_is_422(app: tuple[TestClient, Services]) -> None:
    client, _ = app
    sid = client.post("/api/sessions").json()["id"]
    for content in ("<xliff", "<html/>", '<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0"/>'):
        answer = client.post(f"/api/sessions/{sid}/files", json={"name": "a.xlf", "content": content})
        assert answer.status_code == 422, content
        assert answer.json()["error"].startswith("The XLIFF document")
    assert client.get(f"/api/sessions/{sid}").json()["files"] == []


@pytest.mark.parametrize("name", ["oasis-sample1.xlf", "okapi-htmltest.html.xlf", "okapi-docxsegtest.docx.xlf"])
def test_a_real_xliff_file_translated_to_the_end(app: tuple[TestClient, Services], name: str) -> None:
    check_xliff_source(app[0], name)


def test_an_xliff_source_on_dynamodb(moto_table: str) -> None:
    storage = DynamoDBSessionStorage(boto3.client("dynamodb"), table_name=moto_table)
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as client:
        check_xliff_source(client, "oasis-testTranslateWithTarget.xlf")


def check_xliff_source(client: TestClient, name: str) -> None:
    """Upload a sample, translate it to the end approving everything, export it filled: same units, valid."""
    original = sample(name)
    sid, fid = new_file(client, name, original)
    base = f"/api/sessions/{sid}/files/{fid}"
    source_doc = parse_xliff(original)
    assert client.get(f"{base}/source").text == "\n\n".join(s.source for s in source_doc.translatable_segments())
    translate_to_the_end(client, sid, f"Translate {name} into French.")
    assert client.get(base).json()["progress"]["complete"] is True
    answer = client.get(f"{base}/export", params={"format": "xliff"})
    assert answer.status_code == 200, answer.text
    assert f"filename*=UTF-8''{name.removesuffix('.xlf')}.translated.xlf" in answer.headers["content-disposition"]
    filled = parse_xliff(answer.text)
    assert [s.key for s in filled.segments] == [s.key for s in source_doc.segments], "the same units and ids"
    for before, after in zip(source_doc.segments, filled.segments, strict=True):
        assert after.source == before.source
        if before in source_doc.translatable_segments():
            assert after.status == "approved" and after.target and after.target != before.source
    if filled.version == "2.0":
        assert_valid_xliff2(answer.text)
    else:
        etree.fromstring(answer.text.encode())  # well formed


# -- memory interchange ----------------------------------------------------------------------------

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="t" creationtoolversion="1" segtype="sentence" o-tmf="t" adminlang="en"
 srclang="en" datatype="plaintext"/><body>
<tu><tuv xml:lang="en"><seg>Hello world.</seg></tuv><tuv xml:lang="fr-FR"><seg>Bonjour le monde.</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Save the file.</seg></tuv><tuv xml:lang="fr-FR"><seg>Enregistrez le fichier.</seg></tuv>
<tuv xml:lang="de"><seg>Speichern Sie die Datei.</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>   </seg></tuv><tuv xml:lang="fr"><seg>Vide</seg></tuv></tu>
</body></tmx>"""


def test_tmx_import_serves_a_new_session_and_round_trips(app: tuple[TestClient, Services]) -> None:
    client, services = app
    answer = client.post("/api/memory/import", json={"format": "tmx", "content": TMX})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"added": 3, "updated": 0, "skipped": 1}
    again = client.post("/api/memory/import", json={"format": "tmx", "content": TMX}).json()
    assert again["added"] == 0 and again["updated"] == 3
    new_file(client, "guide.md", DOC)  # a new session of the same owner, "into French"
    tm = TranslationMemory(services.storage)
    found = asyncio.run(tm.exact(LOCAL_USER, "auto>french", ["Hello world.", "Save the file.", "Other."]))
    assert {s: e.target for s, e in found.items()} == {
        "Hello world.": "Bonjour le monde.",
        "Save the file.": "Enregistrez le fichier.",
    }
    assert all(e.origin == "imported" for e in found.values())
    exported = client.get("/api/memory/export", params={"format": "tmx", "srclang": "en"})
    assert (
        exported.status_code == 200
        and "filename*=UTF-8''translation-memory.tmx" in exported.headers["content-disposition"]
    )
    pairs = {(p.source, p.target, p.srclang, p.tgtlang) for p in parse_tmx(exported.text)}
    assert pairs == {
        ("Hello world.", "Bonjour le monde.", "en", "fr"),
        ("Save the file.", "Enregistrez le fichier.", "en", "fr"),
        ("Save the file.", "Speichern Sie die Datei.", "en", "de"),
    }
    other = services_for(model=resolve_model("pseudo"))
    with TestClient(create_app(other)) as fresh:
        assert fresh.post("/api/memory/import", json={"format": "tmx", "content": exported.text}).json()["added"] == 3
        assert fresh.get("/api/memory/export", params={"format": "tmx", "srclang": "en"}).text == exported.text


def test_bad_imports_are_422_and_change_nothing(app: tuple[TestClient, Services]) -> None:
    client, _ = app
    seed = {"format": "csv", "content": "source,target\na,b\n"}
    assert client.post("/api/memory/import", json=seed).status_code == 200
    before = [client.get("/api/memory/export", params={"format": f}).text for f in ("tmx", "csv")]
    cases = [
        {"format": "tmx", "content": "<tmx><body>"},
        {"format": "tmx", "content": "<xliff/>"},
        {"format": "tbx", "content": "<martif"},
        {"format": "csv", "content": "term;translation\nx;y\n"},
        {"format": "csv", "content": "source,target\n" + "x" * 201 + ",y\n"},
        {"format": "po", "content": "msgid"},
        {"format": "csv", "content": "source,target\na,b\n", "languages": ">"},
        {"format": "csv"},
    ]
    for body in cases:
        answer = client.post("/api/memory/import", json=body)
        assert answer.status_code == 422, body
        assert answer.json()["error"]
    full = "source,target\n" + "".join(f"term{i},t{i}\n" for i in range(MAX_GLOSSARY))
    answer = client.post("/api/memory/import", json={"format": "csv", "content": full})
    assert answer.status_code == 422 and "at most" in answer.json()["error"]
    assert [client.get("/api/memory/export", params={"format": f}).text for f in ("tmx", "csv")] == before
    assert client.get("/api/memory/export", params={"format": "xml"}).status_code == 422


def test_glossary_csv_and_tbx_round_trip(app: tuple[TestClient, Services]) -> None:
    client, _ = app
    csv_text = '\ufeffSource,Target,Note\nAPI key,clé d\'API,x\n"save, then quit","enregistrer, puis quitter",\n'
    answer = client.post("/api/memory/import", json={"format": "csv", "content": csv_text, "languages": "french"})
    assert answer.json() == {"added": 2, "updated": 0, "skipped": 0}
    tbx = """<?xml version="1.0"?><tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">
    <tbxHeader><fileDesc><sourceDesc><p>t</p></sourceDesc></fileDesc></tbxHeader><text><body>
    <conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>workspace</term></termSec></langSec>
    <langSec xml:lang="de"><termSec><term>Arbeitsbereich</term></termSec></langSec></conceptEntry>
    </body></text></tbx>"""
    assert client.post("/api/memory/import", json={"format": "tbx", "content": tbx}).json()["added"] == 1
    glossary = {(g["source"], g["target"], g["languages"]) for g in client.get("/api/memory").json()["glossary"]}
    assert glossary == {
        ("API key", "clé d'API", "auto>french"),
        ("save, then quit", "enregistrer, puis quitter", "auto>french"),
        ("workspace", "Arbeitsbereich", "auto>de"),
    }
    exported_csv = client.get("/api/memory/export", params={"format": "csv"})
    assert exported_csv.headers["content-type"].startswith("text/csv")
    exported_tbx = client.get("/api/memory/export", params={"format": "tbx", "srclang": "en"})
    terms = {(t.source, t.target, t.srclang, t.tgtlang) for t in parse_tbx(exported_tbx.text)}
    assert terms == {
        ("API key", "clé d'API", "en", "fr"),
        ("save, then quit", "enregistrer, puis quitter", "en", "fr"),
        ("workspace", "Arbeitsbereich", "en", "de"),
    }
    for fmt, content in (("csv", exported_csv.text), ("tbx", exported_tbx.text)):
        with TestClient(create_app(services_for(model=resolve_model("pseudo")))) as fresh:
            assert fresh.post("/api/memory/import", json={"format": fmt, "content": content}).json()["added"] == 3
            copied = {(g["source"], g["target"]) for g in fresh.get("/api/memory").json()["glossary"]}
            assert copied == {(s, t) for s, t, _ in glossary}
            if fmt == "csv":  # the CSV's languages column keeps the pairs exactly
                pairs = {(g["source"], g["languages"]) for g in fresh.get("/api/memory").json()["glossary"]}
                assert pairs == {(s, lang) for s, _, lang in glossary}
    again = client.post("/api/memory/import", json={"format": "csv", "content": exported_csv.text}).json()
    assert again == {"added": 0, "updated": 0, "skipped": 3}


def test_memory_import_takes_documents_of_a_few_megabytes(app: tuple[TestClient, Services]) -> None:
    assert limit_for("/api/memory/import") == limit_for("/api/sessions/s_x/files") > 5_000_000
    client, _ = app
    rows = "".join(f"term {i % 150},translation {i}\n" for i in range(40_000))  # about 1 MB
    answer = client.post("/api/memory/import", json={"format": "csv", "content": "source,target\n" + rows})
    assert answer.status_code == 200, answer.text[:200]
    assert answer.json()["added"] == 150
