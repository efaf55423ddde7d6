"""Session storage: the interface, its backends (chosen by name, imported lazily) and the manager.

The package's names are imported on first use too (PEP 562), so `storage.errors` costs the handlers
nothing at import time: the rest comes with the services, on the first request that needs them.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .interface import SessionStorageInterface
    from .manager import SessionManager
    from .owner_memory import OwnerMemory

_LAZY = {
    "SessionStorageInterface": "storage.interface",
    "SessionManager": "storage.manager",
    "OwnerMemory": "storage.owner_memory",
}

BACKENDS = {
    "memory": ("storage.memory", "MemorySessionStorage"),
    "sqlite": ("storage.sqlite", "SQLiteSessionStorage"),
    "dynamodb": ("storage.dynamodb", "DynamoDBSessionStorage"),
}


def backend_class(name: str | None = None) -> type[SessionStorageInterface]:
    """The class of the backend `STORAGE_BACKEND` names (default sqlite); only its module is imported."""
    name = (name or os.environ.get("STORAGE_BACKEND") or "sqlite").strip().lower()
    if name not in BACKENDS:
        raise ValueError(f"STORAGE_BACKEND={name!r}: choose one of {', '.join(BACKENDS)}")
    module_name, cls_name = BACKENDS[name]
    cls: type[SessionStorageInterface] = getattr(importlib.import_module(module_name), cls_name)
    return cls


def backend_from_env(name: str | None = None) -> SessionStorageInterface:
    """The backend `STORAGE_BACKEND` names (default sqlite), configured from the environment.

    Only the chosen backend's module is imported, so the embedded one never imports boto3.
    """
    cls: Any = backend_class(name)
    storage: SessionStorageInterface = cls.from_env()
    return storage


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'storage' has no attribute {name!r}")


__all__ = ["BACKENDS", "OwnerMemory", "SessionManager", "SessionStorageInterface", "backend_class", "backend_from_env"]
