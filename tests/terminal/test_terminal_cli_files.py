"""The console script as a translator uses it: where a resumed session writes, which files a session has."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

import terminal.cli
from terminal.cli import main
from terminal.review import ReviewApp
from tests.terminal.test_terminal_cli import _translate_all
from tests.terminal.test_terminal_review import DOC, SIZE, approve_every_batch, settle

Script = Callable[[Pilot[None]], Awaitable[None]]


def run_with(monkeypatch: pytest.MonkeyPatch, script: Script) -> None:
    """`translate` runs its review screen headless, driven by `script` (as a person at the keys)."""

    class Scripted(ReviewApp):
        async def run_async(self, **_: Any) -> None:  # type: ignore[override]
            async with self.run_test(size=SIZE) as pilot:
                await settle(pilot)
                await script(pilot)

    monkeypatch.setattr(terminal.cli, "ReviewApp", Scripted)


async def quit_at_once(pilot: Pilot[None]) -> None:
    """Look at the first batch, then quit."""
    await pilot.press("q")


async def approve_everything(pilot: Pilot[None]) -> None:
    """Shift+A on every batch until the document is complete, then quit."""
    await approve_every_batch(pilot)
    await pilot.press("q")


def test_a_resumed_session_writes_beside_its_source(
    local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Started as `translate docs/notes.md` in one folder, resumed from another: the output is docs/notes.french.md."""
    where = ["--db", str(local_env), "--log", str(tmp_path / "app.log")]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run_with(monkeypatch, quit_at_once)
    assert main(["translate", "docs/notes.md", "--to", "French", *where]) == 0
    first = capsys.readouterr().out
    expected = tmp_path / "docs" / "notes.french.md"
    match = re.search(r"Session (s_\w+): the translation goes to (.+)\.\n", first)
    assert match is not None and Path(match.group(2)).resolve() == expected
    assert re.search(r"file f_\w+  notes\.md  \(0/\d+ chars\)", first), "the file and its id are printed"
    session_id = match.group(1)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    run_with(monkeypatch, approve_everything)
    assert main(["translate", "--session", session_id, *where]) == 0
    out = capsys.readouterr().out
    assert f"Session {session_id}: complete, written to {expected}." in out
    assert expected.read_text(encoding="utf-8").count("\n\n") == DOC.count("\n\n")
    assert list(elsewhere.iterdir()) == [], "nothing written in the current folder"
    assert f"export {session_id} --format" in out, "one file: the export needs no file id"


def test_sessions_list_files_and_export_needs_no_file_id(
    local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sessions` prints each session's files with their ids; `export SESSION` takes the only file, or its name."""
    log = tmp_path / "app.log"
    session_id, file_id = asyncio.run(_translate_all(local_env, log))
    where = ["--db", str(local_env), "--log", str(log)]
    assert main(["sessions", *where]) == 0
    assert re.search(rf"file {file_id}  notes\.md  \(complete\)", capsys.readouterr().out)

    monkeypatch.chdir(tmp_path)
    assert main(["export", session_id, *where]) == 0
    written = capsys.readouterr().out
    assert re.match(r"Wrote (\S+) \(notes\.md, md\)", written)
    name = written.split()[1]
    assert "Release notes" not in (tmp_path / name).read_text(encoding="utf-8")

    out = tmp_path / "by-name.md"
    assert main(["export", session_id, "notes.md", "-o", str(out), *where]) == 0
    assert out.read_text(encoding="utf-8") == (tmp_path / name).read_text(encoding="utf-8")

    assert main(["export", session_id, "other.md", *where]) == 1
    error = capsys.readouterr().err
    assert "No file is called 'other.md'" in error and f"{file_id} notes.md" in error


@pytest.mark.slow
def test_several_languages_make_a_job_reviewed_language_by_language(
    local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`translate notes.md --to de,fr,pl`: one job, each language's session reviewed in turn and written beside
    the source; quitting one stops there, says how to resume it and the rest, and the job's table shows each."""
    where = ["--db", str(local_env), "--log", str(tmp_path / "app.log")]
    (tmp_path / "notes.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    seen: list[str] = []

    async def first_finishes_second_quits(pilot: Pilot[None]) -> None:
        seen.append(str(pilot.app.title))
        await (approve_everything(pilot) if len(seen) == 1 else quit_at_once(pilot))

    run_with(monkeypatch, first_finishes_second_quits)
    assert main(["translate", "notes.md", "--to", "de,fr,pl", *where]) == 0
    out = capsys.readouterr().out
    assert seen == ["translation-agent · de", "translation-agent · fr"], "pl waits: fr was left unfinished"
    assert re.search(r"Job j_\w+: de s_\w+, fr s_\w+, pl s_\w+", out)
    assert (tmp_path / "notes.de.md").read_text(encoding="utf-8").count("\n\n") == DOC.count("\n\n")
    assert not (tmp_path / "notes.pl.md").exists()
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line[:3] in ("de ", "fr ", "pl ")}
    assert rows == {"de": "complete", "fr": "running", "pl": "running"}
    assert re.search(r"Resume fr with `translation-agent translate notes\.md --to fr --session s_\w+`", out)
    assert re.search(r"Resume pl with `translation-agent translate notes\.md --to pl --session s_\w+`", out)
    assert main(["translate", "notes.md", "--to", "de,fr", "-o", "x.md", *where]) == 1
    assert "-o names one file" in capsys.readouterr().err


def test_a_translation_started_in_a_project_is_listed_with_it(
    local_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`projects --create`, `translate --project`, then `projects` and `projects ID` list the project and
    its session (the local user manages every project)."""
    where = ["--db", str(local_env), "--log", str(tmp_path / "app.log")]
    (tmp_path / "notes.md").write_text(DOC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["projects", *where]) == 0
    assert "You are a member of no project." in capsys.readouterr().out
    assert main(["projects", "--create", "Docs site", *where]) == 0
    found = re.search(r"Project (\S+): Docs site\.", capsys.readouterr().out)
    assert found is not None
    project = found[1]
    run_with(monkeypatch, quit_at_once)
    assert main(["translate", "notes.md", "--to", "fr", "--project", project, *where]) == 0
    session = re.search(r"Session (s\S+):", capsys.readouterr().out)
    assert session is not None
    assert main(["projects", *where]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(project))
    assert row.split()[1:3] == ["manager", "*"] and row.endswith("Docs site")
    assert main(["projects", project, *where]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(session[1])]
    assert len(rows) == 1 and rows[0][1] == "fr"
    assert main(["projects", "p_" + "0" * 32, *where]) == 1, "an unknown project is an error, not an empty list"
