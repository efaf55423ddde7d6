"""`translation-agent check`: existing translations checked offline, for CI (exit codes, the JSON
report, a glossary, `--changed-since` in a git repository), on real XLIFF samples and written ones."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from terminal.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "xliff"

XLIFF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
  <file id="f1">
{units}
  </file>
</xliff>
"""
GOOD = {
    "hello": ("Hello, %s!", "Bonjour, %s !"),
    "save": (
        'Press <pc id="1">Save</pc> to keep 3 files.',
        'Appuyez sur <pc id="1">Enregistrer</pc> pour garder 3 fichiers.',
    ),
}


def xliff(units: dict[str, tuple[str, str | None]]) -> str:
    """An XLIFF 2.0 document with one segment a unit (no target element for None)."""
    parts = []
    for uid, (source, target) in units.items():
        kept = f"<target>{target}</target>" if target is not None else ""
        parts.append(f'    <unit id="{uid}"><segment><source>{source}</source>{kept}</segment></unit>')
    return XLIFF.format(units="\n".join(parts))


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["key"], f["severity"], f["code"]) for r in report["files"] for f in r["findings"]]


def test_real_translated_samples_pass(capsys: pytest.CaptureFixture[str]) -> None:
    # Okapi's HTML and DOCX extractions and OASIS's sample with a term annotation (its target's <mrk>
    # has an id of its own) are translated whole.
    names = ["okapi-htmltest.html.xlf", "okapi-docxsegtest.docx.xlf", "oasis-sample1.xlf"]
    status, report = check(capsys, *(str(SAMPLES / n) for n in names))
    assert status == 0 and report["errors"] == 0 and [r["checked"] for r in report["files"]] == [8, 8, 1]
    assert main(["check", str(SAMPLES / "okapi-htmltest.html.xlf")]) == 0
    # Okapi's targets are its sources' English text (a test of the format): the QA profile's
    # source-language check names each one long enough to tell, as a warning.
    out = capsys.readouterr().out
    assert "Check passed: 0 errors, 4 warnings in 1 file." in out
    assert out.count("Reads as the source's language (en), not fr: left untranslated?") == 4


def test_broken_and_missing_translations_fail_with_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "app.xlf"
    doc.write_text(
        xliff(
            {
                **GOOD,
                "missing": ("Open the settings.", None),
                "printf": ("Deleted %d files.", "Fichiers supprimés."),
                "code": ('Click <pc id="1">here</pc>.', "Cliquez ici."),
                "number": ("Wait 30 seconds.", "Attendez quelques secondes."),
            }
        ),
        encoding="utf-8",
    )
    status, report = check(capsys, str(doc))
    assert status == 1 and (report["errors"], report["warnings"]) == (3, 1)
    assert findings(report) == [
        ("1/missing/1", "error", "untranslated"),
        ("1/printf/1", "error", "missing_placeholder"),
        ("1/code/1", "error", "missing_placeholder"),
        ("1/number/1", "warning", "missing_number"),
    ]
    assert main(["check", str(doc)]) == 1
    text = capsys.readouterr().out
    assert "app.xlf: 6 checked, 3 errors, 1 warning" in text and "  error   1/missing/1  Not translated." in text
    assert "Check FAILED: 3 errors, 1 warning in 1 file." in text


def test_a_glossary_warns_where_a_term_is_not_translated_its_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "app.xlf"
    doc.write_text(xliff({"settings": ("Open the settings.", "Ouvrez les paramètres.")}), encoding="utf-8")
    glossary = tmp_path / "terms.csv"
    glossary.write_text("source,target\nsettings,réglages\n", encoding="utf-8")
    status, report = check(capsys, str(doc), "--glossary", str(glossary))
    assert status == 0, "a glossary miss is a warning, not an error"
    [finding] = report["files"][0]["findings"]
    assert (finding["code"], finding["message"]) == (
        "glossary",
        "Glossary: «settings» should be translated as «réglages».",
    )
    glossary.write_text("term\nsettings\n", encoding="utf-8")
    assert main(["check", str(doc), "--glossary", str(glossary)]) == 2
    assert "needs a header row naming a 'source' and a 'target' column" in capsys.readouterr().err


def test_unreadable_files_are_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.xlf"
    broken.write_text("<xliff><file>", encoding="utf-8")
    status, report = check(capsys, str(broken), str(SAMPLES / "okapi-htmltest.html.xlf"))
    assert status == 1 and findings(report)[0] == (None, "error", "unreadable")
    status, report = check(capsys, str(tmp_path / "absent.xlf"), str(SAMPLES / "okapi-htmltest.html.xlf"))
    assert status == 1 and [r["errors"] for r in report["files"]] == [1, 0], "a missing file is its own error line"
    assert "no such file" in report["files"][0]["findings"][0]["message"].lower()


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_changed_since_checks_only_what_differs_from_a_revision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / "locales").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "CI")
    doc = repo / "locales" / "app.xlf"
    doc.write_text(xliff({**GOOD, "old": ("Old text.", None)}), encoding="utf-8")  # broken before the revision
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    doc.write_text(xliff({**GOOD, "old": ("Old text.", None), "new": ("Deleted %d files.", "Supprimés.")}))
    added = repo / "locales" / "more.xlf"
    added.write_text(xliff({"x": ("Hello.", None)}), encoding="utf-8")
    status, report = check(capsys, str(doc), str(added), "--changed-since", "HEAD")
    assert status == 1
    assert [r["checked"] for r in report["files"]] == [1, 1], "the changed segment; the new file whole"
    assert findings(report) == [("1/new/1", "error", "missing_placeholder"), ("1/x/1", "error", "untranslated")]
    status, whole = check(capsys, str(doc))
    assert [r["checked"] for r in whole["files"]] == [4]
    assert main(["check", str(doc), "--changed-since", "no-such-ref"]) == 2
    assert "--changed-since no-such-ref" in capsys.readouterr().err


def test_review_adds_the_offline_models_verdict_as_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--review` without a configured model: the pseudo reviewer flags a target left as its source;
    its verdicts are warnings, so the build still passes."""
    monkeypatch.delenv("AGENT_MODEL", raising=False)
    doc = tmp_path / "ui.xlf"
    doc.write_text(xliff({**GOOD, "left": ("Open the settings.", "Open the settings.")}), encoding="utf-8")
    status, report = check(capsys, str(doc), "--review")
    assert status == 0 and report["files"][0]["reviewed"] == 3
    assert findings(report) == [("1/left/1", "warning", "model_review")]
    assert main(["check", str(doc), "--review"]) == 0
    assert "3 checked, 3 reviewed by the model, 0 errors, 1 warning" in capsys.readouterr().out
    _, plain = check(capsys, str(doc))
    assert "reviewed" not in plain["files"][0] and findings(plain) == []


def test_review_through_a_real_providers_wire_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--review --model openai-chat:…`: the OpenAI SDK against a fake server on loopback; one request
    for the batch, the Verdicts tool required, the pairs by key; an issue the model names is a warning."""
    from pydantic_ai import models

    from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCallSpec

    def reviewer(body: dict[str, Any]) -> Reply:
        shown = json.loads(body["messages"][-1]["content"].split("\n", 1)[-1])
        verdicts = [
            {"key": p["key"], "ok": p["key"] != "1/save/1", "issue": "« garder » should be « conserver »."}
            for p in shown
        ]
        return Reply(tool_calls=(ToolCallSpec("Verdicts", json.dumps({"verdicts": verdicts}), "call_1"),))

    doc = tmp_path / "ui.xlf"
    doc.write_text(xliff(GOOD), encoding="utf-8")
    with FakeOpenAIServer(reviewer) as server, models.override_allow_model_requests(True):
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
        status, report = check(capsys, str(doc), "--review", "--model", "openai-chat:gpt-4.1")
        [request] = server.requests
    assert status == 0 and report["files"][0]["reviewed"] == 2
    assert findings(report) == [("1/save/1", "warning", "model_review")]
    assert "conserver" in report["files"][0]["findings"][0]["message"]
    assert request.body["tool_choice"] == "required" and [t["function"]["name"] for t in request.body["tools"]] == [
        "Verdicts"
    ]
