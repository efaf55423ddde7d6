"""The context match ("101%"): a translation-memory entry keeps the key of the string it was written from;
an exact match of the same source and key is `match: 101` on the card and in the analysis (its own band,
above 100), estimated 100, while a resource string's plain 100 (another key) loses 5 with a reason, so a
routing threshold of 100 approves only context matches. Through HTTP on both backends, and as units."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.estimate_quality import OTHER_KEY_PENALTY, estimate_quality
from agent_core.models import resolve_model
from agent_core.segment import SegmentContext
from agent_core.tm import CONTEXT_MATCH, TmEntry, exact_score, string_key
from agent_core.tools.base import memory_match
from tests.helpers import AsyncApi, services_for
from tests.storage_cases import backend

FIRST = {"menu.open": "Open the file", "title": "Welcome to the editor"}
LATER = {"toolbar.open": "Open the file", "menu.open": "Open the file", "footer": "See you soon"}


@pytest.fixture(params=["sqlite", "dynamodb"])
def api(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncApi:
    return AsyncApi(services_for(backend(request.param, request, tmp_path), model=resolve_model("pseudo")))


async def session(api: AsyncApi, strings: dict[str, str], **settings: Any) -> tuple[str, str]:
    sid = (await api.ok("POST", "/api/sessions", {"targetLanguage": "fr", **settings}))["id"]
    body = {"name": "app.json", "content": json.dumps(strings)}
    return sid, (await api.ok("POST", f"/api/sessions/{sid}/files", body))["fileId"]


async def approve_all(api: AsyncApi, sid: str) -> list[dict[str, Any]]:
    """Every card of the session approved as proposed, to the end: the cards seen."""
    seen: list[dict[str, Any]] = []
    agent = await api.until_user(sid, userInput="Translate app.json into French.")
    while agent.get("copilotRequests"):
        seen += agent["copilotRequests"]
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in agent["copilotRequests"]]
        agent = await api.until_user(sid, copilotResponses=verdicts)
    return seen


async def test_a_match_from_the_same_key_is_101_and_ranks_above_one_from_another_key(api: AsyncApi) -> None:
    first, _ = await session(api, FIRST)
    await approve_all(api, first)
    [entry] = [e for e in (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"] if e["key"] == "menu.open"]
    assert entry["source"] == "Open the file"

    later, fid = await session(api, LATER)
    analysis = await api.ok("GET", f"/api/sessions/{later}/files/{fid}/analysis")
    assert list(analysis["bands"])[:2] == ["101", "100"]
    assert analysis["bands"]["101"]["segments"] == 1 and analysis["bands"]["100"]["segments"] == 1
    assert analysis["bands"]["none"]["segments"] == 1
    alone, alone_file = await session(api, {"footer": LATER["footer"]})
    footer = (await api.ok("GET", f"/api/sessions/{alone}/files/{alone_file}/analysis"))["estimate"]
    wanted = ("modelRequests", "outputTokens")
    assert [analysis["estimate"][k] for k in wanted] == [footer[k] for k in wanted], "both exact matches are free"
    cards = {c["context"]["key"]: c for c in await approve_all(api, later)}
    same, other = cards["menu.open"], cards["toolbar.open"]
    assert (same["origin"], same["match"], same["estimate"], same["estimateReasons"]) == ("memory", 101, 100, [])
    assert (other["origin"], other["match"]) == ("memory", 100)
    assert other["estimate"] == 100 - OTHER_KEY_PENALTY and other["estimateReasons"] == ["100% match from another key"]
    assert same["estimate"] > other["estimate"] > cards["footer"]["estimate"]


async def test_a_routing_threshold_of_100_approves_only_the_context_match(api: AsyncApi) -> None:
    await approve_all(api, (await session(api, FIRST))[0])
    sid, fid = await session(api, LATER, autoApprove={"minEstimate": 100})
    report = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/analysis"))["autoApprove"]
    assert report["memory"]["segments"] == 2, "the 101 and 100 bands: at most these are approved before the job"
    cards = await approve_all(api, sid)
    assert sorted(c["context"]["key"] for c in cards) == ["footer", "toolbar.open"]
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    auto = {s["context"]["key"] for s in segments if s["auto"]}
    assert auto == {"menu.open"}


async def test_a_revision_keeps_the_string_s_key_in_the_memory(api: AsyncApi) -> None:
    sid, fid = await session(api, FIRST)
    await approve_all(api, sid)
    segments = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    menu = next(s for s in segments if s["context"]["key"] == "menu.open")
    await api.ok("PUT", f"/api/sessions/{sid}/files/{fid}/segments/{menu['start']}", {"translated_string": "Ouvrir"})
    entries = (await api.ok("GET", "/api/memory/tm?language=fr&q=open"))["entries"]
    assert [(e["target"], e["key"], e["origin"]) for e in entries] == [("Ouvrir", "menu.open", "revised")]


async def test_a_document_s_block_has_no_key_to_match(api: AsyncApi) -> None:
    """A subtitle cue's number (like an HTML block's path) is a place, not a string's name: no 101, no penalty."""
    srt = "1\n00:00:01,000 --> 00:00:02,000\nWelcome aboard, captain.\n"
    for name in ("first.srt", "second.srt"):
        sid = (await api.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
        await api.ok("POST", f"/api/sessions/{sid}/files", {"name": name, "content": srt})
        agent = await api.until_user(sid, userInput=f"Translate {name} into French.")
        [card] = agent["copilotRequests"]
        await api.until_user(sid, copilotResponses=[{"tool": card["tool"], "status": "approve"}])
    assert (card["origin"], card["match"], card["estimate"], card["context"]["key"]) == ("memory", 100, 100, "1")
    [entry] = (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"]
    assert entry["key"] is None


async def test_the_key_round_trips_through_tmx(api: AsyncApi) -> None:
    await approve_all(api, (await session(api, FIRST))[0])
    tmx = (await api.client.get("/api/memory/export?format=tmx&srclang=en")).text
    assert '<prop type="x-context">menu.open</prop>' in tmx
    other = AsyncApi(services_for(model=resolve_model("pseudo")))
    imported = await other.ok("POST", "/api/memory/import", {"format": "tmx", "content": tmx})
    assert imported["added"] == 2
    keys = {e["source"]: e["key"] for e in (await other.ok("GET", "/api/memory/tm?language=fr"))["entries"]}
    assert keys == {"Open the file": "menu.open", "Welcome to the editor": "title"}
    sid, _ = await session(other, LATER)
    cards = {c["context"]["key"]: c["match"] for c in await approve_all(other, sid)}
    assert cards == {"menu.open": 101, "toolbar.open": 100, "footer": None}


def test_an_exact_match_scores_101_only_for_the_same_key() -> None:
    keyed = TmEntry(source="Open", target="Ouvrir", languages="*>fr", key="menu.open")
    plain = TmEntry(source="Open", target="Ouvrir", languages="*>fr")
    assert exact_score(keyed, "menu.open") == CONTEXT_MATCH == 101
    assert exact_score(keyed, "status.open") == exact_score(keyed, None) == 100
    assert exact_score(plain, None) == exact_score(plain, "menu.open") == 100


def test_a_unit_has_the_key_of_its_one_string_and_a_document_s_block_none() -> None:
    a, b = SegmentContext(key="a"), SegmentContext(key="b")
    assert string_key([a, a]) == "a"
    assert string_key([a, b]) is None and string_key([None]) is None and string_key([a, None]) is None
    assert string_key([SegmentContext(key="html/body/p", document=True)]) is None
    assert SegmentContext.load(SegmentContext(key="12", document=True).dump()).document


def test_the_memory_s_calls_say_their_match() -> None:
    assert memory_match("memory_context_0123") == 101
    assert memory_match("memory_0123") == 100
    assert memory_match("call_0123") is None


def test_the_estimate_takes_5_off_a_string_s_plain_100_and_nothing_off_a_document_s() -> None:
    source, target = "Open the file", "Ouvrir le fichier"
    context = estimate_quality(source, target, origin="memory", match=101, key="menu.open")
    other = estimate_quality(source, target, origin="memory", match=100, key="toolbar.open")
    document = estimate_quality(source, target, origin="memory", match=100, key=None)
    model = estimate_quality(source, target, origin="model", key="menu.open")
    assert (context.score, context.reasons) == (100, ())
    assert (other.score, other.reasons) == (95, ("100% match from another key",))
    assert (document.score, document.reasons) == (100, ())
    assert model.score == 90 and "100% match from another key" not in model.reasons
