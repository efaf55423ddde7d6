"""Android strings.xml: read a real file's strings, plurals and arrays; write Polish and Japanese back."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from lxml import etree
from translate.storage import aresource

from interchange.formats import FormatError, format_for
from interchange.formats.android import FORMAT
from interchange.formats.base import Entry, Target
from langfacts.codes import code_changes
from langfacts.plurals import categories

DATA = Path(__file__).parent / "data"
STRINGS = (DATA / "android_thunderbird_strings.xml").read_bytes()
ARRAYS = (DATA / "android_thunderbird_arrays.xml").read_bytes()
TRICKY = 'It\'s "quoted" & <fine>'


def _entries(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in FORMAT.read(data).entries}


def _translate(entry: Entry, language: str) -> Target:
    """A translation that keeps every code and carries an apostrophe and a double quote."""

    def text(source: str) -> str:
        codes = [c for c in entry.codes if c in source]
        return f"[{language}] {TRICKY} " + " ".join(dict.fromkeys(codes))

    if entry.plural is None:
        return text(entry.source)
    form = entry.plural.get("other") or entry.source
    return {category: text(form) for category in categories(language)}


def test_accepts_resources_root_only() -> None:
    assert format_for("res/values/strings.xml", STRINGS) is FORMAT
    assert not FORMAT.accepts("strings.xml", b'<?xml version="1.0"?><plist version="1.0"/>')
    assert not FORMAT.accepts("strings.txt", STRINGS)


def test_reads_keys_notes_codes_and_escapes() -> None:
    entries = _entries(STRINGS)
    named = [e.get("name") for e in etree.fromstring(STRINGS) if isinstance(e.tag, str)]
    assert list(entries) == named
    assert entries["about_app_authors_k9"].note == "Used in the about dialog"
    # A section heading followed by a blank line is nobody's note.
    assert entries["authors"].note is None
    assert entries["changelog_loading_error"].source == "Couldn't load the changelog."
    assert entries["status_loading_more"].source == "Loading messages\u2026"
    # aapt2 collapses the line break and indentation of a value to one space.
    account = entries["account_delete_dlg_instructions_fmt"]
    assert account.source.startswith('The account "<xliff:g id="account">%1$s</xliff:g>" will')
    assert account.codes == ('<xliff:g id="account">%1$s</xliff:g>', '<xliff:g id="app_name">%2$s</xliff:g>')
    assert entries["load_more_messages_fmt"].source == 'Load up to <xliff:g id="messages_to_load">%d</xliff:g> more'
    assert entries["size_format_gigabytes"].codes == ("%.1f",)
    assert "\n\nTap to open" in entries["notification_notify_error_text"].source


def test_reads_plurals_as_one_entry() -> None:
    entry = _entries(STRINGS)["notification_new_messages_title"]
    code = '<xliff:g id="new_message_count">%d</xliff:g>'
    assert entry.plural == {"one": f"{code} new message", "other": f"{code} new messages"}
    assert entry.source == f"{code} new messages"
    assert entry.codes == (code, code)


def test_arrays_skip_untranslatable_and_references() -> None:
    entries = _entries(ARRAYS)
    # language_entries is translatable="false"; theme_entries and the quick-delete items are references.
    assert list(entries) == ["preview_lines_entries[0]", "preview_lines_entries[1]", "preview_lines_entries[2]"]


def test_agrees_with_translate_toolkit_on_text() -> None:
    ours = _entries(STRINGS)
    store = aresource.AndroidResourceFile.parsestring(STRINGS)
    for unit in store.units:
        entry = ours[unit.getid()]
        if entry.plural is None:
            assert entry.source == str(unit.target)
        else:
            assert list(entry.plural.values()) == [str(s) for s in unit.target.strings]


@pytest.mark.parametrize("language", ["pl", "ja"])
def test_writes_every_entry_validly(language: str) -> None:
    entries = _entries(STRINGS)
    targets = {key: _translate(entry, language) for key, entry in entries.items()}
    out = FORMAT.write(STRINGS, targets, target_language=language)
    tree = etree.fromstring(out)
    original = etree.fromstring(STRINGS)
    assert [c.text for c in tree.iter(etree.Comment)] == [c.text for c in original.iter(etree.Comment)]
    assert [e.get("name") for e in tree if isinstance(e.tag, str)] == [
        e.get("name") for e in original if isinstance(e.tag, str)
    ]
    # Every apostrophe of a value is escaped (aapt2 refuses a bare one).
    for element in tree.iter("string", "item"):
        assert re.search(r"(?<!\\)'", "".join(element.itertext())) is None
    again = _entries(out)
    assert again.keys() == entries.keys()
    for key, entry in again.items():
        assert entry.note == entries[key].note
        target = targets[key]
        if entry.plural is None:
            assert entry.source == target
            assert code_changes(entries[key].codes, entry.source) == ()
        else:
            assert isinstance(target, dict)
            assert entry.plural == target
            assert tuple(entry.plural) == categories(language)
    # translate-toolkit shows a value holding markup as XML (entities in), else as text.
    # Its plural forms are gettext's (Polish one/few/many: no `other`), so the first n are compared.
    store = aresource.AndroidResourceFile()
    store.settargetlanguage(language)
    store.parse(out)
    for unit in store.units:
        target = targets[unit.getid()]
        if isinstance(target, str):
            assert html.unescape(str(unit.target)) == target
        else:
            got = [html.unescape(str(s)) for s in unit.target.strings]
            assert got == list(target.values())[: len(got)]


def test_polish_plural_items_are_written_indented() -> None:
    out = FORMAT.write(
        STRINGS,
        {"copy_address_to_clipboard": {"one": "a", "few": "b", "many": "c", "other": "d"}},
        target_language="pl",
    )
    expected = (
        '<plurals name="copy_address_to_clipboard">\n'
        '        <item quantity="one">a</item>\n'
        '        <item quantity="few">b</item>\n'
        '        <item quantity="many">c</item>\n'
        '        <item quantity="other">d</item>\n'
        "    </plurals>"
    )
    assert expected in out.decode()


def test_untouched_bytes_stay_identical() -> None:
    assert FORMAT.write(STRINGS, {}, target_language="pl") == STRINGS
    out = FORMAT.write(STRINGS, {"send_action": "Wyślij"}, target_language="pl")
    assert out == STRINGS.replace(b'"send_action">Send<', '"send_action">Wyślij<'.encode())
    assert FORMAT.write(ARRAYS, {"preview_lines_entries[1]": "jeden"}, target_language="pl") == ARRAYS.replace(
        b"<item>1</item>", b"<item>jeden</item>"
    )


INLINE = """<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:tools="http://schemas.android.com/tools">
    <string name="app_name" translatable="false">Demo</string>
    <string name="welcome" tools:ignore="MissingTranslation">Welcome to <b>Demo</b>, <i>%1$s</i>!</string>
    <string name="spaced">"  two  spaces  "</string>
    <string name="cdata"><![CDATA[Tap <u>here</u> & go]]></string>
    <string name="percent" formatted="false">100% done</string>
    <string name="escaped">\\@home \\?why \\\\ back \\u0041</string>
    <string name="alias">@string/welcome</string>
    <string name="empty"></string>
    <string name="tablet" product="tablet">Tablet</string>
    <string-array name="days" description="Week days">
        <item>Monday</item>
        <item>@string/app_name</item>
        <item>Tuesday</item>
    </string-array>
</resources>
"""


def test_inline_markup_quotes_cdata_and_arrays() -> None:
    entries = _entries(INLINE.encode())
    assert "app_name" not in entries and "alias" not in entries and "empty" not in entries
    assert entries["welcome"].codes == ("<b>", "</b>", "<i>", "%1$s", "</i>")
    assert entries["spaced"].source == "  two  spaces  "
    assert entries["cdata"].source == "Tap <u>here</u> & go"
    assert entries["cdata"].codes == ("<u>", "</u>")
    assert entries["percent"].codes == ()
    assert entries["escaped"].source == "@home ?why \\ back A"
    assert entries["tablet@tablet"].source == "Tablet"
    assert [k for k in entries if k.startswith("days")] == ["days[0]", "days[2]"]
    assert entries["days[2]"].note == "Week days"


@pytest.mark.parametrize(
    "text",
    [
        "@start with 'both' \"quotes\"",
        "?question",
        "  lead and trail  ",
        "a  b",
        "line\nbreak\ttab",
        "back\\slash & <x>",
    ],
)
def test_escaping_round_trips(text: str) -> None:
    data = INLINE.encode()
    out = FORMAT.write(data, {"tablet@tablet": text, "welcome": f"{text} <b>x</b> <i>%1$s</i>"}, target_language="pl")
    etree.fromstring(out)
    entries = _entries(out)
    assert entries["tablet@tablet"].source == text
    assert entries["welcome"].source == f"{text} <b>x</b> <i>%1$s</i>"
    store = {u.getid(): str(u.target) for u in aresource.AndroidResourceFile.parsestring(out).units}
    if not text.startswith(("@", "?")) and text == text.strip() and "  " not in text:
        assert store["tablet"] == text


def test_apostrophe_and_leading_at_are_escaped() -> None:
    out = FORMAT.write(INLINE.encode(), {"tablet@tablet": "@Don't"}, target_language="pl").decode()
    assert '<string name="tablet" product="tablet">\\@Don\\\'t</string>' in out


def test_utf16_file_is_written_in_utf16() -> None:
    data = INLINE.replace('encoding="utf-8"', 'encoding="utf-16"').encode("utf-16")
    assert FORMAT.accepts("strings.xml", data)
    out = FORMAT.write(data, {"tablet@tablet": "Tablet PL"}, target_language="pl")
    assert out.startswith(b"\xff\xfe")
    assert _entries(out)["tablet@tablet"].source == "Tablet PL"


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ('<resources>\n  <string name="a">x</strin>\n</resources>', "line 2"),
        ('<resources>\n  <string name="a">x</string>\n  <string name="a">y</string>\n</resources>', "Line 3"),
        ('<resources>\n <plurals name="p">\n  <item quantity="several">x</item>\n </plurals>\n</resources>', "Line 3"),
        ('<resources>\n  <string name="a">bad \\u12</string>\n</resources>', "'a'"),
        ("<resources>\n  <string>no name</string>\n</resources>", "Line 2"),
        ('<resources>\n  <string name="a" translatable="false">x</string>\n</resources>', "no strings"),
        ("<manifest/>", "Line 1"),
        ('<!DOCTYPE r [<!ENTITY x "y">]><resources><string name="a">&x;</string></resources>', "entities"),
    ],
)
def test_malformed_files_say_where(data: str, where: str) -> None:
    with pytest.raises(FormatError, match=re.escape(where)):
        FORMAT.read(data.encode())


def test_more_strings_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("interchange.formats.android.MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3 strings"):
        FORMAT.read(STRINGS)
