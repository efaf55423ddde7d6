"""`translation-agent check` on the files CI of Android, i18next, Rails and Apple projects holds: files in
the encodings uploads read (UTF-16 `.strings`, Latin-1 PO), monolingual files paired with their source
(`--source` as a path or a pattern), an unreadable file reported on its own line while the others are
checked, and the project's own exports passing the check they fail without their source."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from terminal.api import verdicts_body
from terminal.cli import main
from terminal.local import connect
from terminal.models import ToolRef, Verdict


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def by_file(report: dict[str, Any]) -> dict[str, list[tuple[str | None, str]]]:
    return {Path(r["file"]).as_posix(): [(f["key"], f["code"]) for f in r["findings"]] for r in report["files"]}


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=ISO-8859-1\\n"
"Language: fr\\n"

msgid "Coffee for %s"
msgstr "Café pour %s"

msgid "Tea for %s"
msgstr "Thé"
"""


def test_a_utf16_strings_file_and_a_latin1_po_file_are_read_as_uploads_read_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    po = write(tmp_path / "fr.po", PO, "latin-1")
    write(tmp_path / "en.lproj/Localizable.strings", '"greet" = "Hello %@";\n"bye" = "Bye";\n')
    write(tmp_path / "fr.lproj/Localizable.strings", '"greet" = "Bonjour %@";\n"bye" = "Salut";\n', "utf-16")
    status, report = check(capsys, po.name, "fr.lproj/Localizable.strings", "--source", "en.lproj/{name}")
    assert status == 1
    assert by_file(report) == {"fr.po": [("Tea for %s", "locked_code")], "fr.lproj/Localizable.strings": []}, (
        "the PO holds its source: --source pairs only the monolingual file"
    )
    assert [r["checked"] for r in report["files"]] == [2, 2]


def test_an_unreadable_file_is_its_own_error_and_the_others_are_still_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write(tmp_path / "broken.json", '{"a": ')
    deep = write(tmp_path / "deep.json", "[" * 100_000 + "]" * 100_000)
    po = write(tmp_path / "fr.po", PO.replace('msgstr "Thé"', 'msgstr "Thé pour %s"'), "latin-1")
    status, report = check(capsys, str(broken), str(tmp_path / "absent.po"), str(deep), str(po))
    assert status == 1
    codes = [[f["code"] for f in r["findings"]] for r in report["files"]]
    assert codes == [["unreadable"], ["unreadable"], ["unreadable"], []]
    assert report["files"][3]["checked"] == 2
    text_status = main(["check", str(broken), str(po)])
    out = capsys.readouterr().out
    assert text_status == 1 and "broken.json" in out and "fr.po: 2 checked" in out and "Check FAILED" in out


STRINGS = """<?xml version="1.0" encoding="utf-8"?>
<resources>
{}
</resources>
"""


def android(strings: dict[str, str]) -> str:
    return STRINGS.format("\n".join(f'    <string name="{k}">{v}</string>' for k, v in strings.items()))


def test_android_targets_are_checked_against_their_default_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    res = tmp_path / "res"
    source = write(res / "values/strings.xml", android({"hello": "Hello %1$s", "bye": "Bye", "save": "Save"}))
    write(res / "values-fr/strings.xml", android({"hello": "Bonjour", "bye": "Au revoir", "save": "OK", "gone": "x"}))
    write(res / "values-de/strings.xml", android({"hello": "Hallo %1$s", "save": "Speichern"}))
    targets = [str(res / "values-fr/strings.xml"), str(res / "values-de/strings.xml")]
    status, report = check(capsys, *targets, "--source", str(source))
    assert status == 1
    found = by_file(report)
    # The `1` of `%1$s` is part of a locked code, not a number of the text.
    assert found[targets[0]] == [("hello", "locked_code"), ("gone", "not_in_source")]
    assert found[targets[1]] == [("bye", "untranslated")]
    severities = {f["code"]: f["severity"] for r in report["files"] for f in r["findings"]}
    assert severities == {"locked_code": "error", "not_in_source": "warning", "untranslated": "error"}
    status, alone = check(capsys, targets[1])
    assert status == 1 and {f["code"] for r in alone["files"] for f in r["findings"]} == {"untranslated"}, (
        "without its source a monolingual file holds no translation"
    )


def test_i18next_namespaces_pair_by_language_pattern_and_check_the_targets_plural_categories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    def namespace(language: str, **strings: str) -> None:
        write(tmp_path / "locales" / language / "common.json", json.dumps(strings, ensure_ascii=False))

    namespace("en", title="Hi {{name}}", n_one="one", n_other="{{count}}")
    namespace("pl", title="Cześć {{name}}", n_one="jeden", n_other="{{count}}")
    namespace("ja", title="こんにちは {{name}}", n_other="{{count}}")
    pattern = "locales/{lang}/{name}"
    status, report = check(
        capsys, "locales/en/common.json", "locales/pl/common.json", "locales/ja/common.json",
        "--source", pattern, "--source-language", "en",
    )  # fmt: skip
    assert status == 1
    assert report["skipped"] == ["locales/en/common.json"]
    found = by_file(report)
    assert found["locales/ja/common.json"] == []
    assert found["locales/pl/common.json"] == [("n", "plural_forms")], "Polish has one, few, many: few and many lack"
    assert main(["check", "locales/pl/common.json", "--source", pattern]) == 2
    assert "--source-language" in capsys.readouterr().err
    assert main(["check", "locales/pl/common.json", "--source", "locales/{language}/{name}"]) == 2
    assert "{language}" in capsys.readouterr().err
    status, report = check(capsys, "locales/pl/common.json", "--source", "i18n/{lang}.json", "--source-language", "en")
    assert status == 1 and "does not match the --source pattern" in report["files"][0]["findings"][0]["message"]


def test_rails_locales_beside_their_source_and_a_missing_source_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locales = tmp_path / "config/locales"
    en = write(locales / "en.yml", 'en:\n  greeting: "Hello %{name}"\n  farewell: Bye\n')
    fr = write(locales / "fr.yml", 'fr:\n  greeting: "Bonjour %{nom}"\n  farewell: Salut\n')
    status, report = check(capsys, str(en), str(fr), "--source", str(en))
    assert status == 1 and report["skipped"] == [str(en)]
    assert by_file(report) == {fr.as_posix(): [("greeting", "locked_code")] * 2}, "%{name} dropped, %{nom} added"
    status, report = check(capsys, str(fr), "--source", str(locales / "missing.yml"))
    assert status == 1 and "its source" in report["files"][0]["findings"][0]["message"]


def _translate_and_export(db: Path, log: Path, name: str, content: str, language: str) -> bytes:
    """A resource file translated whole by the offline model, every proposal approved, exported as itself."""

    async def run() -> bytes:
        client = connect(None, None, db, log)
        try:
            session_id = await client.create_session()
            info = await client.upload(session_id, name, content)
            turn = await client.do_next({"sessionId": session_id, "userInput": f"Translate {name} into {language}."})
            while turn.copilot_requests:
                verdicts = [
                    Verdict(tool=ToolRef(name=r.tool.name, callId=r.tool.callId), status="approve")
                    for r in turn.copilot_requests
                ]
                turn = await client.do_next(verdicts_body(session_id, verdicts))
            return (await client.download(session_id, info.fileId, "original")).data
        finally:
            await client.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("strings.xml", android({f"s{n}": f"Item {n} of %1$d" for n in range(12)})),
        ("translation.json", json.dumps({f"k{n}": f"Step {n} for {{{{user}}}}" for n in range(12)})),
    ],
)
def test_the_projects_own_exports_pass_the_check_against_their_source(
    name: str, content: str, local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = _translate_and_export(local_env, tmp_path / "app.log", name, content, "German")
    source = write(tmp_path / "en" / name, content)
    target = tmp_path / "de" / name
    target.parent.mkdir()
    target.write_bytes(exported)
    status, alone = check(capsys, str(target))
    assert status == 1 and alone["errors"] == 12, "a monolingual export alone reads as untranslated"
    status, report = check(capsys, str(target), "--source", str(source))
    assert (status, report["errors"], report["files"][0]["checked"]) == (0, 0, 12), report
