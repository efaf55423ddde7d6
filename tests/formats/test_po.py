"""gettext PO/POT: real files read into entries and written back into Polish and Japanese.

The written files are checked by polib, translate-toolkit's PO reader and GNU `msgfmt --check`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polib
import pytest
from translate.storage import po as tt_po

from interchange.formats import FormatError, format_for, format_named
from interchange.formats.po import FORMAT
from interchange.limits import MAX_SEGMENTS
from langfacts import plurals
from tests.growth import cpu_seconds

DATA = Path(__file__).parent / "data"
GTK = (DATA / "gtk-pl.po").read_bytes()
SPHINX = (DATA / "sphinx.pot").read_bytes()


def _translate(data: bytes, language: str) -> dict[str, object]:
    """A target for every entry: a marked text, or each of the language's categories."""
    targets: dict[str, object] = {}
    for entry in FORMAT.read(data).entries:
        if entry.plural:
            targets[entry.key] = {c: f"[{c}] {entry.source}" for c in plurals.categories(language)}
        else:
            targets[entry.key] = f"[{language}] {entry.source}"
    return targets


def _msgfmt_check(tmp_path: Path, data: bytes) -> None:
    if shutil.which("msgfmt") is None:
        pytest.skip("GNU gettext's msgfmt is not installed")
    path = tmp_path / "out.po"
    path.write_bytes(data)
    run = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_registry_picks_po_by_extension() -> None:
    assert format_for("locale/pl.po", GTK) is FORMAT
    assert format_for("messages.POT", SPHINX) is FORMAT
    assert format_named("po") is FORMAT


def test_read_gtk_entries_keys_notes_codes_and_plurals() -> None:
    resource = FORMAT.read(GTK)
    by_key = {e.key: e for e in resource.entries}
    assert resource.target_language == "pl"  # from X-Poedit-Language: the header has no Language
    assert len(resource.entries) == 23  # header and the 4 obsolete entries left out
    assert "Invalid filename: %s" not in by_key and "Location:" not in by_key
    tab = by_key["keyboard label | Tab"]
    assert (tab.source, tab.target) == ("Tab", None)
    failed = by_key["Failed to open file '%s': %s"]
    assert failed.codes == ("%s", "%s")
    assert failed.target == 'Nie można otworzyć pliku "%s": %s'
    assert by_key["FLAGS"].note == "\n".join(
        f"Placeholder in --{flag}=FLAGS in --help output"
        for flag in ("gdk-debug", "gdk-no-debug", "gtk-debug", "gtk-no-debug")
    )
    assert by_key["Insufficient memory to save image to callback"].note == "FIXME - co za bzdurne zdanie"
    fuzzy = by_key["Error parsing option --gdk-debug"]
    assert fuzzy.target is None  # msgmerge's guess is not a translation
    split = by_key["Failed to close '%s' while writing image, all data may not have been saved: %s"]
    assert split.codes == ("%s", "%s")  # the `%` / `s` cut over two lines is one code
    plural = by_key["failed to allocate image buffer of %u byte"]
    assert plural.plural == {
        "one": "failed to allocate image buffer of %u byte",
        "other": "failed to allocate image buffer of %u bytes",
    }
    assert plural.source == "failed to allocate image buffer of %u bytes"
    assert plural.codes == ("%u", "%u")
    assert plural.target == {
        "one": "Brak pamięci na bufor obrazu o rozmiarze %u bajtu",
        "few": "Brak pamięci na bufor obrazu o rozmiarze %u bajtów",
        "many": "Brak pamięci na bufor obrazu o rozmiarze %u bajtów",
    }
    assert by_key["%H:%M"].codes == ("%H", "%M")  # strftime directives, locked as printf's are


def test_read_pot_python_format_and_html() -> None:
    resource = FORMAT.read(SPHINX)
    by_key = {e.key: e for e in resource.entries}
    assert resource.target_language is None
    assert all(e.target is None for e in resource.entries)
    assert by_key["Index &ndash; %(key)s"].codes == ("%(key)s",)
    assert by_key["%s() (%s.%s method)"].codes == ("%s", "%s", "%s")
    assert by_key["<h1>All modules for which code is available</h1>"].codes == ("<h1>", "</h1>")
    assert by_key[" (in "].source == " (in "


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_write_gtk_parses_with_polib_translate_toolkit_and_msgfmt(language: str, tmp_path: Path) -> None:
    targets = _translate(GTK, language)
    out = FORMAT.write(GTK, targets, target_language=language)
    written = polib.pofile(out.decode("utf-8"))
    original = polib.pofile(GTK.decode("utf-8"))
    forms = plurals.gettext_forms(language)
    assert written.metadata["Language"] == language
    assert written.metadata["Plural-Forms"] == forms.header
    active = [e for e in written if not e.obsolete]
    assert [(e.msgctxt, e.msgid) for e in active] == [(e.msgctxt, e.msgid) for e in original if not e.obsolete]
    for before, after in zip((e for e in original if not e.obsolete), active, strict=True):
        assert (after.comment, after.tcomment, after.occurrences) == (
            before.comment,
            before.tcomment,
            before.occurrences,
        )
        assert [f for f in after.flags if f != "fuzzy"] == [f for f in before.flags if f != "fuzzy"]
        assert "fuzzy" not in after.flags
        if after.msgid_plural:
            assert sorted(after.msgstr_plural) == list(range(forms.nplurals))
            assert [after.msgstr_plural[i] for i in range(forms.nplurals)] == [
                f"[{c}] {after.msgid_plural}" for c in forms.categories
            ]
        else:
            assert after.msgstr == f"[{language}] {after.msgid}"
    assert [e.msgid for e in written.obsolete_entries()] == [e.msgid for e in original.obsolete_entries()]
    assert [e.msgstr_plural for e in written.obsolete_entries()] == [
        e.msgstr_plural for e in original.obsolete_entries()
    ]
    toolkit = tt_po.pofile(out)
    assert toolkit.gettargetlanguage() == language
    plural_unit = next(u for u in toolkit.units if u.hasplural())
    assert len(plural_unit.target.strings) == forms.nplurals
    _msgfmt_check(tmp_path, out)
    again = FORMAT.read(out)
    assert again.target_language == language
    plural_entry = next(e for e in again.entries if e.plural)
    assert set(plural_entry.target or {}) == set(forms.categories)


def test_polish_gettext_forms_are_three_and_japanese_one() -> None:
    out_pl = polib.pofile(FORMAT.write(SPHINX, {}, target_language="pl").decode())
    out_ja = polib.pofile(FORMAT.write(SPHINX, {}, target_language="ja").decode())
    assert out_pl.metadata["Plural-Forms"].startswith("nplurals=3;")
    assert out_ja.metadata["Plural-Forms"] == "nplurals=1; plural=0;"


def _changes(before: bytes, after: bytes) -> tuple[list[str], list[str]]:
    old, new = before.decode().splitlines(), after.decode().splitlines()
    return [line for line in old if line not in new], [line for line in new if line not in old]


def test_write_keeps_untouched_lines_and_header_order() -> None:
    plural_forms = [  # babel's Polish rule, wrapped at 79 columns as gettext wraps a header
        '"Plural-Forms: nplurals=3; plural=n == 1 ? 0 : n % 10 >= 2 && n % 10 <= 4 && "',
        '"(n % 100 < 12 || n % 100 > 14) ? 1 : 2;\\n"',
    ]
    # a template written with no targets: the header gains Language and Plural-Forms and loses its
    # fuzzy flag; every other line is as it was
    removed, added = _changes(SPHINX, FORMAT.write(SPHINX, {}, target_language="pl"))
    assert removed == ["#, fuzzy"]
    assert added == ['"Language: pl\\n"', *plural_forms]
    # GTK's file: its own Plural-Forms goes, and old gettext's cut inside `%s` is made at the space
    removed, added = _changes(GTK, FORMAT.write(GTK, {}, target_language="pl"))
    assert removed == [
        '"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 "',
        '"|| n%100>=20) ? 1 : 2);\\n"',
        "\"Failed to close '%s' while writing image, all data may not have been saved: %\"",
        '"s"',
    ]
    assert added == [
        '"Language: pl\\n"',
        *plural_forms,
        "\"Failed to close '%s' while writing image, all data may not have been saved: \"",
        '"%s"',
    ]
    out = FORMAT.write(SPHINX, {}, target_language="pl").decode()
    fields = [line.split(":")[0] for line in out.splitlines()[7:20] if line.startswith('"')]
    assert fields[:7] == [
        '"Project-Id-Version',
        '"Report-Msgid-Bugs-To',
        '"POT-Creation-Date',
        '"PO-Revision-Date',
        '"Last-Translator',
        '"Language-Team',
        '"Language',
    ]


def test_translations_wrapped_as_gettext_wraps() -> None:
    text = "Nie można odczytać obrazu: przyczyna nieznana; prawdopodobnie uszkodzony plik z obrazem, case-sensitive"
    out = FORMAT.write(SPHINX, {"Builtins": text}, target_language="pl").decode()
    block = out.split('msgid "Builtins"\n')[1].split("\n\n")[0].splitlines()
    assert block[0] == 'msgstr ""'
    assert all(len(line) <= 79 for line in block)
    assert block[1].endswith(' "') and "".join(line[1:-1] for line in block[1:]) == text
    assert polib.pofile(out).find("Builtins").msgstr == text


def test_entry_not_in_targets_keeps_its_msgstr_and_fuzzy_flag() -> None:
    out = polib.pofile(FORMAT.write(GTK, {"CLASS": "KLASA!"}, target_language="pl").decode())
    by_id = {(e.msgctxt, e.msgid): e for e in out}
    assert by_id[(None, "CLASS")].msgstr == "KLASA!"
    assert by_id[(None, "Error parsing option --gdk-debug")].msgstr == "Błąd podczas drukowania"
    assert "fuzzy" in by_id[(None, "Error parsing option --gdk-debug")].flags


@pytest.mark.parametrize("language", ["ja", "ar", "pl"])
def test_untranslated_and_kept_plurals_fit_the_new_header(language: str, tmp_path: Path) -> None:
    out = FORMAT.write(GTK, {"CLASS": "x"}, target_language=language)
    written = polib.pofile(out.decode())
    kept = written.find("failed to allocate image buffer of %u byte")
    forms = plurals.gettext_forms(language)
    assert sorted(kept.msgstr_plural) == list(range(forms.nplurals))
    polish = {"one": "Brak pamięci na bufor obrazu o rozmiarze %u bajtu"}
    polish["few"] = polish["many"] = polish["other"] = "Brak pamięci na bufor obrazu o rozmiarze %u bajtów"
    assert [kept.msgstr_plural[i] for i in range(forms.nplurals)] == [
        polish.get(c, polish["other"]) for c in forms.categories
    ]
    _msgfmt_check(tmp_path, out)


def test_crlf_file_stays_crlf() -> None:
    data = b'msgid ""\r\nmsgstr ""\r\n"Language: en\\n"\r\n\r\nmsgid "Hello"\r\nmsgstr ""\r\n'
    out = FORMAT.write(data, {"Hello": "Cze\u015b\u0107"}, target_language="pl")
    assert b"\r\n" in out and b"\n" not in out.replace(b"\r\n", b"")
    assert polib.pofile(out.decode()).find("Hello").msgstr == "Cześć"


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'msgid ""\nmsgstr ""\n\nmsgid "a"\nmsgstr "b"\nmsgid "c" oops\n', "Line 6"),
        (b'msgid ""\nmsgstr ""\n\nmsgid "a\nmsgstr "b"\n', "Line 4"),
        (b'msgid ""\nmsgstr ""\n\nmsgid "a"\nmsgstr "b"\n\nmsgid "a"\nmsgstr "c"\n', "Line 7"),
        (
            b'msgid ""\nmsgstr ""\n"Language: pl\\n"\n"Plural-Forms: nplurals=2; plural=n/0;\\n"\n'
            b'\nmsgid "a"\nmsgstr "b"\n',
            "Plural-Forms",
        ),
        (b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "\xff"\nmsgstr ""\n', "Line 5"),
    ],
)
def test_malformed_files_name_the_line(data: bytes, where: str) -> None:
    with pytest.raises(FormatError, match=where):
        FORMAT.read(data)


@pytest.mark.parametrize(
    "data", [b"", b"/etc/passwd", b'msgid ""\nmsgstr ""\n"Language: pl\\n"\n', b"# just a comment\n"]
)
def test_nothing_to_translate(data: bytes) -> None:
    with pytest.raises(FormatError, match="no string to translate"):
        FORMAT.read(data)


def test_too_many_messages() -> None:
    data = "".join(f'msgid "m{i}"\nmsgstr ""\n\n' for i in range(MAX_SEGMENTS + 2)).encode()
    with pytest.raises(FormatError, match=str(MAX_SEGMENTS)):
        FORMAT.read(data)


def _read_seconds(lines: int) -> float:
    data = ('msgid ""\n' + '"abcdefghij"\n' * lines + 'msgstr ""\n\n#~ msgid ""\n' + '#~ "x"\n' * lines).encode()
    assert len(FORMAT.read(data).entries[0].source) == 10 * lines
    return cpu_seconds(lambda: FORMAT.read(data), runs=2)


@pytest.mark.slow
def test_long_strings_and_obsolete_runs_read_in_linear_time() -> None:
    # polib alone joins a string's lines at a quadratic cost: 4 times the lines took 10 times as long
    assert _read_seconds(80_000) / _read_seconds(20_000) < 8


def test_comment_runs_are_bounded() -> None:
    data = ("#. note\n" * 600 + 'msgid "a"\nmsgstr ""\n').encode()
    with pytest.raises(FormatError, match="Line 501"):
        FORMAT.read(data)
