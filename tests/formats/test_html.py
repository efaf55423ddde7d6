"""HTML (`.html`, `.htm`): blocks with their inline tags as locked codes, translatable attributes; the
written page is the original with those spliced in, checked with lxml's HTML parser."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import lxml.html
import pytest

from interchange.formats import FormatError, format_for, format_named
from interchange.formats import html as html_format
from interchange.formats.base import Entry
from langfacts.codes import code_changes

DATA = Path(__file__).parent / "data"
HTML = format_named("html")
BACKBONE = (DATA / "html_backbone.html").read_bytes()


def pseudo(entry: Entry) -> str:
    """A deterministic translation that keeps the entry's codes and adds characters HTML must escape."""
    pieces = [entry.source]
    if entry.codes:
        pattern = "|".join(map(re.escape, sorted(set(entry.codes), key=len, reverse=True)))
        pieces = re.split(f"({pattern})", entry.source)
    return "".join(p if p in entry.codes or not p.strip() else _mark(p) for p in pieces)


def _mark(text: str) -> str:
    core = text.strip()
    start = text.index(core[0])
    return f"{text[:start]}«{core.upper()} & <x>»{text[start + len(core) :]}"


def by_key(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in HTML.read(data).entries}


def test_registry_picks_html_by_extension() -> None:
    assert format_for("index.HTM", b"") is HTML
    assert format_for("page.html", b"") is HTML


def test_blocks_keep_inline_tags_as_codes_and_decode_entities() -> None:
    entries = by_key(BACKBONE)
    assert entries["html/head/title[1]"].source == "Backbone.js"
    assert entries["html/head/title[1]"].note == "title"
    li = entries["html/body/div[1]/ul[1]/li[1]"]
    assert li.source == '» <a href="http://github.com/documentcloud/backbone">GitHub Repository</a>'
    assert li.codes == ('<a href="http://github.com/documentcloud/backbone">', "</a>")
    assert li.note == "li" and li.document
    heading = entries["html/body/div[2]/h2[1]"]
    assert heading.source.startswith("Downloads & Dependencies <span style=")
    paragraph = entries["html/body/div[2]/p[2]"]
    assert paragraph.source == (
        "Backbone.js gives structure to web applications by providing <b>models</b> with key-value binding and "
        "custom events, <b>collections</b> with a rich API of enumerable functions, <b>views</b> with declarative "
        "event handling, and connects it all to your existing API over a RESTful JSON interface."
    )  # whitespace collapsed, tags literal
    assert paragraph.codes == ("<b>", "</b>") * 3
    api = entries["html/body/div[2]/p[7]"]
    assert api.codes[:4] == ('<b class="header">', "</b>", "<code>", "</code>")  # inline code: tags like others
    assert "object.on(event, callback, [context])" in api.source
    assert "<br />" in api.codes
    # a real page's broken tag is kept as it is, as one code
    assert entries["html/body/div[2]/ul[1]/li[2]"].codes == ('<a href="#Events-once"</a>', "</a>")


def test_attributes_are_entries_of_their_own() -> None:
    entries = by_key(BACKBONE)
    logo = entries["html/body/div[2]/p[1]/img[1]@alt"]
    assert (logo.source, logo.note, logo.document) == ("Backbone.js", "img alt", False)
    assert entries["html/body/div[2]/p[9]/a[1]@title"].source == "A DocumentCloud Project"
    assert "html/body/div[2]/p[1]" not in entries  # an image alone is no text block
    assert "html/body/div[2]/p[9]" not in entries


def test_script_style_and_pre_never_reach_an_entry() -> None:
    for entry in HTML.read(BACKBONE).entries:
        words = entry.source
        for code in entry.codes:  # a locked tag may carry a style attribute
            words = words.replace(code, " ")
        for text in ("insertBefore", "font-size", "_.extend", "Triggered", "lazyload", "Lucida"):
            assert text not in words, (entry.key, text)


def test_whole_translation_parses_and_keeps_everything_else() -> None:
    entries = HTML.read(BACKBONE).entries
    targets = {e.key: pseudo(e) for e in entries}
    written = HTML.write(BACKBONE, targets, target_language="de")
    text, original = written.decode(), BACKBONE.decode()
    # it reads back to exactly the translations, codes included
    assert {e.key: e.source for e in HTML.read(written).entries} == targets
    assert [e.codes for e in HTML.read(written).entries] == [e.codes for e in entries]
    # untouched parts are byte for byte the original
    for opening, closing in (
        ("<style>", "</style>"),
        ('<pre class="runnable">', "</pre>"),
        ("<script>\n", "</script>"),
    ):
        start = original.index(opening)
        assert original[start : original.index(closing, start) + len(closing)] in text
    assert text.startswith("<!DOCTYPE HTML>\n<html>\n<head>\n  <meta http-equiv=")
    assert text.endswith("  </script>\n\n</body>\n</html>\n")
    assert "«" not in original and text.count("«") == sum(t.count("«") for t in targets.values())
    # lxml reads the same document structure, with the links' targets and the scripts unchanged
    before, after = lxml.html.document_fromstring(BACKBONE), lxml.html.document_fromstring(written)
    for xpath in ("//p", "//li", "//td", "//h2", "//a", "//img", "//script", "//pre", "//b", "//tt"):
        assert len(after.xpath(xpath)) == len(before.xpath(xpath)), xpath
    assert [a.get("href") for a in after.xpath("//a")] == [a.get("href") for a in before.xpath("//a")]
    assert [s.text for s in after.xpath("//script")] == [s.text for s in before.xpath("//script")]
    assert [p.text_content() for p in after.xpath("//pre")] == [p.text_content() for p in before.xpath("//pre")]
    assert after.xpath("//title")[0].text == "«BACKBONE.JS & <x>»"
    assert after.xpath("//img[@id='logo']")[0].get("alt") == "«BACKBONE.JS & <x>»"
    bold = after.xpath("//div[@class='container']/p[2]/b")
    assert [b.text for b in bold] == ["«MODELS & <x>»", "«COLLECTIONS & <x>»", "«VIEWS & <x>»"]


def test_one_block_changes_only_its_content() -> None:
    key = "html/body/div[2]/ul[1]/li[1]"
    target = "Prise en charge de HTTP <tt>PATCH</tt> via <tt>model.save(attrs, {patch: true})</tt>."
    written = HTML.write(BACKBONE, {key: target}, target_language="fr")
    source = (
        "HTTP <tt>PATCH</tt> support, via <tt>model.save(attrs, {patch: true})</tt>,\n"
        "        if you'd like to send only partial updates to the server."
    )
    assert written.decode() == BACKBONE.decode().replace(source, target)
    assert HTML.write(BACKBONE, {}, target_language="fr") == BACKBONE


PAGE = b"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="description" content="Fast &amp; simple"><title>Home</title></head>
<body>
<!-- navigation -->
<p>See <a href="/x" title="Go there">this page</a> now.</p>
<ul><li>One<li>Two <code>x()</code></ul>
<p translate="no">Brand name</p>
<div class="box notranslate"><p>Not this</p></div>
<p>Keep <span class="notranslate">ACME</span> as is</p>
<p>Buy <b translate="no">ACME <i>Pro</i></b> today<span translate="no"> </span>now</p>
<form><input type="submit" value="Send it"><input name="q" placeholder='Search "here"'>
<button aria-label="Close the window">Close</button></form>
</body>
</html>
"""


def test_a_small_page_entries() -> None:
    entries = by_key(PAGE)
    assert list(entries) == [
        "html/head/meta[2]@content",
        "html/head/title[1]",
        "html/body/p[1]",
        "html/body/p[1]/a[1]@title",
        "html/body/ul[1]/li[1]",
        "html/body/ul[1]/li[2]",
        "html/body/p[3]",
        "html/body/p[4]",
        "html/body/form[1]/input[1]@value",
        "html/body/form[1]/input[2]@placeholder",
        "html/body/form[1]/button[1]@aria-label",
        "html/body/form[1]/button[1]",
    ]
    assert entries["html/head/meta[2]@content"].source == "Fast & simple"
    assert entries["html/body/ul[1]/li[2]"].codes == ("<code>", "</code>")
    assert entries["html/body/p[3]"].codes == ('<span class="notranslate">', "ACME", "</span>")
    locked = entries["html/body/p[4]"]
    assert locked.source == 'Buy <b translate="no">ACME <i>Pro</i></b> today<span translate="no"> </span>now'
    assert locked.codes == (
        '<b translate="no">',
        "ACME ",
        "<i>",
        "Pro",
        "</i>",
        "</b>",
        '<span translate="no">',
        "</span>",
    )
    assert entries["html/body/form[1]/input[2]@placeholder"].source == 'Search "here"'
    assert HTML.read(PAGE).source_language == "en"
    assert not any("navigation" in e.source or "Brand" in e.source or "Not this" in e.source for e in entries.values())


def test_attributes_inside_a_translated_block_and_lang_are_written() -> None:
    targets = {
        "html/body/p[1]": 'Siehe <a href="/x" title="Go there">diese Seite</a> jetzt & hier.',
        "html/body/p[1]/a[1]@title": 'Geh "dorthin"',
        "html/body/form[1]/input[2]@placeholder": "Suche 'hier'",
        "html/head/meta[2]@content": "Schnell & einfach",
    }
    written = HTML.write(PAGE, targets, target_language="de").decode()
    assert '<html lang="de">' in written
    assert '<p>Siehe <a href="/x" title="Geh &quot;dorthin&quot;">diese Seite</a> jetzt &amp; hier.</p>' in written
    assert "placeholder='Suche &#39;hier&#39;'" in written
    assert '<meta name="description" content="Schnell &amp; einfach">' in written
    tree = lxml.html.document_fromstring(written)
    assert tree.xpath("//a")[0].get("title") == 'Geh "dorthin"'
    assert tree.xpath("//input[@name='q']")[0].get("placeholder") == "Suche 'hier'"
    assert written.replace('lang="de"', 'lang="en"').count("\n") == PAGE.decode().count("\n")
    assert '<meta charset="utf-8">' in written


def test_a_declared_encoding_other_than_utf8_becomes_utf8() -> None:
    page = b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head><p>Hi</p>'
    written = HTML.write(page, {"html/p[1]": "Grüß dich"}, target_language="de")
    assert written.decode() == page.decode().replace("ISO-8859-1", "utf-8").replace("Hi", "Grüß dich")
    tree = lxml.html.document_fromstring(written)
    assert tree.xpath("//p")[0].text == "Grüß dich"
    short = b"<meta charset=latin1><p>Hi</p>"
    assert HTML.write(short, {}, target_language="de") == b'<meta charset="utf-8"><p>Hi</p>'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<p>Hello</p>\n<!-- never closed\n<p>x</p>", "line 2: a comment that is never closed"),
        (b"<p>Hello</p>\n\n<a href='x'", "line 3: a tag that is never closed"),
        (b"<p>Hello</p>\n<script>var a = 1;", "line 2: <script> is never closed"),
        (b"<p>Caf\xe9</p>", "line 1: not UTF-8"),
        (b"<p>a</p>\n\x00\x01", "line 2: a NUL character"),
        (b"<html><body><script>alert('x')</script><pre>code</pre><p> 42 </p></body></html>", "no text"),
        (b"", "no text"),
    ],
)
def test_malformed_or_empty_pages_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        HTML.read(data)


def _lines_run(call: Callable[[], object]) -> int:
    """How many lines of interchange.formats run during `call` (deterministic, unlike a timing)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., object] | None:
        nonlocal count
        if "interchange/formats" not in frame.f_code.co_filename:
            return None
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    ("page", "n"),
    [
        (lambda n: "<p>Some <b>bold</b> and <a href='#' title='t'>linked</a> text &amp; more.</p>\n" * n, 100),
        (lambda n: "<p>Deep " + "<b>" * n + "text" + "</div>" * n + "</p>", 300),  # beyond the depth tracked
        (lambda n: "<ul>" + "<li>Item <span>one" * n + "</ul>", 300),
        (lambda n: "<p>" + "a < b " * n + "</p>", 100),
    ],
)
def test_reading_and_writing_are_linear(page: Callable[[int], str], n: int) -> None:
    def run(n: int) -> int:
        data = page(n).encode()
        targets = {e.key: e.source for e in HTML.read(data).entries}
        return _lines_run(lambda: HTML.write(data, targets, target_language="de"))

    small, large = run(n), run(4 * n)
    assert large < 6 * small, (small, large)


def test_more_entries_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_format, "MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3"):
        HTML.read(b"<p>One</p><p>Two</p><p>Three</p><p>Four</p>")


def test_the_project_code_check_accepts_translations_that_keep_the_codes() -> None:
    entries = by_key(PAGE) | by_key(BACKBONE)
    for key, translation in (
        ("html/body/p[4]", 'Kaufen Sie <b translate="no">ACME <i>Pro</i></b> heute<span translate="no"> </span>jetzt'),
        ("html/body/ul[1]/li[2]", "Zwei <code>x()</code>"),
        ("html/body/div[2]/p[3]", pseudo(entries["html/body/div[2]/p[3]"]).replace(" & <x>", "")),
    ):
        assert code_changes(entries[key].codes, translation) == (), key
    assert code_changes(entries["html/body/p[4]"].codes, "Kaufen Sie <b>ACME Pro</b> heute") != ()


def test_attributes_are_read_as_browsers_read_them() -> None:
    page = b"<p title=it's>An 'apostrophe' there</p><p hidden title='a > b'>Quoted <b>gt</b></p><img alt = \"spaced\">"
    entries = by_key(page)
    assert entries["p[1]@title"].source == "it's"
    assert entries["p[1]"].source == "An 'apostrophe' there"  # the quote in an unquoted value opens nothing
    assert entries["p[2]@title"].source == "a > b"
    assert entries["p[2]"].source == "Quoted <b>gt</b>"
    assert entries["img[1]@alt"].source == "spaced"
    written = HTML.write(page, {"p[1]@title": "c'est", "img[1]@alt": "espacé"}, target_language="fr")
    assert written.decode() == page.decode().replace("title=it's", 'title="c\'est"').replace('"spaced"', '"espacé"')
    tree = lxml.html.fragment_fromstring(written, create_parent="div")
    assert [p.get("title") for p in tree.xpath("//p")] == ["c'est", "a > b"]
    with pytest.raises(FormatError, match="line 2: a quoted attribute value that is never closed"):
        HTML.read(b'<p>Hi</p>\n<a title="never>there</a>')
