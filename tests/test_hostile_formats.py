"""Hostile resource and subtitle files through HTTP (the ASGI app and the Lambda handler, on SQLite and
DynamoDB): every malformed file is 422 with the reader's message and stores nothing; what a format
must keep out of translation stays out; the exports are valid for each format's reference library
(srt, webvtt-py, PyYAML, lxml, polib).
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import polib
import pytest
import srt
import webvtt
import yaml
from lxml import etree

from interchange.formats import format_named, rails_yaml
from tests.growth import cpu_seconds
from tests.helpers import stored
from tests.test_hostile_files import Api, api_of, assert_refused, backend, write_units

__all__ = ["api_of", "backend"]  # the fixtures, imported for this module's tests


def _xml(encoding: str) -> str:
    return f'<?xml version="1.0" encoding="{encoding}"?>\n<resources><string name="hi">Hello</string></resources>\n'


def _stringsdict(encoding: str) -> str:
    return (
        f'<?xml version="1.0" encoding="{encoding}"?><plist version="1.0"><dict><key>n</key><dict>'
        "<key>NSStringLocalizedFormatKey</key><string>%#@n@</string></dict></dict></plist>"
    )


def _po_charset(charset: str) -> str:
    return f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset={charset}\\n"\n\nmsgid "Save"\nmsgstr ""\n'


DEEP = 5_000
MALFORMED: list[tuple[str, str, tuple[str, ...]]] = [
    # encodings Python has that are no character set: bytes-to-bytes codecs and the like
    ("strings.xml", _xml("rot13"), ("rot13", "not a character encoding")),
    ("strings.xml", _xml("uu"), ("uu", "not a character encoding")),
    ("strings.xml", _xml("punycode"), ("punycode",)),
    ("Localizable.stringsdict", _stringsdict("base64"), ("base64", "not a character encoding")),
    ("Localizable.stringsdict", _stringsdict("hex_codec"), ("hex_codec",)),
    ("app.po", _po_charset("zlib"), ("zlib", "charset")),
    ("app.po", _po_charset("bz2_codec"), ("bz2_codec", "charset")),
    # numbers Python will not convert, nesting a recursive parser cannot take
    ("en.json", '{"title": "Hi", "count": ' + "7" * 5_001 + "}", ("number", "4000")),
    ("app_en.arb", '{"@@locale": "en", "hi": "Hi", "n": [' + "3" * 4_500 + "]}", ("number",)),
    (
        "Localizable.xcstrings",
        '{"sourceLanguage": "en", "strings": {}, "x": ' + "1" * 4_400 + "}",
        ("4300 digits",),
    ),
    ("en.json", '{"a": ' + '{"b": ' * DEEP + '"c"' + "}" * DEEP + "}", ("nested deeper than 64",)),
    ("Localizable.xcstrings", '{"sourceLanguage": "en", "x": ' + "[" * DEEP + "]" * DEEP + "}", ("nested deeper",)),
    ("en.yml", "en:\n  deep: " + "[" * DEEP + "]" * DEEP + "\n", ("nested deeper than 64",)),
    ("en.yml", "en:\n" + "".join(" " * (2 * i + 2) + f"k{i}:\n" for i in range(300)) + " " * 602 + "v: x\n", ("64",)),
    ("en.yml", "en:\n  n: " + "8" * 5_000 + "\n  s: text\n", ("cannot be read",)),
    ("en.yml", "en:\n  when: !!timestamp 2024-14-40\n  s: text\n", ("cannot be read", "month")),
    ("en.yml", "en:\n  b.c: One\n  b:\n    c: Two\n", ("`b.c` (line 2)", "`b` → `c` (line 4)")),
    ("film.vtt", "00:00:01.000 --> 00:00:02.000\nHello\n", ("WEBVTT",)),
    ("strings.xml", '<!DOCTYPE resources [<!-- ]> </resources> -->]>\n<resources><string name="a">A', ("line",)),
]


@pytest.mark.parametrize("name, content, words", MALFORMED, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MALFORMED)])
def test_malformed_files_are_422_with_a_message_and_store_nothing(
    api_of: Api, name: str, content: str, words: tuple[str, ...]
) -> None:
    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    assert_refused(api_of.upload(sid, name, content), 422, *words)
    assert stored(api_of.services.storage, sid) == before


def _segments(api_of: Api, sid: str, fid: str) -> list[dict[str, object]]:
    answer = api_of.call("GET", f"/api/sessions/{sid}/files/{fid}/segments")
    assert answer.status == 200, answer.text
    found: list[dict[str, object]] = answer.json()["segments"]
    return found


def _session(api_of: Api, language: str = "pl") -> str:
    answer = api_of.call("POST", "/api/sessions", {"targetLanguage": language})
    assert answer.status == 201, answer.text
    sid: str = answer.json()["id"]
    return sid


def _uploaded(api_of: Api, sid: str, name: str, content: str) -> str:
    answer = api_of.upload(sid, name, content)
    assert answer.status == 201, answer.text
    fid: str = answer.json()["fileId"]
    return fid


def _original(api_of: Api, sid: str, fid: str) -> tuple[bytes, str]:
    answer = api_of.export(sid, fid, "original")
    return answer.text.encode("utf-8"), answer.headers["content-disposition"]


# -- size before any parse or segmentation -----------------------------------------------------------


def test_a_markdown_upload_over_the_character_limit_is_422_and_stores_nothing(api_of: Api) -> None:
    from service.uploads import MAX_FILE_CHARS

    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    text = ("A sentence of words that goes on. " * 30 + "\n\n") * (MAX_FILE_CHARS // 1_000 + 1)
    assert len(text) > MAX_FILE_CHARS
    assert_refused(api_of.upload(sid, "big.md", text), 422, str(len(text)), str(MAX_FILE_CHARS))
    assert stored(api_of.services.storage, sid) == before


def test_files_over_the_byte_limit_are_422_before_their_format_reads_them(
    api_of: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("service.uploads.MAX_FILE_BYTES", 2_000)
    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    members = ", ".join(f'"k{n}": "Text {n}"' for n in range(200))
    assert_refused(api_of.upload(sid, "en.json", "{" + members + "}"), 422, "bytes", "2000")
    body = {"name": "notes.txt", "contentBase64": base64.b64encode(b"word " * 500).decode()}
    assert_refused(api_of.call("POST", f"/api/sessions/{sid}/files", body), 422, "2500 bytes")
    assert stored(api_of.services.storage, sid) == before


# -- Rails: data that is no text stays out; the export is linear -------------------------------------

RAILS = """en:
  date:
    order:
      - :year
      - :month
      - :day
    abbr_day_names: [Sun, Mon]
  number:
    format:
      round_mode: default
      separator: "."
      precision: 3
  defaults: &defaults
    title: Title
  page:
    <<: *defaults
    body: Body
"""


def test_rails_values_that_are_data_are_never_offered_and_export_as_they_were(api_of: Api) -> None:
    sid = _session(api_of)
    fid = _uploaded(api_of, sid, "en.yml", RAILS)
    segments = _segments(api_of, sid, fid)
    keys = [s["context"]["key"] for s in segments]  # type: ignore[index]
    assert keys == [
        "date.abbr_day_names.0",
        "date.abbr_day_names.1",
        "number.format.separator",
        "defaults.title",
        "page.body",
    ]
    write_units(api_of.services, sid, fid, [(s["source"], f"PL {s['source']}", "approve") for s in segments])  # type: ignore[misc]
    data, disposition = _original(api_of, sid, fid)
    assert "pl.yml" in disposition
    tree = yaml.safe_load(data)["pl"]
    assert tree["date"]["order"] == [":year", ":month", ":day"]
    assert tree["number"]["format"] == {"round_mode": "default", "separator": "PL .", "precision": 3}
    assert tree["page"] == {"title": "PL Title", "body": "PL Body"}  # the merged key is its anchor's


def _merges(n: int) -> bytes:
    body = "".join(f"  page{i}:\n    <<: *base\n    title: Page {i}\n" for i in range(n))
    return f"en:\n  base: &base\n    one: one item\n    other: '%{{count}} items'\n{body}".encode()


def _plurals(n: int) -> bytes:
    body = "".join(f"    k{i}:\n      one: one file {i}\n      other: '%{{count}} files {i}'\n" for i in range(n))
    return f"en:\n  files:\n{body}".encode()


def _export_seconds(make: Callable[[int], bytes], n: int) -> float:
    """CPU seconds of what the original export runs: the file read again, then written with every target."""
    data = make(n)
    fmt = format_named("rails_yaml")

    def export() -> None:
        entries = fmt.read(data).entries
        targets = {e.key: ({"one": "a", "few": "b", "many": "c", "other": "d"} if e.plural else "t") for e in entries}
        fmt.write(data, targets, target_language="pl")

    return cpu_seconds(export)


@pytest.mark.slow
@pytest.mark.parametrize("make", [_merges, _plurals], ids=["anchor merged by every mapping", "plural entries"])
def test_the_rails_export_is_linear(make: Callable[[int], bytes]) -> None:
    small, large = _export_seconds(make, 1_200), _export_seconds(make, 4_800)
    assert large / small < 8, f"{small:.3f}s at n=1200, {large:.3f}s at n=4800"  # quadratic is 16


def test_rails_merged_keys_are_not_entries_of_the_merging_mapping() -> None:
    keys = [e.key for e in rails_yaml.FORMAT.read(_merges(3)).entries]
    assert keys == ["base", "page0.title", "page1.title", "page2.title"]


# -- subtitles: a translation cannot make a cue; WebVTT needs its header ------------------------------

SRT = "1\n00:00:01,000 --> 00:00:02,000\nHello there.\n\n2\n00:00:03,000 --> 00:00:04,000\nGoodbye.\n"
FORGED = [
    "Cześć.\n12\n00:01:02,000 --> 00:01:03,000\nWstrzyknięty napis",
    "00:09:00,000 --> 00:09:01,000 X:1\nNa początku",
]


def test_a_translation_holding_a_cue_number_and_timing_never_makes_a_cue(api_of: Api) -> None:
    sid = _session(api_of)
    fid = _uploaded(api_of, sid, "film.srt", SRT)
    write_units(api_of.services, sid, fid, [("Hello there.", FORGED[0], "approve"), ("Goodbye.", FORGED[1], "approve")])
    data, disposition = _original(api_of, sid, fid)
    assert "film.pl.srt" in disposition
    cues = list(srt.parse(data.decode("utf-8")))
    assert [(c.index, c.start.total_seconds(), c.end.total_seconds()) for c in cues] == [(1, 1, 2), (2, 3, 4)]
    assert "Wstrzyknięty napis" in cues[0].content and "Na początku" in cues[1].content
    again = format_named("subtitles").read(data).entries  # our own reader finds no timing in a text either
    assert [e.key for e in again] == ["1", "2"]
    timing = re.compile(r"\s*\d+:\d+:\d+[,.]\d+\s*-->")  # what a lenient player (ffmpeg) takes for a new cue
    assert not [line for c in cues for line in c.content.splitlines() if timing.match(line)]


def test_a_webvtt_translation_holding_a_timing_line_stays_one_cue(api_of: Api) -> None:
    sid = _session(api_of)
    fid = _uploaded(api_of, sid, "film.vtt", "WEBVTT\n\n00:01.000 --> 00:02.000\nHello there.\n")
    write_units(api_of.services, sid, fid, [("Hello there.", "Cześć\n00:05.000 --> 00:06.000\nŚwiecie", "approve")])
    data, _ = _original(api_of, sid, fid)
    captions = webvtt.from_buffer(io.StringIO(data.decode("utf-8"))).captions
    assert len(captions) == 1 and "Świecie" in captions[0].text


# -- Android: the internal DTD subset, translation_description -----------------------------------------

ANDROID = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE resources [
  <!-- a comment that says ]> and <string name="fake">Fake</string> -->
  <!ELEMENT resources ANY>
  <!ATTLIST string name CDATA "x]>">
]>
<resources>
    <string name="real" translation_description="Shown on the home screen">Real text</string>
</resources>
"""


def test_android_strings_in_a_dtd_comment_are_no_strings_and_descriptions_are_notes(api_of: Api) -> None:
    sid = _session(api_of)
    fid = _uploaded(api_of, sid, "strings.xml", ANDROID)
    segments = _segments(api_of, sid, fid)
    assert [s["context"] for s in segments] == [
        {"key": "real", "note": "Shown on the home screen", "refs": [], "codes": [], "flags": []}
    ]
    write_units(api_of.services, sid, fid, [("Real text", "Prawdziwy tekst", "approve")])
    data, _ = _original(api_of, sid, fid)
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, load_dtd=False))
    assert [(s.get("name"), s.text) for s in root.iter("string")] == [("real", "Prawdziwy tekst")]
    assert b'<string name="fake">Fake</string> -->' in data  # the comment is kept as it was


# -- PO: a translated template is a PO; context and references are readable ---------------------------

POT = """# Template
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: demo\\n"
"Language: \\n"
"Content-Type: text/plain; charset=UTF-8\\n"

#. the menu entry
#: src/menu.c:12 src/toolbar.c:40
msgctxt "menu"
msgid "Open"
msgstr ""

#: src/main.c:7
msgid "Quit"
msgstr ""
"""


def test_a_translated_po_template_downloads_as_a_po_with_readable_keys_and_references(api_of: Api) -> None:
    sid = _session(api_of)
    fid = _uploaded(api_of, sid, "messages.pot", POT)
    segments = _segments(api_of, sid, fid)
    assert [s["context"] for s in segments] == [
        {
            "key": "menu | Open",
            "note": "the menu entry",
            "refs": ["src/menu.c:12", "src/toolbar.c:40"],
            "codes": [],
            "flags": [],
        },
        {"key": "Quit", "note": None, "refs": ["src/main.c:7"], "codes": [], "flags": []},
    ]
    write_units(api_of.services, sid, fid, [("Open", "Otwórz", "approve")])
    for answer in (
        api_of.call("GET", f"/api/sessions/{sid}/files/{fid}/translation"),
        api_of.export(sid, fid, "original"),
    ):
        assert answer.status == 200, answer.text
        assert 'filename="messages.pl.po"' in answer.headers["content-disposition"]
        po = polib.pofile(answer.text)
        assert po.metadata["Language"] == "pl"
        assert {(e.msgctxt, e.msgid): e.msgstr for e in po} == {("menu", "Open"): "Otwórz", (None, "Quit"): ""}
        assert po.find("Open", msgctxt="menu").occurrences == [("src/menu.c", "12"), ("src/toolbar.c", "40")]


def test_segment_contexts_round_trip_their_references_through_storage() -> None:
    from agent_core.segment import SegmentContext

    context = SegmentContext(key="k", refs=("a.c:1", "b.c:2"))
    assert SegmentContext.load(json.loads(json.dumps(context.dump()))) == context


# -- `translation-agent check` reports the same files as errors, never a traceback ---------------------


def test_check_reports_malformed_files_without_a_traceback(tmp_path: Path) -> None:
    from terminal.check import run_check

    files = []
    for number, (name, content, words) in enumerate(MALFORMED):
        folder = tmp_path / str(number)
        folder.mkdir()
        (folder / name).write_text(content, encoding="utf-8")
        files.append((folder / name, words))
    status, text = run_check([path for path, _ in files])
    assert status == 1 and "Traceback" not in text
    for path, words in files:
        report = text.split(str(path), 1)[1].split("\n", 2)[:2]
        assert words[0].lower() in " ".join(report).lower(), (path, report)
