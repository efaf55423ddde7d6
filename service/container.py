"""The app's services, wired once per process: `build_services()` serves production, tests and bench/.

Everything is injectable (the storage backend, the model, its settings, the distiller); what is not
given comes from the environment (`STORAGE_BACKEND`, `AGENT_MODEL`, `AGENT_MODELS`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings

from agent_core.catalog import ModelCatalog
from agent_core.distill import Distiller
from agent_core.runtime import AgentRuntime
from storage.interface import Storage

from .memory import OwnerMemory
from .owners import OwnerGate
from .projects import ProjectService
from .sessions import SessionService
from .steps import StepService
from .store import StorageSessionStore, TextCache
from .tm import TranslationMemory
from .workbench import Workbench


@dataclass(frozen=True, slots=True, kw_only=True)
class Services:
    """What the routes (and the terminal client) use."""

    storage: Storage
    runtime: AgentRuntime
    sessions: SessionService
    steps: StepService
    memory: OwnerMemory
    tm: TranslationMemory
    projects: ProjectService
    gate: OwnerGate
    """The owner a caller acts as on a route of a session, job or project (service.owners)."""

    def workbench(self) -> Workbench:
        """The workbench (segments, revisions, QA, exports' reads) over these services."""
        return Workbench(self.storage, self.runtime, self.sessions, self.memory, self.tm)


def model_catalog(model: Model | None = None) -> ModelCatalog:
    """The models sessions may use: `model` alone when given; else `AGENT_MODEL` (the default; `pseudo`
    when unset) and the comma-separated names of `AGENT_MODELS` after it."""
    from agent_core.models import DEFAULT_MODEL, resolve_model

    from .pricing import model_key, price_of

    if model is not None:
        return ModelCatalog.of(model, model_key(model), price_of(model_key(model)))
    default = os.environ.get("AGENT_MODEL", "").strip()
    others = [name.strip() for name in os.environ.get("AGENT_MODELS", "").split(",") if name.strip()]
    names = [default] if default else others[:1] or [DEFAULT_MODEL]
    return ModelCatalog([*names, *others], resolve=resolve_model, price=lambda m: price_of(model_key(m)))


def build_services(
    *,
    storage: Storage | None = None,
    model: Model | None = None,
    models: ModelCatalog | None = None,
    settings: ModelSettings | None = None,
    distiller: Distiller | None = None,
    min_model_seconds: float = 20.0,
    translation_memory: bool | None = None,
) -> Services:
    """The services over `storage` and `model` or `models` (from the environment when not given).

    `translation_memory` (default: `TRANSLATION_MEMORY`, on unless `off`) lets the step propose
    remembered units and show similar ones; reviewed units are kept in the memory either way.
    """
    from storage import backend_from_env

    storage = storage if storage is not None else backend_from_env()
    models = models or model_catalog(model)
    models.price(None)  # the default model and MODEL_PRICES are checked at start (the others on first use)
    cache = TextCache()
    tm = TranslationMemory(storage)
    memory = OwnerMemory(storage, tm=tm)
    runtime = AgentRuntime(
        StorageSessionStore(storage, cache=cache),
        models=models,
        memory=memory,
        tm=tm,
        memory_proposals=_memory_on(translation_memory),
        batch_chars=_batch_chars(),
        settings=settings,
        distiller=distiller,
        min_model_seconds=min_model_seconds,
    )
    gate = OwnerGate(storage)
    steps = StepService(runtime, storage, gate=gate)
    return Services(
        storage=storage,
        runtime=runtime,
        sessions=SessionService(storage, cache, models=models),
        steps=steps,
        memory=memory,
        tm=tm,
        projects=ProjectService(storage, claims=steps.claims),
        gate=gate,
    )


def _memory_on(setting: bool | None) -> bool:
    if setting is not None:
        return setting
    return os.environ.get("TRANSLATION_MEMORY", "on").strip().lower() not in ("off", "false", "0", "no")


def _batch_chars() -> int:
    """`BATCH_CHARS`: how much next text a request shows (a screen; 500 to 20,000, default 3,000)."""
    from agent_core.ahead import BATCH_CHARS

    value = os.environ.get("BATCH_CHARS", "").strip()
    if not value:
        return BATCH_CHARS
    if not value.isdigit() or not 500 <= int(value) <= 20_000:
        raise ValueError(f"BATCH_CHARS={value!r}: give a number of characters from 500 to 20000.")
    return int(value)
