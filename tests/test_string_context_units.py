"""The parts of a string's context, without HTTP: PO flags read and stored with the segment, the
neighbours taken from the segment list, and the other language's string found by its key."""

from __future__ import annotations

from agent_core.effects import UnitWrite
from agent_core.segment import Segment as StoredSegment
from agent_core.segment import SegmentContext, dump_segments, load_segments
from interchange.formats.po import FORMAT as PO_FORMAT
from interchange.formats.po import MAX_FLAGS
from service.segments import build_segments, entry_context
from service.string_context import Wanted, _keyed, neighbours

PO = b"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#, c-format, fuzzy
msgid "%d left"
msgstr "%d restants"

#, no-wrap, c-format, no-wrap
msgid "Plain"
msgstr ""

msgid "Bare"
msgstr ""
"""


def test_po_flags_are_read_each_once_in_order() -> None:
    entries = PO_FORMAT.read(PO).entries
    assert [(e.key, e.flags) for e in entries] == [
        ("%d left", ("c-format", "fuzzy")),
        ("Plain", ("no-wrap", "c-format")),
        ("Bare", ()),
    ]
    assert entries[0].target is None, "a fuzzy entry still needs a translator"


def test_po_flags_are_capped() -> None:
    many = ", ".join(f"flag-{n}" for n in range(MAX_FLAGS + 5))
    data = PO.replace(b"#, no-wrap, c-format, no-wrap", f"#, {many}".encode())
    [_, plain, _] = PO_FORMAT.read(data).entries
    assert plain.flags == tuple(f"flag-{n}" for n in range(MAX_FLAGS))


def test_flags_are_stored_with_the_segment_and_shown_in_its_context() -> None:
    context = SegmentContext(key="k", codes=("%d",), flags=("c-format", "fuzzy"))
    [back] = load_segments(dump_segments([StoredSegment(0, 0, 7, False, context)]))
    assert back.context == context
    assert context.dump() == {"k": "k", "c": ["%d"], "f": ["c-format", "fuzzy"]}
    assert "f" not in SegmentContext(key="k").dump(), "no flags, nothing stored"
    assert SegmentContext.load({"k": "old"}).flags == (), "a segment stored before flags has none"
    shown = entry_context(back)
    assert shown is not None and shown.flags == ("c-format", "fuzzy")


SOURCE = "One\n\nTwo\n\nThree\n\nFour\n\nFive\n\nSix"


def stored_segments() -> list[StoredSegment]:
    out, at = [], 0
    for k, word in enumerate(SOURCE.split("\n\n")):
        start = SOURCE.index(word, at)
        at = start + len(word)
        out.append(StoredSegment(k, start, at, False, SegmentContext(key=f"key{k + 1}")))
    return out


def test_neighbours_are_the_two_pieces_each_side_in_file_order() -> None:
    stored = stored_segments()
    # "Two" and "Three" written as one unit: a piece named s2 that holds s3
    start, end = stored[1].start, stored[2].end
    unit = UnitWrite(file_id="f", start=start, end=end, cover_end=end, text="Deux Trois", call_id="c", status="approve")
    pieces = build_segments(SOURCE, stored, [unit])
    assert [p.id for p in pieces] == ["s1", "s2", "s4", "s5", "s6"]
    before, after = neighbours(pieces, stored[0].start)
    assert (before, [n.id for n in after]) == ([], ["s2", "s4"])
    before, after = neighbours(pieces, stored[2].start)  # inside the joined unit
    assert ([n.id for n in before], [n.id for n in after]) == (["s1"], ["s4", "s5"])
    assert (after[0].key, after[0].target, after[0].status) == ("key4", None, "untranslated")
    before, after = neighbours(pieces, stored[5].start)
    assert ([n.id for n in before], after) == (["s4", "s5"], [])
    assert [(n.source, n.target, n.status) for n in neighbours(pieces, stored[3].start)[0]] == [
        ("One", None, "untranslated"),
        ("Two\n\nThree", "Deux Trois", "approved"),
    ]


def test_the_other_file_s_string_is_found_at_its_place_else_as_its_key_s_nearest() -> None:
    block = [
        StoredSegment(0, 0, 5, False, SegmentContext(key="p")),
        StoredSegment(1, 6, 11, False, SegmentContext(key="p")),
        StoredSegment(2, 12, 20, False, SegmentContext(key="q")),
    ]
    second = Wanted(name="a.html", key="p", start=6)
    assert _keyed(block, second) == block[1]
    moved = Wanted(name="a.html", key="p", start=9)
    assert _keyed(block, moved) is None, "not at its place: the chunks either side are read"
    assert _keyed(block, moved, nearest=True) == block[1]
    assert _keyed(block, Wanted(name="a.html", key="p", start=1), nearest=True) == block[0]
    assert _keyed(block, Wanted(name="a.html", key="gone", start=0), nearest=True) is None
