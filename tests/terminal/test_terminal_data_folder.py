"""The client's default store and log are in the user's data folder, not the working folder: a session
started in one folder resumes from another, and no `data/` folder appears where the command runs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from terminal.cli import main
from terminal.local import connect
from tests.terminal.test_terminal_review import DOC

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def user_data(local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No SQLITE_PATH; the user's data folder under tmp (XDG_DATA_HOME, as platformdirs reads it on Linux)."""
    monkeypatch.delenv("SQLITE_PATH")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "translation-agent"


async def _start_session() -> str:
    client = connect(None, None, None)  # the defaults, as `translate` without --db uses them
    try:
        session_id = await client.create_session()
        await client.upload(session_id, "notes.md", DOC)
        return session_id
    finally:
        await client.aclose()


def test_a_session_started_in_one_folder_is_found_from_another(
    user_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "project", tmp_path / "elsewhere"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    session_id = asyncio.run(_start_session())
    assert (user_data / "sessions.sqlite3").is_file() and (user_data / "translation-agent.log").is_file()

    monkeypatch.chdir(second)
    assert main(["sessions"]) == 0
    assert session_id in capsys.readouterr().out
    assert main(["export", session_id, "-o", str(second / "notes.md")]) == 0
    assert (second / "notes.md").is_file()
    assert not (first / "data").exists() and not (second / "data").exists()


def test_sqlite_path_and_db_still_choose_the_file(
    user_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    chosen = tmp_path / "mine.sqlite3"
    monkeypatch.setenv("SQLITE_PATH", str(chosen))
    assert main(["sessions", "--log", str(tmp_path / "app.log")]) == 0
    assert chosen.is_file() and not (user_data / "sessions.sqlite3").exists()
    other = tmp_path / "other.sqlite3"
    assert main(["sessions", "--db", str(other), "--log", str(tmp_path / "app.log")]) == 0
    assert other.is_file()


def test_the_default_path_scripts_serve_reads(user_data: Path) -> None:
    """`python -m terminal.paths` prints the store scripts/serve uses when SQLITE_PATH is unset."""
    env = {"XDG_DATA_HOME": str(user_data.parent), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "terminal.paths"], env=env, capture_output=True, text=True, check=True)
    assert Path(out.stdout.strip()) == user_data / "sessions.sqlite3"
    assert "terminal.paths" in (ROOT / "scripts" / "serve").read_text(encoding="utf-8")
