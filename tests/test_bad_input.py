"""Text that is valid JSON but not a translation, or not storable, is refused on the way in (422, saying
which field) and changes nothing; nothing in the memory can make a session step on forever.

Every case runs through the ASGI app and the Lambda handler, on SQLite and on DynamoDB (moto).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ModelResponse, TextPart

import handlers.api as lambda_api
from agent_core.languages import task_languages
from agent_core.tm import TmEntry
from handlers.app import create_app
from handlers.deps import LazyServices
from handlers.identity import LOCAL_USER
from service.container import Services
from storage.interface import Storage, tm_record
from tests.client import Transport, lambda_transport
from tests.helpers import Script, calls, services_for, stored, translate

TASK = "Translate doc.md into French."
DOC = "Hello world.\n\nSecond paragraph.\n"
BLANKS = [" \n\t ", "\u00a0", "\u3000\u2003"]
CONTROLS = ["a\x00b", "tab\x0bbed", "esc\x1b[31m", "bell\x07", "\x1f", "lone \ud800 surrogate"]


@dataclass
class Desk:
    """The app over one backend, reached through one transport, with a scripted model."""

    call: Transport
    services: Services
    owner: str
    script: Script
    sid: str = ""
    fid: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def storage(self) -> Storage:
        return self.services.storage

    @property
    def base(self) -> str:
        return f"/api/sessions/{self.sid}/files/{self.fid}"

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.call(method, path, body)
        assert status < 300, (status, data)
        return data

    def start(self, content: str = DOC) -> None:
        self.sid = self.ok("POST", "/api/sessions")["id"]
        self.fid = self.ok("POST", f"/api/sessions/{self.sid}/files", {"name": "doc.md", "content": content})["fileId"]

    def next(self, **body: Any) -> dict[str, Any]:
        """One step; its agentResponse."""
        answer: dict[str, Any] = self.ok("POST", "/api/next", {"sessionId": self.sid, **body})["agentResponse"]
        self.steps.append(answer)
        return answer

    def until_user(self, **body: Any) -> dict[str, Any]:
        """Steps until the loop waits for the human; a session that never does fails the test."""
        agent = self.next(**body)
        for _ in range(6):
            if agent["actor"] == "user":
                return agent
            agent = self.next()
        raise AssertionError(f"the session never waited for the human: {self.steps[-3:]}")

    def refused(self, method: str, path: str, body: Any, *words: str) -> str:
        """`body` is answered 422 naming `words`, and the session is exactly as it was."""
        before = stored(self.storage, self.sid) if self.sid else None
        status, data = self.call(method, path, body)
        assert status == 422, (status, data)
        assert isinstance(data, dict) and set(data) == {"error"}, data
        for word in words:
            assert word in data["error"], (word, data)
        if before is not None:
            assert stored(self.storage, self.sid) == before
        return str(data["error"])


@pytest.fixture(params=["http", "lambda"])
def desk(request: pytest.FixtureRequest, storage: Storage) -> Iterator[Desk]:
    """A desk over each backend (the `storage` fixture) and each transport."""
    script = Script()
    services = services_for(storage, model=script.model)
    if request.param == "http":
        with TestClient(create_app(services)) as client:

            def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
                response = client.request(method, path, content=_dumps(body), headers=_JSON)
                return response.status_code, response.json() if response.content else None

            yield Desk(call, services, LOCAL_USER, script)
        return
    previous = lambda_api.app.state.services
    lambda_api.app.state.services = LazyServices(services)
    try:
        yield Desk(lambda_transport(lambda_api.handler), services, "user-alice", script)
    finally:
        lambda_api.app.state.services = previous


_JSON = {"content-type": "application/json"}


def _dumps(body: Any) -> bytes | None:
    """JSON that keeps a lone surrogate as its `\\ud800` escape (as a client's JSON.stringify sends it)."""
    return None if body is None else json.dumps(body).encode()


def written(d: Desk) -> dict[str, Any]:
    """A session with `Hello world.` written (approved) and the second paragraph proposed, pending."""
    d.start()
    d.script.replies += [
        calls(translate(d.fid, "Hello world.", "Bonjour le monde.", call_id="c1")),
        calls(translate(d.fid, "Second paragraph.", "Deuxième paragraphe.", call_id="c2")),
    ]
    first = d.until_user(userInput=TASK)
    [request] = first["copilotRequests"]
    second = d.next(copilotResponses=[{"tool": request["tool"], "status": "approve"}])
    [pending] = second["copilotRequests"]
    return dict(pending)


# -- item 1: blank targets ------------------------------------------------------------------------


@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_revision_is_422_and_changes_nothing(desk: Desk, blank: str) -> None:
    pending = written(desk)
    desk.next(copilotResponses=[{"tool": pending["tool"], "status": "reject", "reason": "later"}])
    desk.refused("PUT", f"{desk.base}/segments/0", {"translated_string": blank}, "translated_string", "blank")
    assert desk.storage.list_units(desk.sid, desk.fid)[0].text == "Bonjour le monde."


@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_refined_verdict_is_422_and_changes_nothing(desk: Desk, blank: str) -> None:
    pending = written(desk)
    verdict = {"tool": pending["tool"], "status": "refined", "translated_string": blank}
    desk.refused("POST", "/api/next", {"sessionId": desk.sid, "copilotResponses": [verdict]}, "translated_string")
    approve = {"tool": pending["tool"], "status": "approve", "translated_string": blank}
    desk.refused("POST", "/api/next", {"sessionId": desk.sid, "copilotResponses": [approve]}, "translated_string")
    view = desk.ok("GET", f"/api/sessions/{desk.sid}")
    assert [r["tool"]["callId"] for r in view["pendingCopilotRequests"]] == ["c2"]


@pytest.mark.parametrize("blank", ["", *BLANKS])
def test_a_blank_glossary_entry_style_note_or_user_input_is_422(desk: Desk, blank: str) -> None:
    desk.start()
    desk.refused("POST", "/api/memory/glossary", {"source": "release", "target": blank}, "target")
    desk.refused("POST", "/api/memory/glossary", {"source": blank, "target": "version"}, "source")
    desk.refused("POST", "/api/memory/style-notes", {"text": blank}, "text")
    if blank:
        desk.refused("POST", "/api/next", {"sessionId": desk.sid, "userInput": blank}, "userInput")
    assert desk.ok("GET", "/api/memory")["glossary"] == []


def test_a_blank_target_in_the_translation_memory_is_never_proposed(desk: Desk) -> None:
    """The model translates the unit instead; the session waits for the human at once, never looping."""
    entry = TmEntry(source="Hello world.", target=" \n\t ", languages=task_languages(TASK))
    desk.storage.put_tm(desk.owner, [tm_record(entry)], max_entries=100)
    desk.start()
    desk.script.replies += [calls(translate(desk.fid, "Hello world.", "Bonjour le monde.", call_id="c1"))]
    agent = desk.until_user(userInput=TASK)
    [request] = agent["copilotRequests"]
    assert (request["origin"], request["translate_string"]) == ("model", "Bonjour le monde.")
    assert len(desk.script.seen) == 1


def test_a_model_answer_of_nothing_ends_the_turn_with_a_notice(desk: Desk) -> None:
    desk.start()
    desk.script.replies += [ModelResponse(parts=[TextPart(" \n")])]
    agent = desk.next(userInput=TASK)
    assert agent["actor"] == "user" and agent["copilotRequests"] == []
    assert "nothing" in agent["notice"].lower()


# -- item 7: control characters and lone surrogates -----------------------------------------------


@pytest.mark.parametrize("bad", CONTROLS)
def test_a_control_character_is_422_naming_the_field(desk: Desk, bad: str) -> None:
    pending = written(desk)
    sid = desk.sid
    desk.refused("POST", "/api/next", {"sessionId": sid, "userInput": f"Also {bad}"}, "userInput")
    for status in ("refined", "approve"):
        verdict = {"tool": pending["tool"], "status": status, "translated_string": f"Deux {bad}"}
        desk.refused("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]}, "translated_string")
    verdict = {"tool": pending["tool"], "status": "reject", "reason": f"no {bad}"}
    desk.refused("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]}, "reason")
    desk.refused("POST", f"/api/sessions/{sid}/files", {"name": f"x{bad}.md", "content": "Hi."}, "name")
    desk.refused("POST", "/api/memory/glossary", {"source": f"a{bad}z", "target": "b"}, "source")
    desk.refused("POST", "/api/memory/glossary", {"source": "a", "target": f"b{bad}z"}, "target")
    desk.refused("POST", "/api/memory/style-notes", {"text": f"Use {bad} here"}, "text")
    desk.refused("POST", f"{desk.base}/qa", {"source": "Hello.", "translated_string": f"B{bad}"}, "translated_string")
    assert desk.ok("GET", "/api/memory")["glossary"] == []


def test_a_control_character_in_a_revision_is_422(desk: Desk) -> None:
    pending = written(desk)
    desk.next(copilotResponses=[{"tool": pending["tool"], "status": "reject"}])
    for bad in CONTROLS:
        body = {"translated_string": f"Bonjour{bad}", "reason": "typo"}
        desk.refused("PUT", f"{desk.base}/segments/0", body, "translated_string")
        desk.refused("PUT", f"{desk.base}/segments/0", {"translated_string": "Salut", "reason": bad}, "reason")


# -- item 1's class: names that cannot name a file ---------------------------------------------------


@pytest.mark.parametrize("name", ["   ", "../etc/passwd", "docs/guide.md", "a\\b.md", "two\nlines.md", "..", "."])
def test_a_file_name_that_is_blank_or_a_path_is_422(desk: Desk, name: str) -> None:
    desk.start()
    desk.refused("POST", f"/api/sessions/{desk.sid}/files", {"name": name, "content": "Hi."}, "name")
    assert len(desk.ok("GET", f"/api/sessions/{desk.sid}")["files"]) == 1


# -- item 5 (review half): inline-code placeholders --------------------------------------------------

XLIFF = """<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="a" source-language="en" target-language="fr" datatype="plaintext"><body>
<trans-unit id="1"><source>Click <g id="b">here</g> now<x id="br"/>.</source></trans-unit>
<trans-unit id="2"><source>Second <g id="i">one</g>.</source></trans-unit></body></file></xliff>"""
FIRST = "Click {1}here{/1} now{2}."
BROKEN = {
    "repeated": ("Cliquez {1}ici{/1} {2} maintenant{2}.", "{2}"),
    "reordered": ("Cliquez {/1}ici{1} maintenant{2}.", "{/1}"),
    "invented": ("Cliquez {1}ici{/1} maintenant{2}{7}.", "{7}"),
    "left open": ("Cliquez {1}ici maintenant{2}.", "{1}"),
}
CROSSED = ("A {1}b {2}c{/2}{/1}.", "A {1}b {2}c{/1}{/2}.")


def xliff_desk(d: Desk) -> None:
    d.sid = d.ok("POST", "/api/sessions")["id"]
    d.fid = d.ok("POST", f"/api/sessions/{d.sid}/files", {"name": "ui.xlf", "content": XLIFF})["fileId"]


def codes_warnings(answer: dict[str, Any]) -> list[str]:
    return [w["message"] for w in answer["warnings"] if w["code"] == "inline_codes"]


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_qa_and_a_revision_warn_of_broken_inline_codes(desk: Desk, case: str) -> None:
    text, code = BROKEN[case]
    xliff_desk(desk)
    qa = desk.ok("POST", f"{desk.base}/qa", {"source": FIRST, "translated_string": text})
    assert any(code in m for m in codes_warnings(qa)), qa
    good = desk.ok("POST", f"{desk.base}/qa", {"source": FIRST, "translated_string": "Cliquez {1}ici{/1}{2}."})
    assert codes_warnings(good) == []
    desk.script.replies += [calls(translate(desk.fid, FIRST, "Cliquez {1}ici{/1} maintenant{2}.", call_id="c1"))]
    [request] = desk.until_user(userInput=TASK)["copilotRequests"]
    desk.script.replies += [ModelResponse(parts=[TextPart("Done.")])]
    desk.until_user(copilotResponses=[{"tool": request["tool"], "status": "approve"}])
    revised = desk.ok("PUT", f"{desk.base}/segments/0", {"translated_string": text})
    assert any(code in m for m in codes_warnings(revised)), revised


def test_qa_warns_of_crossed_pairs_only_where_the_source_nests_them(desk: Desk) -> None:
    xliff_desk(desk)
    source, crossed = CROSSED
    qa = desk.ok("POST", f"{desk.base}/qa", {"source": source, "translated_string": crossed})
    assert any("cross" in m for m in codes_warnings(qa)), qa
    kept = desk.ok("POST", f"{desk.base}/qa", {"source": crossed, "translated_string": crossed})
    assert codes_warnings(kept) == []


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_model_proposal_that_breaks_inline_codes_is_refused_to_the_model(desk: Desk, case: str) -> None:
    text, code = BROKEN[case]
    xliff_desk(desk)
    desk.script.replies += [
        calls(translate(desk.fid, FIRST, text, call_id="bad")),
        calls(translate(desk.fid, FIRST, "Cliquez {1}ici{/1} maintenant{2}.", call_id="good")),
    ]
    agent = desk.until_user(userInput=TASK)
    assert [r["tool"]["callId"] for r in agent["copilotRequests"]] == ["good"]
    told = json.dumps([m for m in desk.script.seen[1][-1:]], default=str)
    assert "inline codes" in told and code in told, told


# -- item 11: a model answer too large to keep --------------------------------------------------------


def test_a_model_answer_too_large_to_store_is_503_and_says_what_to_do(desk: Desk) -> None:
    desk.start()
    desk.script.replies += [ModelResponse(parts=[TextPart("Très long. " * 60_000)])]
    before = stored(desk.storage, desk.sid)
    status, data = desk.call("POST", "/api/next", {"sessionId": desk.sid, "userInput": TASK})
    assert status == 503, (status, data)
    message = data["error"]
    assert "model's answer was too large" in message and "BATCH_CHARS" in message, message
    assert "shorter text" not in message
    assert stored(desk.storage, desk.sid) == before
    desk.script.replies += [ModelResponse(parts=[TextPart("Ready.")])]
    assert desk.next(userInput=TASK)["actor"] == "user"


@pytest.mark.parametrize(
    ("path", "body", "words"),
    [
        ("/api/next", {"userInput": "x" * 20_001}, "at most 20000 characters"),
        ("/api/memory/glossary", {"source": "a", "target": "b", "languages": "x" * 101}, "at most 100 characters"),
        ("/api/memory/glossary", {"source": "a" * 201, "target": "b"}, "at most 200 characters"),
    ],
)
def test_text_over_its_limit_is_422_in_characters(desk: Desk, path: str, body: dict[str, Any], words: str) -> None:
    desk.start()
    if path == "/api/next":
        body = {"sessionId": desk.sid, **body}
    desk.refused("POST", path, body, words)


def test_a_reason_over_its_limit_is_422(desk: Desk) -> None:
    pending = written(desk)
    verdict = {"tool": pending["tool"], "status": "reject", "reason": "r" * 5_001}
    desk.refused("POST", "/api/next", {"sessionId": desk.sid, "copilotResponses": [verdict]}, "reason", "5000")
    desk.next(copilotResponses=[{"tool": pending["tool"], "status": "reject"}])
    body = {"translated_string": "Salut.", "reason": "r" * 5_001}
    desk.refused("PUT", f"{desk.base}/segments/0", body, "reason", "5000")
