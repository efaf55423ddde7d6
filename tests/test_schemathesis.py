"""Property-based bad input: schemathesis drives every route of the app's OpenAPI schema.

Whatever it sends (wrong types, missing fields, odd strings, unknown ids), the app must never
answer a server error (5xx), and every error body must be `{"error": …}`.
"""

from __future__ import annotations

from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402

from agent_core.models import resolve_model  # noqa: E402
from handlers.api import create_app  # noqa: E402
from tests.helpers import services_for  # noqa: E402

app = create_app(services_for(model=resolve_model("pseudo")))
schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.path, response.status_code, response.text)
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body, dict) and set(body) == {"error"}, body
