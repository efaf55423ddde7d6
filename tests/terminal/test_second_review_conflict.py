"""The second review beside a driver's pending revision: the reviewer's approval of that unit is the
server's 409, in its words, on the screen; approving all shown leaves that unit for after the revision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.settings import ModelSettings

from agent_core.pseudo import PseudoModel
from terminal.local import LOCAL_URL, local_app
from terminal.second_review import SecondReviewApp
from tests.terminal.test_second_review import SIZE, make_project, member, settle, status

__all__ = ["member"]  # a fixture of test_second_review, offered here too

REVISE = "REVISE "
"""A user input `REVISE <start>` makes the model propose a revision of the unit written at `start`."""


class RevisingPseudo(PseudoModel):
    """The pseudo model, which also proposes a `Revise` of a written unit when the user's input asks."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """A Revise call for `REVISE <start>`, else what the pseudo model does."""
        last = messages[-1]
        said = [p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        asked = next((s for s in said if s.startswith(REVISE)), None) if isinstance(last, ModelRequest) else None
        if asked is None:
            return await super().request(messages, model_settings, model_request_parameters)
        args = {"file_id": "f1", "start": int(asked.removeprefix(REVISE)), "translate_string": "Révisé."}
        return ModelResponse(parts=[ToolCallPart(tool_name="Revise", args=args, tool_call_id="revise_1")])


def revising_model() -> RevisingPseudo:
    """`AGENT_MODEL=python:tests.terminal.test_second_review_conflict:revising_model`."""
    return RevisingPseudo()


async def test_a_unit_under_a_pending_revision_waits(
    local_env: Path, tmp_path: Path, member: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_MODEL", f"python:{__name__}:revising_model")
    transport = httpx.ASGITransport(app=local_app(local_env, tmp_path / "translation-agent.log"))
    async with httpx.AsyncClient(transport=transport, base_url=LOCAL_URL) as setup:
        made = await make_project(setup)
        starts = sorted(await made.segments())
        step = await made.bob.ok("POST", "/api/next", {"sessionId": made.sid, "userInput": f"{REVISE}{starts[0]}"})
        assert [r["tool"]["name"] for r in step["agentResponse"]["copilotRequests"]] == ["Revise"]

        app = SecondReviewApp(member("rita"), made.sid, made.fid)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert [u.start for u in app.units] == starts
            await pilot.press("a")  # the unit the driver's revision is about
            await settle(pilot)
            shown = status(app)
            assert "1 proposed unit(s) await your review; answer them before revising." in shown
            assert app.query_one("#status").has_class("-error") and len(app.units) == 4

            await pilot.press("A")
            await settle(pilot)
            assert [u.start for u in app.units] == starts[:1], "the rest approved; that one waits for the driver"
            assert "Approved 3 units." in status(app)
        found = await made.segments()
        assert [found[s]["status"] for s in starts] == ["translated", "reviewed", "reviewed", "reviewed"]
