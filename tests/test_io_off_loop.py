"""Blocking storage calls run off the event loop: a slow store does not delay an unrelated request."""

from __future__ import annotations

import asyncio
import threading

import httpx

from agent_core.effects import SessionSnapshot
from handlers.app import create_app
from storage.sqlite import SQLiteStorage
from tests.client import lambda_transport
from tests.helpers import services_for

HOLD_SECONDS = 5.0


class _Slow(SQLiteStorage):
    """Holds one session's step load until another request has been answered."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.slow_session = ""
        self.entered = threading.Event()
        self.release = threading.Event()

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        if session_id == self.slow_session:
            self.entered.set()
            # Blocks this thread only; were it the event loop's, the other request could never finish.
            assert self.release.wait(HOLD_SECONDS), "the other request was not answered while this call blocked"
        return super().load_step(session_id, window=window)


async def test_a_slow_step_does_not_delay_other_requests() -> None:
    storage = _Slow()
    app = create_app(services_for(storage))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        slow = (await client.post("/api/sessions")).json()["id"]
        other = (await client.post("/api/sessions")).json()["id"]
        storage.slow_session = slow

        async def unrelated() -> list[int]:
            await asyncio.to_thread(storage.entered.wait, HOLD_SECONDS)
            statuses = [
                (await client.get("/api/health")).status_code,
                (await client.get("/api/sessions")).status_code,
                (await client.get(f"/api/sessions/{other}")).status_code,
            ]
            storage.release.set()
            return statuses

        step, statuses = await asyncio.gather(
            client.post("/api/next", json={"sessionId": slow, "userInput": "Translate into French."}), unrelated()
        )
    assert storage.entered.is_set()
    assert statuses == [200, 200, 200]
    assert step.status_code == 200, step.text


class _Threads(SQLiteStorage):
    """Records the thread each step's load and commit run in."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.threads: list[int] = []

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        self.threads.append(threading.get_ident())
        return super().load_step(session_id, window=window)


def test_in_a_lambda_invocation_the_storage_calls_run_in_place() -> None:
    """An execution environment serves one invocation at a time: no worker thread for blocking calls
    (the local server's requests, above, get one)."""
    import handlers.api as api
    from handlers.deps import LazyServices

    storage = _Threads()
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage))
    try:
        call = lambda_transport(api.handler)
        _, created = call("POST", "/api/sessions")
        status, _ = call("POST", "/api/next", {"sessionId": created["id"], "userInput": "Translate into French."})
    finally:
        api.app.state.services = previous
    assert status == 200
    assert storage.threads == [threading.get_ident()]
