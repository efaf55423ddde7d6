"""The translator's editor in a real terminal: `translation-agent translate strings.xml --to fr` run in tmux
(in-process app, SQLite, the offline pseudo model), driven by keys as a person types them and read from
tmux's screen. Each screen is kept as text (and with its colours, `.ansi`) under
test-artifacts/terminal/editor-*.txt."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.terminal.test_terminal_editor import FILES_LEFT, STRINGS

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "terminal"
SESSION = f"termeditor-{os.getpid()}"
SGR = re.compile(r"\x1b\[([0-9;]*)m")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True, timeout=30).stdout


def screen(*, colours: bool = False) -> str:
    """What the terminal shows now (with its SGR sequences when `colours`)."""
    return tmux("capture-pane", "-t", SESSION, "-p", *(["-e"] if colours else []))


def wait_for(text: str, timeout: float = 60.0) -> str:
    """The screen once it shows `text`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen()
        if text in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"the screen never showed {text!r}:\n{screen()}")


def keys(*names: str) -> None:
    """Press keys one at a time, as a person does (a burst could be read as one escape sequence)."""
    for name in names:
        tmux("send-keys", "-t", SESSION, name)
        time.sleep(0.15)


def keep(name: str) -> str:
    """Save the screen as test-artifacts/terminal/editor-NAME.txt (and .ansi); return its text."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    text = screen()
    (SHOTS / f"editor-{name}.txt").write_text(text, encoding="utf-8")
    (SHOTS / f"editor-{name}.ansi").write_text(screen(colours=True), encoding="utf-8")
    return text


def background_before(line: str, code: str) -> str:
    """The background colour in force where `code` starts on a captured line (its SGR parameters)."""
    at = line.index(code)
    background = ""
    for match in SGR.finditer(line[:at]):
        params = match.group(1).split(";")
        if "48" in params:
            background = ";".join(params[params.index("48") :][:3])
        elif params in (["0"], [""]):
            background = ""
    return background


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Path]:
    """The client reviewing strings.xml into French in a 120×45 tmux window; yields the output path."""
    source = tmp_path / "strings.xml"
    source.write_text(STRINGS, encoding="utf-8")
    output = tmp_path / "values-fr" / "strings.xml"
    env = {
        "AGENT_MODEL": "pseudo",
        "STORAGE_BACKEND": "sqlite",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
    }
    command = [sys.executable, "-m", "terminal", "translate", str(source), "--to", "fr"]
    command += ["--db", str(tmp_path / "db.sqlite3"), "--log", str(tmp_path / "app.log"), "-o", str(output)]
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    # COLUMNS and LINES from the test run would fix the app at their size instead of the window's.
    shell = f"cd {ROOT} && env -u COLUMNS -u LINES {exports} {' '.join(command)}; sleep 60"
    tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "45", shell)
    try:
        yield output
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False, capture_output=True)


def test_codes_in_a_real_terminal(running: Path) -> None:
    shown = wait_for("Review: 4 of 4 undecided.")
    keep("1-cards")
    assert "codes: %1$d <b> %2$s </b>" in shown and "welcome  ·  Shown on the home screen after sign-in" in shown
    coloured = next(line for line in screen(colours=True).splitlines() if "files left on" in line)
    opening, closing, placeholder = (background_before(coloured, c) for c in ("<b>", "</b>", "%2$s"))
    assert opening and opening == closing != placeholder  # a pair in one colour, the placeholder in another
    keys("i")
    shown = wait_for("Esc closes")
    keep("1-context")
    assert "welcome" in shown and "Welcome back, " in shown
    keys("Escape")

    keys("j", "e")
    wait_for("Edit the translation")
    keep("2-edit")
    keys(*["Left"] * 5, "BSpace")
    wait_for("</b> selected: Backspace or Delete again removes it")
    keys("BSpace")
    shown = wait_for("⚠ Codes: </b> is missing")
    keep("3-code-removed")
    keys("S-Left", "x")  # the s of %2$s selected, then typed over
    shown = wait_for("That edit would break %2$s")
    keep("4-typing-refused")
    assert "<b>%2$s ~~~]" in shown  # the x was not typed
    keys("F9")
    shown = wait_for("✓ Every code kept (4).")
    keep("5-code-restored")
    assert "<b>%2$s</b> ~~~]" in shown
    keys("C-o")
    wait_for(f"▊ {FILES_LEFT}")
    keys("Home")
    tmux("send-keys", "-t", SESSION, "-l", "Encore ")
    wait_for(f"Encore {FILES_LEFT}")
    keep("6-source-copied")
    keys("C-s")
    wait_for("✎ edited")
    keys("A")
    wait_for("Translation complete")
    keep("7-complete")
    written = running.read_text(encoding="utf-8")
    assert f'name="files_left">Encore {FILES_LEFT}</string>' in written
    keys("q")
