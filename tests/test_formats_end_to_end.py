"""Real resource files translated to the end through the HTTP API with the offline pseudo model, then
exported in their own format (issue 29's proof), on every storage backend.

For each format whose module has landed: a file from tests/formats/data is uploaded, translated into
Polish (one/few/many/other) or Japanese (other) by the pseudo model, every proposal approved, and
exported with `format=original`; the export parses with the format's reference library, its keys and
comments are the source's, its placeholders intact, its plural categories exactly the target's, and
no locked text (a `translatable="false"` string, a placeholder alone) was ever proposed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from lxml import etree

from agent_core.models import resolve_model
from handlers.app import create_app
from tests.helpers import services_for

DATA = Path(__file__).parent / "formats" / "data"
PRINTF = re.compile(r"%(?:\d\$)?[-.\d]*[sdf@]")


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    """The app over each storage backend, with the offline pseudo model."""
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as found:
        yield found


def translate_all(client: TestClient, name: str, content: str, target: str) -> tuple[str, str, list[dict[str, Any]]]:
    """Upload, translate to the end approving every proposal; the session, the file and every request."""
    sid = client.post("/api/sessions", json={"targetLanguage": target}).json()["id"]
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": content})
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    body: dict[str, Any] = {"sessionId": sid, "userInput": f"Translate {name}."}
    seen: list[dict[str, Any]] = []
    for _ in range(200):
        answer = client.post("/api/next", json=body)
        assert answer.status_code == 200, answer.text
        response = answer.json()["agentResponse"]
        requests = response["copilotRequests"]
        seen += requests
        if requests:
            verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
            body = {"sessionId": sid, "copilotResponses": verdicts}
        elif response["actor"] == "agent":
            body = {"sessionId": sid}
        else:
            break
    detail = client.get(f"/api/sessions/{sid}/files/{fid}").json()
    assert detail["progress"]["complete"], detail["progress"]
    return sid, fid, seen


def _android_strings(root: etree._Element) -> dict[str, etree._Element]:
    return {e.get("name"): e for e in root if isinstance(e.tag, str)}


@pytest.mark.slow
@pytest.mark.parametrize(("target", "categories"), [("pl", ["one", "few", "many", "other"]), ("ja", ["other"])])
def test_android_strings_translated_and_exported(client: TestClient, target: str, categories: list[str]) -> None:
    source_bytes = (DATA / "android_thunderbird_strings.xml").read_bytes()
    sid, fid, seen = translate_all(client, "strings.xml", source_bytes.decode(), target)
    source = etree.fromstring(source_bytes)
    locked = [e.text for e in source.iter("string") if e.get("translatable") == "false" and e.text]
    for request in seen:
        assert not any(text and text.strip() == request["src_string"].strip() for text in locked)
        assert request["context"] is not None and request["context"]["key"]
        if request["plural"] is not None:
            assert request["plural"]["categories"] == categories
            assert list(request["translate_string"]) == categories
    assert any(r["plural"] for r in seen)
    assert any(r["context"]["note"] for r in seen)

    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert exported.status_code == 200, exported.text
    assert exported.headers["x-export-skipped"] == "0"
    assert "strings.xml" in exported.headers["content-disposition"]
    result = etree.fromstring(exported.content)
    before, after = _android_strings(source), _android_strings(result)
    assert list(before) == list(after)  # keys and their order
    comments = [c.text for c in source.iter(etree.Comment)]
    assert [c.text for c in result.iter(etree.Comment)] == comments
    for name, element in before.items():
        written = after[name]
        if element.tag == "plurals":
            assert [i.get("quantity") for i in written] == categories
            wanted = sorted(PRINTF.findall("".join(element.itertext())))
            for item in written:
                other = sorted(PRINTF.findall("".join(item.itertext())))
                assert set(other) <= set(wanted)
            continue
        if element.tag != "string":
            continue
        text, new = "".join(element.itertext()), "".join(written.itertext())
        assert sorted(PRINTF.findall(new)) == sorted(PRINTF.findall(text)), name
        assert [g.get("id") for g in written.iter("{*}g")] == [g.get("id") for g in element.iter("{*}g")]
        if element.get("translatable") == "false":
            assert new == text
        elif any(c.isalpha() for c in PRINTF.sub("", text)):
            assert new != text, name  # translated (the pseudo model accents every letter)


CODE = re.compile(r"%(?:\d\$)?[-.\d]*l{0,2}[sdf@]|%\([a-z_]+\)s|\{\{[^{}]+\}\}|\$t\([^)]*\)")
"""The placeholders the sample files use (printf, Python, i18next), to compare source and export."""


def codes_of(text: str) -> list[str]:
    return sorted(CODE.findall(text))


def export_original(client: TestClient, name: str, data: bytes, target: str) -> tuple[bytes, list[dict[str, Any]]]:
    """The file translated to the end by the pseudo model and exported as itself; every request seen."""
    sid, fid, seen = translate_all(client, name, data.decode("utf-8"), target)
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert exported.status_code == 200, exported.text
    assert exported.headers["x-export-skipped"] == "0"
    return exported.content, seen


TARGETS = [("pl", ["one", "few", "many", "other"]), ("ja", ["other"])]


@pytest.mark.slow
@pytest.mark.parametrize(("target", "categories"), TARGETS)
def test_po_translated_and_exported(client: TestClient, target: str, categories: list[str]) -> None:
    import polib

    data = (DATA / "gtk-pl.po").read_bytes()
    content, seen = export_original(client, "gtk.po", data, target)
    before, after = polib.pofile(data.decode()), polib.pofile(content.decode())
    assert after.metadata["Language"] == target
    forms = polib_forms(after.metadata["Plural-Forms"])
    assert forms == (3 if target == "pl" else 1)  # gettext's Polish has one, few, many; Japanese one form
    kept = [e for e in before if not e.obsolete]
    assert [(e.msgctxt, e.msgid) for e in after if not e.obsolete] == [(e.msgctxt, e.msgid) for e in kept]
    for old, new in zip(kept, [e for e in after if not e.obsolete], strict=True):
        assert new.comment == old.comment and new.tcomment == old.tcomment
        if new.msgid_plural:
            assert sorted(new.msgstr_plural) == list(range(forms))
            assert all(set(codes_of(t)) <= set(codes_of(old.msgid_plural)) for t in new.msgstr_plural.values())
        elif "fuzzy" not in old.flags:
            assert new.msgstr and codes_of(new.msgstr) == codes_of(old.msgid), old.msgid
    plurals = [r["plural"]["categories"] for r in seen if r["plural"]]
    assert plurals and all(found == categories for found in plurals)


def polib_forms(header: str) -> int:
    return int(re.search(r"nplurals\s*=\s*(\d+)", header)[1])  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.parametrize(("target", "categories"), TARGETS)
def test_i18next_json_translated_and_exported(client: TestClient, target: str, categories: list[str]) -> None:
    data = (DATA / "i18next-parser-plural.json").read_bytes()
    content, seen = export_original(client, "plural.json", data, target)
    after = json.loads(content)
    for key in ("first", "second"):
        assert [k.removeprefix(f"{key}_") for k in after if k.startswith(f"{key}_")] == categories
    assert "unsorted" in after and after["unsorted"] != "value"
    assert all(r["plural"]["categories"] == categories for r in seen if r["plural"])

    data = (DATA / "jitsi-main.json").read_bytes()
    content, seen = export_original(client, "main.json", data, target)
    before, after = json.loads(data), json.loads(content)
    flat_before, flat_after = dict(_flat(before)), dict(_flat(after))
    plain = {k for k in flat_before if not re.search(r"_(plural|one|other|zero|few|many|two)$", k)}
    assert plain <= set(flat_after)
    for key in plain:
        assert codes_of(flat_after[key]) == codes_of(flat_before[key]), key


def _flat(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flat(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), str(value)


@pytest.mark.slow
def test_apple_strings_and_stringsdict_translated_and_exported(client: TestClient) -> None:
    import io
    import plistlib

    from translate.storage.properties import stringsutf8file

    data = (DATA / "strings_duckduckgo_Localizable.strings").read_bytes()
    content, _ = export_original(client, "Localizable.strings", data, "pl")
    before, after = stringsutf8file(io.BytesIO(data)), stringsutf8file(io.BytesIO(content))
    assert [u.name for u in after.units] == [u.name for u in before.units]
    assert [u.getnotes() for u in after.units] == [u.getnotes() for u in before.units]
    for old, new in zip(before.units, after.units, strict=True):
        assert codes_of(new.source) == codes_of(old.source), old.name

    data = (DATA / "stringsdict_duckduckgo_Localizable.stringsdict").read_bytes()
    content, seen = export_original(client, "Localizable.stringsdict", data, "pl")
    before_plist, after_plist = plistlib.loads(data), plistlib.loads(content)
    assert list(after_plist) == list(before_plist)
    for key, entry in after_plist.items():
        for name, rule in entry.items():
            if isinstance(rule, dict) and rule.get("NSStringFormatSpecTypeKey") == "NSStringPluralRuleType":
                forms = [c for c in ("zero", "one", "two", "few", "many", "other") if c in rule]
                assert set(forms) >= {"one", "few", "many", "other"}, (key, name)
    assert seen and all(r["plural"]["categories"] == ["one", "few", "many", "other"] for r in seen if r["plural"])


@pytest.mark.slow
def test_html_and_subtitles_translated_and_exported(client: TestClient) -> None:
    import io

    import lxml.html
    import srt
    import webvtt

    data = (DATA / "html_backbone.html").read_bytes()
    content, seen = export_original(client, "index.html", data, "pl")
    page = lxml.html.fromstring(content)
    source = lxml.html.fromstring(data)
    assert [e.tag for e in page.iter() if isinstance(e.tag, str)] == [
        e.tag for e in source.iter() if isinstance(e.tag, str)
    ]
    assert page.xpath("//pre") and page.xpath("//pre")[0].text_content() == source.xpath("//pre")[0].text_content()
    assert not any(r["src_string"].startswith("<script") for r in seen)

    data = (DATA / "subtitles_styles2.srt").read_bytes()
    content, seen = export_original(client, "styles2.srt", data, "pl")
    before, after = list(srt.parse(data.decode())), list(srt.parse(content.decode()))
    assert [(s.index, s.start, s.end) for s in after] == [(s.index, s.start, s.end) for s in before]
    worded = [
        (a, b)
        for a, b in zip(after, before, strict=True)
        if re.search(r"[A-Za-z]{2}", re.sub("<[^>]*>", "", b.content))
    ]
    assert worded and all(a.content != b.content for a, b in worded)
    assert not any("-->" in r["src_string"] for r in seen)  # timings are never proposed

    data = (DATA / "subtitles_comments.vtt").read_bytes()
    content, seen = export_original(client, "comments.vtt", data, "pl")
    cues = webvtt.from_buffer(io.StringIO(content.decode())).captions
    original = webvtt.from_buffer(io.StringIO(data.decode())).captions
    assert [(c.start, c.end) for c in cues] == [(c.start, c.end) for c in original]
    assert not any("-->" in r["src_string"] for r in seen)


@pytest.mark.slow
def test_docx_uploaded_as_base64_translated_and_exported(client: TestClient) -> None:
    import base64
    import io

    import docx

    from tests.formats.test_docx import build

    data = build()
    sid = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
    body = {"name": "report.docx", "contentBase64": base64.b64encode(data).decode()}
    uploaded = client.post(f"/api/sessions/{sid}/files", json=body)
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": "report.docx", "content": "text"})
    assert answer.status_code == 422 and "contentBase64" in answer.json()["error"]
    _drive(client, sid, "report.docx")
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert exported.status_code == 200
    assert "report.pl.docx" in exported.headers["content-disposition"]
    assert exported.headers["content-type"].startswith("application/vnd.openxmlformats")
    before, after = docx.Document(io.BytesIO(data)), docx.Document(io.BytesIO(exported.content))
    assert [p.style.name for p in after.paragraphs] == [p.style.name for p in before.paragraphs]
    pairs = [(a.text, b.text) for a, b in zip(after.paragraphs, before.paragraphs, strict=True) if b.text.strip()]
    assert pairs and all(a != b for a, b in pairs if re.search(r"[A-Za-z]{2}", b))
    assert len(after.tables) == len(before.tables)


def untagged(text: str) -> str:
    return re.sub("<[^>]*>", "", text)


def _drive(client: TestClient, sid: str, name: str) -> None:
    body: dict[str, Any] = {"sessionId": sid, "userInput": f"Translate {name}."}
    for _ in range(200):
        response = client.post("/api/next", json=body).json()["agentResponse"]
        requests = response["copilotRequests"]
        if requests:
            body = {"sessionId": sid, "copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in requests]}
        elif response["actor"] == "agent":
            body = {"sessionId": sid}
        else:
            return


@pytest.mark.slow
def test_xcstrings_arb_and_rails_yaml_translated_and_exported(client: TestClient) -> None:
    import yaml

    data = (DATA / "xcstrings_duckduckgo_AIChat.xcstrings").read_bytes()
    content, seen = export_original(client, "Localizable.xcstrings", data, "pl")
    before, after = json.loads(data), json.loads(content)
    assert list(after["strings"]) == list(before["strings"])
    for key, entry in after["strings"].items():
        assert entry.get("comment") == before["strings"][key].get("comment")
        if before["strings"][key].get("shouldTranslate") is False:
            continue
        unit = entry["localizations"]["pl"]["stringUnit"]
        source = before["strings"][key]["localizations"]["en"]["stringUnit"]["value"]
        assert codes_of(unit["value"]) == codes_of(source), key
    assert all(r["context"]["key"] for r in seen)

    data = (DATA / "flutter-gallery-en.arb").read_bytes()
    sid, fid, seen = translate_all(client, "app_en.arb", data.decode(), "pl")
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert "app_pl.arb" in exported.headers["content-disposition"]
    before, after = json.loads(data), json.loads(exported.content)
    assert after["@@locale"] == "pl" and [k for k in after if k != "@@locale"] == list(before)
    for key, value in before.items():
        if key.startswith("@"):
            assert after[key] == value, key  # metadata (descriptions, placeholders) unchanged
        else:
            assert re.findall(r"\{\w+\}", after[key]) == re.findall(r"\{\w+\}", value) or "plural" in value, key
    assert any(r["context"]["note"] for r in seen)

    data = (DATA / "rails-i18n-en.yml").read_bytes()
    sid, fid, _ = translate_all(client, "en.yml", data.decode(), "pl")
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert "pl.yml" in exported.headers["content-disposition"]
    before, after = yaml.safe_load(data), yaml.safe_load(exported.content)
    assert list(after) == ["pl"] and dict(_flat(after["pl"])).keys() >= {
        k for k, v in _flat(before["en"]) if not re.search(r"\.(one|other)$", k)
    }
    texts = dict(_flat(before["en"]))
    for key, value in _flat(after["pl"]):
        if key in texts and "%{" in texts[key]:
            assert sorted(re.findall(r"%\{\w+\}", value)) == sorted(re.findall(r"%\{\w+\}", texts[key])), key
