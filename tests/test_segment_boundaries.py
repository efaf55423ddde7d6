"""No unit boundary falls inside a tag, an entity, a placeholder, inline code or a URL (issue 40, item 15):
long sentences without a sentence end, uploaded as HTML, SRT and PO through HTTP on both backends,
are cut only outside them, and once translated to the end by the pseudo model each export parses with
the format's reference library with every tag and placeholder intact."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent_core.models import resolve_model
from agent_core.segmentation import segment_text
from agent_core.tools.base import MAX_UNIT_CHARS
from handlers.app import create_app
from tests.helpers import services_for
from tests.test_formats_end_to_end import translate_all

WORDS = "nine quiet otters carry small lanterns across the frozen harbour while the old keeper hums"


def rambling(*spans: str, rounds: int = 7, words: str = WORDS) -> str:
    """A long run of words without a sentence end, the spans placed where a fixed-length cut would land."""
    parts = []
    for i in range(rounds):
        parts.append(f"{words} {spans[i % len(spans)]} item {i} then {spans[(i + 1) % len(spans)]} again {words}")
    return " ".join(parts)


HTML_SPANS = (
    '<font color="brown" size="24">brown words</font>',
    '<a href="https://example.com/a long/path?q=1&amp;r=2" title="a title, with a comma">the link</a>',
    "&nbsp;&copy;&#8212;",
    '<span class="x y z" data-note="keep: this; whole">marked</span>',
)
SRT_SPANS = (
    "<font color=brown size=24>brown words</font>",
    "<i>https://example.org/very/long/path/to/a/page?with=query&and=more</i>",
    "{\\an8}",
)
PO_SPANS = (
    '<b class=\\"x y\\">bold words</b>',
    "%(user_name)s",
    "%(count)d {count, plural, one {# file} other {# files}}",
    "`inline code with spaces`",
    "https://example.net/docs/page?a=1",
    "{0} and {{ name }}",
)


def whole(spans: tuple[str, ...]) -> list[str]:
    """The pieces no boundary may fall inside: each tag, entity, placeholder, code span and URL of the spans."""
    pattern = (
        r"<[^<>]+>|&[#\w]+;|%\([^)]*\)[a-z]|\{\{[^{}]*\}\}|\{\\\\?an8\}|\{[^{}]*\{[^{}]*\}[^{}]*\{[^{}]*\}\}|\{\d\}"
    )
    pattern += r"|`[^`]*`|https?://[^\s<]+"
    return [m.group().replace('\\"', '"') for s in spans for m in re.finditer(pattern, s)]


def cut_inside(pieces: list[str], tokens: list[str]) -> list[tuple[str, str]]:
    """(piece, token) for each piece that ends with a proper head of a token or begins with a proper tail."""
    found = []
    for piece in pieces:
        for token in tokens:
            for k in range(2, len(token) - 1):  # heads and tails of two characters or more
                head, tail = token[:k].rstrip(), token[k:].lstrip()
                if (head and piece.endswith(head) and not piece.endswith(token)) or (
                    tail and piece.startswith(tail) and not piece.startswith(token)
                ):
                    found.append((piece[-40:] if piece.endswith(head) else piece[:40], token))
                    break
    return found


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as found:
        yield found


def sources(client: TestClient, sid: str, fid: str) -> list[str]:
    page = client.get(f"/api/sessions/{sid}/files/{fid}/segments", params={"limit": 500}).json()
    assert page["nextCursor"] is None
    return [s["source"] for s in page["segments"]]


def upload(client: TestClient, name: str, content: str) -> tuple[str, str]:
    sid = client.post("/api/sessions", json={"targetLanguage": "pl"}).json()["id"]
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": content})
    assert uploaded.status_code == 201, uploaded.text
    return sid, uploaded.json()["fileId"]


CASES = {
    "html": ("page.html", "<html><body><p>" + rambling(*HTML_SPANS) + "</p></body></html>\n", HTML_SPANS),
    "srt": ("film.srt", "1\n00:00:01,000 --> 00:00:09,000\n"
            + rambling(*SRT_SPANS, rounds=12, words="nine otters hum") + "\n", SRT_SPANS),
    "po": ("app.po", 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
           + 'msgid "' + rambling(*PO_SPANS) + '"\nmsgstr ""\n', PO_SPANS),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_no_segment_boundary_falls_inside_a_tag_placeholder_code_or_url(client: TestClient, case: str) -> None:
    name, content, spans = CASES[case]
    tokens = whole(spans)
    assert len(tokens) >= 5
    for shift in range(0, 30, 3):  # the same text moved along, so cuts land elsewhere in it
        sid, fid = upload(client, name, shifted(content, shift))
        found = sources(client, sid, fid)
        assert len(found) >= 5, "long enough to be cut several times"
        assert all(len(s) <= MAX_UNIT_CHARS for s in found)
        assert cut_inside(found, tokens) == [], shift


def shifted(content: str, words: int) -> str:
    """`content` with its text moved along by `words` short words."""
    return content.replace("nine", "so " * words + "nine", 1)


@pytest.mark.parametrize("case", list(CASES))
def test_no_cut_falls_inside_wherever_the_cap_lands(case: str) -> None:
    from service.schemas import FileUpload
    from service.uploads import read_upload

    name, content, spans = CASES[case]
    for shift in range(60):
        read, _ = read_upload(FileUpload(name=name, content=shifted(content, shift)), lambda text: "en")
        pieces = [read.content[s.start : s.end] for s in read.segments]
        assert len(pieces) >= 5 and all(len(p) <= MAX_UNIT_CHARS for p in pieces)
        assert cut_inside(pieces, whole(spans)) == [], shift


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_the_exports_of_long_tagged_text_parse_with_their_tags_intact(client: TestClient, case: str) -> None:
    import lxml.html
    import polib
    import srt

    name, content, _spans = CASES[case]
    sid, fid, _ = translate_all(client, name, content, "pl")
    exported = client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": "original"})
    assert exported.status_code == 200 and exported.headers["x-export-skipped"] == "0"
    text = exported.content.decode()
    if case == "html":
        page, source = lxml.html.fromstring(text), lxml.html.fromstring(content)

        def shape(root: Any) -> list[tuple[str, dict[str, str]]]:  # a title is text: it is translated
            return [(e.tag, {k: v for k, v in e.attrib.items() if k != "title"}) for e in root.iter()]

        assert shape(page) == shape(source)
        assert page.xpath("//a/@title")[0] != source.xpath("//a/@title")[0]
        translated = page.text_content()
    elif case == "srt":
        [cue] = list(srt.parse(text))
        translated = cue.content
    else:
        [entry] = [e for e in polib.pofile(text) if e.msgid]
        translated = entry.msgstr
    tags = re.compile(r"<[^<>]+>|%\([^)]*\)[a-z]|https?://[^\s<]+|\{\\an8\}")
    want = sorted(m.group() for m in tags.finditer(content if case != "po" else polib.pofile(content)[0].msgid))
    if case != "html":
        assert sorted(m.group() for m in tags.finditer(translated)) == want
    assert translated != (lxml.html.fromstring(content).text_content() if case == "html" else None)


def test_a_markdown_sentence_with_a_long_tag_run_is_cut_outside_the_tags() -> None:
    text = " ".join(
        f'{WORDS} <kbd title="press, then hold">Ctrl</kbd> <span lang="fr">mot {i}</span>' for i in range(6)
    )
    pieces = [text[s.start : s.end] for s in segment_text(text + "\n")]
    assert len(pieces) > 2 and all(len(p) <= MAX_UNIT_CHARS for p in pieces)
    assert cut_inside(pieces, re.findall(r"<[^<>]+>", text)) == []
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")
