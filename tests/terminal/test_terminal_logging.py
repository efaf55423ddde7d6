"""While the review screen runs, the app's logs go to the log file and nothing reaches stdout."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from terminal.local import connect
from terminal.review import ReviewApp
from tests.terminal.test_terminal_review import SIZE, settle, start


async def test_nothing_reaches_stdout_during_a_review(
    local_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Powertools JSON lines land in the log file, none on stdout, while cards are reviewed."""
    from handlers.logging import logger

    app_logger = logging.getLogger(logger.service)
    level = app_logger.level
    app_logger.setLevel(logging.INFO)
    # As in the console script: the app's handler writes to the process's stdout until routed.
    for handler in app_logger.handlers:
        if type(handler) is logging.StreamHandler:
            handler.setStream(sys.stdout)
    logger.info("probe")
    assert "probe" in capsys.readouterr().out  # the check below can see a line that escapes

    log = tmp_path / "translation-agent.log"
    client = connect(None, None, local_env, log)
    try:
        job = await start(client, tmp_path)
        app = ReviewApp(client, job)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("a")
            await settle(pilot)
            assert app.cards
        logging.getLogger("some.library").warning("a library warns")
    finally:
        await client.aclose()
        app_logger.setLevel(level)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    text = log.read_text(encoding="utf-8")
    assert '"message":"step"' in text and job.session_id in text
    assert "a library warns" in text
