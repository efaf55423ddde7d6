"""Session storage: the contracts and their backends, chosen by name and imported lazily.

Only the chosen backend's module is imported, so the embedded one never imports boto3.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .interface import Storage

BACKENDS = {
    "sqlite": ("storage.sqlite", "SQLiteStorage"),
    "dynamodb": ("storage.dynamodb", "DynamoDBSessionStorage"),
}


def backend_class(name: str | None = None) -> type[Storage]:
    """The class of the backend `STORAGE_BACKEND` names (default sqlite); only its module is imported."""
    name = (name or os.environ.get("STORAGE_BACKEND") or "sqlite").strip().lower()
    if name not in BACKENDS:
        raise ValueError(f"STORAGE_BACKEND={name!r}: choose one of {', '.join(BACKENDS)}")
    module_name, cls_name = BACKENDS[name]
    cls: type[Storage] = getattr(importlib.import_module(module_name), cls_name)
    return cls


def backend_from_env(name: str | None = None) -> Storage:
    """The backend `STORAGE_BACKEND` names (default sqlite), configured from the environment."""
    storage: Storage = backend_class(name).from_env()  # type: ignore[attr-defined]
    return storage


__all__ = ["BACKENDS", "backend_class", "backend_from_env"]
