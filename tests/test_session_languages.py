"""A session's languages through HTTP, on both backends: given, detected, changed, exported."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.models import resolve_model
from tests.helpers import AsyncApi, assert_error, services_for, stored
from tests.test_storage_http import backend

ENGLISH = "The reviewer approves each unit.\n\nThe memory learns from every correction that is made.\n"
GERMAN = "Der Prüfer genehmigt jede Einheit.\n\nDas Gedächtnis lernt aus jeder Korrektur, die gemacht wird.\n"


@pytest.fixture(params=["sqlite", "dynamodb"])
def api(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncApi:
    return AsyncApi(services_for(backend(request.param, request, tmp_path), model=resolve_model("pseudo")))


async def test_languages_given_at_creation_are_normalised_and_shown(api: AsyncApi) -> None:
    sid = (await api.ok("POST", "/api/sessions", {"sourceLanguage": "German", "targetLanguage": "pt_br"}))["id"]
    await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "a.md", "content": ENGLISH})
    view = await api.ok("GET", f"/api/sessions/{sid}")
    assert (view["sourceLanguage"], view["targetLanguage"]) == ("de", "pt-BR")  # given: not detected over


async def test_the_first_file_tells_the_source_language(api: AsyncApi) -> None:
    sid, _ = await api.start(GERMAN)
    assert (await api.ok("GET", f"/api/sessions/{sid}"))["sourceLanguage"] == "de"
    await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "b.md", "content": ENGLISH})
    assert (await api.ok("GET", f"/api/sessions/{sid}"))["sourceLanguage"] == "de"  # the first file's


async def test_patch_changes_only_what_it_names(api: AsyncApi) -> None:
    sid = (await api.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    view = await api.ok("PATCH", f"/api/sessions/{sid}", {"sourceLanguage": "ja"})
    assert (view["sourceLanguage"], view["targetLanguage"]) == ("ja", "fr")
    view = await api.ok("PATCH", f"/api/sessions/{sid}", {"targetLanguage": None})
    assert view["sourceLanguage"] == "ja"


async def test_exports_write_the_session_source_language(api: AsyncApi) -> None:
    sid, fid = await api.start(ENGLISH)
    await api.ok("PATCH", f"/api/sessions/{sid}", {"sourceLanguage": "en-GB", "targetLanguage": "de"})
    await api.until_user(sid, userInput="Translate a.md into French.")
    for fmt, attribute in (("xliff2", 'srcLang="en-GB" trgLang="de"'), ("xliff12", 'source-language="en-GB"')):
        response = await api.client.get(f"/api/sessions/{sid}/files/{fid}/export", params={"format": fmt})
        assert response.status_code == 200, response.text
        assert attribute in response.text and "und" not in response.text.split(">", 2)[1]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"sourceLanguage": "Klingonese"}, "not a language"),
        ({"sourceLanguage": "x" * 65}, "sourceLanguage"),
        ({"colour": "blue"}, "colour"),
    ],
)
async def test_a_bad_language_is_422_and_changes_nothing(api: AsyncApi, body: dict[str, Any], words: str) -> None:
    sid, _ = await api.start(ENGLISH)
    before = stored(api.services.storage, sid)
    assert_error(await api.client.patch(f"/api/sessions/{sid}", json=body), 422, words)
    assert stored(api.services.storage, sid) == before
    assert_error(await api.client.post("/api/sessions", json=body), 422, words)


async def test_an_unknown_session_is_404(api: AsyncApi) -> None:
    response = await api.client.patch("/api/sessions/s_0123456789abcdef0123456789abcdef", json={"sourceLanguage": "fr"})
    assert_error(response, 404)


async def test_a_task_that_names_no_language_is_the_session_s_target_language(api: AsyncApi) -> None:
    """A session created into French and started with "Translate." files what it approves in the French
    translation memory, so a German session does not find it."""
    found = {}
    for target in ("fr", "de"):
        sid = (await api.ok("POST", "/api/sessions", {"targetLanguage": target}))["id"]
        await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "a.md", "content": ENGLISH})
        agent = (await api.ok("POST", "/api/next", {"sessionId": sid, "userInput": "Translate."}))["agentResponse"]
        while agent["actor"] == "agent":
            agent = (await api.ok("POST", "/api/next", {"sessionId": sid}))["agentResponse"]
        found[target] = [r["origin"] for r in agent["copilotRequests"]]
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
        await api.ok("POST", "/api/next", {"sessionId": sid, "copilotResponses": verdicts})
    assert found == {"fr": ["model", "model"], "de": ["model", "model"]}, "the French units are not German ones"
    pairs = {e.languages for e in api.services.tm.entries("local")}
    assert pairs == {"*>fr", "*>de"}, pairs
