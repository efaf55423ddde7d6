"""Text kept as it is: a new file's code blocks, front matter, HTML, rules, link references and bare
URLs are written at upload, without a model request or a review (segments show them as `verbatim`).
"""

from __future__ import annotations

from dataclasses import replace

from agent_core.document import FileState, add_span
from agent_core.effects import StepEffects
from agent_core.verbatim import verbatim_units
from storage.interface import SessionStorageInterface

UNITS_PER_COMMIT = 90
"""A DynamoDB transaction holds at most 100 writes: the record and the coverage take two."""


def write_verbatim(storage: SessionStorageInterface, session_id: str, state: FileState, content: str) -> FileState:
    """Write the file's verbatim spans as units (in commits of UNITS_PER_COMMIT); the file after it."""
    units = verbatim_units(state.file_id, content)
    covered = state.covered
    for i in range(0, len(units), UNITS_PER_COMMIT):
        batch = units[i : i + UNITS_PER_COMMIT]
        for unit in batch:
            covered = add_span(covered, unit.start, unit.cover_end)
        token = storage.load_step(session_id, window=0).token
        storage.commit(token, StepEffects(units=batch, coverage={state.file_id: covered}))
    return replace(state, covered=covered)
