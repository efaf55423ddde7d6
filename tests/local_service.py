"""The local service as the clients' tests meet it: under uvicorn in a subprocess, and the log routing
the in-process app leaves behind, undone."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def local_service(tmp_path: Path) -> Iterator[str]:
    """The local service under uvicorn (SQLite in `tmp_path`, the pseudo model, metrics off); yields its
    URL once `/api/health` answers (RuntimeError with its log when it exits or takes over 30 s)."""
    port = free_port()
    env = {
        **os.environ,
        "STORAGE_BACKEND": "sqlite",
        "SQLITE_PATH": str(tmp_path / "service.sqlite3"),
        "AGENT_MODEL": "pseudo",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "uvicorn", "handlers.api:app", "--host", "127.0.0.1", "--port", str(port)]
    log_path = tmp_path / "service.log"
    with log_path.open("w") as log:
        process = subprocess.Popen([*command, "--no-access-log"], cwd=ROOT, env=env, stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log_path.read_text())
                time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextlib.contextmanager
def logging_restored() -> Iterator[None]:
    """Undo, on leaving, the log routing of the in-process app (`terminal.local`): its handlers' streams,
    its propagation, the root's new handlers and warnings' capture."""
    from handlers.logging import logger

    app_logger, root = logging.getLogger(logger.service), logging.getLogger()
    streams = [(h, h.stream) for h in app_logger.handlers if isinstance(h, logging.StreamHandler)]
    propagate, root_handlers = app_logger.propagate, list(root.handlers)
    try:
        yield
    finally:
        for handler, stream in streams:
            old = handler.setStream(stream)
            if old is not None and old is not stream:
                old.close()
        app_logger.propagate = propagate
        for handler in root.handlers:
            if handler not in root_handlers:
                root.removeHandler(handler)
                handler.close()
        logging.captureWarnings(False)
