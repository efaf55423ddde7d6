"""What reaches a real provider's wire, through the whole step: the stable prefix and the cache key,
with the real `openai-chat:` adapter and SDK against the fake OpenAI server on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from pydantic_ai import models
from pydantic_ai.models import infer_model

from handlers.app import create_app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.translator_policy import TranslatorPolicy
from tests.helpers import services_for

DOC = "".join(f"## Part {n}\n\nParagraph {n} explains one thing, then another.\n\n" for n in range(1, 40))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(TranslatorPolicy()) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        with models.override_allow_model_requests(True):
            yield fake
        assert not fake.failures


async def _translate(server: FakeOpenAIServer) -> str:
    app = create_app(services_for(model=infer_model("openai-chat:gpt-4.1"), translation_memory=False))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        sid = (await client.post("/api/sessions")).json()["id"]
        await client.post(f"/api/sessions/{sid}/files", json={"name": "doc.md", "content": DOC})
        agent = (await client.post("/api/next", json={"sessionId": sid, "userInput": "Translate into French."})).json()
        for _ in range(40):
            requests = agent["agentResponse"]["copilotRequests"]
            if requests:
                verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
                body = {"sessionId": sid, "copilotResponses": verdicts}
            elif agent["agentResponse"]["actor"] == "agent":
                body = {"sessionId": sid}
            else:
                break
            agent = (await client.post("/api/next", json=body)).json()
        view = (await client.get(f"/api/sessions/{sid}")).json()
        assert view["files"][0]["progress"]["complete"], view["files"]
        return str(sid)


async def test_the_prefix_and_the_cache_key_reach_the_provider(server: FakeOpenAIServer) -> None:
    sid = await _translate(server)
    bodies = [b for b in server.bodies() if b.get("tools")]
    assert len(bodies) >= 3, "a document of several screens takes several requests"
    # The same tools and system prompt, byte for byte, in every request of the session.
    assert all(b["tools"] == bodies[0]["tools"] for b in bodies)
    assert all(b["messages"][0] == bodies[0]["messages"][0] for b in bodies)
    assert bodies[0]["messages"][0]["role"] == "system"
    # OpenAI's prompt cache is keyed by the session.
    assert {b.get("prompt_cache_key") for b in bodies} == {sid}
    # Every request ends with the next untranslated text, so no Read is needed to go on.
    assert all("<next-text file=" in str(b["messages"][-1]["content"]) for b in bodies[:-1])
    assert not any(
        call["function"]["name"] == "Read" for b in bodies for m in b["messages"] for call in m.get("tool_calls") or []
    )
