"""Learning after the commit: a step's lessons stored in the owner's memory, best effort.

The corrections themselves are committed with the step (they are never lost). Afterwards, in the
same request, the memory port stores the lessons the model's `Remember` calls kept (already checked
against the corrections) and those the distiller, if there is one, finds in the step's corrections.
This is bounded in time (at most `timeout` seconds, and skipped when the invocation has less than
`reserve + min_seconds` left) and can never fail the step: the step is already committed, so any
error here is logged and the answer goes out as if nothing happened.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .distill import Distiller
from .effects import Correction
from .memory import NO_LESSONS, Lessons
from .ports import MemoryStore

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Learner:
    """Writes a committed step's lessons (its Remember calls', its distilled corrections') to the owner's memory."""

    memory: MemoryStore
    timeout: float = 8.0
    """The most seconds a step spends distilling after its commit."""
    reserve: float = 3.0
    """Seconds of the invocation kept for answering the request."""
    min_seconds: float = 1.0
    """Distillation is skipped when less than this would be left for it."""

    async def after_commit(
        self,
        distiller: Distiller | None,
        owner: str,
        corrections: Sequence[Correction],
        *,
        lessons: Lessons = NO_LESSONS,
        languages: str,
        time_left: Callable[[], float] | None = None,
    ) -> Lessons:
        """Store `lessons` and what `distiller` (if any: the rules, for `pseudo`) learns from
        `corrections`; the lessons stored (empty when skipped or failed)."""
        distiller = distiller if corrections else None
        if distiller is None and not lessons:
            return Lessons()
        budget = self.timeout if time_left is None else min(self.timeout, time_left() - self.reserve)
        if budget < self.min_seconds:
            logger.info("distillation skipped: too little invocation time left", extra={"seconds": budget})
            return Lessons()
        started = time.perf_counter()
        try:
            if distiller is not None:
                lessons += await asyncio.wait_for(distiller.distill(corrections, languages=languages), budget)
            if lessons:
                await self.memory.learn(owner, lessons)
        except Exception as exc:  # the step is committed: learning must never fail it
            logger.warning("distillation failed; corrections kept", extra={"error": f"{type(exc).__name__}: {exc}"})
            return Lessons()
        logger.info(
            "distilled",
            extra={
                "glossary": len(lessons.glossary),
                "style_notes": len(lessons.style_notes),
                "ms": int((time.perf_counter() - started) * 1000),
            },
        )
        return lessons
