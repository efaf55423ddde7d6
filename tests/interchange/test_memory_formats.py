"""TMX, CSV and TBX: exports read back without loss, and files written by other tools read."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from interchange import (
    GlossaryTerm,
    TmPair,
    export_glossary_csv,
    export_tbx,
    export_tmx,
    parse_glossary_csv,
    parse_tbx,
    parse_tmx,
)

PAIRS = [
    TmPair(
        source="Save the file",
        target="Enregistrez le fichier",
        srclang="en",
        tgtlang="fr-FR",
        created=datetime(2024, 1, 31, 12, 0, tzinfo=UTC),
        changed=datetime(2024, 2, 1, 8, 30, 5, tzinfo=UTC),
    ),
    TmPair(source='<b> & "quotes"\nline two', target="<b> & « guillemets »\nligne deux", srclang="en", tgtlang="fr"),
    TmPair(source="Hello", target="Hallo", srclang="en-US", tgtlang="de"),
]


def test_tmx_round_trip_loses_nothing() -> None:
    assert parse_tmx(export_tmx(PAIRS, srclang="en").text) == PAIRS


def test_tmx_export_reads_with_translate_toolkit() -> None:
    tmx = pytest.importorskip("translate.storage.tmx")
    store = tmx.tmxfile.parsestring(export_tmx(PAIRS, srclang="en").text.encode())
    assert [(u.source, u.target) for u in store.units] == [(p.source, p.target) for p in PAIRS]


def test_tmx_written_elsewhere_with_inline_codes_and_several_variants() -> None:
    text = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4"><header creationtool="X" creationtoolversion="1" segtype="sentence" o-tmf="x"
 adminlang="en-us" srclang="EN-US" datatype="html"/>
<body>
 <tu tuid="1" creationdate="20230405T101112Z">
  <tuv xml:lang="fr-CA"><seg>Cliquez <bpt i="1">&lt;b&gt;</bpt>ici<ept i="1">&lt;/b&gt;</ept></seg></tuv>
  <tuv xml:lang="en-US"><seg>Click <bpt i="1">&lt;b&gt;</bpt>here<ept i="1">&lt;/b&gt;</ept></seg></tuv>
  <tuv xml:lang="de-DE"><seg>Klicken Sie <hi type="b">hier</hi></seg></tuv>
 </tu>
 <tu><tuv lang="en"><seg>Only one side</seg></tuv></tu>
</body></tmx>"""
    pairs = parse_tmx(text)
    assert [(p.source, p.target, p.srclang, p.tgtlang) for p in pairs] == [
        ("Click here", "Cliquez ici", "en-US", "fr-CA"),
        ("Click here", "Klicken Sie hier", "en-US", "de-DE"),
    ]
    assert pairs[0].created == datetime(2023, 4, 5, 10, 11, 12, tzinfo=UTC) and pairs[0].changed is None


TERMS = [
    GlossaryTerm(source="pull request", target="demande de fusion"),
    GlossaryTerm(source='say "hi", then', target="dire « salut », puis"),
    GlossaryTerm(source="line\nbreak", target="saut\nde ligne"),
]


def test_csv_round_trip_with_quotes_and_line_breaks() -> None:
    text = export_glossary_csv(TERMS)
    assert text.startswith("source,target,kind\r\n")
    assert parse_glossary_csv(text) == [replace(t, kind="preferred") for t in TERMS]


def test_csv_with_bom_extra_columns_and_any_header_order() -> None:
    text = '\ufeffNote,Target,Source\r\n"a, b",cible,source\r\nx,,empty target\r\n\r\n,only,\r\n'
    assert parse_glossary_csv(text) == [GlossaryTerm(source="source", target="cible")]


def test_csv_without_header_is_refused() -> None:
    with pytest.raises(ValueError, match="header"):
        parse_glossary_csv("pull request,demande de fusion\n")


def test_tbx_round_trip() -> None:
    text = export_tbx(TERMS, srclang="en", tgtlang="fr")
    assert 'xmlns="urn:iso:std:iso:30042:ed-2"' in text and 'type="TBX-Basic"' in text
    expected = [GlossaryTerm(source=t.source, target=t.target, srclang="en", tgtlang="fr") for t in TERMS]
    assert parse_tbx(text) == [
        GlossaryTerm(
            source=" ".join(e.source.split()),
            target=" ".join(e.target.split()),
            srclang="en",
            tgtlang="fr",
            kind="preferred",
        )
        for e in expected
    ]


def test_tbx_2008_martif_is_read() -> None:
    text = """<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX-Basic" xml:lang="en-US">
 <martifHeader><fileDesc><sourceDesc><p>From a TMS</p></sourceDesc></fileDesc></martifHeader>
 <text><body>
  <termEntry id="t1">
   <descrip type="subjectField">software</descrip>
   <langSet xml:lang="en-US"><tig><term>file</term></tig><ntig><termGrp><term>document</term></termGrp></ntig></langSet>
   <langSet xml:lang="fr"><tig><term>fichier</term><termNote type="partOfSpeech">noun</termNote></tig></langSet>
   <langSet xml:lang="de"><ntig><termGrp><term>Datei</term></termGrp></ntig></langSet>
  </termEntry>
 </body></text>
</martif>"""
    assert parse_tbx(text) == [
        GlossaryTerm(source="file", target="fichier", srclang="en-US", tgtlang="fr"),
        GlossaryTerm(source="file", target="Datei", srclang="en-US", tgtlang="de"),
    ]
    assert parse_tbx(text, srclang="fr")[0] == GlossaryTerm(
        source="fichier", target="file", srclang="fr", tgtlang="en-US"
    )


KINDS = [
    GlossaryTerm(source="e-mail", target="courriel", kind="preferred"),
    GlossaryTerm(source="e-mail", target="mél", kind="forbidden"),
    GlossaryTerm(source="Clippy", target="Clippy", kind="keep"),
]


def test_csv_round_trips_kinds_and_reads_their_other_names() -> None:
    assert parse_glossary_csv(export_glossary_csv(KINDS)) == KINDS
    text = "term,translation,Kind\r\nGit,Git,do not translate\r\nmail,mél,Deprecated\r\nfile,fichier,\r\n"
    assert [t.kind for t in parse_glossary_csv(text)] == ["keep", "forbidden", None]
    with pytest.raises(ValueError, match="kind 'banned' is not one of preferred, forbidden, keep"):
        parse_glossary_csv("source,target,kind\r\nmail,mél,banned\r\n")


def test_tbx_round_trips_kinds_as_administrative_status() -> None:
    text = export_tbx(KINDS, srclang="en", tgtlang="fr")
    assert text.count("deprecatedTerm-admn-sts") == 1 and text.count("preferredTerm-admn-sts") == 2
    kinds = [(t.source, t.target, t.kind) for t in parse_tbx(text)]
    # A term to keep is written as itself: its status says preferred, its identity says keep.
    assert kinds == [
        ("e-mail", "courriel", "preferred"),
        ("e-mail", "mél", "forbidden"),
        ("Clippy", "Clippy", "preferred"),
    ]


def test_tbx_2008_normative_authorization_is_a_kind() -> None:
    text = """<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en"><text><body>
  <termEntry id="t1">
   <langSet xml:lang="en"><tig><term>e-mail</term></tig></langSet>
   <langSet xml:lang="fr">
    <tig><term>courriel</term><termNote type="normativeAuthorization">preferredTerm</termNote></tig>
    <ntig><termGrp><term>mél</term><termNote type="normativeAuthorization">deprecatedTerm</termNote></termGrp></ntig>
    <tig><term>e-mail</term><termNote type="administrativeStatus">supersededTerm-admn-sts</termNote></tig>
   </langSet>
  </termEntry>
</body></text></martif>"""
    assert [(t.target, t.kind) for t in parse_tbx(text)] == [
        ("courriel", "preferred"),
        ("mél", "forbidden"),
        ("e-mail", "forbidden"),
    ]
