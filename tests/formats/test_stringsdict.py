"""Apple .stringsdict: read a real file's plural rules; write Polish and Japanese categories back."""

from __future__ import annotations

import plistlib
import re
from pathlib import Path

import pytest

from interchange.formats import FormatError, format_for
from interchange.formats.base import Entry, Target
from interchange.formats.stringsdict import FORMAT
from langfacts.codes import code_changes
from langfacts.plurals import ORDER, categories

DATA = Path(__file__).parent / "data"
REAL = (DATA / "stringsdict_duckduckgo_Localizable.stringsdict").read_bytes()
TRICKY = 'It\'s "quoted" & <kept>'

WORDY = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<!-- Download progress; both counts are files -->
	<key>download.progress</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>Downloaded %#@done@ of %#@total@ &amp; counting</string>
		<key>done</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>d</string>
			<key>one</key>
			<string>%d file</string>
			<key>other</key>
			<string>%d files</string>
		</dict>
		<key>total</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>d</string>
			<key>other</key>
			<string>%d</string>
		</dict>
	</dict>
	<key>width.only</key>
	<dict>
		<key>NSStringVariableWidthRuleType</key>
		<dict>
			<key>1</key>
			<string>Short</string>
		</dict>
	</dict>
</dict>
</plist>
"""


def _entries(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in FORMAT.read(data).entries}


def _translate(entry: Entry, language: str) -> Target:
    if entry.plural is None:
        return f"[{language}] {TRICKY} " + " ".join(entry.codes)
    other = entry.plural["other"]
    codes = [c for c in dict.fromkeys(entry.codes) if c in other]
    return {c: f"[{language}:{c}] {TRICKY} " + " ".join(codes) for c in categories(language)}


def test_format_for_stringsdict() -> None:
    assert format_for("en.lproj/Localizable.stringsdict", REAL) is FORMAT


def test_reads_plural_variables() -> None:
    entries = _entries(REAL)
    plist = plistlib.loads(REAL)
    expected = [f"{top}/{var}" for top, d in plist.items() for var, v in d.items() if isinstance(v, dict)]
    assert list(entries) == expected
    tabs = entries["number.of.tabs/tabs"]
    assert tabs.plural_argument == "tabs"
    # The source's own categories, in CLDR order (Apple's `zero` kept).
    assert tabs.plural == {"zero": "No Private Tabs", "one": "%d Private Tab", "other": "%d Private Tabs"}
    assert tabs.source == "%d Private Tabs"
    assert tabs.codes == ("%d", "%d")
    trackers = entries["dax.onboarding.browsing.multiple.trackers/count"]
    assert trackers.plural is not None and trackers.plural["other"].startswith("*%2$@, %3$@* and *%d others*")
    assert "\n\nI blocked them!" in trackers.source
    # `%#@items@` alone has no words: the format key is no entry.
    assert "bookmark.deleteFolderAlert.message" not in entries


def test_wordy_format_key_is_an_entry_with_locked_tokens() -> None:
    entries = _entries(WORDY.encode())
    assert list(entries) == ["download.progress", "download.progress/done", "download.progress/total"]
    progress = entries["download.progress"]
    assert progress.source == "Downloaded %#@done@ of %#@total@ & counting"
    assert progress.codes == ("%#@done@", "%#@total@")
    assert progress.note == "Download progress; both counts are files"
    assert entries["download.progress/total"].plural == {"other": "%d"}


@pytest.mark.parametrize("language", ["pl", "ja"])
@pytest.mark.parametrize("data", [REAL, WORDY.encode()], ids=["duckduckgo", "wordy"])
def test_writes_exactly_the_target_categories(data: bytes, language: str) -> None:
    entries = _entries(data)
    targets = {key: _translate(entry, language) for key, entry in entries.items()}
    out = FORMAT.write(data, targets, target_language=language)
    plist, original = plistlib.loads(out), plistlib.loads(data)
    assert list(plist) == list(original)
    for key, entry in entries.items():
        top, _, variable = key.partition("/")
        if not variable:
            assert plist[top]["NSStringLocalizedFormatKey"] == targets[key]
            assert code_changes(entry.codes, plist[top]["NSStringLocalizedFormatKey"]) == ()
            continue
        written = plist[top][variable]
        assert tuple(k for k in written if k in ORDER) == categories(language)
        assert {k: v for k, v in written.items() if k not in ORDER} == {
            k: v for k, v in original[top][variable].items() if k not in ORDER
        }
        for category in categories(language):
            assert written[category] == targets[key][category]  # type: ignore[index]
            assert code_changes([c for c in dict.fromkeys(entry.codes) if c in entry.source], written[category]) == ()
    assert _entries(out).keys() == entries.keys()
    assert out.count(b"<!--") == data.count(b"<!--")


def test_untouched_bytes_stay_identical() -> None:
    assert FORMAT.write(REAL, {}, target_language="pl") == REAL
    forms = {"other": "%d otwartych kart"}
    out = FORMAT.write(REAL, {"number.of.tabs/tabs": forms}, target_language="ja")
    head = REAL.index(b"<key>number.of.tabs</key>")
    assert out[:head] == REAL[:head]
    assert out.endswith(b"</dict>\n\t</dict>\n</dict>\n</plist>\n")
    assert b"<key>one</key>\n\t\t\t<string>%d Private Tab</string>" not in out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (WORDY.replace("</dict>\n</plist>", "</dict>\n</plst>"), "line 40, column 8"),
        (WORDY.replace("<key>done</key>\n", "", 1), "Line 10"),
        (WORDY.replace("<key>other</key>\n\t\t\t<string>%d files</string>", ""), "'download.progress'"),
        (WORDY.replace("#@total@", "#@missing@"), "'missing'"),
        ('<?xml version="1.0"?><array/>', "Line 1"),
        ('<plist version="1.0"><dict><key>a</key><string>b</string></dict></plist>', "no plural rules"),
    ],
)
def test_malformed_files_say_where(text: str, where: str) -> None:
    with pytest.raises(FormatError, match=re.escape(where)):
        FORMAT.read(text.encode())


def test_more_strings_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("interchange.formats.stringsdict.MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3 strings"):
        FORMAT.read(REAL)
