"""`translation-agent check` on the resource formats (issue 29): a PO file's existing translations checked
for missing ones, locked codes and plural forms with the rules proposals get."""

from __future__ import annotations

from pathlib import Path

from service.check import check_file
from terminal.check import run_check

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


FRENCH = """msgid ""
msgstr ""
"Language: fr\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d fichier"
msgstr[1] "%d fichiers"

#, c-format
msgid "%d folder"
msgid_plural "%d folders"
msgstr[0] "%d dossier"
"""


def test_a_po_files_plural_forms_are_checked_by_its_own_header() -> None:
    """French PO files say `nplurals=2` (gettext's classic rule), not babel's 3 forms: two forms are
    complete; one form missing is still an error."""
    report = check_file("fr.po", FRENCH.encode("utf-8"))
    assert set(codes(report)) == {("%d folder", "plural_forms")}
    assert any("other is empty" in f.message for f in report.findings)
