"""What the app needs, built once per process from the environment (or injected by tests)."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the services are built: the first request that needs them
    from agent_core.runtime import AgentRuntime
    from storage import SessionManager


@dataclass(frozen=True, slots=True)
class Services:
    """The session manager and the agent runtime wired to it."""

    manager: SessionManager
    runtime: AgentRuntime


def services_from_env() -> Services:
    """Storage from `STORAGE_BACKEND`, the model from `AGENT_MODEL`; corrections distilled into memory."""
    from agent_core.distill_model import distiller_for
    from agent_core.models import resolve_model
    from agent_core.runtime import AgentRuntime
    from storage import SessionManager, backend_from_env

    manager = SessionManager(backend_from_env())
    model = resolve_model(os.environ.get("AGENT_MODEL"))
    runtime = AgentRuntime(manager, model=model, memory=manager.memory, distiller=distiller_for(model))
    return Services(manager=manager, runtime=runtime)


class LazyServices:
    """Builds the services on first use and reuses them across warm invocations."""

    def __init__(self, services: Services | None = None) -> None:
        self._services = services
        self._lock = threading.Lock()

    def get(self) -> Services:
        """The services, built from the environment the first time."""
        if self._services is None:
            with self._lock:
                if self._services is None:
                    self._services = services_from_env()
        return self._services
