"""The console script's commands (`sessions`, `export`, `import`, `analyze`, `translate` errors) and the doNext
retries."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from terminal.api import ApiClient, ApiError, verdicts_body
from terminal.cli import default_output, main
from terminal.local import connect
from terminal.models import ToolRef, Verdict
from tests.terminal.test_terminal_review import DOC


async def _translate_all(db: Path, log: Path) -> tuple[str, str]:
    """A whole DOC approved without the TUI: the doNext loop of the client alone."""
    client = connect(None, None, db, log)
    try:
        session_id = await client.create_session()
        info = await client.upload(session_id, "notes.md", DOC)
        turn = await client.do_next({"sessionId": session_id, "userInput": "Translate notes.md into German."})
        while turn.copilot_requests:
            verdicts = [
                Verdict(tool=ToolRef(name=r.tool.name, callId=r.tool.callId), status="approve")
                for r in turn.copilot_requests
            ]
            turn = await client.do_next(verdicts_body(session_id, verdicts))
        assert turn.files[0].progress.complete
        return session_id, info.fileId
    finally:
        await client.aclose()


def test_sessions_and_export(local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`sessions` lists the session; `export` writes the translation as md, and names a format it lacks."""
    log = tmp_path / "app.log"
    session_id, file_id = asyncio.run(_translate_all(local_env, log))
    where = ["--db", str(local_env), "--log", str(log)]

    assert main(["sessions", *where]) == 0
    listed = capsys.readouterr().out
    assert session_id in listed and "Translate notes.md into German." in listed

    out = tmp_path / "notes.de.md"
    assert main(["export", session_id, file_id, "-o", str(out), *where]) == 0
    assert f"Wrote {out}" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert text.count("\n\n") == DOC.count("\n\n") and "Release notes" not in text  # every unit translated

    xliff = tmp_path / "notes.xlf"
    code = main(["export", session_id, file_id, "--format", "xliff2", "-o", str(xliff), *where])
    captured = capsys.readouterr()
    if code == 0:  # a server with the export route
        assert xliff.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    else:
        assert code == 1 and "cannot export the format 'xliff2'" in captured.err and not xliff.exists()

    assert main(["export", "s_" + "0" * 32, file_id, *where]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_import(local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`import` sends the file; a server without the route says so in words, not a stack trace."""
    glossary = tmp_path / "terms.csv"
    glossary.write_text("source,target\nrelease,Version\n", encoding="utf-8")
    code = main(["import", str(glossary), "--db", str(local_env), "--log", str(tmp_path / "app.log")])
    captured = capsys.readouterr()
    if code == 0:
        assert "added" in captured.out
    else:
        assert code == 1 and "no memory import" in captured.err and "Traceback" not in captured.err
    assert main(["import", str(tmp_path / "notes.txt"), "--db", str(local_env)]) == 1
    assert "Cannot tell the format" in capsys.readouterr().err


def test_analyze_prints_the_counts_and_the_estimate_and_keeps_no_session(
    local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nRun the installer. Then restart.\n\n```sh\nmake\n```\n\nRun the installer.\n")
    where = ["--db", str(local_env), "--log", str(tmp_path / "app.log")]
    assert main(["analyze", str(doc), "--to", "fr", *where]) == 0
    report = capsys.readouterr().out
    assert "guide.md: 5 segments, 11 words" in report and "(into fr)" in report
    assert [line.split()[:2] for line in report.splitlines() if line.strip().startswith(("Locked", "Repetitions"))] == [
        ["Locked", "1"],
        ["Repetitions", "1"],
    ]
    assert "No match             3        6" in report and "Estimate with pseudo: 2 model requests," in report
    assert main(["sessions", *where]) == 0
    assert "guide.md" not in capsys.readouterr().out  # the session made for the analysis is gone
    assert main(["analyze", str(tmp_path / "missing.md"), "--to", "fr", *where]) == 1


def test_analyze_prices_for_the_model_named_and_refuses_one_not_configured(
    local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_MODELS", "pseudo,openai:gpt-4.1")
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\nRun the installer. Then restart.\n")
    where = ["--db", str(local_env), "--log", str(tmp_path / "app.log")]
    assert main(["analyze", str(doc), "--to", "fr", "--model", "pseudo", *where]) == 0
    assert "Estimate with pseudo:" in capsys.readouterr().out
    assert main(["analyze", str(doc), "--to", "fr", "--model", "gpt-9", *where]) == 1
    error = capsys.readouterr().err
    assert "model 'gpt-9' is not configured here; the configured models: pseudo, openai:gpt-4.1." in error


def test_translate_needs_a_file_and_a_language(local_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without FILE and --to (or --session) nothing is created and the message says what to pass."""
    assert main(["translate", "--db", str(local_env)]) == 1
    assert "translate needs FILE and --to LANGUAGE" in capsys.readouterr().err


def test_default_output() -> None:
    """The translation goes next to the source, the language in its name."""
    assert default_output(Path("docs/guide.md"), "Brazilian Portuguese") == Path("docs/guide.brazilian-portuguese.md")


STEP = {"sessionId": "s_1", "agentResponse": {"actor": "user", "copilotRequests": [], "messages": []}}


async def _no_wait(_: float) -> None:
    return None


async def test_retries_keep_or_renew_the_idempotency_key() -> None:
    """503 (Retry-After) is tried again as a new attempt; a lost answer is resent with the same key."""
    keys: list[str] = []
    answers = iter(["503", "lost", "200"])

    def server(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["Idempotency-Key"])
        answer = next(answers)
        if answer == "503":
            return httpx.Response(503, json={"error": "throttled"}, headers={"Retry-After": "2"})
        if answer == "lost":
            raise httpx.ReadTimeout("lost", request=request)
        return httpx.Response(200, json=STEP)

    waits: list[float] = []
    client = ApiClient(httpx.AsyncClient(transport=httpx.MockTransport(server), base_url="http://x"), sleep=_no_wait)
    turn = await client.do_next({"sessionId": "s_1"}, on_retry=lambda error, wait: waits.append(wait))
    assert turn.actor == "user" and waits == [2.0, 1.0], "Retry-After, then a second after the lost answer"
    assert keys[0] != keys[1] and keys[1] == keys[2]


async def test_a_providers_throttle_is_waited_out_as_often_as_it_lasts() -> None:
    """503 with Retry-After, more times in a row than other failures are retried: waited out whole."""
    throttles = iter(["60", "600", "5", "7200", "1", "3", "2"])

    def server(request: httpx.Request) -> httpx.Response:
        wait = next(throttles, None)
        if wait is not None:
            return httpx.Response(503, json={"error": "quota"}, headers={"Retry-After": wait})
        return httpx.Response(200, json=STEP)

    waits: list[float] = []
    client = ApiClient(httpx.AsyncClient(transport=httpx.MockTransport(server), base_url="http://x"), sleep=_no_wait)
    turn = await client.do_next({"sessionId": "s_1"}, on_retry=lambda error, wait: waits.append(wait))
    assert turn.actor == "user" and waits == [60.0, 600.0, 5.0, 3600.0, 1.0, 3.0, 2.0]


async def test_a_conflict_restores_from_the_session() -> None:
    """409: the client reads the session and shows what is pending there instead of failing."""
    pending = {"tool": {"name": "Translate", "callId": "c1"}, "src_string": "a", "translate_string": "b", "start": 0}

    def server(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(409, json={"error": "advanced concurrently"})
        return httpx.Response(200, json={"id": "s_1", "actor": "user", "pendingCopilotRequests": [pending]})

    client = ApiClient(httpx.AsyncClient(transport=httpx.MockTransport(server), base_url="http://x"), sleep=_no_wait)
    turn = await client.do_next({"sessionId": "s_1", "copilotResponses": []})
    assert [r.tool.callId for r in turn.copilot_requests] == ["c1"]


async def test_errors_that_retrying_cannot_fix_are_raised_with_the_servers_words() -> None:
    """502 is not retried; the message joins the general words and the server's."""

    def server(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, content=json.dumps({"error": "The provider rejected the key."}))

    client = ApiClient(httpx.AsyncClient(transport=httpx.MockTransport(server), base_url="http://x"), sleep=_no_wait)
    with pytest.raises(ApiError, match=r"retrying will not help\. The provider rejected the key\.") as error:
        await client.do_next({"sessionId": "s_1"})
    assert error.value.status == 502
