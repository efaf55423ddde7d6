"""Running the MCP server: over stdio (a client starts it as a subprocess) or streamable HTTP (on a port)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Literal

import anyio

from .api import connect_api
from .tools import build_server

Transport = Literal["stdio", "http"]
LOOPBACK = ("127.0.0.1", "localhost", "::1")
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
    if transport == "http" and host not in LOOPBACK:
        # The endpoint has no authentication of its own, and the SDK guards against DNS rebinding on loopback only.
        print(
            f"translation-agent mcp: serving on {host}: whoever reaches it acts with this server's API token.",
            file=sys.stderr,
        )
    anyio.run(lambda: serve(transport, api_url=api_url, token=token, root=root, host=host, port=port))
    return 0
