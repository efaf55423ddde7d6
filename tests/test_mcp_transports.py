"""`translation-agent mcp` on both transports, driven by the SDK's own client, against the local service.

The service runs under uvicorn in a subprocess (SQLite, the offline pseudo model), as `scripts/serve`
starts it; the MCP server is the console command, as an MCP client starts it: over stdio as the
client's subprocess, and over streamable HTTP on loopback. On each: a term looked up, a job started,
a proposal decided, a stale verdict refused.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from tests.local_service import local_service

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(process: subprocess.Popen[bytes], ready: Any, log: Path) -> None:
    deadline = time.monotonic() + 30
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(log.read_text())
        time.sleep(0.1)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def _listens(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def service(tmp_path: Path) -> Iterator[str]:
    """The local service under uvicorn (SQLite, pseudo model); yields its URL."""
    with local_service(tmp_path) as url:
        yield url


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The folder the MCP server may use."""
    folder = tmp_path / "repo"
    folder.mkdir()
    return folder


def _mcp_command(service: str, root: Path, *more: str) -> list[str]:
    return ["-m", "terminal", "mcp", "--api", service, "--root", str(root), *more]


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    found: dict[str, Any] | None = result.structured_content
    assert found is not None
    return found


async def _refused(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


async def scenario(client: Client, service: str) -> None:
    """A term looked up, a job started, a proposal decided, a stale verdict refused."""
    async with httpx.AsyncClient(base_url=service) as http:
        entry = {"source": "cart", "target": "Warenkorb", "languages": "de"}
        assert (await http.post("/api/memory/glossary", json=entry)).status_code == 201
    assert "WHO DECIDES" in next(t.description or "" for t in (await client.list_tools()).tools if t.name == "decide")

    found = await _call(client, "lookup_memory", text="Your cart is empty.", target_language="de")
    assert [(g["term"], g["translation"]) for g in found["glossary"]] == [("cart", "Warenkorb")]

    job = await _call(
        client, "start_job", target_languages=["de", "fr"], strings={"cart.empty": "Your cart is empty.", "ok": "OK"}
    )
    assert [lang["language"] for lang in job["languages"]] == ["de", "fr"] and job["spent"]["model_requests"] == 0
    german = job["languages"][0]["session_id"]
    going = await _call(client, "continue_translation", session_id=german, max_steps=2)
    assert going["spent"]["model_requests"] == 1
    shown = going["pending"]
    assert [p["key"] for p in shown] == ["cart.empty", "ok"]

    first = {"call_id": shown[0]["call_id"], "proposal": shown[0]["proposal"], "verdict": "approve"}
    after = await _call(client, "decide", session_id=german, decisions=[first])
    assert [p["call_id"] for p in after["pending"]] == [shown[1]["call_id"]]

    stale = {**first, "verdict": "edit", "text": "Der Warenkorb ist leer."}
    assert "already decided (approve)" in await _refused(client, "decide", session_id=german, decisions=[stale])
    changed = {"call_id": shown[1]["call_id"], "proposal": "OK (as shown earlier)", "verdict": "approve"}
    message = await _refused(client, "decide", session_id=german, decisions=[changed])
    assert "Refused, nothing was sent" in message and shown[1]["proposal"] in message
    assert (await _call(client, "read_session", session_id=german))["pending"] == after["pending"]


async def test_stdio(service: str, root: Path) -> None:
    """The client starts `translation-agent mcp` as its subprocess and speaks over its stdin and stdout."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=_mcp_command(service, root), env=env, cwd=ROOT)
    async with Client(params) as client:
        await scenario(client, service)


async def test_streamable_http(service: str, root: Path, tmp_path: Path) -> None:
    """`translation-agent mcp --http` listens on loopback; the client speaks streamable HTTP to /mcp."""
    port = _free_port()
    log_path = tmp_path / "mcp.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log_path.open("w") as log:
        command = [sys.executable, *_mcp_command(service, root, "--http", "--port", str(port))]
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            _wait(process, lambda: _listens(port), log_path)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                await scenario(client, service)
        finally:
            process.terminate()
            process.wait(timeout=10)
