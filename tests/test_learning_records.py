"""What the offline `pseudo` learner keeps (issue 40, item 23), through HTTP on both backends: an edit that
reorders words teaches nothing, and the next cards are checked only against entries the memory keeps
(the owner's own entry wins over a lesson for the same term)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent_core.models import resolve_model
from agent_core.pseudo import pseudo_translate
from handlers.app import create_app
from storage.interface import Storage
from tests.helpers import services_for

FIRST = "Take the night train to the coast."
FILLER = "Pack a warm coat and a good book for the long ride across the quiet hills"
LATER = "The train leaves at noon from the old station near the harbour."


@pytest.fixture
def client(storage: Storage) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as found:
        yield found


def document() -> str:
    """FIRST in the first batch, then enough text that LATER comes in a later one."""
    return "\n\n".join([FIRST, *(f"{FILLER} number {i}." for i in range(25)), LATER]) + "\n"


def first_cards(client: TestClient) -> tuple[str, list[dict[str, Any]]]:
    sid = client.post("/api/sessions", json={"targetLanguage": "de"}).json()["id"]
    assert client.post(f"/api/sessions/{sid}/files", json={"name": "trip.md", "content": document()}).status_code == 201
    answer = client.post("/api/next", json={"sessionId": sid, "userInput": "Translate trip.md into German."}).json()
    cards = answer["agentResponse"]["copilotRequests"]
    assert cards and cards[0]["src_string"] == FIRST and not any(c["src_string"] == LATER for c in cards)
    return sid, cards


def decide(client: TestClient, sid: str, cards: list[dict[str, Any]], final: str) -> list[dict[str, Any]]:
    """The first card refined to `final`, the others approved: the next cards (from the same step)."""
    verdicts = [{"tool": cards[0]["tool"], "status": "refined", "translated_string": final}]
    verdicts += [{"tool": c["tool"], "status": "approve"} for c in cards[1:]]
    body: dict[str, Any] = {"sessionId": sid, "copilotResponses": verdicts}
    for _ in range(10):
        answer = client.post("/api/next", json=body)
        assert answer.status_code == 200, answer.text
        nxt = answer.json()["agentResponse"]["copilotRequests"]
        if nxt:
            return list(nxt)
        body = {"sessionId": sid}
    raise AssertionError("no further cards")


def learned(client: TestClient) -> list[tuple[str, str, str]]:
    return [(g["source"], g["target"], g["origin"]) for g in client.get("/api/memory").json()["glossary"]]


def test_an_edit_that_reorders_words_teaches_no_term(client: TestClient) -> None:
    sid, cards = first_cards(client)
    words = pseudo_translate(FIRST).strip("[]~ .").split()  # Take the night train to the coast
    reordered = f"Ein {' '.join(words[1:4])} {' '.join(words[4:])} nehmen."  # "Take" → "Ein", "nehmen" at the end
    decide(client, sid, cards, reordered)
    assert learned(client) == [], "Take → Ein is not what the reviewer meant"


def test_the_next_cards_cite_only_stored_entries_and_the_owners_wins(client: TestClient) -> None:
    sid, cards = first_cards(client)
    own = {"source": "train", "target": "Zug", "languages": "German"}
    assert client.post("/api/memory/glossary", json=own).status_code == 201
    proposal = cards[0]["translate_string"]
    train = pseudo_translate("train").strip("[]~ ")
    assert train in proposal
    # The reviewer writes "Bahn" for "train" in place: a lesson the memory refuses (the owner's entry wins).
    nxt = decide(client, sid, cards, proposal.replace(train, "Bahn"))
    stored = learned(client)
    assert ("train", "Zug", "user") in stored and not any(t == "Bahn" for _, t, _ in stored)
    [later] = [c for c in nxt if c["src_string"] == LATER]
    assert [(m["term"], m["expected"]) for m in later["glossary"]] == [("train", "Zug")]
    assert [w["message"] for w in later["warnings"]] == ["Glossary: «train» should be translated as «Zug»."]
    for card in nxt:
        for match in card["glossary"]:
            assert (match["term"], match["expected"]) in {(s, t) for s, t, _ in stored}, match


def test_term_pairs_learn_substitutions_in_place_only() -> None:
    from agent_core.distill import term_pairs

    source = "Save the red file before the night train leaves."
    w = pseudo_translate(source).strip("[]~ .").split()
    proposal = pseudo_translate(source)
    at = " ".join(w[2:4])  # "red file"
    assert term_pairs(source, proposal, proposal.replace(at, "Datei rote")) == [("red file", "Datei rote")]
    assert term_pairs(source, proposal, proposal.replace(w[3], "Datei")) == [("file", "Datei")]
    moved = proposal.replace(f"{w[0]} ", "").replace(w[-1], f"{w[-1]} {w[0]}")  # "Save" moved to the end
    assert term_pairs(source, proposal, moved.replace(w[3], "Datei")) == []
    added = proposal.replace(w[3], "Datei").replace(w[5], f"{w[5]} zuerst")  # a word only added elsewhere
    assert term_pairs(source, proposal, added) == []
