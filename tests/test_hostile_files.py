"""Hostile files and awkward targets through HTTP (the ASGI app) and the Lambda handler, on SQLite and DynamoDB.

Uploads and imports past a cap, a repeated seg-source mid, CSV the csv module cannot read: 422 and
nothing stored. Targets that break placeholders or hold characters XML forbids: every export
answers 200, writes what it can and says what it left (`X-Export-Skipped`). Inline codes of an XLIFF
source come out as elements; text kept verbatim is `translate="no"` and not in TMX; CSV cells that
look like formulas are neutralised and come back exactly.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from lxml import etree

import handlers.api as api
from agent_core.document import add_span
from agent_core.effects import StepEffects, UnitWrite
from agent_core.models import resolve_model
from handlers.app import create_app
from handlers.deps import LazyServices
from interchange import parse_glossary_csv, parse_tmx, parse_xliff
from service.container import Services
from service.schemas import FileUpload
from storage.interface import Storage
from tests.conftest import make_backend
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for, stored
from tests.interchange.xliff_schema import assert_valid_xliff2

NS20 = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
NS12 = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
OWNER = "user-alice"


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


Call = Callable[..., Answer]


@dataclass
class Api:
    call: Call
    services: Services
    owner: str

    def session(self) -> str:
        answer = self.call("POST", "/api/sessions")
        assert answer.status == 201, answer.text
        sid: str = answer.json()["id"]
        return sid

    def upload(self, sid: str, name: str, content: str) -> Answer:
        return self.call("POST", f"/api/sessions/{sid}/files", {"name": name, "content": content})

    def export(self, sid: str, fid: str, fmt: str) -> Answer:
        answer = self.call("GET", f"/api/sessions/{sid}/files/{fid}/export", query={"format": fmt})
        assert answer.status == 200, (fmt, answer.status, answer.text[:300])
        return answer


@pytest.fixture(params=["memory", "dynamodb"])
def backend(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Storage]:
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    storage = make_backend(request.param, tmp_path)
    assert isinstance(storage, Storage)
    yield storage


@pytest.fixture(params=["asgi", "lambda"])
def api_of(request: pytest.FixtureRequest, backend: Storage) -> Iterator[Api]:
    """The app over HTTP in process, or the module-level Lambda handler, on a fresh backend."""
    services = services_for(backend, model=resolve_model("pseudo"))
    if request.param == "asgi":
        from handlers.identity import LOCAL_USER

        with TestClient(create_app(services)) as client:

            def asgi(method: str, path: str, body: Any = None, *, query: dict[str, str] | None = None) -> Answer:
                response = client.request(method, path, json=body, params=query)
                return Answer(response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.text)

            yield Api(asgi, services, LOCAL_USER)
        return
    previous = api.app.state.services
    api.app.state.services = LazyServices(services)

    def through_lambda(method: str, path: str, body: Any = None, *, query: dict[str, str] | None = None) -> Answer:
        result = api.handler(http_event(method, path, body, sub=OWNER, query=query), FakeLambdaContext())
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        text = result.get("body") or ""
        if result.get("isBase64Encoded"):  # Mangum encodes bodies of media types it does not take for text
            text = base64.b64decode(text).decode("utf-8")
        return Answer(result["statusCode"], headers, text)

    try:
        yield Api(through_lambda, services, OWNER)
    finally:
        api.app.state.services = previous


def assert_refused(answer: Answer, status: int, *words: str) -> None:
    assert answer.status == status, (answer.status, answer.text[:300])
    body = answer.json()
    assert set(body) == {"error"}, body
    for word in words:
        assert word.lower() in body["error"].lower(), body
    assert "Traceback" not in answer.text


def write_units(services: Services, sid: str, fid: str, units: list[tuple[str, str, str]]) -> None:
    """Commit written units (source piece, text, status) of the file as a step would, in one commit."""
    storage = services.storage
    snapshot = storage.load_step(sid, window=0)
    state = next(f for f in snapshot.files if f.file_id == fid)
    source = storage.read_file(sid, fid, 0, state.chars)
    covered, writes, position = state.covered, [], 0
    for number, (piece, text, status) in enumerate(units):
        start = source.index(piece, position)
        end = position = start + len(piece)
        writes.append(
            UnitWrite(file_id=fid, start=start, end=end, cover_end=end, text=text, call_id=f"c{number}", status=status)
        )  # type: ignore[arg-type]
        covered = add_span(covered, start, end)
    storage.commit(snapshot.token, StepEffects(units=writes, coverage={fid: covered}))


def xliff12(units: list[str], *, unit_id: Callable[[int], str] = lambda n: f"u{n}") -> str:
    body = "".join(f'<trans-unit id="{unit_id(n)}"><source>{s}</source></trans-unit>' for n, s in enumerate(units))
    return (
        '<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        f'<file original="app.html" source-language="en" target-language="fr" datatype="html"><body>{body}'
        "</body></file></xliff>"
    )


CODED = [
    'Click <g id="a">here</g> to <x id="b"/>start.',
    'Press <bpt id="c">&lt;b&gt;</bpt>Save<ept id="c">&lt;/b&gt;</ept> now.',
    'Open <g id="d">the <g id="e">file</g> menu</g>.',
    'Read <g id="f">this</g> and <g id="g">that</g>.',
    "Plain text.",
]
"""Sources as the file's text: `Click {1}here{/1} to {2}start.`, `Press {1}Save{/1} now.`, …"""


# -- caps, repeated mids, unreadable CSV: 422 and nothing stored -----------------------------------


def test_an_xliff_over_the_segment_cap_is_refused_before_anything_is_stored(
    api_of: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("interchange.xliff_source.MAX_SEGMENTS", 30)
    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    assert_refused(api_of.upload(sid, "big.xlf", xliff12([f"Sentence {n}." for n in range(31)])), 422, "30 segments")
    assert stored(api_of.services.storage, sid) == before
    assert api_of.upload(sid, "ok.xlf", xliff12([f"Sentence {n}." for n in range(30)])).status == 201


def test_documents_over_the_element_cap_are_refused_and_change_nothing(
    api_of: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("interchange._xml.MAX_XML_ELEMENTS", 200)
    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    notes = "".join("<note>n</note>" for _ in range(200))
    wide = xliff12(["One sentence."]).replace("</source>", f"</source>{notes}")
    assert_refused(api_of.upload(sid, "wide.xlf", wide), 422, "200 elements")
    assert stored(api_of.services.storage, sid) == before
    tus = "".join(
        f'<tu><tuv xml:lang="en"><seg>s{n}</seg></tuv><tuv xml:lang="fr"><seg>t{n}</seg></tuv></tu>' for n in range(60)
    )
    tmx = f'<tmx version="1.4"><header srclang="en"/><body>{tus}</body></tmx>'
    memory = api_of.call("GET", "/api/memory/export", query={"format": "tmx"}).text
    assert_refused(api_of.call("POST", "/api/memory/import", {"format": "tmx", "content": tmx}), 422, "200 elements")
    assert api_of.call("GET", "/api/memory/export", query={"format": "tmx"}).text == memory


@pytest.mark.parametrize("mids", [("1", "1"), ("a", "b", "a"), ("", "")])
def test_a_seg_source_repeating_a_mid_is_refused(api_of: Api, mids: tuple[str, ...]) -> None:
    marks = "".join(f'<mrk mtype="seg" mid="{m}">Part {n}.</mrk> ' for n, m in enumerate(mids))
    unit = f'<trans-unit id="t1"><source>{marks}</source><seg-source>{marks}</seg-source></trans-unit>'
    document = xliff12(["Other."]).replace("<body>", f"<body>{unit}")
    sid = api_of.session()
    before = stored(api_of.services.storage, sid)
    assert_refused(api_of.upload(sid, "seg.xlf", document), 422, "mid", "t1")
    assert stored(api_of.services.storage, sid) == before


@pytest.mark.parametrize(
    "content",
    [
        "source,target\n" + "x" * 131_073 + ",y\n",  # a field over the csv module's limit
        'source,target\n"a,b\n' + "c" * 140_000,  # an open quote that swallows the rest
    ],
)
def test_csv_the_csv_module_cannot_read_is_422_and_changes_nothing(api_of: Api, content: str) -> None:
    assert api_of.call("POST", "/api/memory/import", {"format": "csv", "content": "source,target\na,b\n"}).status == 200
    before = api_of.call("GET", "/api/memory").json()
    answer = api_of.call("POST", "/api/memory/import", {"format": "csv", "content": content})
    assert_refused(answer, 422, "csv", "131072")
    assert api_of.call("GET", "/api/memory").json() == before


@pytest.mark.parametrize(
    "fmt, content",
    [
        ("csv", "source,target\nNUL\x00here,b\n"),
        ("csv", "\ufeff\ufeffsource,target\na,b\n"),
        ("tmx", '<tmx version="1.4"><header srclang="en"/><body>\x00</body></tmx>'),
        ("tbx", "<tbx>" + "<a>" * 300 + "</a>" * 300 + "</tbx>"),
        ("tmx", '<tmx version="1.4"><header srclang="en"/><body><tu>' + "x" * 11_000_000 + "</tu></body></tmx>"),
    ],
)
def test_other_unreadable_imports_are_never_a_500(api_of: Api, fmt: str, content: str) -> None:
    answer = api_of.call("POST", "/api/memory/import", {"format": fmt, "content": content})
    assert answer.status in (200, 413, 422), (answer.status, answer.text[:300])
    assert "error" in answer.json() or answer.status == 200


# -- exports never fail on one target --------------------------------------------------------------


def coded_file(api_of: Api) -> tuple[str, str]:
    sid = api_of.session()
    answer = api_of.upload(sid, "app.xlf", xliff12(CODED))
    assert answer.status == 201, answer.text
    return sid, answer.json()["fileId"]


BAD_TARGETS = [
    ("Click {1}here{/1} to {2}start.", "Cliquez {1}ici{/1}{1} pour {2}démarrer.", "refined"),  # repeats {1}
    ("Press {1}Save{/1} now.", "Appuyez {/1}Enregistrer{1} maintenant.", "revised"),  # reordered
    ("Open {1}the {2}file{/2} menu{/1}.", "Ouvrez {1}le menu {2}fichier{/1}{/2}.", "refined"),  # crossed
    ("Read {1}this{/1} and {2}that{/2}.", "Lisez {1}ceci{/1} et {7}cela{/7}.", "approve"),  # invented
    ("Plain text.", "Texte simple.", "approve"),
]


def test_bad_placeholders_in_targets_never_fail_an_export(api_of: Api) -> None:
    sid, fid = coded_file(api_of)
    write_units(api_of.services, sid, fid, BAD_TARGETS)
    x2 = api_of.export(sid, fid, "xliff2")
    assert x2.headers["x-export-skipped"] == "4"
    assert_valid_xliff2(x2.text)
    root = etree.fromstring(x2.text.encode())
    segments = root.findall(".//x:segment", NS20)
    for segment, (_, text, _) in zip(segments[:4], BAD_TARGETS, strict=False):
        target = segment.find("x:target", NS20)
        assert target is not None and "".join(target.itertext()) == text and len(target) == 0
        assert segment.get("state") == "translated"
    notes = root.findall(".//x:note[@category='placeholders']", NS20)
    assert len(notes) == 4 and "more than once" in "".join(notes[0].itertext())
    assert segments[4].get("subState") == "tagent:approved"
    x12 = api_of.export(sid, fid, "xliff12")
    assert x12.headers["x-export-skipped"] == "4"
    states = [t.get("state") for t in etree.fromstring(x12.text.encode()).iterfind(".//x:target", NS12)]
    assert states == ["needs-review-translation"] * 4 + ["signed-off"]
    tmx = api_of.export(sid, fid, "tmx")
    assert tmx.headers["x-export-skipped"] == "4"  # left out
    assert [(p.source, p.target) for p in parse_tmx(tmx.text)] == [("Plain text.", "Texte simple.")]
    filled = api_of.export(sid, fid, "xliff")
    assert filled.headers["x-export-skipped"] == "4"
    document = parse_xliff(filled.text)
    assert [s.target for s in document.segments] == [text for _, text, _ in BAD_TARGETS]
    assert [s.status for s in document.segments] == ["pending"] * 4 + ["approved"]
    assert filled.text.count("<!--translation-agent: the placeholders") == 4


def test_good_targets_come_out_with_inline_elements_in_every_format(api_of: Api) -> None:
    sid, fid = coded_file(api_of)
    good = [
        ("Click {1}here{/1} to {2}start.", "Cliquez {1}ici{/1} pour {2}démarrer.", "approve"),
        ("Press {1}Save{/1} now.", "Appuyez maintenant sur {1}Enregistrer{/1}.", "refined"),
        ("Open {1}the {2}file{/2} menu{/1}.", "Ouvrez {1}le menu {2}fichier{/2}{/1}.", "approve"),
    ]
    write_units(api_of.services, sid, fid, good)
    x2 = api_of.export(sid, fid, "xliff2")
    assert x2.headers["x-export-skipped"] == "0" and "{1}" not in x2.text
    assert_valid_xliff2(x2.text)
    assert '<target>Cliquez <pc id="1">ici</pc> pour <ph id="2"/>démarrer.</target>' in x2.text
    assert '<sc id="1"/>Enregistrer<ec startRef="1"/>' in x2.text
    back = parse_xliff(x2.text)
    assert [s.target for s in back.segments[:3]] == [text for _, text, _ in good]
    x12 = api_of.export(sid, fid, "xliff12")
    assert 'Cliquez <g id="1">ici</g> pour <x id="2"/>démarrer.</target>' in x12.text
    assert '<bpt id="1">&lt;b&gt;</bpt>Enregistrer<ept id="1"/>' in x12.text
    assert [s.target for s in parse_xliff(x12.text).segments[:3]] == [text for _, text, _ in good]
    tmx = api_of.export(sid, fid, "tmx")
    assert '<seg>Cliquez <bpt i="1" x="1"/>ici<ept i="1"/> pour <ph x="2"/>démarrer.</seg>' in tmx.text
    assert len(parse_tmx(tmx.text)) == 3


def test_units_sharing_one_id_upload_and_export_with_distinct_ids(api_of: Api) -> None:
    sources = [f"Sentence <x id='1'/>{n}." for n in range(1500)]
    sid = api_of.session()
    answer = api_of.upload(sid, "same.xlf", xliff12(sources, unit_id=lambda n: "same"))
    assert answer.status == 201, answer.text
    fid = answer.json()["fileId"]
    write_units(api_of.services, sid, fid, [(f"Sentence {{1}}{n}.", f"Phrase {{1}}{n}.", "approve") for n in range(3)])
    filled = parse_xliff(api_of.export(sid, fid, "xliff").text)
    assert len({s.key for s in filled.segments}) == 1500
    assert [s.target for s in filled.segments[:4]] == ["Phrase {1}0.", "Phrase {1}1.", "Phrase {1}2.", None]
    root = etree.fromstring(api_of.export(sid, fid, "xliff2").text.encode())
    assert len({u.get("id") for u in root.iterfind(".//x:unit", NS20)}) == len(root.findall(".//x:unit", NS20))


# -- characters XML cannot hold ----------------------------------------------------------------------

CONTROLS = ["\x00", "\x07", "\x0b", "\x1f", "\ufffe"]
"""Lone surrogates cannot be stored (tests/interchange/test_hostile_text.py writes them)."""


@pytest.mark.parametrize("char", CONTROLS)
def test_control_characters_never_make_an_export_fail(api_of: Api, char: str) -> None:
    services, sid = api_of.services, api_of.session()
    upload = FileUpload.model_construct(name=f"guide{char}.md", content="Hello world.\n\nSecond.\n", keepVerbatim=True)
    state, _ = services.sessions.add_file(api_of.owner, sid, upload)
    write_units(services, sid, state.file_id, [("Hello world.", f"Bonjour{char} le monde.", "refined")])
    services.memory.add_glossary(api_of.owner, source=f"term{char}", target=f"terme{char}", languages="auto>french")
    for fmt in ("xliff2", "xliff12", "tmx", "md"):
        answer = api_of.export(sid, state.file_id, fmt)
        if fmt != "md":
            etree.fromstring(answer.text.encode())  # well-formed XML
    assert "Bonjour\ufffd le monde." in api_of.export(sid, state.file_id, "tmx").text
    for fmt in ("tbx", "csv", "tmx"):
        answer = api_of.call("GET", "/api/memory/export", query={"format": fmt})
        assert answer.status == 200, (fmt, answer.text[:200])
        if fmt == "tbx":
            assert "terme\ufffd" in answer.text
            etree.fromstring(answer.text.encode())


# -- verbatim text ------------------------------------------------------------------------------------

VERBATIM_DOC = "# Setup\n\nRun this:\n\n```sh\nmake install\n```\n\nSee https://example.com/guide\n\nDone.\n"


def test_verbatim_text_is_translate_no_in_xliff_and_absent_from_tmx(api_of: Api) -> None:
    sid = api_of.session()
    answer = api_of.upload(sid, "setup.md", VERBATIM_DOC)
    assert answer.status == 201, answer.text
    fid = answer.json()["fileId"]
    write_units(api_of.services, sid, fid, [("Run this:", "Lancez ceci :", "approve")])
    segments = api_of.call("GET", f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    verbatim = [s["source"] for s in segments if s["status"] == "verbatim"]
    assert "```sh\nmake install\n```" in verbatim
    root = etree.fromstring(api_of.export(sid, fid, "xliff2").text.encode())
    for unit in root.iterfind(".//x:unit", NS20):
        source = "".join(unit.find(".//x:source", NS20).itertext())
        target = unit.find(".//x:target", NS20)
        if source in verbatim:
            assert unit.get("translate") == "no" and target is not None and "".join(target.itertext()) == source
        else:
            assert unit.get("translate") is None
    root12 = etree.fromstring(api_of.export(sid, fid, "xliff12").text.encode())
    kept = root12.iterfind(".//x:trans-unit[@translate='no']", NS12)
    no = ["".join(u.find("x:source", NS12).itertext()) for u in kept]
    assert no == verbatim
    pairs = parse_tmx(api_of.export(sid, fid, "tmx").text)
    assert [(p.source, p.target) for p in pairs] == [("Run this:", "Lancez ceci :")]


# -- CSV formula injection ----------------------------------------------------------------------------

FORMULAS = ["=SUM(A1:A9)", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "'=already quoted", "''+twice", "a=b"]


def test_glossary_csv_neutralises_formulas_and_the_import_restores_them(api_of: Api, tmp_path: object) -> None:
    for n, text in enumerate(FORMULAS):
        api_of.services.memory.add_glossary(api_of.owner, source=f"term {n}", target=text, languages="auto>french")
    api_of.services.memory.add_glossary(api_of.owner, source="=HYPERLINK(x)", target="t", languages="auto>french")
    exported = api_of.call("GET", "/api/memory/export", query={"format": "csv"})
    assert exported.status == 200
    cells = [cell for line in exported.text.splitlines()[1:] for cell in line.split(",")[:2]]
    dangerous = [c for c in cells if c.strip('"')[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert dangerous == [], dangerous
    assert "'=SUM(A1:A9)" in exported.text and "'''+twice" in exported.text and ",a=b," in exported.text
    terms = {(t.source, t.target) for t in parse_glossary_csv(exported.text)}
    assert terms == {(f"term {n}", text) for n, text in enumerate(FORMULAS)} | {("=HYPERLINK(x)", "t")}
    fresh = services_for(make_backend("memory", tmp_path), model=resolve_model("pseudo"))  # type: ignore[arg-type]
    with TestClient(create_app(fresh)) as client:
        answer = client.post("/api/memory/import", json={"format": "csv", "content": exported.text})
        assert answer.status_code == 200 and answer.json()["added"] == len(FORMULAS) + 1
        again = client.get("/api/memory/export", params={"format": "csv"}).text
        assert sorted(again.splitlines()) == sorted(exported.text.splitlines())


def test_a_refined_verdict_that_breaks_placeholders_leaves_every_export_working(api_of: Api) -> None:
    """Through the review itself: the first proposal refined with `{1}` twice; the others approved."""
    sid, fid = coded_file(api_of)
    answer = api_of.call("POST", "/api/next", {"sessionId": sid, "userInput": "Translate app.xlf into French."})
    for _ in range(10):
        assert answer.status == 200, answer.text
        requests = answer.json()["agentResponse"]["copilotRequests"]
        if requests:
            break
        answer = api_of.call("POST", "/api/next", {"sessionId": sid})
    first = next(r for r in requests if "{1}" in r["translate_string"])
    broken = first["translate_string"].replace("{1}", "{1}{1}", 1)
    verdicts = [{"tool": first["tool"], "status": "refined", "translated_string": broken}]
    verdicts += [{"tool": r["tool"], "status": "approve"} for r in requests if r is not first]
    answer = api_of.call("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    assert answer.status == 200, answer.text
    for fmt in ("xliff", "xliff2", "xliff12", "tmx"):
        assert api_of.export(sid, fid, fmt).headers["x-export-skipped"] == "1", fmt
