"""`translation-agent review` as a script runs it: `--approve-all` (what it approved, printed), `--as` in local
mode only, the refusals in the server's words, `--project` listing the sessions that review twice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from terminal.cli import main
from terminal.local import LOCAL_URL, local_app
from tests.terminal.test_second_review import Project, make_project
from tests.test_projects_api import Person


async def _with_project(db: Path, log: Path) -> tuple[str, str, str]:
    """A project whose session bob translated (test_second_review's); its ids."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=local_app(db, log)), base_url=LOCAL_URL) as setup:
        made = await make_project(setup)
        return made.pid, made.sid, made.fid


async def _segments(db: Path, log: Path, ids: tuple[str, str, str]) -> dict[int, dict[str, Any]]:
    """The file's segments by start, as the server lists them now."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=local_app(db, log)), base_url=LOCAL_URL) as setup:
        pid, sid, fid = ids
        alice, bob, rita = (Person(setup, sub) for sub in ("alice", "bob", "rita"))
        made = Project(alice, bob, rita, pid, sid, fid)
        return await made.segments()


def test_approve_all_prints_what_it_approved(
    local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "app.log"
    ids = asyncio.run(_with_project(local_env, log))
    pid, sid, _ = ids
    where = ["--db", str(local_env), "--log", str(log)]

    assert main(["review", "--project", pid, *where, "--as", "rita"]) == 0
    listed = capsys.readouterr().out
    assert sid in listed and " fr " in listed

    assert main(["review", sid, "--as", "bob", "--approve-all", *where]) == 1
    refused = capsys.readouterr()
    assert "Approving translated units is a reviewer's step: a manager can make you one." in refused.err
    assert refused.out == "", "nothing approved, nothing said but the refusal"

    assert main(["review", sid, "--as", "rita", "--approve-all", "--filter", "hello", *where]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("approved s1     Hello world.  →  [")
    assert out.splitlines()[0].endswith("(translated by bob)")
    assert "Approved 1 translated unit(s) of doc.md showing 'hello'" in out

    assert main(["review", sid, "--as", "rita", "--approve-all", *where]) == 0
    out = capsys.readouterr().out
    assert [line.split()[1] for line in out.splitlines() if line.startswith("approved ")] == ["s2", "s3", "s4"]
    assert "Approved 3 translated unit(s) of doc.md in session" in out
    found = asyncio.run(_segments(local_env, log, ids))
    assert {s["status"] for s in found.values()} == {"reviewed"}
    assert {s["history"][-1]["by"] for s in found.values()} == {"rita"}


def test_review_refuses_what_it_cannot_do(local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "app.log"
    pid, sid, fid = asyncio.run(_with_project(local_env, log))
    where = ["--db", str(local_env), "--log", str(log)]

    assert main(["review", sid, "--as", "rita", "--api", "http://127.0.0.1:9", "--approve-all"]) == 1
    assert "--as acts as another member in local mode only" in capsys.readouterr().err
    assert main(["review", *where]) == 1
    assert "review needs a SESSION" in capsys.readouterr().err
    assert main(["review", sid, "--project", "p_" + "0" * 32, *where]) == 1
    assert f"is not in project p_{'0' * 32}: it is in project {pid}." in capsys.readouterr().err
    assert main(["review", sid, "other.md", *where]) == 1
    assert f"No file is called 'other.md' in session {sid}: {fid} doc.md." in capsys.readouterr().err
    assert main(["review", sid, "--as", "carol", "--approve-all", *where]) == 1
    assert "does not exist" in capsys.readouterr().err, "a non-member sees nothing of the project"
    found = asyncio.run(_segments(local_env, log, (pid, sid, fid)))
    assert {s["status"] for s in found.values()} == {"translated"}, "nothing changed"
