"""The Lambda's cold start imports only what every request needs: the libraries of a few routes (the
segmenter, fuzzy matching, language detection, XML, the Markdown parser) wait for their first use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LATER = ("pysbd", "rapidfuzz", "langdetect", "lxml", "markdown_it", "agent_core.segmentation", "service.analysis")


@pytest.mark.slow
def test_importing_the_handler_loads_none_of_the_libraries_a_few_routes_use() -> None:
    code = f"import sys, handlers.api; print([m for m in {LATER!r} if m in sys.modules])"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STORAGE_BACKEND": "sqlite", "SQLITE_PATH": ":memory:"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
