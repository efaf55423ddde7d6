"""The memory routes and learning through the Lambda handler, with the pseudo model (as deployed)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from typing import Any

import pytest

import handlers.api as api
from agent_core.distill import distiller_for
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from service.container import Services
from storage.interface import Storage
from tests.client import ScriptedClient, Transport, lambda_transport
from tests.conftest import make_backend
from tests.helpers import services_for

ALICE, BOB = "user-alice", "user-bob"
FILLER = "".join(f"Step {n} needs no setup.\n\n" for n in range(1, 21))
DOC = f"Install the tool, then run the exporter.\n\n{FILLER}The tool writes 3 files to {{dir}}.\n"
"""The term twice, with a screen of units between: the second comes in a later batch than the first."""


@pytest.fixture(params=["memory", "dynamodb"])
def services(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Services]:
    """The module-level Lambda app on a fresh backend, with the pseudo model and its distiller."""
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    storage = make_backend(request.param, tmp_path)
    assert isinstance(storage, Storage)
    model = resolve_model("pseudo")
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage, model=model, distiller=distiller_for(model)))
    yield api.app.state.services.get()
    api.app.state.services = previous


def start(call: Transport, content: str = DOC) -> ScriptedClient:
    status, created = call("POST", "/api/sessions", None)
    assert status == 201
    status, _ = call("POST", f"/api/sessions/{created['id']}/files", {"name": "doc.md", "content": content})
    assert status == 201
    return ScriptedClient(call, session_id=created["id"])


def test_an_edit_teaches_the_glossary_and_the_next_proposal_is_checked_against_it(services: Services) -> None:
    alice, bob = lambda_transport(api.handler, sub=ALICE), lambda_transport(api.handler, sub=BOB)
    client = start(alice)
    agent = client.do_next({"userInput": "Translate doc.md into French."})
    first = agent["copilotRequests"][0]
    assert first["src_string"] == "Install the tool, then run the exporter." and first["warnings"] == []
    edited = first["translate_string"].replace("ţóóĺ", "outil")
    verdict = {"tool": first["tool"], "status": "refined", "translated_string": edited}
    rest = agent["copilotRequests"][1:]
    approvals = [{"tool": r["tool"], "status": "approve"} for r in rest]
    agent = client.do_next({"copilotResponses": [verdict, *approvals]})

    status, memory = alice("GET", "/api/memory", None)
    assert status == 200
    [entry] = memory["glossary"]
    assert {k: entry[k] for k in ("source", "target", "languages", "origin")} == {
        "source": "tool",
        "target": "outil",
        "languages": "auto>french",
        "origin": "learned",
    }
    assert entry["id"].startswith("m_") and entry["createdAt"]
    assert memory["styleNotes"] == []
    assert [(c["status"], c["final"]) for c in memory["corrections"]] == [("refined", edited)]
    assert bob("GET", "/api/memory", None) == (200, {"glossary": [], "styleNotes": [], "corrections": []})

    # A later unit has the term again; the pseudo proposal keeps "ţóóĺ": the card warns.
    assert all("tool" not in r["src_string"] for r in rest), "the term's second unit is in a later batch"
    later = next(r for r in agent["copilotRequests"] if "tool" in r["src_string"])
    warnings = [w["message"] for w in later["warnings"]]
    assert "Glossary: «tool» should be translated as «outil»." in warnings
    assert "{dir}" in later["translate_string"] and not any("placeholder" in w for w in warnings)
    # The same warnings come back with the session view (a reload).
    status, view = alice("GET", f"/api/sessions/{client.session_id}", None)
    assert [r["warnings"] for r in view["pendingCopilotRequests"]] == [r["warnings"] for r in agent["copilotRequests"]]

    # A new session of another owner gets no warning for the same text.
    other = start(bob).do_next({"userInput": "Translate doc.md into French."})
    assert other["copilotRequests"][0]["src_string"] == first["src_string"]
    assert all(not any("Glossary" in w["message"] for w in r["warnings"]) for r in other["copilotRequests"])


def test_a_rejection_with_a_rule_becomes_a_style_note(services: Services) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    client = start(alice, "Hello there.\n")
    agent = client.do_next({"userInput": "Translate doc.md into French."})
    reason = "Always use the formal vous."
    tool = agent["copilotRequests"][0]["tool"]
    client.do_next({"copilotResponses": [{"tool": tool, "status": "reject", "reason": reason}]})
    status, memory = alice("GET", "/api/memory", None)
    assert status == 200 and [(n["text"], n["origin"]) for n in memory["styleNotes"]] == [(reason, "learned")]
    assert memory["corrections"][0]["reason"] == reason and memory["corrections"][0]["final"] is None


def test_the_memory_routes(services: Services) -> None:
    alice, bob = lambda_transport(api.handler, sub=ALICE), lambda_transport(api.handler, sub=BOB)
    body = {"source": " tool ", "target": "outil", "languages": "French"}
    status, entry = alice("POST", "/api/memory/glossary", body)
    assert status == 201
    shown = (entry["source"], entry["target"], entry["languages"], entry["origin"])
    assert shown == ("tool", "outil", "auto>french", "user")
    status, anywhere = alice("POST", "/api/memory/glossary", {"source": "exporter", "target": "exportateur"})
    assert status == 201 and anywhere["languages"] == "auto>*"
    status, note = alice("POST", "/api/memory/style-notes", {"text": "Use vous."})
    assert status == 201 and set(note) >= {"id", "text", "createdAt", "origin"} and note["origin"] == "user"

    status, memory = alice("GET", "/api/memory", None)
    assert status == 200
    assert [g["source"] for g in memory["glossary"]] == ["exporter", "tool"], "most recently changed first"
    assert [n["text"] for n in memory["styleNotes"]] == ["Use vous."]

    # Another caller neither sees nor deletes it: 404, like an unknown or malformed id.
    assert bob("GET", "/api/memory", None)[1]["glossary"] == []
    for path in (f"/api/memory/{entry['id']}", "/api/memory/m_" + "0" * 32, "/api/memory/not-an-id"):
        status, body = bob("DELETE", path, None)
        assert status == 404 and set(body) == {"error"}
    assert alice("DELETE", f"/api/memory/{entry['id']}", None)[0] == 204
    assert alice("DELETE", f"/api/memory/{entry['id']}", None)[0] == 404
    assert alice("DELETE", f"/api/memory/{note['id']}", None)[0] == 204
    status, memory = alice("GET", "/api/memory", None)
    assert [g["source"] for g in memory["glossary"]] == ["exporter"] and memory["styleNotes"] == []


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/memory/glossary", {"source": "tool"}, "target"),
        ("/api/memory/glossary", {"source": "   ", "target": "outil"}, "source"),
        ("/api/memory/glossary", {"source": "tool", "target": "x" * 201}, "target"),
        ("/api/memory/glossary", {"source": "tool", "target": "outil", "languages": "a>b>c"}, "languages"),
        ("/api/memory/glossary", {"source": "tool", "target": "outil", "extra": 1}, "extra"),
        ("/api/memory/glossary", ["tool", "outil"], "body"),
        ("/api/memory/style-notes", {}, "text"),
        ("/api/memory/style-notes", {"text": ""}, "text"),
        ("/api/memory/style-notes", {"text": "x" * 501}, "text"),
    ],
)
def test_bad_memory_bodies_are_422(services: Services, path: str, body: Any, words: str) -> None:
    status, answer = lambda_transport(api.handler, sub=ALICE)("POST", path, body)
    assert status == 422 and set(answer) == {"error"} and words in answer["error"], answer
    assert lambda_transport(api.handler, sub=ALICE)("GET", "/api/memory", None)[1]["glossary"] == []


def glossary_csv(prefix: str, count: int) -> dict[str, str]:
    rows = "".join(f"{prefix} term {k},{prefix} terme {k}\n" for k in range(count))
    return {"format": "csv", "content": "source,target\n" + rows, "languages": "french"}


def test_two_glossary_imports_sent_together_store_one_whole_and_refuse_the_other(services: Services) -> None:
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    start = Barrier(2)

    def send(prefix: str) -> tuple[int, Any]:
        asyncio.set_event_loop(asyncio.new_event_loop())  # the handler runs the app on the thread's loop
        alice = lambda_transport(api.handler, sub=ALICE)
        start.wait()
        return alice("POST", "/api/memory/import", glossary_csv(prefix, 150))

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = dict(zip("ab", pool.map(send, "ab"), strict=True))
    statuses = sorted(status for status, _ in answers.values())
    assert statuses == [200, 422], answers
    (won,) = [p for p, (status, _) in answers.items() if status == 200]
    (lost,) = [body for status, body in answers.values() if status == 422]
    assert answers[won][1] == {"added": 150, "updated": 0, "skipped": 0} and "at most" in lost["error"]
    status, memory = lambda_transport(api.handler, sub=ALICE)("GET", "/api/memory", None)
    assert status == 200
    assert sorted(g["source"] for g in memory["glossary"]) == sorted(f"{won} term {k}" for k in range(150))


def test_blank_translations_in_an_import_are_skipped_and_never_stored(services: Services) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    tmx = (
        '<?xml version="1.0"?><tmx version="1.4"><header srclang="en" segtype="sentence" datatype="plaintext" '
        'adminlang="en" creationtool="t" creationtoolversion="1" o-tmf="t"/><body>'
        '<tu><tuv xml:lang="en"><seg>Kept.</seg></tuv><tuv xml:lang="fr"><seg>Gardé.</seg></tuv></tu>'
        '<tu><tuv xml:lang="en"><seg>Blank.</seg></tuv><tuv xml:lang="fr"><seg> \n\t </seg></tuv></tu>'
        "</body></tmx>"
    )
    status, counts = alice("POST", "/api/memory/import", {"format": "tmx", "content": tmx})
    assert (status, counts) == (200, {"added": 1, "updated": 0, "skipped": 1})
    status, exported = alice("GET", "/api/memory/export?format=tmx", None)
    text = base64.b64decode(exported).decode()  # a download: API Gateway's body is base64
    assert status == 200 and "Gardé." in text and "Blank." not in text
    tbx = """<?xml version="1.0"?><tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">
    <tbxHeader><fileDesc><sourceDesc><p>t</p></sourceDesc></fileDesc></tbxHeader><text><body>
    <conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>workspace</term></termSec></langSec>
    <langSec xml:lang="de"><termSec><term>Arbeitsbereich</term></termSec></langSec></conceptEntry>
    <conceptEntry id="c2"><langSec xml:lang="en"><termSec><term>tool</term></termSec></langSec>
    <langSec xml:lang="de"><termSec><term>  </term></termSec></langSec></conceptEntry>
    </body></text></tbx>"""
    status, counts = alice("POST", "/api/memory/import", {"format": "tbx", "content": tbx})
    assert (status, counts) == (200, {"added": 1, "updated": 0, "skipped": 1})
    status, memory = alice("GET", "/api/memory", None)
    assert [g["source"] for g in memory["glossary"]] == ["workspace"]


def test_a_memory_write_that_fails_after_the_commit_leaves_the_answer_200(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    from storage.errors import StorageUnavailableError

    def unreachable(*_: Any, **__: Any) -> None:
        raise StorageUnavailableError("The session store is unreachable (injected).")

    alice = lambda_transport(api.handler, sub=ALICE)
    client = start(alice)
    agent = client.do_next({"userInput": "Translate doc.md into French."})
    first = agent["copilotRequests"][0]
    edited = first["translate_string"].replace("ţóóĺ", "outil")
    verdicts = [{"tool": first["tool"], "status": "refined", "translated_string": edited}]
    verdicts += [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"][1:]]
    monkeypatch.setattr(type(services.storage), "put_memory_entries", unreachable)
    agent = client.do_next({"copilotResponses": verdicts})  # asserts a 200
    assert agent is not None
    monkeypatch.undo()
    status, memory = alice("GET", "/api/memory", None)
    assert status == 200 and memory["glossary"] == [], "the lesson was lost, not the step"
    assert [c["final"] for c in memory["corrections"]] == [edited], "the step committed its correction"
