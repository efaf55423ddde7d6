"""Blocking storage calls run off the event loop: a slow store does not delay an unrelated request."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import pytest

from agent_core.effects import SessionSnapshot
from handlers.app import create_app
from storage.records import OwnerSnapshot
from storage.sqlite import SQLiteStorage
from tests.client import lambda_transport
from tests.helpers import services_for

T = TypeVar("T")

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


class _Spans(SQLiteStorage):
    """Records when each step's read of its session and of its owner's memory ran (each takes 50 ms,
    as a round trip to a slow table would)."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.spans: dict[str, tuple[float, float]] = {}

    def _timed(self, name: str, read: Callable[[], T]) -> T:
        started = time.monotonic()
        time.sleep(0.05)
        try:
            return read()
        finally:
            self.spans[name] = (started, time.monotonic())

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        return self._timed("session", lambda: super(_Spans, self).load_step(session_id, window=window))

    def memory_snapshot(self, owner: str, *, corrections: int, tm_pair: str | None = None) -> OwnerSnapshot:
        return self._timed(
            "owner", lambda: super(_Spans, self).memory_snapshot(owner, corrections=corrections, tm_pair=tm_pair)
        )


def test_in_a_lambda_invocation_a_steps_two_reads_run_side_by_side() -> None:
    """The session's read and the owner's memory's overlap: one round trip, not two."""
    import handlers.api as api
    from handlers.deps import LazyServices

    storage = _Spans()
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage))
    try:
        call = lambda_transport(api.handler)
        _, created = call("POST", "/api/sessions")
        status, _ = call("POST", "/api/next", {"sessionId": created["id"], "userInput": "Translate into French."})
        storage.spans.clear()
        status, _ = call("POST", "/api/next", {"sessionId": created["id"]})
    finally:
        api.app.state.services = previous
    assert status == 200
    (a_start, a_end), (b_start, b_end) = storage.spans["session"], storage.spans["owner"]
    assert a_start < b_end and b_start < a_end, storage.spans


# -- CPU-heavy work (parsing, exports, segment lists, QA) runs off the loop too ------------------------

LARGE_DOC = "".join(f"Paragraph {n} of a long guide, with enough words to matter.\n\n" for n in range(3_000))
LARGE_TMX = (
    '<?xml version="1.0"?><tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" '
    'adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/><body>'
    + "".join(
        f'<tu><tuv xml:lang="en"><seg>Unit {n}.</seg></tuv><tuv xml:lang="fr"><seg>Unité {n}.</seg></tuv></tu>'
        for n in range(3_000)
    )
    + "</body></tmx>"
)


class _Gate:
    """Holds the CPU-heavy function it wraps until /api/health has been answered meanwhile."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def hold(self, func: Any) -> Any:
        def held(*args: Any, **kwargs: Any) -> Any:
            self.entered.set()
            # Were this the event loop's thread, /api/health could not be answered: the wait times out.
            assert self.release.wait(HOLD_SECONDS), "/api/health was not answered while this work ran"
            return func(*args, **kwargs)

        return held


# (route, what it runs that is CPU-heavy: module, name)
HEAVY = {
    "export xliff2": ("GET", "export?format=xliff2", "service.workbench", "build_segments"),
    "export tmx": ("GET", "export?format=tmx", "service.workbench", "build_segments"),
    "translation": ("GET", "translation", "service.exports", "assemble"),
    "segments": ("GET", "segments", "service.workbench", "build_segments"),
    "qa": ("POST", "qa", "agent_core.qa", "proposal_checks"),
    "memory import": ("POST", "/api/memory/import", "service.interchange", "parse_tmx"),
    "memory export": ("GET", "/api/memory/export?format=tmx", "service.interchange", "export_tmx"),
    "upload": ("POST", "/api/sessions/{sid}/files", "service.sessions", "read_upload"),
}


async def _answered_meanwhile(monkeypatch: pytest.MonkeyPatch, cases: list[str]) -> None:
    """Each case's request runs (held inside its heavy work) while /api/health is asked and answered."""
    import importlib

    app = create_app(services_for())
    gates: list[_Gate] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        sid = (await client.post("/api/sessions")).json()["id"]
        upload = {"name": "guide.md", "content": LARGE_DOC}
        fid = (await client.post(f"/api/sessions/{sid}/files", json=upload)).json()["fileId"]
        requests = []
        for case in cases:
            method, path, module, name = HEAVY[case]
            gate = _Gate()
            gates.append(gate)
            target = importlib.import_module(module)
            monkeypatch.setattr(target, name, gate.hold(getattr(target, name)))
            url = path.format(sid=sid) if path.startswith("/") else f"/api/sessions/{sid}/files/{fid}/{path}"
            body = {
                "qa": {"source": LARGE_DOC[:4_000], "translated_string": LARGE_DOC[:4_000]},
                "memory import": {"format": "tmx", "content": LARGE_TMX},
                "upload": {"name": "ui.xlf", "content": _XLIFF},
            }.get(case)
            requests.append(client.request(method, url, json=body))

        async def health() -> list[int]:
            for gate in gates:
                await asyncio.to_thread(gate.entered.wait, HOLD_SECONDS)
            statuses = [(await client.get("/api/health")).status_code for _ in range(3)]
            for gate in gates:
                gate.release.set()
            return statuses

        *answers, statuses = await asyncio.gather(*requests, health())
    assert all(gate.entered.is_set() for gate in gates)
    assert statuses == [200, 200, 200]
    for case, answer in zip(cases, answers, strict=True):
        assert answer.status_code in (200, 201), (case, answer.status_code, answer.text[:300])


_XLIFF = (
    '<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
    '<file original="a" source-language="en" datatype="plaintext"><body>'
    + "".join(f'<trans-unit id="u{n}"><source>Unit {n}.</source></trans-unit>' for n in range(2_000))
    + "</body></file></xliff>"
)


@pytest.mark.parametrize("case", sorted(HEAVY))
async def test_the_server_answers_while_heavy_work_runs(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    await _answered_meanwhile(monkeypatch, [case])


async def test_health_is_answered_while_a_large_export_and_a_large_import_run(monkeypatch: pytest.MonkeyPatch) -> None:
    await _answered_meanwhile(monkeypatch, ["export xliff2", "memory import"])
