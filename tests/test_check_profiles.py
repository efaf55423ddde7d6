"""`translation-agent check` with QA profiles: each file kind's built-in profile, `--qa-profile` (a
name or a JSON file) changing a level or a limit, and a profile that cannot be read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.check import check_file
from terminal.cli import main

SOURCE_SRT = """1
00:00:01,000 --> 00:00:03,000
Where are you going?

2
00:00:04,000 --> 00:00:09,000
<i>Home.</i>
"""
TARGET_SRT = """1
00:00:01,000 --> 00:00:03,000
Où est-ce que tu vas comme ça, à cette heure-ci de la nuit ?

2
00:00:04,000 --> 00:00:09,000
<i>À la maison.</i>
"""
SOURCE_XML = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="button_save">Save</string>
    <string name="title">Settings (%1$d)</string>
    <!-- The menu entry [CHAR LIMIT=8] -->
    <string name="menu_help">Help</string>
</resources>
"""
TARGET_XML = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="button_save">Enregistrer les modifications</string>
    <string name="title">Paramètres %1$d</string>
    <string name="menu_help">Assistance</string>
</resources>
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["key"], f["severity"], f["code"]) for r in report["files"] for f in r["findings"]]


def files(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    (tmp_path / "en").mkdir()
    (tmp_path / "fr").mkdir()
    paths = (
        tmp_path / "en/film.srt",
        tmp_path / "fr/film.srt",
        tmp_path / "en/strings.xml",
        tmp_path / "fr/strings.xml",
    )
    for path, text in zip(paths, (SOURCE_SRT, TARGET_SRT, SOURCE_XML, TARGET_XML), strict=True):
        path.write_text(text, encoding="utf-8")
    return paths


def test_a_subtitle_line_over_42_characters_fails_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, target, _, _ = files(tmp_path)
    status, report = run(capsys, str(target), "--source", str(tmp_path / "en/{name}"))
    assert status == 1
    assert findings(report) == [("1", "error", "line_length"), ("1", "warning", "reading_speed")]
    messages = [f["message"] for f in report["files"][0]["findings"]]
    assert messages == [
        "Line 1: 60 characters, at most 42 a line.",
        "Reading speed: 30.0 characters a second over the cue's 2 s, at most 17.",
    ]
    main(["check", str(target), "--source", str(tmp_path / "en/{name}")])
    text = capsys.readouterr().out
    assert (
        "  error   1  Line 1: 60 characters, at most 42 a line." in text and "Check FAILED: 1 error, 1 warning" in text
    )


def test_a_profile_changes_levels_and_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, srt, _, xml = files(tmp_path)
    source = str(tmp_path / "en/{name}")
    status, report = run(capsys, str(xml), "--source", source)
    assert status == 1  # the source's comment states the menu entry's limit
    assert findings(report) == [("title", "warning", "brackets"), ("menu_help", "error", "max_length")]
    assert report["files"][0]["findings"][1]["message"] == "Too long: 10 characters, at most 8."
    profile = tmp_path / "qa.json"
    profile.write_text(json.dumps({"base": "strings", "maxLengthByKey": {"button_": 20}}), encoding="utf-8")
    status, report = run(capsys, str(xml), "--source", source, "--qa-profile", str(profile))
    assert status == 1
    assert findings(report) == [
        ("button_save", "error", "max_length"),
        ("title", "warning", "brackets"),
        ("menu_help", "error", "max_length"),
    ]
    assert report["files"][0]["findings"][0]["message"] == "Too long: 29 characters, at most 20."
    relaxed = {"base": "subtitles", "checks": {"line_length": "warning", "reading_speed": "off"}}
    profile.write_text(json.dumps(relaxed), encoding="utf-8")
    status, report = run(capsys, str(srt), "--source", source, "--qa-profile", str(profile))
    assert status == 0 and findings(report) == [("1", "warning", "line_length")]
    status, report = run(capsys, str(srt), "--source", source, "--qa-profile", "strings")  # a built-in by name
    assert status == 0 and findings(report) == []


def test_a_file_with_edge_and_punctuation_findings(tmp_path: Path) -> None:
    source = (
        b'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        b'msgid "Name: "\nmsgstr "Nom :"\n\n'
        b'msgid "Delete 3 files?"\nmsgstr "Supprimer  4 fichiers."\n'
    )
    report = check_file("fr.po", source)
    assert [(f.key, f.severity, f.code) for f in report.findings] == [
        ("Name: ", "warning", "edge_whitespace"),
        ("Delete 3 files?", "warning", "missing_number"),
        ("Delete 3 files?", "warning", "double_space"),
        ("Delete 3 files?", "warning", "end_punctuation"),
        ("Delete 3 files?", "warning", "numbers"),
    ]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("film", "unknown qa profile 'film'"),
        ("absent.json", "no such file"),
        ("{bad}.json", "no such file"),
    ],
)
def test_a_profile_that_cannot_be_read_stops_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, words: str
) -> None:
    _, srt, _, _ = files(tmp_path)
    assert main(["check", str(srt), "--qa-profile", value]) == 2
    assert words in capsys.readouterr().err.lower()


def test_a_profile_file_that_is_not_a_profile_stops_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, srt, _, _ = files(tmp_path)
    for content, words in (("{not json", "expecting"), ('{"checks": {"quotes": "loud"}}', "off, warning or error")):
        (tmp_path / "qa.json").write_text(content, encoding="utf-8")
        assert main(["check", str(srt), "--qa-profile", str(tmp_path / "qa.json")]) == 2
        assert words in capsys.readouterr().err.lower()


XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" target-language="fr" datatype="plaintext">
    <body>
      <trans-unit id="save" maxwidth="8" size-unit="char">
        <source>Save</source><target>Enregistrer</target>
      </trans-unit>
      <trans-unit id="open" maxwidth="8" size-unit="pixel">
        <source>Open</source><target>Ouvrir le fichier</target>
      </trans-unit>
      <trans-unit id="quit" maxwidth="8" size-unit="char">
        <source>Quit</source><target>Quitter</target>
      </trans-unit>
    </body>
  </file>
</xliff>
"""
XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0"
       xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0" srcLang="en" trgLang="fr">
  <file id="f1">
    <slr:profiles generalProfile="xliff:codepoints"/>
    <unit id="save" slr:sizeRestriction="8">
      <segment><source>Save</source><target>Enregistrer</target></segment>
    </unit>
    <unit id="quit">
      <segment slr:sizeRestriction="8"><source>Quit</source><target>Quitter</target></segment>
    </unit>
  </file>
</xliff>
"""


@pytest.mark.parametrize("document", [XLIFF12, XLIFF20], ids=["1.2", "2.0"])
def test_an_xliff_stated_length_in_characters_is_the_string_s_limit(
    document: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.xlf"
    path.write_text(document, encoding="utf-8")
    _, report = run(capsys, str(path))
    limits = [
        (f["key"], f["code"], f["message"]) for r in report["files"] for f in r["findings"] if f["code"] == "max_length"
    ]
    assert len(limits) == 1, "only the character limit counts: a width in pixels is no count of characters"
    assert limits[0][0].split("/")[1] == "save" and "11" in limits[0][2] and "8" in limits[0][2]
