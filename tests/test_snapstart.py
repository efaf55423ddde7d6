"""The SnapStart hooks (handlers/snapstart.py): the snapshot holds no secret and no connection; the
hooks register with the Lambda runtime, and a restored environment reseeds `random`."""

from __future__ import annotations

import random
import sys
import types
from typing import Any

import boto3
import pytest

import handlers.api as api
import service.container
from agent_core.models import resolve_model
from handlers import snapstart
from handlers.deps import LazyServices

FAKE_OPENAI_KEY = "sk-test-FAKE-0123456789abcdefFAKEFAKE"


def test_the_before_snapshot_hook_creates_no_client_and_reads_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("created before the snapshot")

    monkeypatch.setenv("AGENT_MODEL", "openai:gpt-4.1")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_OPENAI_KEY)
    monkeypatch.setenv("STORAGE_BACKEND", "dynamodb")
    monkeypatch.setattr(boto3, "client", forbidden)
    monkeypatch.setattr(boto3, "Session", forbidden)
    monkeypatch.setattr(service.container, "build_services", forbidden)
    # Not monkeypatch.setattr: Starlette's State keeps attributes in `_state`, which pytest's undo
    # does not see, so it would delete `services` instead of restoring it.
    previous = api.app.state.services
    api.app.state.services = LazyServices()
    resolve_model.cache_clear()
    try:
        snapstart.before_snapshot(api.app)
    finally:
        api.app.state.services = previous
    assert resolve_model.cache_info().currsize == 1, "only the pseudo model was built, no provider with its key"
    assert "pydantic_ai.models.openai" in sys.modules, "the configured provider's SDK is imported"
    assert "storage.dynamodb" in sys.modules, "the configured backend's module is imported (its client is not)"


def test_the_hooks_register_with_the_runtime_and_reseed_random(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # as outside Lambda: not importable
    assert snapstart.register(api.app) is False
    registered: dict[str, Any] = {}
    runtime = types.ModuleType("snapshot_restore_py")
    runtime.register_before_snapshot = lambda f: registered.setdefault("before", f)  # type: ignore[attr-defined]
    runtime.register_after_restore = lambda f: registered.setdefault("after", f)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", runtime)
    assert snapstart.register(api.app) is True
    assert registered["after"] is snapstart.after_restore
    before = registered["before"]
    assert (before.func, before.args) == (snapstart.before_snapshot, (api.app,))
    random.seed(1234)
    state = random.getstate()
    snapstart.after_restore()
    assert random.getstate() != state
