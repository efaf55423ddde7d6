"""A session's model over HTTP: one of the configured models, named at creation or by PATCH, used by
the next step; a name not configured is 422 and changes nothing; what a session spends is priced by
the model each step used. On SQLite and on DynamoDB (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.usage import RequestUsage

from agent_core.budget import Price
from agent_core.catalog import ModelCatalog
from handlers.api import create_app
from service.container import model_catalog
from storage.interface import Storage
from tests.helpers import Script, services_for

DOC = "Run the installer first.\n"
PRICES = {"alpha": Price(1.0, 2.0), "beta": Price(10.0, 20.0), "gamma": None}


@dataclass
class Models:
    scripts: dict[str, Script]
    client: TestClient
    storage: Storage

    def asked(self) -> dict[str, int]:
        """How many requests each model received."""
        return {name: len(script.seen) for name, script in self.scripts.items()}


def answering(name: str) -> Script:
    """A model that answers every request with its own name, 1,000 tokens in and 100 out."""
    reply = ModelResponse(parts=[TextPart(f"{name} here")], usage=RequestUsage(input_tokens=1000, output_tokens=100))
    return Script([reply] * 20)


@pytest.fixture
def models(storage: Storage) -> Iterator[Models]:
    scripts = {name: answering(name) for name in PRICES}
    built = {name: script.model for name, script in scripts.items()}
    prices = {id(model): PRICES[name] for name, model in built.items()}
    catalog = ModelCatalog(list(built), resolve=built.__getitem__, price=lambda m: prices[id(m)])
    with TestClient(create_app(services_for(storage, models=catalog))) as client:
        yield Models(scripts, client, storage)


def session(client: TestClient, **body: Any) -> str:
    created = client.post("/api/sessions", json=body)
    assert created.status_code == 201, created.text
    sid: str = created.json()["id"]
    assert client.post(f"/api/sessions/{sid}/files", json={"name": "doc.md", "content": DOC}).status_code == 201
    return sid


def say(client: TestClient, sid: str, text: str) -> str:
    answer = client.post("/api/next", json={"sessionId": sid, "userInput": text})
    assert answer.status_code == 200, answer.text
    found: str = answer.json()["agentResponse"]["messages"][-1]["parts"][0]["content"]
    return found


def test_the_configured_models_are_listed_with_their_prices(models: Models) -> None:
    listed = models.client.get("/api/models").json()["models"]
    assert listed == [
        {"name": "alpha", "default": True, "price": {"input": 1.0, "output": 2.0}},
        {"name": "beta", "default": False, "price": {"input": 10.0, "output": 20.0}},
        {"name": "gamma", "default": False, "price": None},
    ]


def test_a_session_uses_its_model_and_the_next_step_the_one_patched_in(models: Models) -> None:
    client = models.client
    default = session(client)
    assert client.get(f"/api/sessions/{default}").json()["model"] == "alpha"
    assert say(client, default, "Translate doc.md into French.") == "alpha here"
    sid = session(client, model="beta", budget={"usd": 1.0})
    assert client.get(f"/api/sessions/{sid}").json()["model"] == "beta"
    assert say(client, sid, "Translate doc.md into French.") == "beta here"
    patched = client.patch(f"/api/sessions/{sid}", json={"model": "alpha"})
    assert patched.status_code == 200 and patched.json()["model"] == "alpha"
    assert say(client, sid, "Go on.") == "alpha here"
    assert models.asked() == {"alpha": 2, "beta": 1, "gamma": 0}
    view = client.get(f"/api/sessions/{sid}").json()
    # Each step priced at its own model's rate: beta's 0.012 and alpha's 0.0012.
    assert view["spent"] == {"usd": 0.0132} and view["telemetry"]["usd"] == 0.0132
    assert client.patch(f"/api/sessions/{sid}", json={"model": None}).json()["model"] == "alpha", "the default"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"model": "delta"}, "model 'delta' is not configured here; the configured models: alpha, beta, gamma."),
        ({"model": "gamma", "budget": {"usd": 1}}, "The model gamma has no price"),
        ({"model": ""}, "model"),
    ],
)
def test_a_model_not_configured_or_unpriced_for_a_dollar_budget_is_422_and_stores_nothing(
    models: Models, body: dict[str, Any], words: str
) -> None:
    client = models.client
    refused = client.post("/api/sessions", json=body)
    assert refused.status_code == 422 and words in refused.text, refused.text
    assert client.get("/api/sessions").json()["sessions"] == []
    sid = session(client, budget={"usd": 1.0})
    before = client.get(f"/api/sessions/{sid}").json()
    again = client.patch(f"/api/sessions/{sid}", json=body)
    assert again.status_code == 422 and words in again.text, again.text
    after = client.get(f"/api/sessions/{sid}").json()
    assert (after["model"], after["updatedAt"], after["budget"]) == (before["model"], before["updatedAt"], {"usd": 1.0})


def test_switching_to_an_unpriced_model_keeps_a_dollar_budget_keepable(models: Models) -> None:
    client = models.client
    sid = session(client, budget={"usd": 1.0})
    refused = client.patch(f"/api/sessions/{sid}", json={"model": "gamma"})
    assert refused.status_code == 422 and "has no price" in refused.text
    moved = client.patch(f"/api/sessions/{sid}", json={"model": "gamma", "budget": {"tokens": 5000}})
    assert moved.status_code == 200 and (moved.json()["model"], moved.json()["budget"]) == ("gamma", {"tokens": 5000})


def test_the_catalog_comes_from_the_environment_and_resolves_a_model_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_MODEL", "pseudo")
    monkeypatch.setenv("AGENT_MODELS", "openai:gpt-4.1, pseudo,anthropic:claude-sonnet-4-5")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    catalog = model_catalog()
    assert catalog.names == ("pseudo", "openai:gpt-4.1", "anthropic:claude-sonnet-4-5")
    assert catalog.price(None) == Price(0.0, 0.0), "the default resolves; no other model is built for it"
    monkeypatch.delenv("AGENT_MODEL")
    assert model_catalog().default == "openai:gpt-4.1", "without AGENT_MODEL, the first of AGENT_MODELS"
    monkeypatch.delenv("AGENT_MODELS")
    assert model_catalog().names == ("pseudo",)
