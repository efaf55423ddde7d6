"""Apple .strings: read a real Localizable.strings (UTF-8 and as UTF-16); write Polish and Japanese back."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from translate.storage import properties

from interchange.formats import FormatError, format_for
from interchange.formats.apple_strings import FORMAT
from interchange.formats.base import Entry
from langfacts.codes import code_changes, find_codes

DATA = Path(__file__).parent / "data"
UTF8 = (DATA / "strings_duckduckgo_Localizable.strings").read_bytes()
UTF16 = codecs.BOM_UTF16_LE + UTF8.decode("utf-8").encode("utf-16-le")
TRICKY = 'It\'s "quoted" \\ back'
PAIR = re.compile(rb'^"([^"]+)" = ', re.M)


def _entries(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in FORMAT.read(data).entries}


def _translate(entry: Entry, language: str) -> str:
    return f"[{language}] {TRICKY}\n" + " ".join(entry.codes)


def _toolkit(data: bytes, utf16: bool) -> dict[str, str]:
    store_class = properties.stringsfile if utf16 else properties.stringsutf8file
    return {u.getid(): u.source for u in store_class.parsestring(data).units}


def test_format_for_strings() -> None:
    assert format_for("en.lproj/Localizable.strings", UTF8) is FORMAT


def test_reads_keys_notes_and_codes() -> None:
    entries = _entries(UTF8)
    keys = [k.decode() for k in PAIR.findall(UTF8)]
    # genstrings' stubs for a .stringsdict key repeat the key: nothing to translate.
    stubs = {"bookmark.deleteFolderAlert.message", "dax.onboarding.browsing.multiple.trackers"}
    assert list(entries) == [k for k in keys if k not in stubs]
    assert entries["action.generic.edit"].note == "Buton label for Edit action"
    assert entries["action.title.forgetAll"].note is None  # Xcode's "No comment provided by engineer."
    assert entries["addWidget.settings.secondParagraph.%@"].codes == ("%@",)
    tracker = entries["dax.onboarding.browsing.site.is.major.tracker"]
    assert tracker.codes == ("%1$@", "%2$@", "%1$@")
    assert "\n\nBut browse" in tracker.source
    assert 'tap the "⋯" icon' in entries["dax.onboarding.home.add.favorite"].source


@pytest.mark.parametrize("data", [UTF8, UTF16], ids=["utf8", "utf16"])
def test_agrees_with_translate_toolkit(data: bytes) -> None:
    toolkit = _toolkit(data, data is UTF16)
    for key, entry in _entries(data).items():
        assert toolkit[key] == entry.source


@pytest.mark.parametrize("language", ["pl", "ja"])
@pytest.mark.parametrize("data", [UTF8, UTF16], ids=["utf8", "utf16"])
def test_writes_every_entry(data: bytes, language: str) -> None:
    entries = _entries(data)
    targets = {key: _translate(entry, language) for key, entry in entries.items()}
    out = FORMAT.write(data, targets, target_language=language)
    assert out[:2] == data[:2]  # the same byte-order mark, or none
    again = _entries(out)
    assert again.keys() == entries.keys()
    for key, entry in again.items():
        assert entry.source == targets[key]
        assert entry.note == entries[key].note
        assert code_changes(entries[key].codes, entry.source) == ()
    toolkit = _toolkit(out, data is UTF16)
    for key, target in targets.items():
        assert toolkit[key] == target
    text, original = (
        out.decode("utf-16" if data is UTF16 else "utf-8"),
        data.decode("utf-16" if data is UTF16 else "utf-8"),
    )
    # Comments and keys are where they were.
    comments = re.compile(r"/\*.*?\*/", re.S)
    assert comments.findall(text) == comments.findall(original)
    assert '\\"quoted\\"' in text and "It's" in text


def test_untouched_bytes_stay_identical() -> None:
    assert FORMAT.write(UTF8, {}, target_language="pl") == UTF8
    assert FORMAT.write(UTF16, {}, target_language="pl") == UTF16
    out = FORMAT.write(UTF8, {"action.title.add": "Dodaj"}, target_language="pl")
    assert out == UTF8.replace(b'"action.title.add" = "Add";', b'"action.title.add" = "Dodaj";')


OLD_STYLE = """// A line comment note
greeting = hello;
"only.key";
"Hello";
/* header */

"after.blank" = "x \\U00e9\\u00E9 \\101 \\Ud83d\\Ude00";
"count" = "%lld files, %1$@ and 100%%";
"""


def test_old_style_plist_grammar() -> None:
    entries = _entries(OLD_STYLE.encode())
    assert entries["greeting"].source == "hello"
    assert entries["greeting"].note == "A line comment note"
    assert "only.key" not in entries  # a stub
    assert entries["Hello"].source == "Hello"
    assert entries["after.blank"].note is None
    assert entries["after.blank"].source == "x éé A 😀"
    assert entries["count"].codes == find_codes("%lld files, %1$@ and 100%%", ("printf",)) == ("%lld", "%1$@")
    out = FORMAT.write(OLD_STYLE.encode(), {"greeting": 'Cześć "ty"', "Hello": "Cześć"}, target_language="pl").decode()
    assert 'greeting = "Cześć \\"ty\\"";' in out
    assert '"Hello" = "Cześć";' in out
    assert _entries(out.encode())["Hello"].source == "Cześć"


def test_utf16_big_endian_without_mark() -> None:
    data = '"a" = "b c";\n'.encode("utf-16-be")
    assert _entries(data)["a"].source == "b c"
    assert FORMAT.write(data, {"a": "żółw"}, target_language="pl") == '"a" = "żółw";\n'.encode("utf-16-be")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('"a" = "b";\n"c" = "unterminated;\n', "Line 2, column 7"),
        ('"a" = "b"\n"c" = "d";\n', "Line 2, column 1"),
        ('"a" "b";\n', "Line 1, column 5"),
        ('/* never closed\n"a" = "b";\n', "Line 1, column 1"),
        ('"a" = "b";\n"a" = "c";\n', "Line 2"),
        ('"a" = "\\u12";\n', "Line 1"),
        ('"a" = ;\n', "Line 1, column 7"),
        ('"a" = "b"', "ends inside"),
        ("/* nothing */\n", "no strings"),
        ('"a" = "";\n', "no strings"),
    ],
)
def test_malformed_files_say_where(text: str, where: str) -> None:
    with pytest.raises(FormatError, match=re.escape(where)):
        FORMAT.read(text.encode())


def test_more_strings_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("interchange.formats.apple_strings.MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3 strings"):
        FORMAT.read(UTF8)
