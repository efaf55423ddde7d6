"""`PUT /api/memory/{entryId}`: editing a glossary entry or style note by hand, through the Lambda handler."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import handlers.api as api
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from service.container import Services
from storage.interface import Storage
from tests.client import lambda_transport
from tests.conftest import make_backend
from tests.helpers import services_for

ALICE, BOB = "user-alice", "user-bob"


@pytest.fixture(params=["memory", "dynamodb"])
def services(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Services]:
    """The module-level Lambda app on a fresh backend."""
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    storage = make_backend(request.param, tmp_path)
    assert isinstance(storage, Storage)
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage, model=resolve_model("pseudo")))
    yield api.app.state.services.get()
    api.app.state.services = previous


def test_an_entry_is_edited_keeps_its_id_and_becomes_the_owners(services: Services) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    status, entry = alice("POST", "/api/memory/glossary", {"source": "tool", "target": "outil", "languages": "French"})
    assert status == 201
    status, edited = alice("PUT", f"/api/memory/{entry['id']}", {"target": " instrument "})
    assert status == 200
    assert edited["id"] == entry["id"] and edited["source"] == "tool" and edited["target"] == "instrument"
    assert edited["languages"] == "auto>french" and edited["origin"] == "user"
    assert edited["updatedAt"] >= entry["updatedAt"]
    status, edited = alice("PUT", f"/api/memory/{entry['id']}", {"source": "Toolkit", "languages": "German"})
    assert status == 200 and (edited["source"], edited["languages"]) == ("Toolkit", "auto>german")
    _, memory = alice("GET", "/api/memory", None)
    assert [(g["id"], g["source"], g["target"]) for g in memory["glossary"]] == [(entry["id"], "Toolkit", "instrument")]


def test_a_learned_entry_edited_by_hand_becomes_user(services: Services) -> None:
    from agent_core.memory import GlossaryEntry, Lessons

    services.memory.learn_now(
        ALICE, Lessons(glossary=(GlossaryEntry(source="tool", target="outil", languages="auto>french"),))
    )
    [learned] = [e for e in services.memory.entries(ALICE) if e.kind == "glossary"]
    assert learned.origin == "learned"
    alice = lambda_transport(api.handler, sub=ALICE)
    status, edited = alice("PUT", f"/api/memory/{learned.entry_id}", {"target": "outil"})
    assert status == 200 and edited["origin"] == "user"


def test_a_style_note_is_edited_by_its_text(services: Services) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    _, note = alice("POST", "/api/memory/style-notes", {"text": "Use vous."})
    status, edited = alice("PUT", f"/api/memory/{note['id']}", {"text": "Use tu."})
    assert status == 200 and edited["text"] == "Use tu." and edited["id"] == note["id"]
    status, _ = alice("PUT", f"/api/memory/{note['id']}", {"target": "x"})
    assert status == 422


def test_unknown_and_other_owners_entries_are_404(services: Services) -> None:
    alice, bob = lambda_transport(api.handler, sub=ALICE), lambda_transport(api.handler, sub=BOB)
    _, entry = alice("POST", "/api/memory/glossary", {"source": "tool", "target": "outil"})
    status, _ = bob("PUT", f"/api/memory/{entry['id']}", {"target": "stolen"})
    assert status == 404
    status, _ = alice("PUT", "/api/memory/m_" + "0" * 32, {"target": "x"})
    assert status == 404
    status, _ = alice("PUT", "/api/memory/not-an-id", {"target": "x"})
    assert status == 404
    _, memory = alice("GET", "/api/memory", None)
    assert memory["glossary"][0]["target"] == "outil"


@pytest.mark.parametrize(
    "body",
    [{"target": ""}, {"target": "x" * 201}, {"colour": "red"}, {"text": "a note"}, {"target": 3}],
)
def test_invalid_edits_are_422(services: Services, body: dict[str, object]) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    _, entry = alice("POST", "/api/memory/glossary", {"source": "tool", "target": "outil"})
    status, _ = alice("PUT", f"/api/memory/{entry['id']}", body)
    assert status == 422


def test_an_edit_onto_another_entrys_term_and_pair_is_422(services: Services) -> None:
    alice = lambda_transport(api.handler, sub=ALICE)
    _, tool = alice("POST", "/api/memory/glossary", {"source": "tool", "target": "outil", "languages": "fr"})
    _, file = alice("POST", "/api/memory/glossary", {"source": "file", "target": "fichier", "languages": "fr"})
    status, _ = alice("PUT", f"/api/memory/{file['id']}", {"source": "TOOL"})
    assert status == 422
    status, moved = alice("PUT", f"/api/memory/{file['id']}", {"source": "TOOL", "languages": "German"})
    assert status == 200 and moved["languages"] == "auto>german"
    _, memory = alice("GET", "/api/memory", None)
    assert len(memory["glossary"]) == 2 and tool["id"] in {g["id"] for g in memory["glossary"]}
