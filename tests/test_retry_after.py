"""A provider's `Retry-After`, whatever it says, is a 503 with a sane wait and a `retryAt` never earlier than
the provider's time: through HTTP on both backends, the real OpenAI SDK adapter and a fake provider on loopback.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from pydantic_ai import models
from pydantic_ai.models import infer_model

from agent_core.errors import MAX_RETRY_AFTER
from storage.interface import Storage
from tests.fakes.openai_server import FakeOpenAIServer, Reply, error
from tests.helpers import AsyncApi, assert_error, services_for, stored

pytestmark = pytest.mark.parametrize("storage", ["sqlite", "dynamodb"], indirect=True)


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda body: Reply(text="Ready.")) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-retry")
        with models.override_allow_model_requests(True):
            yield fake
        assert not fake.failures


def far_date(**delta: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(**delta), usegmt=True)


ABSURD = {
    "a trillion seconds": {"Retry-After": str(10**12)},
    "a 400-digit number": {"Retry-After": "9" * 400},
    "negative": {"Retry-After": "-30"},
    "garbage": {"Retry-After": "soon, maybe \u00e9"},
    "a date in year 9999": {"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"},
    "a date 5000 years ahead": {"Retry-After": far_date(days=5000 * 365)},
    "huge milliseconds": {"retry-after-ms": "1e300"},
    "nan milliseconds": {"retry-after-ms": "nan"},
}


async def throttled(storage: Storage, provider: FakeOpenAIServer, headers: dict[str, str]) -> tuple[AsyncApi, str]:
    api = AsyncApi(services_for(storage, model=infer_model("openai-chat:gpt-4.1")))
    sid, _ = await api.start("Hello.\n")
    await api.until_user(sid, userInput="Translate doc.md into French.")
    provider.policy = lambda body: error(429, "Rate limit reached.", type_="requests", headers=headers)
    return api, sid


@pytest.mark.parametrize("label", list(ABSURD))
async def test_an_absurd_retry_after_is_a_503_with_a_bounded_wait(
    label: str, storage: Storage, provider: FakeOpenAIServer
) -> None:
    api, sid = await throttled(storage, provider, ABSURD[label])
    before = stored(storage, sid)
    request = {"sessionId": sid, "userInput": "Go on."}
    t0 = datetime.now(UTC)
    response = await api.client.post("/api/next", json=request)
    assert_error(response, 503, "try again")
    wait = int(response.headers["retry-after"])
    assert 1 <= wait <= MAX_RETRY_AFTER
    view = await api.ok("GET", f"/api/sessions/{sid}")
    assert view["state"] == "waiting"
    retry_at = datetime.fromisoformat(view["retryAt"])
    assert t0 < retry_at <= datetime.now(UTC) + timedelta(seconds=MAX_RETRY_AFTER + 1)
    assert stored(storage, sid) == before, "the step changed nothing"
    provider.policy = lambda body: Reply(text="Done.")
    assert (await api.client.post("/api/next", json=request)).status_code == 200, "recovered"


async def test_retry_at_is_never_earlier_than_the_providers_date(storage: Storage, provider: FakeOpenAIServer) -> None:
    due = (datetime.now(UTC) + timedelta(seconds=120)).replace(microsecond=0)
    api, sid = await throttled(storage, provider, {"Retry-After": format_datetime(due, usegmt=True)})
    response = await api.client.post("/api/next", json={"sessionId": sid, "userInput": "Go on."})
    answered = datetime.now(UTC)
    assert_error(response, 503)
    assert int(response.headers["retry-after"]) >= int((due - answered).total_seconds()), "not before the date"
    view = await api.ok("GET", f"/api/sessions/{sid}")
    assert datetime.fromisoformat(view["retryAt"]) >= due, (view["retryAt"], due.isoformat())


async def test_a_wait_in_milliseconds_is_rounded_up_to_the_second(storage: Storage, provider: FakeOpenAIServer) -> None:
    api, sid = await throttled(storage, provider, {"retry-after-ms": "1500"})
    t0 = datetime.now(UTC)
    response = await api.client.post("/api/next", json={"sessionId": sid, "userInput": "Go on."})
    assert response.headers["retry-after"] == "2", "1.5 s up to the whole second"
    retry_at = datetime.fromisoformat((await api.ok("GET", f"/api/sessions/{sid}"))["retryAt"])
    assert retry_at >= t0 + timedelta(seconds=1.5) and retry_at.microsecond == 0
