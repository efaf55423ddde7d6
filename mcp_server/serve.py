"""Running the MCP server: over stdio (a client starts it as a subprocess) or streamable HTTP (on a port)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Literal

import anyio

from .api import connect_api
from .tools import build_server

Transport = Literal["stdio", "http"]
MCP_PATH = "/mcp"
"""Where the streamable HTTP endpoint answers."""


async def serve(
    transport: Transport,
    *,
    api_url: str | None,
    token: str | None,
    root: Path,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    """Serve the tools until the client goes (stdio) or the process is stopped (HTTP)."""
    # One line per API request would bury what matters on stderr (a stdio client shows it as the server's log).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    api = connect_api(api_url, token)
    try:
        server = build_server(api, root=root)
        if transport == "stdio":
            await server.run_stdio_async()
        else:
            await server.run_streamable_http_async(host=host, port=port, streamable_http_path=MCP_PATH)
    finally:
        await api.aclose()


def run(
    transport: Transport,
    *,
    api_url: str | None,
    token: str | None,
    root: Path,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> int:
    """`translation-agent mcp`: serve, and return the exit status."""
    anyio.run(lambda: serve(transport, api_url=api_url, token=token, root=root, host=host, port=port))
    return 0
