"""The web UI offers exactly the MQM issues the API accepts (web/js/mqm.js mirrors agent_core/mqm.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_core.mqm import CATEGORIES, SEVERITIES

SOURCE = (Path(__file__).resolve().parents[1] / "web" / "js" / "mqm.js").read_text(encoding="utf-8")


def listed(name: str) -> list[str]:
    found = re.search(rf"export const {name} = (\[.*?\]);", SOURCE, re.DOTALL)
    assert found, name
    return list(json.loads(re.sub(r",\s*\]", "]", found.group(1))))


def test_the_ui_lists_the_api_categories_and_severities_in_order() -> None:
    assert listed("MQM_CATEGORIES") == list(CATEGORIES)
    assert listed("MQM_SEVERITIES") == list(SEVERITIES)
