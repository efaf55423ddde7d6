"""Placeholders for inline codes: numbering, literal braces, mapping back, and the QA check."""

from __future__ import annotations

import pytest
from lxml import etree

from interchange import fill_xliff, parse_xliff, placeholder_problems

XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
 <file original="app.properties" source-language="en" target-language="de" datatype="javapropertyresourcebundle">
  <body>
   <group id="g1" resname="menu">
    <trans-unit id="greet"><source>Hello {0}, <bpt id="1" ctype="bold">&lt;b&gt;</bpt>welcome\
<ept id="1">&lt;/b&gt;</ept> <ph id="2">%s</ph> <g id="3" ctype="italic">now <x id="4" equiv-text="[br]"/>here</g>\
<it id="5" pos="open">&lt;i&gt;</it></source>
     <note from="developer">Shown after sign-in.</note>
    </trans-unit>
    <trans-unit id="brand" translate="no"><source>Acme</source></trans-unit>
    <trans-unit id="prot"><source>Run <mrk mtype="protected">make all</mrk> first.</source></trans-unit>
   </group>
  </body>
 </file>
</xliff>
"""


def _segment(unit_id: str):  # type: ignore[no-untyped-def]
    return next(s for s in parse_xliff(XLIFF12).segments if s.unit_id == unit_id)


def _target12(text: str, unit_id: str) -> etree._Element:
    ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    found: list[etree._Element] = etree.fromstring(text.encode()).xpath(
        f"//x:trans-unit[@id='{unit_id}']/x:target", namespaces=ns
    )
    return found[0]


def test_codes_become_numbered_placeholders_skipping_literal_ones() -> None:
    greet = _segment("greet")
    # {0} is literal text of the source, so numbering starts at 1 and skips nothing else.
    assert greet.source == "Hello {0}, {1}welcome{/1} {2} {3}now {4}here{/3}{5}"
    assert [(c.token, c.kind, c.element, c.code_id, c.display) for c in greet.codes] == [
        (1, "paired", "bpt/ept", "1", "bold"),
        (2, "single", "ph", "2", "%s"),
        (3, "paired", "g", "3", "italic"),
        (4, "single", "x", "4", "[br]"),
        (5, "single", "it", "5", "<i>"),
    ]
    assert greet.notes[0].text == "Shown after sign-in." and greet.notes[0].category == "developer"
    assert not _segment("brand").translatable
    assert _segment("prot").source == "Run {1} first."


def test_a_literal_placeholder_number_is_skipped() -> None:
    text = XLIFF12.replace("Hello {0}", "Hello {1}")
    greet = next(s for s in parse_xliff(text).segments if s.unit_id == "greet")
    assert greet.source.startswith("Hello {1}, {2}welcome{/2}")


def test_translation_with_reordered_placeholders_comes_back_as_the_codes() -> None:
    greet = _segment("greet")
    translated = "{3}Jetzt {4}hier{/3} {2}: Hallo {0}, {1}willkommen{/1}{5}"
    filled = fill_xliff(XLIFF12, {greet.key: translated}, {greet.key: "approved"}).text
    assert (
        '<target xml:lang="de" state="signed-off"><g id="3" ctype="italic">Jetzt <x id="4" equiv-text="[br]"/>hier'
        '</g> <ph id="2">%s</ph>: Hallo {0}, <bpt id="1" ctype="bold">&lt;b&gt;</bpt>willkommen'
        '<ept id="1">&lt;/b&gt;</ept><it id="5" pos="open">&lt;i&gt;</it></target>'
    ) in filled
    assert 'approved="yes"' in filled
    again = next(s for s in parse_xliff(filled).segments if s.key == greet.key)
    assert again.target == translated and again.status == "approved"


def test_protected_mark_is_copied_whole() -> None:
    prot = _segment("prot")
    filled = fill_xliff(XLIFF12, {prot.key: "Zuerst {1} ausführen."}, {prot.key: "pending"}).text
    assert (
        '<target xml:lang="de" state="needs-review-translation" state-qualifier="mt-suggestion">'
        'Zuerst <mrk mtype="protected">make all</mrk> ausführen.</target>'
    ) in filled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{/1}x{1} {2} {3}{4}{/3} {5}", "comes before"),
        ("{1}x {2} {2} {3}{4}{/3}{/1} {5}", "more than once"),
        ("{1}x {2} {3}{4} {5}{/1}", "never closed"),
    ],
)
def test_bad_placeholders_go_in_as_plain_text_for_review_and_are_reported(text: str, message: str) -> None:
    greet = _segment("greet")
    other = _segment("prot")
    filled = fill_xliff(XLIFF12, {greet.key: text, other.key: "Zuerst {1} ausführen."}, {greet.key: "approved"})
    assert filled.plain == (greet.key,)
    target = _target12(filled.text, "greet")
    assert "".join(target.itertext()) == text and len(target) == 0  # the text as is, no code
    assert target.get("state") == "needs-review-translation"
    comment = target.getprevious()
    assert isinstance(comment, etree._Comment) and message in comment.text
    assert parse_xliff(filled.text).segments[2].target == "Zuerst {1} ausführen."  # the others are filled
    assert placeholder_problems(text, greet.codes)


def test_problems_lists_missing_placeholders_and_accepts_a_good_text() -> None:
    greet = _segment("greet")
    assert placeholder_problems("Hallo {0}, {1}willkommen{/1} {2} {3}jetzt {4}hier{/3}{5}", greet.codes) == ()
    assert placeholder_problems("Hallo {0}, willkommen {2}", greet.codes) == (
        "Missing placeholder: {1}, {3}, {4}, {5}, {/1}, {/3}.",
    )
    # bpt/ept may overlap a <g>: only <g>/<pc>/<mrk> must nest.
    assert placeholder_problems("{1}a {3}b{/1} {4}{/3} {2}{5}", greet.codes) == ()


def test_unknown_key_is_an_error() -> None:
    with pytest.raises(ValueError, match="no segment"):
        fill_xliff(XLIFF12, {"9/none/1": "x"}, {})


def test_documents_with_entities_are_refused() -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><xliff version="1.2"><file/></xliff>'
    with pytest.raises(ValueError, match="entities"):
        parse_xliff(bomb)
    external = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xliff version="2.0" srcLang="en">&e;</xliff>'
    with pytest.raises(ValueError):
        parse_xliff(external)


def test_not_xliff_is_reported() -> None:
    with pytest.raises(ValueError, match="not an XLIFF"):
        parse_xliff("<html/>")
    with pytest.raises(ValueError, match="not well-formed"):
        parse_xliff("<xliff")


XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" xmlns:my="urn:example:ext" version="2.0" srcLang="en" trgLang="fr">
 <file id="f1" original="ui.html">
  <notes><note id="n1">File note</note></notes>
  <unit id="u1" my:flag="1">
   <notes><note category="context">Button label</note></notes>
   <originalData><data id="d1">&lt;b></data><data id="d2">&lt;/b></data><data id="d3">&lt;br/></data></originalData>
   <segment id="s1">
    <source><pc id="1" dataRefStart="d1" dataRefEnd="d2">Bold <pc id="2">and nested</pc></pc> then \
<sc id="3" type="fmt"/>open<ec startRef="3" type="fmt"/> and <ph id="4" dataRef="d3"/>bell<cp hex="0007"/>.</source>
   </segment>
   <ignorable><source> </source></ignorable>
   <segment id="s2" state="translated"><source>Second <mrk id="m1" translate="no">Acme</mrk>.</source>
    <target>Deuxième <mrk id="m1" translate="no">Acme</mrk>.</target></segment>
  </unit>
 </file>
</xliff>
"""


def test_xliff2_codes_and_code_points() -> None:
    first, second = parse_xliff(XLIFF20).segments
    assert first.source == "{1}Bold {2}and nested{/2}{/1} then {3}open{/3} and {4}bell\x07."
    assert [(c.element, c.kind, c.display) for c in first.codes] == [
        ("pc", "paired", "<b>"),
        ("pc", "paired", ""),
        ("sc/ec", "paired", "fmt"),
        ("ph", "single", "<br/>"),
    ]
    assert first.notes[0].category == "context"
    assert second.source == "Second {1}." and second.target == "Deuxième {1}." and second.status == "pending"


def test_xliff2_fill_is_schema_valid_and_keeps_extensions() -> None:
    from tests.interchange.xliff_schema import assert_valid_xliff2

    first, second = parse_xliff(XLIFF20).segments
    filled = fill_xliff(
        XLIFF20,
        {first.key: "{3}Ouvert{/3}, {1}gras {2}et imbriqué{/2}{/1}{4} cloche\x07.", second.key: "Deuxième {1}."},
        {first.key: "refined", second.key: "approved"},
    ).text
    assert_valid_xliff2(filled)
    assert 'my:flag="1"' in filled and '<note id="n1">File note</note>' in filled
    assert (
        '<target><sc id="3" type="fmt"/>Ouvert<ec startRef="3" type="fmt"/>, <pc id="1" dataRefStart="d1" '
        'dataRefEnd="d2">gras <pc id="2">et imbriqué</pc></pc><ph id="4" dataRef="d3"/> cloche<cp hex="0007"/>.'
        "</target>"
    ) in filled
    assert '<segment id="s1" state="final" subState="tagent:refined">' in filled


def test_crossing_paired_codes_go_in_as_plain_text() -> None:
    first = parse_xliff(XLIFF20).segments[0]
    text = "{1}a{2}b{/1}c{/2} {3}{/3}{4}"
    filled = fill_xliff(XLIFF20, {first.key: text}, {first.key: "refined"})
    assert filled.plain == (first.key,)
    assert "not the innermost" in filled.text and 'state="translated" subState="tagent:pending"' in filled.text
    assert parse_xliff(filled.text).segments[0].target == text
    assert any("overlap" in p for p in placeholder_problems(text, first.codes))
