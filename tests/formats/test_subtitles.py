"""Subtitles (`.srt`, `.vtt`): cue texts are entries, timings never are; the written file is the original
with cue texts translated, checked with the reference libraries `srt` and `webvtt-py`."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest
import srt
import webvtt

from interchange.formats import FormatError, format_for, format_named, subtitles
from interchange.formats.base import Entry
from langfacts.codes import code_changes

DATA = Path(__file__).parent / "data"
SUBTITLES = format_named("subtitles")
TIMING = re.compile(r"\d{2}:\d{2}[.,]\d{3}|-->")


def sample(name: str) -> bytes:
    return (DATA / name).read_bytes()


def pseudo(entry: Entry) -> str:
    """A deterministic translation that keeps the entry's codes and adds characters WebVTT must escape."""
    pieces = [entry.source]
    if entry.codes:
        pattern = "|".join(map(re.escape, sorted(set(entry.codes), key=len, reverse=True)))
        pieces = re.split(f"({pattern})", entry.source)
    out = [p if p in entry.codes else (f"[{p.upper()} & co]" if p.strip() else p) for p in pieces]
    return "".join(out)


def test_the_project_code_check_accepts_the_pseudo_translations() -> None:
    for name in ("subtitles_styles2.vtt", "subtitles_styles2.srt", "subtitles_comments.vtt"):
        for entry in SUBTITLES.read(sample(name)).entries:
            assert code_changes(entry.codes, pseudo(entry)) == (), (name, entry.key)
            if entry.codes:  # a translation that drops the tags is caught
                assert code_changes(entry.codes, TAGS.sub("", entry.source)) != ()


TAGS = re.compile(r"<[^>]*>")


def translate_all(data: bytes) -> tuple[bytes, dict[str, str]]:
    entries = SUBTITLES.read(data).entries
    targets = {e.key: pseudo(e) for e in entries}
    return SUBTITLES.write(data, targets, target_language="de"), targets


def test_registry_picks_the_format_by_extension() -> None:
    assert format_for("film.SRT", b"") is SUBTITLES
    assert format_for("film.vtt", b"") is subtitles.WEBVTT is format_named("webvtt")
    assert SUBTITLES is subtitles.FORMAT


def test_vtt_cues_are_entries_keyed_by_identifier_with_timing_as_note_and_tags_locked() -> None:
    entries = SUBTITLES.read(sample("subtitles_styles2.vtt")).entries
    assert [e.key for e in entries] == ["sub0", "sub1", "sub2", "sub3", "sub4", "sub5"]
    third = entries[2]
    assert third.note == "00:00:32.439 --> 00:00:35.320"
    assert third.source == (
        "<c.magenta.bg_black><i>Some italic</i> and normal coloured text. By the way, 2 < 3 !</c>"
    )  # the character reference is decoded; the tags stay literal
    assert third.codes == ("<c.magenta.bg_black>", "<i>", "</i>", "</c>")
    assert all(e.document for e in entries)
    for entry in entries:
        assert not TIMING.search(entry.source), entry.source
        assert "line:" not in entry.source and "align:" not in entry.source  # cue settings are never text
        assert "::cue" not in entry.source  # nor the STYLE block


def test_vtt_header_and_notes_are_no_entries_and_multiline_cues_keep_their_lines() -> None:
    entries = SUBTITLES.read(sample("subtitles_comments.vtt")).entries
    assert [e.key for e in entries] == ["1", "2", "3"]
    assert entries[0].source == "- Ta en kopp varmt te.\n- Det är inte varmt."
    assert entries[0].codes == ()
    assert not any("Kyle" in e.source or "translate well" in e.source for e in entries)


def test_srt_cues_are_keyed_by_number_with_font_and_italic_tags_locked() -> None:
    entries = SUBTITLES.read(sample("subtitles_styles2.srt")).entries
    assert [e.key for e in entries] == ["1", "2", "3", "4", "5", "6"]
    assert entries[0].note == "00:00:07,120 --> 00:00:09,480"
    assert entries[2].codes == ('<font color="#ff00ff">', "<i>", "</i>", "</font>")
    assert "2 < 3" in entries[2].source  # SRT has no escaping


def test_srt_written_whole_parses_with_srt_keeps_numbers_and_timings_and_codes() -> None:
    data = sample("subtitles_styles2.srt")
    written, targets = translate_all(data)
    before = list(srt.parse(data.decode()))
    after = list(srt.parse(written.decode()))
    assert [(s.index, s.start, s.end) for s in after] == [(s.index, s.start, s.end) for s in before]
    assert [s.content for s in after] == list(targets.values())
    assert '<font color="#ff00ff"><i>[SOME ITALIC & co]</i>' in after[2].content


def test_vtt_written_whole_parses_with_webvtt_and_keeps_style_identifiers_settings() -> None:
    data = sample("subtitles_styles2.vtt")
    written, targets = translate_all(data)
    before = webvtt.from_buffer(io.StringIO(data.decode()))
    after = webvtt.from_buffer(io.StringIO(written.decode()))
    assert [(c.identifier, c.start, c.end) for c in after.captions] == [
        (c.identifier, c.start, c.end) for c in before.captions
    ]
    assert [s.text for s in after.styles] == [s.text for s in before.styles]
    third = after.captions[2].raw_text
    assert third.startswith("<c.magenta.bg_black><i>[SOME ITALIC &amp; co]</i>")
    assert "2 &lt; 3" in third and third.endswith("</c>")
    # the written file reads back to the same translations (escaping undone)
    assert {e.key: e.source for e in SUBTITLES.read(written).entries} == targets
    text = written.decode()
    assert (
        text.startswith("WEBVTT\n\nSTYLE\n::cue {\n") and "00:00:09.720 --> 00:00:29.520 align:left line:-1\n" in text
    )


def test_one_translated_cue_changes_only_its_text_lines() -> None:
    data = sample("subtitles_comments.vtt")
    written = SUBTITLES.write(data, {"2": "- Have a cup of tea.\n\n- It tastes like tea."}, target_language="en")
    expected = data.replace(
        b"- Har en kopp te.\n- Det smakar som te.  ", b"- Have a cup of tea.\n- It tastes like tea."
    )  # the blank line of the translation is dropped: it would end the cue
    assert written == expected
    assert SUBTITLES.write(data, {}, target_language="en") == data


def test_crlf_and_byte_order_mark_are_kept() -> None:
    data = b"\xef\xbb\xbf" + sample("subtitles_styles2.srt").replace(b"\n", b"\r\n")
    written = SUBTITLES.write(data, {"5": "Stephen?\nWhere do we park?"}, target_language="en")
    assert written.startswith(b"\xef\xbb\xbf1\r\n")
    assert b"\r\nStephen?\r\nWhere do we park?\r\n\r\n6\r\n" in written
    assert re.search(rb"[^\r]\n", written) is None
    assert written.replace(b"Stephen?\r\nWhere do we park?", b"") == data.replace(
        '<font color="#ffffff">-Stéphane ? Où on se gare ?</font>'.encode(), b""
    )
    assert len(list(srt.parse(written.decode("utf-8-sig")))) == 6


def test_repeated_labels_get_distinct_keys() -> None:
    data = b"1\n00:00:01,000 --> 00:00:02,000\nOne\n\n1\n00:00:03,000 --> 00:00:04,000\nAgain\n"
    assert [e.key for e in SUBTITLES.read(data).entries] == ["1", "1#2"]
    vtt = b"WEBVTT\n\n00:01.000 --> 00:02.000\nNo id\n\nb\n00:03.000 --> 00:04.000 align:start\n{\\an8}Top\n"
    entries = SUBTITLES.read(vtt).entries
    assert [(e.key, e.codes) for e in entries] == [("1", ()), ("b", ("{\\an8}",))]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"1\n00:00:01,000 -> 00:00:02,000\nText\n", "line 2"),
        (b"Hello there\n", "line 1"),
        (b"1\n00:00:01,000 --> 00:00:02,000\nText\n2\n00:00:03,000 --> 00:00:04,000\nMore\n", "line 5"),
        (b"1\n00:00:01,000 --> 00:00:72,000\nText\n", "line 2"),
        (b"WEBVTT\n\n00:00:01,000 --> 00:00:02,000\nText\n", "line 3"),
        (b"WEBVTT\n\nJust some words\n\n00:01.000 --> 00:02.000\nText\n", "line 3"),
        (b"1\n00:00:01,000 --> 00:00:02,000\nCaf\xe9\n", "line 3"),
        (b"WEBVTT\n\nNOTE only a comment\n", "no cue"),
        (b"1\n00:00:01,000 --> 00:00:02,000\n\n", "no cue"),
        (b"", "no cue"),
    ],
)
def test_malformed_or_empty_files_are_refused_saying_where(data: bytes, where: str) -> None:
    with pytest.raises(FormatError, match=where):
        SUBTITLES.read(data)


def test_more_cues_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subtitles, "MAX_SEGMENTS", 3)
    data = "".join(f"{i}\n00:00:0{i},000 --> 00:00:0{i},500\nLine {i}\n\n" for i in range(1, 5)).encode()
    with pytest.raises(FormatError, match="more than 3 cues"):
        SUBTITLES.read(data)


def _lines_run(call: Callable[[], object]) -> int:
    """How many lines of interchange.formats run during `call` (deterministic, unlike a timing)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., object] | None:
        nonlocal count
        if "interchange/formats" not in frame.f_code.co_filename:
            return None
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "".join(
            f"{i}\n00:00:01,000 --> 00:00:02,000\n<i>Line</i> {i}\nsecond <b>line</b>\n\n" for i in range(n)
        ),
        lambda n: (
            "WEBVTT\n\n"
            + "".join(
                f"NOTE {i}\n\nc{i}\n00:01.000 --> 00:02.000 align:start\n<c.x>a</c> &amp; b\n\n" for i in range(n)
            )
        ),
        lambda n: "1\n00:00:01,000 --> 00:00:02,000\n" + "<i>x</i> " * n + "\n",
    ],
)
def test_reading_and_writing_are_linear(make: Callable[[int], str]) -> None:
    def run(n: int) -> int:
        data = make(n).encode()
        targets = {e.key: e.source for e in SUBTITLES.read(data).entries}
        return _lines_run(lambda: SUBTITLES.write(data, targets, target_language="de"))

    small, large = run(50), run(200)
    assert large < 6 * small, (small, large)
