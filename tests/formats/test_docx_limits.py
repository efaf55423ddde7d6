"""A Word package is bounded before python-docx parses it (members, unpacked bytes, compression ratio,
XML elements, no DTD), its reading and writing are linear, and whatever is wrong with a package is a
FormatError (a 422 at upload), never another exception (a 500)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable

import pytest

from interchange.formats import FormatError, format_named
from interchange.formats import _docx_package as package
from tests.formats.docx_documents import bomb, every_story, long_report, with_part
from tests.growth import cpu_seconds

DOCX = format_named("docx")


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def test_a_deflate_bomb_is_refused_from_the_archive_directory() -> None:
    data = bomb(20)
    assert len(data) < 40_000
    with pytest.raises(
        FormatError, match=r"word/document.xml unpacks to 20,9\d\d,\d{3} bytes .* the most is 200 times"
    ):
        DOCX.read(data)
    with pytest.raises(FormatError, match="200 times"):
        DOCX.write(data, {}, target_language="de")


@pytest.mark.slow
def test_more_xml_elements_than_the_limit_are_refused_in_all_the_parts_and_under_any_name() -> None:
    with pytest.raises(FormatError, match=r"more than 500,000 elements \(word/document\.xml passes the limit"):
        DOCX.read(bomb(3, method=zipfile.ZIP_STORED))  # stored: no ratio to tell
    half = bomb(1.6, method=zipfile.ZIP_STORED)  # 280,000 empty paragraphs: within the limit alone
    assert DOCX.read(half).entries[0].source == "A short text before the empty paragraphs."
    body = members(half)["word/document.xml"]
    for name in ("word/header9.xml", "word/media/image1.png"):  # a part not even referenced, an XML "picture"
        with pytest.raises(FormatError, match=rf"more than 500,000 elements \({re.escape(name)} passes"):
            DOCX.read(with_part(half, name, body, method=zipfile.ZIP_STORED))


def test_too_many_members_and_too_many_unpacked_bytes_are_refused() -> None:
    data = every_story()
    crowded = io.BytesIO(data)
    with zipfile.ZipFile(crowded, "a") as archive:
        for i in range(package.MAX_MEMBERS):
            archive.writestr(f"customXml/item{i + 10}.bin", b"x")
    with pytest.raises(FormatError, match="members in the archive; the most is 1,000"):
        DOCX.read(crowded.getvalue())
    heavy = io.BytesIO(data)
    with zipfile.ZipFile(heavy, "a", zipfile.ZIP_DEFLATED) as archive:  # each at the ratio floor: no ratio check
        for i in range(package.MAX_UNPACKED // package.RATIO_FLOOR):
            archive.writestr(f"word/media/fill{i}.bin", bytes(package.RATIO_FLOOR))
    with pytest.raises(FormatError, match=r"bytes once unpacked; the most is 67,108,864"):
        DOCX.read(heavy.getvalue())


@pytest.mark.parametrize("codec", ["utf-8", "utf-16"])
def test_a_dtd_is_refused(codec: str) -> None:
    xml = f'<?xml version="1.0" encoding="{codec}"?><!DOCTYPE w [<!ENTITY a "aaaa">]><w>&a;</w>'
    with pytest.raises(FormatError, match=r"word/settings\.xml declares a DTD"):
        DOCX.read(with_part(every_story(), "word/settings.xml", xml.encode(codec)))


def _flip(data: bytes, at: float) -> bytes:
    out = bytearray(data)
    out[int(len(out) * at)] ^= 0x55
    return bytes(out)


def _damages() -> list[tuple[str, Callable[[bytes], bytes]]]:
    """Ways a package can be broken, each applied to a good one."""
    found: list[tuple[str, Callable[[bytes], bytes]]] = [
        (f"flip at {at}", lambda d, at=at: _flip(d, at)) for at in (0.1, 0.3, 0.5, 0.7, 0.9, 0.97, 0.995)
    ]
    for name in members(every_story()):
        found += [
            (f"{name} dropped", lambda d, n=name: _without(d, n)),
            (f"{name} cut in half", lambda d, n=name: with_part(d, n, members(d)[n][: len(members(d)[n]) // 2])),
            (f"{name} emptied", lambda d, n=name: with_part(d, n, b"")),
            (f"{name} not XML", lambda d, n=name: with_part(d, n, b"\x00\xff garbage")),
        ]
    rels = "word/_rels/document.xml.rels"
    retarget = [
        ("footnotes.xml", "missing.xml"),  # a relationship to a part that is not there
        ("header1.xml", "styles.xml"),  # a header that is the styles part
        ("footer1.xml", "document.xml"),  # a footer that is the body itself
        ("endnotes.xml", "../../../outside.xml"),
        ('TargetMode="External"', ""),
    ]
    found += [
        (f"{rels}: {a} → {b}", lambda d, a=a, b=b: with_part(d, rels, members(d)[rels].replace(a.encode(), b.encode())))
        for a, b in retarget
    ]
    types = "[Content_Types].xml"
    found += [
        (f"{types}: no {kind}", lambda d, k=kind: with_part(d, types, _no_override(members(d)[types], k)))
        for kind in ("footnotes", "endnotes", "header1", "document")
    ]
    return found


def _without(data: bytes, name: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename != name:
                archive.writestr(info.filename, source.read(info.filename))
    return out.getvalue()


def _no_override(types: bytes, part: str) -> bytes:
    start = types.index(f'PartName="/word/{part}.xml"'.encode())
    return types[: types.rindex(b"<Override", 0, start)] + types[types.index(b"/>", start) + 2 :]


@pytest.mark.slow
def test_a_broken_package_is_a_format_error_or_reads_and_writes() -> None:
    good = every_story()
    outcomes: dict[str, str] = {}
    for label, damage in _damages():
        data = damage(good)
        try:
            entries = DOCX.read(data).entries
            DOCX.write(data, {e.key: e.source.upper() for e in entries}, target_language="de")
            outcomes[label] = "read"
        except FormatError:
            outcomes[label] = "refused"
    assert outcomes["word/document.xml dropped"] == outcomes["word/document.xml not XML"] == "refused"
    assert outcomes["word/footnotes.xml not XML"] == "refused"
    assert outcomes["word/_rels/document.xml.rels: header1.xml → styles.xml"] == "read"  # the header is left out
    assert "read" in outcomes.values() and "refused" in outcomes.values()


@pytest.mark.slow
def test_reading_and_writing_are_linear_in_the_paragraphs() -> None:
    def cost(paragraphs: int) -> tuple[float, float]:
        data = long_report(paragraphs)
        entries = DOCX.read(data).entries
        targets = {e.key: e.source.upper() for e in entries}
        read = cpu_seconds(lambda: DOCX.read(data), runs=2)
        return read, cpu_seconds(lambda: DOCX.write(data, targets, target_language="de"), runs=2)

    cost(50)  # warm
    small, large = cost(400), cost(1600)
    assert large[0] < 8 * small[0] and large[1] < 8 * small[1], (small, large)
