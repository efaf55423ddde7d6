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
    """botocore's JSON models (service definitions, endpoints) found and parsed once a process, not
    once a boto3 session: moto starts every test on a new session, and each new session's client
    parsed them again (most of a DynamoDB test's setup). A session already shares one parsed model
    among its clients, read-only; this shares it among sessions too."""
    import botocore.loaders

    load = botocore.loaders.JSONFileLoader.load_file
    parsed: dict[str, Any] = {}

    def load_file(self: botocore.loaders.JSONFileLoader, file_path: str) -> Any:
        if file_path not in parsed:
            parsed[file_path] = load(self, file_path)
        return parsed[file_path]

    botocore.loaders.JSONFileLoader.load_file = load_file  # type: ignore[method-assign]

    # A loader also lists every service directory (thousands of listdir and stat calls) and looks
    # up each model's path once a loader; loaders on the same search paths share those answers.
    init = botocore.loaders.Loader.__init__
    answers: dict[tuple[str, ...], dict[Any, Any]] = {}

    def share_answers(self: botocore.loaders.Loader, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self._cache = answers.setdefault(tuple(self.search_paths), {})

    botocore.loaders.Loader.__init__ = share_answers


_share_botocore_models()


def _remember_moto_attribute_names() -> None:
    """moto's response serializer finds each attribute of a reply (every member of every DynamoDB
    AttributeValue) by asking five alias rules for the names it may have on the Python object, anew
    for every value: most of the CPU of a DynamoDB call under moto. The names depend only on the
    serializer, the service, the object's class, the key and the shape and its parent structure, so
    they are asked once for each of those and remembered (DynamoDB tests about a quarter cheaper)."""
    from moto.core import serialize

    possible_keys = serialize.XFormedAttributePicker.get_possible_keys
    known: dict[tuple[Any, ...], list[str]] = {}

    def remembered(self: serialize.XFormedAttributePicker, context: serialize.AttributePickerContext) -> Any:
        shape = context.shape
        parent = getattr(shape, "parent", None)
        key = (
            tuple(self.alias_providers),
            getattr(context.service_model, "service_name", None),
            type(context.obj),
            context.key,
            None if shape is None else shape.name,
            None if parent is None else (parent.name, parent.type_name),
        )
        names = known.get(key)
        if names is None:
            names = known[key] = list(possible_keys(self, context))
        return names

    serialize.XFormedAttributePicker.get_possible_keys = remembered  # type: ignore[method-assign]


_remember_moto_attribute_names()


def _serialize_moto_tables() -> None:
    """moto's DynamoDB operations one at a time, as DynamoDB makes each of them atomic.

    moto runs a transaction by deep-copying the tables it names, applying its writes, and restoring
    the copies when a condition fails: a transaction that fails in one thread while another thread's
    write lands restores the table without that write, which DynamoDB never does. Tests that race
    threads against one moto table (the file cap, member changes, concurrent approvals) test our code's
    conditions, not moto's lack of isolation; this lock gives them DynamoDB's.
    """
    import functools
    import threading

    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    for name in ("get_item", "query", "scan", "put_item", "update_item", "delete_item", "transact_write_items"):
        operation = getattr(DynamoDBBackend, name)

        @functools.wraps(operation)
        def one_at_a_time(self: DynamoDBBackend, *args: Any, __operation: Any = operation, **kwargs: Any) -> Any:
            with lock:
                return __operation(self, *args, **kwargs)

        setattr(DynamoDBBackend, name, one_at_a_time)


_serialize_moto_tables()

BACKENDS = ["sqlite", "dynamodb"]

CONTRACT_MODULES = {
    "test_storage_conformance.py",
    "test_memory_conformance.py",
    "test_storage_jobs.py",
    "test_review_log.py",
    "test_tm_replica.py",
}
"""The storage contract's own suites: they run on every backend in the fast tier."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test run on DynamoDB (a backend parameter `"dynamodb"`) outside the storage contract's suites
    is in the slow tier; its SQLite twin stays in the fast one.

    Such a test drives the app (HTTP, the Lambda handler, a job) and runs on DynamoDB because it can;
    what DynamoDB itself must do the contract's suites check on every backend in the fast tier. Under
    moto a DynamoDB variant costs about five times its SQLite twin's CPU, and they were most of the
    fast tier's time. The whole suite (both tiers, scripts/test) still runs every variant; they are
    also marked `dynamodb_variant`, so that the slow tier runs them on every core (they time nothing;
    a test slow of its own, end to end or across processes, is left as it is).
    """
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            "dynamodb" in params.values()
            and item.path.name not in CONTRACT_MODULES
            and not item.get_closest_marker("slow")
        ):
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.dynamodb_variant)


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
