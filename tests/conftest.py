"""Shared fixtures: AWS faked by moto, real model requests forbidden, backends by name."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

from pydantic_ai import models

from tests.aws import create_sessions_table

# A guard: no test may reach a real model provider.
models.ALLOW_MODEL_REQUESTS = False


def _share_botocore_models() -> None:
    """botocore's JSON models (service definitions, endpoints) parsed once a process, not once a
    boto3 session: moto starts every test on a new session, and each new session's client parsed
    them again (most of a DynamoDB test's setup). A session already shares one parsed model among
    its clients, read-only; this shares it among sessions too."""
    import botocore.loaders

    load = botocore.loaders.JSONFileLoader.load_file
    parsed: dict[str, Any] = {}

    def load_file(self: botocore.loaders.JSONFileLoader, file_path: str) -> Any:
        if file_path not in parsed:
            parsed[file_path] = load(self, file_path)
        return parsed[file_path]

    botocore.loaders.JSONFileLoader.load_file = load_file  # type: ignore[method-assign]


_share_botocore_models()

BACKENDS = ["sqlite", "dynamodb"]


@pytest.fixture(autouse=True)
def current_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """A sync test gets a current event loop, whatever async test ran before it.

    Mangum's (sync) Lambda handler runs the app on `asyncio.get_event_loop()`; pytest-asyncio leaves
    none behind after an async test, so a handler call in a later sync test would fail.
    """
    if inspect.iscoroutinefunction(getattr(request, "function", None)):
        yield
        return
    try:
        asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        yield
        asyncio.set_event_loop(None)
        loop.close()
        return
    yield


@pytest.fixture
def moto_table() -> Iterator[str]:
    """A moto DynamoDB table built from template.yaml; yields its name."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "sessions-test")
        yield "sessions-test"


def make_backend(name: str, tmp_path: object) -> object:
    """A fresh backend of the given kind (dynamodb needs an active moto mock; memory is SQLite in memory)."""
    if name == "memory":
        from storage.sqlite import SQLiteStorage

        return SQLiteStorage(":memory:")
    if name == "sqlite":
        from storage.sqlite import SQLiteStorage

        return SQLiteStorage(f"{tmp_path}/sessions.sqlite3")
    import boto3

    from storage.dynamodb import DynamoDBSessionStorage

    return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name="sessions-test")


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[object]:
    """Each backend in turn, fresh."""
    name = request.param
    if name == "dynamodb":
        request.getfixturevalue("moto_table")
    yield make_backend(name, tmp_path)
