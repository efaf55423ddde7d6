"""The analysis of a large file: linear in its segments, off the event loop, and its estimate counting
what a resource string costs beyond its text (its context line, a Translate call of its own)."""

from __future__ import annotations

import asyncio
import json
import threading

import httpx
import pytest
from fastapi.testclient import TestClient

from agent_core.estimate import OUTPUT_TOKENS_PER_CALL, Asked, estimate_job
from handlers.app import create_app
from storage.interface import FileChunk
from storage.sqlite import SQLiteStorage
from tests.growth import cpu_seconds
from tests.helpers import services_for

HOLD_SECONDS = 10.0


def strings(n: int) -> str:
    """An i18next file of `n` distinct strings, every 7th repeated (repetitions count too)."""
    return json.dumps({f"k{i}": f"Open panel {i % (n - n // 7)} and press save." for i in range(n)})


def uploaded(client: TestClient, n: int) -> str:
    """The analysis route of a new session's file of `n` strings."""
    sid = client.post("/api/sessions", json={"targetLanguage": "fr"}).json()["id"]
    fid = client.post(f"/api/sessions/{sid}/files", json={"name": "en.json", "content": strings(n)}).json()["fileId"]
    return f"/api/sessions/{sid}/files/{fid}/analysis"


@pytest.mark.slow
def test_the_analysis_grows_linearly_with_the_file() -> None:
    sizes = (4_000, 16_000)
    best = dict.fromkeys(sizes, float("inf"))
    with TestClient(create_app(services_for(SQLiteStorage(":memory:")))) as client:
        routes = {n: uploaded(client, n) for n in sizes}
        for n, route in routes.items():
            answer = client.get(route)
            assert answer.status_code == 200, answer.text
            assert answer.json()["segments"] == n
        for _ in range(3):  # interleaved: a busy machine slows both alike
            for n, route in routes.items():
                best[n] = min(best[n], cpu_seconds(lambda route=route: client.get(route), runs=1))
    # Linear work is about 4x; work quadratic in the segments was over 9x at these sizes.
    assert best[16_000] / best[4_000] < 7.0, best


class _Slow(SQLiteStorage):
    """Holds the analysis's read of a file's chunks until another request has been answered."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.hold = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def read_chunks(self, session_id: str, file_id: str, first: int, last: int) -> list[FileChunk]:
        if self.hold:
            self.entered.set()
            # Blocks this thread only; were it the event loop's, the health check could never answer.
            assert self.release.wait(HOLD_SECONDS), "the health check was not answered during the analysis"
        return super().read_chunks(session_id, file_id, first, last)


async def test_the_service_answers_while_an_analysis_runs() -> None:
    storage = _Slow()
    app = create_app(services_for(storage))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        sid = (await client.post("/api/sessions", json={"targetLanguage": "fr"})).json()["id"]
        upload = {"name": "en.json", "content": strings(50)}
        fid = (await client.post(f"/api/sessions/{sid}/files", json=upload)).json()["fileId"]
        storage.hold = True

        async def health() -> int:
            await asyncio.to_thread(storage.entered.wait, HOLD_SECONDS)
            status = (await client.get("/api/health")).status_code
            storage.release.set()
            return status

        analysed, status = await asyncio.gather(client.get(f"/api/sessions/{sid}/files/{fid}/analysis"), health())
    assert storage.entered.is_set()
    assert status == 200
    assert analysed.status_code == 200, analysed.text


def test_a_resource_string_costs_its_context_line_and_a_call_of_its_own() -> None:
    texts = [f"Open the settings panel number {i} and press save." for i in range(400)]
    as_prose = estimate_job([Asked(t) for t in texts])
    as_strings = estimate_job(
        [Asked(t, f"key: settings.panel_{i}.open_and_save", f"k{i}") for i, t in enumerate(texts)]
    )
    assert as_strings.model_requests == as_prose.model_requests  # the same screens
    assert as_strings.input_tokens > as_prose.input_tokens * 1.2  # the context lines on the screens
    # a unit a string (400), where the prose joins two sentences a unit: each costs its framing
    assert as_strings.output_tokens > as_prose.output_tokens + 150 * OUTPUT_TOKENS_PER_CALL
