"""A file's segments at upload and its analysis over HTTP: counts, repetitions, locked text, the
translation memory's match bands, the cost estimate and its price, before and during a job."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from handlers.api import create_app
from storage.sqlite import SQLiteStorage
from tests.helpers import services_for

ROOT = Path(__file__).resolve().parents[1]
DOC = (
    "# Install\n\n"
    "Run the installer first. Then restart the machine.\n\n"
    "```sh\nmake install\n```\n\n"
    "Run the installer first.\n\n"
    "Open the settings page and choose a language.\n\n"
    "Nothing else is needed here at all.\n"
)
TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en"
 creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><tuv xml:lang="en"><seg>Then restart the machine.</seg></tuv>
<tuv xml:lang="fr"><seg>Puis redémarrez.</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Open the settings page and choose the language.</seg></tuv>
<tuv xml:lang="fr"><seg>Ouvrez les réglages et choisissez la langue.</seg></tuv></tu>
</body></tmx>"""


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(services_for(SQLiteStorage(":memory:")))) as c:
        yield c


def upload(client: TestClient, content: str = DOC, **session: Any) -> tuple[str, dict[str, Any]]:
    sid = client.post("/api/sessions", json=session).json()["id"]
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": "guide.md", "content": content})
    assert answer.status_code == 201, answer.text
    return sid, answer.json()


def analysis(client: TestClient, sid: str, fid: str, **query: str) -> dict[str, Any]:
    answer = client.get(f"/api/sessions/{sid}/files/{fid}/analysis", params=query)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_the_upload_says_how_many_segments_the_file_has(client: TestClient) -> None:
    _, uploaded = upload(client)
    assert uploaded["segments"] == 7  # heading, two sentences, code, the repeated one, two paragraphs


def test_an_analysis_counts_segments_words_locked_text_and_repetitions(client: TestClient) -> None:
    sid, uploaded = upload(client)
    found = analysis(client, sid, uploaded["fileId"])
    assert (found["segments"], found["locked"], found["repetitions"]) == (7, 1, 1)
    assert found["words"] == 1 + 4 + 4 + 3 + 4 + 8 + 7  # "sh make install" in the code block
    assert found["chars"] == sum(
        len(s)
        for s in [
            "# Install",
            "Run the installer first.",
            "Then restart the machine.",
            "```sh\nmake install\n```",
            "Run the installer first.",
            "Open the settings page and choose a language.",
            "Nothing else is needed here at all.",
        ]
    )
    assert found["targetLanguage"] is None
    assert found["bands"]["none"] == {"segments": 5, "words": 1 + 4 + 4 + 8 + 7}
    assert sum(b["segments"] for b in found["bands"].values()) + found["locked"] + found["repetitions"] == 7
    estimate = found["estimate"]
    assert estimate["model"] == "pseudo" and estimate["usd"] == 0
    # one screen (the code block between does not end it), then "done": a screen of 5 units most
    # likely has no rejected unit to show again
    assert estimate["modelRequests"] == 2
    assert estimate["inputTokens"] > 0 and estimate["outputTokens"] > 0


def test_the_bands_show_the_translation_memorys_leverage_for_the_target(client: TestClient) -> None:
    sid, uploaded = upload(client, targetLanguage="fr")
    before = analysis(client, sid, uploaded["fileId"])
    imported = client.post("/api/memory/import", json={"format": "tmx", "content": TMX})
    assert imported.status_code == 200, imported.text
    found = analysis(client, sid, uploaded["fileId"])
    assert found["targetLanguage"] == "fr"
    assert found["bands"]["100"] == {"segments": 1, "words": 4}
    assert found["bands"]["95-99"]["segments"] + found["bands"]["85-94"]["segments"] == 1  # "the" for "a"
    assert found["bands"]["none"]["segments"] == 3
    assert found["estimate"]["inputTokens"] < before["estimate"]["inputTokens"]  # a 100% match costs nothing
    other = analysis(client, sid, uploaded["fileId"], to="de")  # no German memory
    assert other["targetLanguage"] == "de" and other["bands"]["none"]["segments"] == 5


def test_the_estimate_is_priced_for_the_configured_model(monkeypatch: pytest.MonkeyPatch, client: TestClient) -> None:
    sid, uploaded = upload(client)
    monkeypatch.setenv("MODEL_PRICES", '{"pseudo": {"input": 2.0, "output": 8.0}}')
    estimate = analysis(client, sid, uploaded["fileId"])["estimate"]
    expected = (estimate["inputTokens"] * 2.0 + estimate["outputTokens"] * 8.0) / 1_000_000
    assert estimate["usd"] == pytest.approx(expected, abs=1e-4) and estimate["usd"] > 0


def test_during_a_job_only_what_is_left_is_estimated(client: TestClient) -> None:
    sid, uploaded = upload(client)
    fid = uploaded["fileId"]
    before = analysis(client, sid, fid)["estimate"]
    step = client.post("/api/next", json={"sessionId": sid, "userInput": "Translate guide.md into French."})
    assert step.status_code == 200, step.text
    pending = step.json()["agentResponse"]["copilotRequests"]
    assert pending
    reviewed = client.post(
        "/api/next",
        json={"sessionId": sid, "copilotResponses": [{"tool": r["tool"], "status": "approve"} for r in pending]},
    )
    assert reviewed.status_code == 200, reviewed.text
    after = analysis(client, sid, fid)
    assert after["segments"] == 7  # the counts never change
    assert after["estimate"]["inputTokens"] < before["inputTokens"]


def test_an_xliff_files_segments_are_its_own(client: TestClient) -> None:
    xliff = """<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file source-language="en" target-language="fr" datatype="plaintext" original="a"><body>
<trans-unit id="1"><source>One. Two.</source></trans-unit>
<trans-unit id="2"><source>Three.</source></trans-unit>
</body></file></xliff>"""
    sid = client.post("/api/sessions").json()["id"]
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": "a.xlf", "content": xliff})
    assert answer.status_code == 201, answer.text
    assert answer.json()["segments"] == 2
    assert analysis(client, sid, answer.json()["fileId"])["segments"] == 2


def test_another_callers_or_a_missing_file_is_not_found(client: TestClient) -> None:
    sid, _ = upload(client)
    assert client.get(f"/api/sessions/{sid}/files/f_missing/analysis").status_code == 404
    assert client.get("/api/sessions/s_missing/files/f_missing/analysis").status_code == 404


def test_once_the_job_has_run_a_while_the_estimate_is_the_sessions_own_rate(client: TestClient) -> None:
    source = (ROOT / "tests" / "data" / "httpx-CHANGELOG.md").read_text(encoding="utf-8")
    sid, uploaded = upload(client, source)
    fid = uploaded["fileId"]
    assert analysis(client, sid, fid)["estimate"]["basis"] == "loop"
    body: dict[str, Any] = {"sessionId": sid, "userInput": "Translate guide.md into French."}
    for _ in range(30):  # approve batches until the session has metered a few model requests
        agent = client.post("/api/next", json=body).json()["agentResponse"]
        body = {"sessionId": sid}
        if agent["copilotRequests"]:
            body["copilotResponses"] = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
        if client.get(f"/api/sessions/{sid}").json()["telemetry"]["modelRequests"] >= 4 and "copilotResponses" in body:
            break
    found = analysis(client, sid, fid)["estimate"]
    spent = client.get(f"/api/sessions/{sid}").json()["telemetry"]
    units = client.get(f"/api/sessions/{sid}/files/{fid}/units").json()["units"]
    done = sum(u["end"] - u["start"] for u in units if u["status"] != "verbatim")
    assert found["basis"] == "metered" and done >= 500
    # What is left costs what the translated part cost, per character.
    left_ratio = found["inputTokens"] / spent["inputTokens"]
    assert left_ratio == pytest.approx(found["outputTokens"] / spent["outputTokens"], rel=0.01)
    assert 1 < left_ratio < len(source) / done
