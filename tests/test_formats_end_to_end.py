"""Real resource files translated to the end through the HTTP API with the offline pseudo model, then
exported in their own format (issue 29's proof), on every storage backend.

For each format whose module has landed: a file from tests/formats/data is uploaded, translated into
Polish (one/few/many/other) or Japanese (other) by the pseudo model, every proposal approved, and
exported with `format=original`; the export parses with the format's reference library, its keys and
comments are the source's, its placeholders intact, its plural categories exactly the target's, and
no locked text (a `translatable="false"` string, a placeholder alone) was ever proposed.
"""

from __future__ import annotations

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
