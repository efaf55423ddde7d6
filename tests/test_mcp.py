"""The MCP tools through the SDK's own client, in process, against the app on SQLite with the pseudo model.

The transports themselves (stdio as a subprocess, streamable HTTP on loopback, against the local
service under uvicorn) are tests/test_mcp_transports.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from handlers.api import create_app
from mcp_server.api import AgentApi, GlossaryEntry
from mcp_server.files import FileError, read_source
from mcp_server.lookup import glossary_hits
from mcp_server.tools import build_server
from storage.sqlite import SQLiteStorage
from tests.helpers import services_for

GUIDE = "# Guide\n\nOpen a pull request.\n\nThen wait for the review.\n"
NAMES = {
    "lookup_memory",
    "analyze_file",
    "start_translation",
    "start_job",
    "continue_translation",
    "read_session",
    "read_job",
    "decide",
    "export_translation",
    "check",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The folder the server may read and write: a guide and an app's strings in two languages."""
    folder = tmp_path / "repo"
    (folder / "locales" / "en").mkdir(parents=True)
    (folder / "locales" / "fr").mkdir(parents=True)
    (folder / "guide.md").write_text(GUIDE, encoding="utf-8")
    (folder / "locales" / "en" / "app.json").write_text('{"hello": "Hello, {{name}}!", "bye": "Goodbye"}')
    (folder / "locales" / "fr" / "app.json").write_text('{"hello": "Bonjour !", "bye": "Au revoir"}')
    (tmp_path / "secret.md").write_text("Not yours.\n")
    return folder


@pytest.fixture
async def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[AgentApi]:
    """The API client over the app in process (SQLite, the offline pseudo model)."""
    monkeypatch.setenv("AGENT_MODEL", "pseudo")
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    app = create_app(services_for(SQLiteStorage(str(tmp_path / "service.sqlite3"))))
    client = AgentApi(httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://app"))
    yield client
    await client.aclose()


@contextlib.asynccontextmanager
async def connected(api: AgentApi, root: Path) -> AsyncIterator[Client]:
    """The SDK's client connected to the server in process (entered in the test's own task, as anyio
    requires of the client's task group)."""
    async with Client(build_server(api, root=root)) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """The tool's structured answer; a failure is the test's."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    found: dict[str, Any] | None = result.structured_content
    assert found is not None
    return found


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    """The tool's error message (it must fail)."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


async def test_every_tool_says_what_it_costs_and_who_decides(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert set(tools) == NAMES
        for name, tool in tools.items():
            assert "Cost:" in (tool.description or ""), name
            assert "Decides nothing" in (tool.description or "") or name == "decide", name
        decide = tools["decide"].description or ""
        assert "WHO DECIDES: the person, never you" in decide and "exactly as shown" in decide
        assert "one model request" in decide
        assert tools["read_session"].annotations is not None and tools["read_session"].annotations.read_only_hint
        assert "model requests" in (tools["start_translation"].description or "")


async def test_a_term_is_looked_up_in_the_glossary_and_the_memory(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        await api.add_glossary("pull request", "demande de fusion", "fr")
        await api.add_glossary("pull request", "Pull-Request", "de")
        found = await call(mcp, "lookup_memory", text="Open a pull request.", target_language="French")
        assert [(g["term"], g["translation"], g["languages"]) for g in found["glossary"]] == [
            ("pull request", "demande de fusion", "auto>fr")
        ]
        assert found["memory"] == []
        assert len((await call(mcp, "lookup_memory", text="PULL REQUEST"))["glossary"]) == 2
        assert (await call(mcp, "lookup_memory", text="merge", target_language="fr"))["glossary"] == []

        tmx = (
            '<tmx version="1.4"><header srclang="en" segtype="sentence" adminlang="en" datatype="plaintext"'
            ' o-tmf="x" creationtool="x" creationtoolversion="1"/><body>'
            '<tu><tuv xml:lang="en"><seg>Open a pull request.</seg></tuv>'
            '<tuv xml:lang="fr"><seg>Ouvrez une demande de fusion.</seg></tuv></tu></body></tmx>'
        )
        await api.import_memory("tmx", tmx)
        found = await call(mcp, "lookup_memory", text="Open a pull request now!", target_language="fr")
        assert [(m["source"], m["target"]) for m in found["memory"]] == [
            ("Open a pull request.", "Ouvrez une demande de fusion.")
        ]
        assert 75 <= found["memory"][0]["score"] < 100
        assert (await call(mcp, "lookup_memory", text="Open a pull request now!", target_language="de"))["memory"] == []


async def test_analysis_prices_the_file_and_leaves_no_session(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        found = await call(mcp, "analyze_file", path="guide.md", target_language="fr")
        assert (found["name"], found["segments"], found["target_language"], found["model"]) == (
            "guide.md",
            3,
            "fr",
            "pseudo",
        )
        assert found["estimate"]["model_requests"] >= 1 and found["estimate"]["input_tokens"] > 0
        assert sum(found["bands"].values()) + found["locked"] + found["repetitions"] == found["segments"]
        assert (await api.sessions()).sessions == ()


async def test_a_proposal_is_decided_and_a_stale_verdict_refused(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        started = await call(mcp, "start_translation", path="guide.md", target_language="fr")
        session_id = started["session_id"]
        assert started["spent"]["model_requests"] == 1
        shown = started["pending"]
        assert [p["source"] for p in shown] == ["# Guide", "Open a pull request.", "Then wait for the review."]

        # A verdict quoting another text than the proposal pending is refused, and nothing is sent.
        message = await refused(
            mcp,
            "decide",
            session_id=session_id,
            decisions=[{"call_id": shown[0]["call_id"], "proposal": "# Guide (old)", "verdict": "approve"}],
        )
        assert "Refused, nothing was sent" in message and shown[0]["proposal"] in message
        assert len((await api.session_status(session_id)).pendingCopilotRequests) == 3
        assert (await api.session_status(session_id)).copilotResponses == ()

        first = {"call_id": shown[0]["call_id"], "proposal": shown[0]["proposal"], "verdict": "approve"}
        after = await call(mcp, "decide", session_id=session_id, decisions=[first])
        assert [p["call_id"] for p in after["pending"]] == [p["call_id"] for p in shown[1:]]

        # The same proposal decided again (already decided, as another reviewer would find it) is refused.
        again = {**first, "verdict": "reject", "reason": "Too short."}
        assert "already decided (approve)" in await refused(mcp, "decide", session_id=session_id, decisions=[again])
        bogus = {"call_id": "call_nope", "proposal": "x", "verdict": "approve"}
        assert "not pending in this session" in await refused(mcp, "decide", session_id=session_id, decisions=[bogus])
        assert "needs the person's `reason`" in await refused(
            mcp, "decide", session_id=session_id, decisions=[{**first, "verdict": "reject"}]
        )

        edit = {
            "call_id": shown[1]["call_id"],
            "proposal": shown[1]["proposal"],
            "verdict": "edit",
            "text": "Ouvrez une demande de fusion.",
        }
        reject = {
            "call_id": shown[2]["call_id"],
            "proposal": shown[2]["proposal"],
            "verdict": "reject",
            "reason": "Say «relecture», not a pseudo text.",
        }
        done = await call(mcp, "decide", session_id=session_id, decisions=[edit, reject], go_on=False)
        assert done["files"][0]["translated_chars"] > 0 and not done["files"][0]["complete"]
        # The rejected span is proposed again in the same request, the reason in the model's messages.
        assert [p["source"] for p in done["pending"]] == ["Then wait for the review."]
        assert done["spent"]["model_requests"] == 2
        history = json.dumps((await api._request("GET", f"/api/sessions/{session_id}/messages")).json())
        assert "Say «relecture», not a pseudo text." in json.dumps(json.loads(history), ensure_ascii=False)

        exported = await call(mcp, "export_translation", session_id=session_id, write_to="out/guide.fr.md")
        assert exported["complete"] is False and "Ouvrez une demande de fusion." in exported["text"]
        assert (root / "out" / "guide.fr.md").read_text(encoding="utf-8") == exported["text"]
        # The person's edit is in the memory now: a similar sentence finds it.
        found = await call(mcp, "lookup_memory", text="Open a pull request!", target_language="fr")
        assert found["memory"][0]["target"] == "Ouvrez une demande de fusion."


async def test_a_job_is_started_for_files_and_keys(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        job = await call(
            mcp,
            "start_job",
            target_languages=["de", "Polish"],
            paths=["guide.md"],
            strings={"cart.empty": "Your cart is empty.", "cart.items": "{{count}} items"},
        )
        assert [lang["language"] for lang in job["languages"]] == ["de", "pl"]
        assert job["spent"]["model_requests"] == 0 and job["estimate"]["model_requests"] >= 2
        assert all(lang["segments"] == 5 and lang["state"] == "running" for lang in job["languages"])
        assert await call(mcp, "read_job", job_id=job["job_id"]) == job

        german = job["languages"][0]["session_id"]
        going = await call(mcp, "continue_translation", session_id=german, max_steps=1)
        assert going["spent"]["model_requests"] == 1 and going["pending"]
        assert {f["name"] for f in going["files"]} == {"guide.md", "strings.json"}
        read = await call(mcp, "read_session", session_id=german)
        assert read["pending"] == going["pending"]


async def test_files_outside_the_root_are_refused_and_nothing_is_made(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        for path in ("../secret.md", "/etc/hostname", "locales/../../secret.md"):
            message = await refused(mcp, "analyze_file", path=path, target_language="fr")
            assert "outside the folder" in message
        assert "Give either `path`" in await refused(mcp, "start_translation", target_language="fr")
        assert "No file 'missing.md'" in await refused(
            mcp, "start_translation", path="missing.md", target_language="fr"
        )
        assert (await api.sessions()).sessions == ()
        assert "outside the folder" in await refused(mcp, "check", paths=["../secret.md"])


async def test_check_runs_offline_on_the_files(root: Path, api: AgentApi) -> None:
    async with connected(api, root) as mcp:
        found = await call(mcp, "check", paths=["locales/fr/app.json"], source="locales/en/{name}")
        assert found["passed"] is False and found["report"]["errors"] >= 1
        findings = json.dumps(found["report"]["files"][0]["findings"])
        assert "{{name}}" in findings
        (root / "locales" / "fr" / "app.json").write_text('{"hello": "Bonjour {{name}} !", "bye": "Au revoir"}')
        found = await call(mcp, "check", paths=["locales/fr/app.json"], source="locales/en/{name}")
        assert found["passed"] is True and found["report"]["errors"] == 0


async def test_an_api_error_is_the_tools_message(api: AgentApi, root: Path) -> None:
    async with connected(api, root) as mcp:
        message = await refused(mcp, "read_session", session_id="s_" + "0" * 32)
        assert "does not exist" in message and "Traceback" not in message
        assert "server rejected" in await refused(mcp, "analyze_file", path="guide.md", target_language="Klingonese")
        # A budget too small for the first request: the session is made, the model not asked, and the
        # message names the session and the way on.
        message = await refused(mcp, "start_translation", path="guide.md", target_language="fr", budget_tokens=1)
        (made,) = (await api.sessions()).sessions
        assert f"Session {made.id} holds the file, but the model was not asked" in message
        assert "HTTP 402" in message and "`continue_translation` asks again" in message
        assert (await api.session_status(made.id)).telemetry.modelRequests == 0


def test_a_glossary_term_counts_as_a_whole_word_of_the_pair() -> None:
    entries = [
        GlossaryEntry(source="cart", target="Warenkorb", languages="auto>de"),
        GlossaryEntry(source="app", target="app", kind="keep", languages="auto>*"),
    ]
    assert [h.term for h in glossary_hits("Your cart is empty.", entries, "German")] == ["cart"]
    assert glossary_hits("A cartography of apples.", entries, "de") == []
    assert [h.term for h in glossary_hits("The app's cart", entries, "fr")] == ["app"]
    assert [h.term for h in glossary_hits("warenkorb", entries, None)] == ["cart"]


def test_a_link_out_of_the_root_is_outside_it(root: Path, tmp_path: Path) -> None:
    (root / "out").symlink_to(tmp_path)
    with pytest.raises(FileError, match="outside the folder"):
        read_source(root, "out/secret.md")
    assert read_source(root, "guide.md") == ("guide.md", GUIDE)
