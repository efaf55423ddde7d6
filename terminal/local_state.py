"""What the terminal client keeps of a session on this machine: where its translation goes, unsent verdicts.

The server knows a file by its name only, so the folder of the source (the translation is written
beside it) is remembered here, as are the verdicts of a batch that could not reach the server when
the reviewer quit (restored onto their cards on resume). One JSON file beside the data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .models import Verdict

STATE_NAME = "terminal-sessions.json"


class LocalState:
    """The sessions' local records in one JSON file: `{session id: {"output": path, "drafts": [verdict]}}`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def beside(cls, data_file: Path) -> LocalState:
        """The state kept in the folder of `data_file` (the embedded store, or the log with a deployed API)."""
        return cls(data_file.parent / STATE_NAME)

    def output(self, session_id: str) -> Path | None:
        """Where the session's translation goes, as its first run decided; None when this machine never knew."""
        value = self._read().get(session_id, {}).get("output")
        return Path(value) if isinstance(value, str) and value else None

    def remember_output(self, session_id: str, output: Path) -> None:
        """Keep where the session's translation goes (an absolute path, so any folder resumes it)."""
        self._update(session_id, output=str(output.resolve()))

    def drafts(self, session_id: str) -> list[Verdict]:
        """The verdicts kept for the session because they could not be sent (unreadable ones are skipped)."""
        kept = self._read().get(session_id, {}).get("drafts", [])
        verdicts = []
        for body in kept if isinstance(kept, list) else []:
            try:
                verdicts.append(Verdict.model_validate(body))
            except ValidationError:
                continue
        return verdicts

    def keep_drafts(self, session_id: str, verdicts: Sequence[Verdict]) -> None:
        """Keep these verdicts (replacing the ones kept before); none clears them."""
        self._update(session_id, drafts=[v.body() for v in verdicts] or None)

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # an unreadable file holds nothing usable; the next write replaces it
        return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}

    def _update(self, session_id: str, **fields: object) -> None:
        data = self._read()
        record = data.get(session_id, {})
        for name, value in fields.items():
            if value is None:
                record.pop(name, None)
            else:
                record[name] = value
        if record:
            data[session_id] = record
        else:
            data.pop(session_id, None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(temporary, self.path)  # a reader never sees half a file
