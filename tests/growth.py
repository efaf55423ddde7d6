"""How a piece of work's CPU time grows with its input, measured so that only the work's own algorithm shows.

A growth test compares one input with one four times as large: linear work takes about 4 times as
long, quadratic work 16. Two things on this shared machine blur that ratio and are not the work's:
other processes (hence CPU time, the best of a few runs) and Python's cyclic garbage collector, whose
full collections walk every live object, so that a large input's run pays for the heap it built. The
collector is therefore collected before and held off during each run.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def cpu_seconds(work: Callable[[], object], *, runs: int = 3) -> float:
    """The least CPU time (every thread of this process) of `runs` runs of `work`, the collector held off."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            work()
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
    return best
