"""The core guarantee under generated documents and reviews (Hypothesis), through the HTTP app with the
offline pseudo model, on SQLite (in memory and a file) and DynamoDB under moto.

Documents: any Unicode but lone surrogates (refused with 422, tests/test_failures.py), CRLF, a BOM,
NUL and other control characters, lines longer than a unit (300 characters), repeated passages and
headings, code fences. Reviews: approve, refine with any text a reviewer may send (not blank, no C0 control but tab and
line breaks: agent_core.text), reject (finitely often, or the pseudo
model would propose forever), the same verdicts sent again, and requests replayed with their
Idempotency-Key; batches answered whole or in part. Whatever they are, once every unit is approved:
the written units tile the source exactly once, in order (only whitespace between them, each at the
span its proposal named), every non-whitespace character is covered, each unit holds the text the
reviewer decided, and the download is the units with the source's whitespace between them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.models import resolve_model
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.helpers import AsyncApi, assert_error, services_for

TASK = "Translate doc.md into French."
MAX_REJECTS = 3
MAX_ROUNDS = 400

_TEXT = st.characters(codec="utf-8")  # every code point UTF-8 can carry: all but surrogates
# What a reviewer may type (agent_core.text): no C0 control but tab, LF and CR; a final is not blank.
_TYPED = st.characters(codec="utf-8", exclude_characters=[chr(c) for c in range(32) if chr(c) not in "\t\n\r"])
_FINAL = st.text(_TYPED, min_size=1, max_size=40).filter(str.strip)
_WORDS = st.text(_TEXT, min_size=1, max_size=60)
_LONG_LINE = st.builds(
    lambda w, spaced: ((w + " ") if spaced else w) * (300 // (len(w) + 1) + 2), _WORDS, st.booleans()
)  # longer than a unit: split inside the line, at a space or (with none) anywhere
_SHAPES = [
    "{}",
    "# {}",
    "```\n{}\n```",
    "~~~py\n{}\n~~~",
    "```\n{}",  # a fence never closed
    "- {}\n- {}",
    "> {}",
    "| {} | b |\n|---|---|\n| c | {} |",
    "---\ntitle: {}\n---",
    "<div>{}</div>",
    "    {}",
    "[{}]: https://example.com/x",
    "Text with `code {}` and https://example.com/{} inside.",
]
_PIECE = st.one_of(
    st.builds(lambda shape, w: shape.format(w, w), st.sampled_from(_SHAPES), _WORDS),
    _LONG_LINE,
    st.just("Same passage, again."),
    st.just("## Same heading"),
)
_BREAK = st.sampled_from(["\n\n", "\r\n\r\n", "\n", "\r\n", " ", "\t\n\n  ", "\x00\n\n"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A document: Markdown-ish pieces (some repeated) joined by breaks of every kind, maybe a BOM and edges."""
    pieces = draw(st.lists(_PIECE, min_size=1, max_size=7))
    if draw(st.booleans()):
        pieces.append(draw(st.sampled_from(pieces)))  # a repeated passage
    text = pieces[0]
    for piece in pieces[1:]:
        text += draw(_BREAK) + piece
    lead = draw(st.sampled_from(["", "\ufeff", "\n\n", " \r\n"]))
    trail = draw(st.sampled_from(["", "\n", "\r\n", "\n\n\n"]))
    return lead + text + trail


Decision = tuple[str, str]
"""`(status, text)`: approve, refine (text: the final), reject (text: the reason)."""
Round = tuple[str, int, list[Decision]]
"""`(kind, take, decisions)`: kind whole, partial (the first `take` requests only), replay (sent twice
with one Idempotency-Key) or repeat (the same verdicts sent again, without a key); a decision per request."""

_DECISION = st.one_of(
    st.just(("approve", "")),
    st.tuples(st.just("refine"), _FINAL),
    st.tuples(st.just("reject"), st.text(_TYPED, max_size=20)),
)
rounds = st.lists(
    st.tuples(
        st.sampled_from(["whole", "partial", "replay", "repeat"]), st.integers(1, 3), st.lists(_DECISION, max_size=6)
    ),
    max_size=8,
)


@dataclass
class Review:
    """The reviewer: rounds as planned (rejects bounded), then whole approvals; what each unit must hold."""

    plan: list[Round]
    proposals: dict[str, dict[str, Any]] = field(default_factory=dict)
    """callId → the copilot request, as last shown."""
    finals: dict[str, str] = field(default_factory=dict)
    """callId → the text the reviewer decided for it."""
    rejects: int = 0
    keys: int = 0

    def next_round(self) -> Round:
        return self.plan.pop(0) if self.plan else ("whole", 0, [])

    def verdict(self, request: dict[str, Any], decision: Decision) -> dict[str, Any]:
        """The verdict on one request, recording what its unit must hold."""
        call_id = request["tool"]["callId"]
        self.proposals[call_id] = request
        status, text = decision
        if status == "reject" and self.rejects < MAX_REJECTS:
            self.rejects += 1
            self.finals.pop(call_id, None)
            return {"tool": request["tool"], "status": "reject", "reason": text}
        if status == "refine":
            self.finals[call_id] = text
            return {"tool": request["tool"], "status": "refined", "translated_string": text}
        self.finals[call_id] = request["translate_string"]
        return {"tool": request["tool"], "status": "approve"}


async def translate(api: AsyncApi, content: str, plan: list[Round], *, verbatim: bool) -> tuple[str, str, Review]:
    """Upload, ask, and review every proposal until the loop waits for new input."""
    sid = (await api.ok("POST", "/api/sessions"))["id"]
    upload = {"name": "doc.md", "content": content, "keepVerbatim": verbatim}
    fid = (await api.ok("POST", f"/api/sessions/{sid}/files", upload))["fileId"]
    review = Review(list(plan))
    agent = await api.until_user(sid, userInput=TASK)
    for _ in range(MAX_ROUNDS):
        requests = agent["copilotRequests"]
        if not requests:
            return sid, fid, review
        agent = await answer(api, sid, review, requests)
    raise AssertionError("the translation did not finish")


async def answer(api: AsyncApi, sid: str, review: Review, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """One review round, as the plan says; the state the loop then waits in."""
    kind, take, decisions = review.next_round()
    answered = requests[:take] if kind == "partial" else requests
    verdicts = [
        review.verdict(r, decisions[i] if i < len(decisions) else ("approve", "")) for i, r in enumerate(answered)
    ]
    body = {"sessionId": sid, "copilotResponses": verdicts}
    review.keys += 1
    key = {"Idempotency-Key": f"{sid}-{review.keys}"}
    first = await api.client.post("/api/next", json=body, headers=key)
    assert first.status_code == 200, first.text
    if kind == "replay":
        again = await api.client.post("/api/next", json=body, headers=key)
        assert (again.status_code, again.text) == (200, first.text)
        assert again.headers["idempotent-replayed"] == "true"
    agent: dict[str, Any] = first.json()["agentResponse"]
    while agent["actor"] == "agent":
        agent = await api.next(sid)
    if kind == "repeat":
        # The same verdicts again: harmless while their calls are pending, refused (409) once they are done.
        again = await api.client.post("/api/next", json=body)
        if again.status_code != 200:
            assert_error(again, 409)
        agent = await api.until_user(sid)  # the state after whatever the repeat answered
    return agent


async def check(api: AsyncApi, sid: str, fid: str, content: str, review: Review) -> None:
    """The core guarantee, from `/source`, `/units` and the download alone."""
    base = f"/api/sessions/{sid}/files/{fid}"
    source = (await api.client.get(f"{base}/source")).text
    assert source == content, "the source is stored exactly"
    units = (await api.ok("GET", f"{base}/units"))["units"]
    position = 0
    expected = ""
    for unit in units:
        start, end = unit["start"], unit["end"]
        assert position <= start < end <= len(source), (position, unit)
        assert source[position:start].strip() == "", f"untranslated text before {start}: {source[position:start]!r}"
        expected += source[position:start] + unit["text"]
        position = end
        proposal = review.proposals.get(unit["callId"])
        if unit["status"] == "verbatim":
            assert unit["text"] == source[start:end]
        else:
            assert proposal is not None, unit
            assert (proposal["start"], proposal["end"], proposal["src_string"]) == (start, end, source[start:end])
            assert unit["text"] == review.finals[unit["callId"]], unit
    assert source[position:].strip() == "", f"untranslated tail: {source[position:]!r}"
    expected += source[position:]
    detail = await api.ok("GET", base)
    assert detail["progress"]["complete"] is True
    download = await api.client.get(f"{base}/translation")
    assert download.status_code == 200 and download.headers["x-translation-complete"] == "true"
    assert download.content.decode("utf-8") == expected


def run(storage: Callable[[], Storage], content: str, plan: list[Round], verbatim: bool) -> None:
    async def go() -> None:
        api = AsyncApi(services_for(storage(), model=resolve_model("pseudo")))
        sid, fid, review = await translate(api, content, plan, verbatim=verbatim)
        await check(api, sid, fid, content, review)

    asyncio.run(go())


@pytest.mark.parametrize("verbatim", [True, False])
@pytest.mark.parametrize("content", ["\n\n", " \r\n", "---\ntitle: 0\n---", "---\ntitle: 0\n---\n\nText."])
def test_edge_documents(content: str, verbatim: bool) -> None:
    """Documents Hypothesis found, kept as fixed examples: a blank document downloads as its whitespace
    (`assemble` returned "" until 84c6f15); front matter that ends the text without a newline makes
    `agent_core.markdown_structure.blocks` raise IndexError (upload 500 with keepVerbatim, every step
    503 without)."""
    run(lambda: SQLiteStorage(":memory:"), content, [], verbatim)


EXAMPLES = settings(
    deadline=None, max_examples=100, report_multiple_bugs=False, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.slow
@EXAMPLES
@given(content=documents(), plan=rounds, verbatim=st.booleans())
def test_sqlite_in_memory(content: str, plan: list[Round], verbatim: bool) -> None:
    run(lambda: SQLiteStorage(":memory:"), content, plan, verbatim)


@settings(EXAMPLES, max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(content=documents(), plan=rounds, verbatim=st.booleans())
def test_sqlite_file(content: str, plan: list[Round], verbatim: bool, tmp_path: Path) -> None:
    run(lambda: SQLiteStorage(str(tmp_path / f"{uuid.uuid4().hex}.sqlite3")), content, plan, verbatim)


@pytest.mark.slow
@settings(EXAMPLES, max_examples=10, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(content=documents(), plan=rounds, verbatim=st.booleans())
def test_dynamodb(content: str, plan: list[Round], verbatim: bool, moto_table: str) -> None:
    import boto3

    from storage.dynamodb import DynamoDBSessionStorage
    from tests.aws import create_sessions_table

    def table() -> Storage:
        client = boto3.client("dynamodb", region_name="us-east-1")
        name = f"sessions-{uuid.uuid4().hex[:12]}"  # a table per example: the memory starts empty each time
        create_sessions_table(client, name)
        return DynamoDBSessionStorage(client, table_name=name)

    run(table, content, plan, verbatim)
