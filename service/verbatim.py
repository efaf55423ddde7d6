"""Text kept as it is: a new file's code blocks, front matter, HTML, rules, link references and bare
URLs are written at upload, without a model request or a review (segments show them as `verbatim`).

Best effort, after the file is stored: if writing them fails (the store throttles, a concurrent
step commits first), the upload still succeeds and the spans are translated like any text (the
rules tell the model to keep code as it is), so an upload is never half made.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from agent_core.document import FileState, add_spans
from agent_core.effects import StepEffects
from agent_core.errors import ConflictError, UnavailableError
from agent_core.verbatim import verbatim_units
from storage.interface import SessionStorageInterface

logger = logging.getLogger(__name__)

UNITS_PER_COMMIT = 90
"""A DynamoDB transaction holds at most 100 writes: the record and the coverage take two."""


def write_verbatim(storage: SessionStorageInterface, session_id: str, state: FileState, content: str) -> FileState:
    """Write the file's verbatim spans as units (in commits of UNITS_PER_COMMIT); the file after it."""
    units = verbatim_units(state.file_id, content)
    covered = state.covered
    for i in range(0, len(units), UNITS_PER_COMMIT):
        batch = units[i : i + UNITS_PER_COMMIT]
        after = add_spans(covered, ((unit.start, unit.cover_end) for unit in batch))
        try:
            token = storage.load_step(session_id, window=0).token
            storage.commit(token, StepEffects(units=batch, coverage={state.file_id: after}))
        except (UnavailableError, ConflictError) as exc:
            logger.warning("verbatim text not written; it will be translated", extra={"error": type(exc).__name__})
            break
        covered = after
    return replace(state, covered=covered)
