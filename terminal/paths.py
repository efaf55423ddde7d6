"""Where the terminal client and the local service keep their data by default: the user's data folder.

`platformdirs` names it per system: `$XDG_DATA_HOME/translation-agent` (else
`~/.local/share/translation-agent`) on Linux, `~/Library/Application Support/translation-agent` on
macOS, `%LOCALAPPDATA%\\translation-agent` on Windows. One folder whatever the working folder is, so
a session started in one folder resumes from any other. `SQLITE_PATH` and `--db`/`--log` override it.

    python -m terminal.paths      # prints the default SQLite file (scripts/serve reads it)
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_path

APP = "translation-agent"


def data_dir() -> Path:
    """The user's data folder of the app (not created here)."""
    return user_data_path(APP, appauthor=False)


def default_db() -> Path:
    """The embedded SQLite file when neither `--db` nor `SQLITE_PATH` names one."""
    return data_dir() / "sessions.sqlite3"


def default_log() -> Path:
    """The in-process app's log file when `--log` names none."""
    return data_dir() / "translation-agent.log"


if __name__ == "__main__":
    print(default_db())
