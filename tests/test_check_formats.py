"""`translation-agent check` on the resource formats (issue 29): a PO file's existing translations checked
for missing ones, locked codes and plural forms with the rules proposals get."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.check import check_file
from terminal.check import run_check

pytest.importorskip("interchange.formats.po")

PO = """msgid ""
msgstr ""
"Language: pl\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"

#. The greeting on the start page
#, c-format
msgid "Hello, %s!"
msgstr "Cześć, %s!"

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d plik"
msgstr[1] "%d pliki"
msgstr[2] "%d plików"

msgid "Quit"
msgstr "Zakończ"
"""


def codes(report: object) -> list[tuple[str | None, str]]:
    return [(f.key, f.code) for f in report.findings]  # type: ignore[attr-defined]


def test_a_clean_po_file_passes() -> None:
    report = check_file("pl.po", PO.encode())
    assert report.checked == 3 and report.errors == 0, report.findings


def test_a_dropped_placeholder_a_missing_form_and_a_missing_translation_are_errors() -> None:
    broken = (
        PO.replace('msgstr "Cześć, %s!"', 'msgstr "Cześć!"')
        .replace('msgstr[2] "%d plików"', 'msgstr[2] ""')
        .replace('msgstr "Zakończ"', 'msgstr ""')
    )
    report = check_file("pl.po", broken.encode())
    found = {code for _, code in codes(report)}
    assert {"locked_code", "untranslated"} <= found
    assert report.errors >= 3
    messages = " ".join(f.message for f in report.findings)
    assert "%s is missing" in messages


def test_the_command_reads_po_files_and_fails_on_an_error(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.po", tmp_path / "bad.po"
    good.write_text(PO, encoding="utf-8")
    bad.write_text(PO.replace('msgstr[1] "%d pliki"', 'msgstr[1] "pliki %s"'), encoding="utf-8")
    status, text = run_check([good])
    assert status == 0, text
    status, text = run_check([good, bad])
    assert status == 1 and "bad.po" in text and "plural_forms" not in text.split("good.po")[0]
