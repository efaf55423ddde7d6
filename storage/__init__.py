"""Session storage: the interface, its backends (chosen by name, imported lazily) and the manager."""

from __future__ import annotations

import importlib
import os

from .interface import SessionStorageInterface
from .manager import SessionManager
from .owner_memory import OwnerMemory

BACKENDS = {
    "memory": ("storage.memory", "MemorySessionStorage"),
    "sqlite": ("storage.sqlite", "SQLiteSessionStorage"),
    "dynamodb": ("storage.dynamodb", "DynamoDBSessionStorage"),
}


def backend_from_env(name: str | None = None) -> SessionStorageInterface:
    """The backend `STORAGE_BACKEND` names (default sqlite), configured from the environment.

    Only the chosen backend's module is imported, so the embedded one never imports boto3.
    """
    name = (name or os.environ.get("STORAGE_BACKEND") or "sqlite").strip().lower()
    if name not in BACKENDS:
        raise ValueError(f"STORAGE_BACKEND={name!r}: choose one of {', '.join(BACKENDS)}")
    module_name, cls_name = BACKENDS[name]
    cls = getattr(importlib.import_module(module_name), cls_name)
    storage: SessionStorageInterface = cls.from_env()
    return storage


__all__ = ["BACKENDS", "OwnerMemory", "SessionManager", "SessionStorageInterface", "backend_from_env"]
