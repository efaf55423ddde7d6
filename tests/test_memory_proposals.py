"""The translation memory through the HTTP API: repetitions proposed without a model request, fuzzy
references on the card and in the request, text kept verbatim at upload, and queued user input."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from agent_core.tools.base import is_memory_call
from handlers.app import create_app
from handlers.identity import LOCAL_USER
from service.container import Services
from service.schemas import FileUpload, NextRequest
from storage.sqlite import SQLiteStorage
from tests.helpers import Script, calls, services_for, translate

FRENCH = "Translate doc.md into French."


class Api:
    """A caller of the ASGI app in-process (identity: the local user, or `sub` through a JWT claim)."""

    def __init__(self, services: Services) -> None:
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")

    async def call(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        response = await self.client.request(method, path, json=body, headers=headers)
        assert response.status_code < 300, (response.status_code, response.text)
        return response.json() if response.content else None

    async def start(self, content: str, **upload: Any) -> tuple[str, str]:
        """A session with the file; the test scripts the model, then asks (`ask`)."""
        sid = (await self.call("POST", "/api/sessions"))["id"]
        fid = (await self.call("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": content, **upload}))[
            "fileId"
        ]
        return sid, fid

    async def ask(self, sid: str, task: str = FRENCH) -> dict[str, Any]:
        """The task, then the step that executes the model's proposals (the reviews to answer)."""
        await self.next(sid, userInput=task)
        return await self.next(sid)

    async def next(self, sid: str, **body: Any) -> dict[str, Any]:
        data: dict[str, Any] = await self.call("POST", "/api/next", {"sessionId": sid, **body})
        return data

    async def approve_all(self, sid: str, requests: list[dict[str, Any]]) -> dict[str, Any]:
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
        return await self.next(sid, copilotResponses=verdicts)


def state_of(messages: list[Any]) -> str:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return "\n".join(p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))


DOC = "## Fixed\n\nThe first fix.\n\n## Fixed\n\nThe second fix.\n"


async def test_a_repeated_heading_is_proposed_from_memory_without_a_model_request() -> None:
    script = Script()
    api = Api(services_for(model=script.model))
    sid, fid = await api.start(DOC)
    script.replies += [calls(translate(fid, "## Fixed", "## Corrigé", call_id="a"))]
    first = await api.ask(sid)
    assert [r["origin"] for r in first["agentResponse"]["copilotRequests"]] == ["model"]
    script.replies += [calls(translate(fid, "The first fix.", "La première correction.", call_id="b"))]
    second = await api.approve_all(sid, first["agentResponse"]["copilotRequests"])
    second = await api.next(sid)
    asked = len(script.seen)
    memory = await api.approve_all(sid, second["agentResponse"]["copilotRequests"])
    [proposal] = memory["agentResponse"]["copilotRequests"]
    assert (proposal["origin"], proposal["match"], proposal["start"]) == ("memory", 100, DOC.index("## Fixed", 5))
    assert proposal["translate_string"] == "## Corrigé"
    assert len(script.seen) == asked, "the repetition cost no model request"
    script.replies += [calls(translate(fid, "The second fix.", "La seconde correction.", call_id="c"))]
    await api.approve_all(sid, [proposal])
    last = await api.next(sid)
    ids = {getattr(p, "tool_call_id", None) for m in script.seen[-1] for p in m.parts}
    assert not any(is_memory_call(str(i)) for i in ids) and "b" not in ids, (
        "the model sees neither the memory's proposals nor its own decided ones (their outcome is in the note)"
    )
    await api.approve_all(sid, last["agentResponse"]["copilotRequests"])
    text = (await api.client.get(f"/api/sessions/{sid}/files/{fid}/translation")).text
    assert text == "## Corrigé\n\nLa première correction.\n\n## Corrigé\n\nLa seconde correction.\n"
    units = (await api.call("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"]
    assert [u["status"] for u in units] == ["approve"] * 4


async def test_a_memory_proposal_approved_as_it_is_is_not_written_again() -> None:
    script = Script()
    services = services_for(model=script.model)
    api = Api(services)
    sid, fid = await api.start(DOC)
    script.replies += [calls(translate(fid, "## Fixed", "## Corrigé", call_id="a"))]
    first = await api.ask(sid)
    script.replies += [calls(translate(fid, "The first fix.", "La première correction.", call_id="b"))]
    await api.approve_all(sid, first["agentResponse"]["copilotRequests"])
    second = await api.next(sid)
    memory = await api.approve_all(sid, second["agentResponse"]["copilotRequests"])
    before = {e.source: e.updated_at for e in services.storage.tm_entries(LOCAL_USER)}
    script.replies += [calls(translate(fid, "The second fix.", "La seconde correction.", call_id="c"))]
    await api.approve_all(sid, memory["agentResponse"]["copilotRequests"])  # the heading, from memory
    after = {e.source: e.updated_at for e in services.storage.tm_entries(LOCAL_USER)}
    assert after == before, "the remembered translation kept as it is: nothing to write"


async def _finished_heading(api: Api, script: Script) -> None:
    sid, fid = await api.start("## Fixed\n")
    script.replies += [calls(translate(fid, "## Fixed", "## Corrigé", call_id="a"))]
    first = await api.ask(sid)
    await api.approve_all(sid, first["agentResponse"]["copilotRequests"])


@pytest.mark.parametrize(
    ("task", "from_memory"),
    [
        ("Translate doc.md into French.", True),
        ("Please translate it into french, formal register.", True),
        ("Translate doc.md into German.", False),
    ],
)
async def test_memory_serves_the_same_owner_and_target_language_only(
    task: str, from_memory: bool, tmp_path: Any
) -> None:
    script = Script()
    storage = SQLiteStorage(str(tmp_path / "s.sqlite3"))
    await _finished_heading(Api(services_for(storage, model=script.model)), script)
    other = Api(services_for(storage, model=script.model))
    asked = len(script.seen)
    sid, fid = await other.start("## Fixed\n\nMore.\n")
    script.replies += [calls(translate(fid, "## Fixed", "## Behoben", call_id="z"))]
    await other.next(sid, userInput=task)
    step = await other.next(sid)
    [proposal] = step["agentResponse"]["copilotRequests"]
    assert (proposal["origin"] == "memory") is from_memory
    if from_memory:
        assert proposal["translate_string"] == "## Corrigé" and len(script.seen) == asked, "no model request"
    else:
        assert proposal["translate_string"] == "## Behoben" and len(script.seen) == asked + 1


async def test_another_owners_memory_proposes_nothing(tmp_path: Any) -> None:
    script = Script()
    storage = SQLiteStorage(str(tmp_path / "s.sqlite3"))
    services = services_for(storage, model=script.model)
    await _finished_heading(Api(services), script)  # the local user's memory holds the heading
    sid = services.sessions.create("bob").session_id
    fid = services.sessions.add_file("bob", sid, FileUpload(name="doc.md", content="## Fixed\n"))[0].file_id
    script.replies += [calls(translate(fid, "## Fixed", "## Behoben", call_id="z"))]
    await services.steps.next("bob", NextRequest(sessionId=sid, userInput=FRENCH))
    answer = await services.steps.next("bob", NextRequest(sessionId=sid))
    assert answer.body is not None
    [proposal] = answer.body.agentResponse.copilotRequests
    assert (proposal.origin, proposal.translate_string) == ("model", "## Behoben")


async def test_similar_sources_reach_the_card_and_the_model() -> None:
    script = Script()
    api = Api(services_for(model=script.model))
    sid, fid = await api.start("Run the exporter with the default options.\n")
    script.replies += [calls(translate(fid, "Run the exporter with the default options.", "Lancez.", call_id="a"))]
    first = await api.ask(sid)
    await api.approve_all(sid, first["agentResponse"]["copilotRequests"])
    sid2, fid2 = await api.start("Run the exporter with the verbose options.\n")
    script.replies += [calls(translate(fid2, "Run the exporter with the verbose options.", "Lancez -v.", call_id="b"))]
    card = (await api.ask(sid2))["agentResponse"]["copilotRequests"][0]
    [reference] = card["references"]
    assert reference["source"] == "Run the exporter with the default options." and reference["target"] == "Lancez."
    assert 75 <= reference["score"] < 100 and ["delete", "default"] in [list(p) for p in reference["diff"]]
    assert "«Run the exporter with the default options.» → «Lancez.»" in state_of(script.seen[-1])


async def test_code_and_front_matter_are_written_as_they_are_at_upload() -> None:
    script = Script()
    api = Api(services_for(model=script.model))
    doc = "---\ntitle: Guide\n---\n\nInstall it:\n\n```console\n$ typer main.py run --help\n```\n\nDone.\n"
    sid, fid = await api.start(doc)
    units = (await api.call("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"]
    assert [(u["status"], u["text"]) for u in units] == [
        ("verbatim", "---\ntitle: Guide\n---"),
        ("verbatim", "```console\n$ typer main.py run --help\n```"),
    ]
    script.replies += [calls(translate(fid, "Install it:", "Installez-le :", call_id="a"))]
    step = await api.ask(sid)
    state = state_of(script.seen[-1])
    assert '<next-text file="f1">【s2】Install it:' in state
    assert [r["src_string"] for r in step["agentResponse"]["copilotRequests"]] == ["Install it:"]
    script.replies += [calls(translate(fid, "Done.", "Fini.", call_id="b"))]
    after = await api.approve_all(sid, step["agentResponse"]["copilotRequests"])
    assert "typer" not in state_of(script.seen[-1]), "the code is not shown to the model as text to translate"
    after = await api.next(sid)
    await api.approve_all(sid, after["agentResponse"]["copilotRequests"])
    text = (await api.client.get(f"/api/sessions/{sid}/files/{fid}/translation")).text
    assert text == "---\ntitle: Guide\n---\n\nInstallez-le :\n\n```console\n$ typer main.py run --help\n```\n\nFini.\n"


async def test_without_keep_verbatim_the_model_translates_everything() -> None:
    api = Api(services_for(model=Script().model))
    sid, fid = await api.start("```\ncode\n```\n", keepVerbatim=False)
    assert (await api.call("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"] == []


async def test_input_sent_while_reviews_are_pending_is_queued_and_reaches_the_next_request() -> None:
    script = Script()
    api = Api(services_for(model=script.model))
    sid, fid = await api.start("One.\n\nTwo.\n")
    script.replies += [calls(translate(fid, "One.", "Un.", call_id="a"))]
    pending = (await api.ask(sid))["agentResponse"]["copilotRequests"]
    assert len(pending) == 1
    asked = len(script.seen)
    body = {"sessionId": sid, "userInput": "Use the formal register."}
    queued = await api.call("POST", "/api/next", body, **{"Idempotency-Key": "q1"})
    again = await api.call("POST", "/api/next", body, **{"Idempotency-Key": "q1"})  # a retry: replayed
    assert queued == again and queued["queued"] is True and queued["agentResponse"]["actor"] == "user"
    assert queued["agentResponse"]["copilotRequests"] == pending and len(script.seen) == asked
    view = await api.call("GET", f"/api/sessions/{sid}")
    assert view["queuedInputs"] == ["Use the formal register."] and view["pendingCopilotRequests"] == pending
    script.replies += [ModelResponse(parts=[TextPart("Noted.")])]
    await api.approve_all(sid, pending)
    request = script.seen[-1][-1]
    assert isinstance(request, ModelRequest)
    said = [p.content for p in request.parts if isinstance(p, UserPromptPart)]
    assert "Use the formal register." in said and "<next-text" in said[-1], (
        "the queued input reaches the request that follows the batch, before its note"
    )
    assert (await api.call("GET", f"/api/sessions/{sid}"))["queuedInputs"] == []


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="another CAT tool" creationtoolversion="1" segtype="sentence"
 o-tmf="x" adminlang="en" srclang="en-US" datatype="plaintext"/><body>
<tu><tuv xml:lang="en-US"><seg>## Fixed</seg></tuv><tuv xml:lang="fr-FR"><seg>## Corrigé (TMX)</seg></tuv></tu>
</body></tmx>"""


async def test_an_imported_tmx_seeds_memory_proposals_in_a_new_session() -> None:
    script = Script()
    api = Api(services_for(model=script.model))
    imported = await api.call("POST", "/api/memory/import", {"format": "tmx", "content": TMX})
    assert imported["added"] == 1
    sid, fid = await api.start("## Fixed\n\nSomething new.\n")
    asked = len(script.seen)
    script.replies += [calls(translate(fid, "## Fixed", "## Réparé", call_id="m"))]
    step = await api.next(sid, userInput="Translate doc.md into French.")
    [proposal] = step["agentResponse"]["copilotRequests"]
    assert (proposal["origin"], proposal["match"], proposal["translate_string"]) == ("memory", 100, "## Corrigé (TMX)")
    assert len(script.seen) == asked, "the imported unit cost no model request"
