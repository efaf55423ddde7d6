"""Jobs and long sessions against a real provider's wire format: the `openai-chat:` adapter and the OpenAI
SDK talk to a fake OpenAI server on loopback, and the terminal client's doNext loop drives the API in
process. One language whose provider fails does not stop the others; a session throttled twice goes on
by itself and finishes with nothing lost, the wait shown in the Session view. SQLite and DynamoDB (moto)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic_ai import models
from pydantic_ai.models import infer_model

from handlers.app import create_app
from storage.interface import Storage
from terminal.api import ApiClient
from terminal.models import Verdict
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply, error
from tests.fakes.translator_policy import TranslatorPolicy
from tests.helpers import services_for

DOC = (
    "# Install\n\nRun the installer first. Then restart the machine.\n\n"
    "- Open the settings.\n- Choose a language.\n\nThe app keeps your files where they were.\n"
)
_INTO = re.compile(r"into (\w+)\.")


class Provider:
    """The fake server's policy: a translating model per target language; some languages refused, and
    chosen requests throttled (429 with Retry-After)."""

    def __init__(self) -> None:
        self.translators: dict[str, TranslatorPolicy] = {}
        self.refused: set[str] = set()
        self.throttle: list[int] = []
        """Numbers (1-based, over all requests) of the requests to throttle."""
        self.count = 0

    def __call__(self, body: dict[str, Any]) -> Reply | Fault:
        self.count += 1
        found = _INTO.search(json.dumps(body))
        language = found.group(1) if found else "?"
        if language in self.refused:
            return error(400, "This model is not available for your organization.", code="model_not_found")
        if self.count in self.throttle:
            return error(
                429, "Rate limit reached.", type_="requests", code="rate_limit_exceeded", headers={"Retry-After": "2"}
            )
        return self.translators.setdefault(language, TranslatorPolicy())(body)


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Provider, FakeOpenAIServer]]:
    policy = Provider()
    with FakeOpenAIServer(policy) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
        with models.override_allow_model_requests(True):
            yield policy, server


def http_for(storage: Storage) -> httpx.AsyncClient:
    services = services_for(storage, model=infer_model("openai-chat:gpt-4.1"))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")


async def review_to_the_end(client: ApiClient, sid: str) -> int:
    """Approve every proposal until the session's loop ends: how many units were approved."""
    turn = await client.do_next({"sessionId": sid})
    approved = 0
    while turn.copilot_requests:
        verdicts = [Verdict(tool=r.tool, status="approve") for r in turn.copilot_requests]
        approved += len(verdicts)
        body = {"sessionId": sid, "copilotResponses": [v.body() for v in verdicts]}
        turn = await client.do_next(body)
    return approved


async def test_a_job_goes_on_for_the_languages_whose_provider_answers(
    storage: Storage, provider: tuple[Provider, FakeOpenAIServer]
) -> None:
    policy, _ = provider
    policy.refused.add("Polish")
    async with http_for(storage) as http:
        client = ApiClient(http)
        created = await http.post(
            "/api/jobs", json={"files": [{"name": "guide.md", "content": DOC}], "targetLanguages": ["de", "pl", "fr"]}
        )
        assert created.status_code == 201, created.text
        sessions = created.json()["sessions"]
        for tag in ("de", "fr"):
            assert await review_to_the_end(client, sessions[tag]) >= 4
        failed = await http.post("/api/next", json={"sessionId": sessions["pl"]})
        assert failed.status_code == 502 and "not available" in failed.json()["error"]
        view = (await http.get(f"/api/jobs/{created.json()['id']}")).json()
    de, pl, fr = (view["languages"][tag] for tag in ("de", "pl", "fr"))
    assert (
        de["state"] == fr["state"] == "complete"
        and de["progress"]["segmentsLeft"] == fr["progress"]["segmentsLeft"] == 0
    )
    assert (
        pl["state"] == "failed"
        and "not available" in pl["error"]
        and pl["progress"]["segmentsLeft"] == pl["progress"]["segments"]
    )
    assert de["spent"]["inputTokens"] > 0 and pl["spent"]["modelRequests"] == 0
    assert view["spent"]["inputTokens"] == de["spent"]["inputTokens"] + fr["spent"]["inputTokens"]
    assert de["estimate"]["inputTokens"] > 0 and view["estimate"]["modelRequests"] >= 3


async def test_a_session_throttled_twice_goes_on_by_itself_and_loses_nothing(
    storage: Storage, provider: tuple[Provider, FakeOpenAIServer]
) -> None:
    policy, server = provider
    policy.throttle = [2, 3]  # the second and third model requests: mid-job, twice in a row
    seen: list[dict[str, Any]] = []
    async with http_for(storage) as http:

        async def wait(seconds: float) -> None:  # the client's pause: look at the session instead of sleeping
            seen.append((await http.get(f"/api/sessions/{sid}")).json() | {"waited": seconds})

        client = ApiClient(http, sleep=wait)
        sid = (await http.post("/api/sessions", json={"targetLanguage": "de"})).json()["id"]
        assert (
            await http.post(f"/api/sessions/{sid}/files", json={"name": "guide.md", "content": DOC})
        ).status_code == 201
        turn = await client.do_next({"sessionId": sid, "userInput": "Translate guide.md into German."})
        approved = 0
        while turn.copilot_requests:
            verdicts = [Verdict(tool=r.tool, status="approve") for r in turn.copilot_requests]
            approved += len(verdicts)
            turn = await client.do_next({"sessionId": sid, "copilotResponses": [v.body() for v in verdicts]})
        final = (await http.get(f"/api/sessions/{sid}")).json()
        units = (await http.get(f"/api/sessions/{sid}/files/{final['files'][0]['fileId']}/segments")).json()["segments"]
    assert [s["waited"] for s in seen] == [2.0, 2.0]
    assert all(s["state"] == "waiting" and s["retryAt"] and "429" in s["error"] for s in seen), [
        (s["state"], s["retryAt"], s["error"]) for s in seen
    ]
    assert seen[0]["pendingCopilotRequests"] == [] or seen[0]["segmentsLeft"] > 0
    assert final["state"] == "complete" and final["segmentsLeft"] == 0 and final["retryAt"] is None
    written = [u for u in units if u["status"] in ("approved", "verbatim")]
    assert all(u["status"] != "untranslated" for u in units) and len(written) >= approved
    starts = [u["start"] for u in units]
    assert starts == sorted(set(starts)), "every unit written once, in order"
    assert len(server.requests) == policy.count
