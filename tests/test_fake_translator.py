"""The fakes themselves: the scripted translator's decisions and units, and the fake server's stream."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCallSpec, UsageSpec
from tests.fakes.translator_policy import MAX_UNIT, TranslatorPolicy, units

CORPUS = Path(__file__).parent / "data" / "httpx-CHANGELOG.md"
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in ("Read", "Translate")]
SYSTEM = "Rules.\n\nThe session's files (name them by handle):\n- f_1: 'doc.md', 9000 characters"


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "gpt-4.1", "tools": TOOLS, "messages": [{"role": "system", "content": SYSTEM}, *messages]}


def calls(reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    """The reply's calls, a multi-unit Translate call read as a call a unit (as the loop stores it),
    each unit's text as `translate_string`."""
    out: list[tuple[str, dict[str, Any]]] = []
    for c in reply.tool_calls:
        args = json.loads(c.arguments)
        if c.name != "Translate":
            out.append((c.name, args))
            continue
        units = [{"segments": k.split(), "translation": v} for k, v in args.pop("units", {}).items()] or [{}]
        for unit in units:
            one = {**args, **unit}
            one["translate_string"] = one.pop("translation", one.get("translate_string"))
            out.append(("Translate", one))
    return out


def test_units_tile_the_text_at_blocks_and_at_most_300_characters() -> None:
    text = CORPUS.read_text(encoding="utf-8")[:6000]
    pieces = units(text)
    assert all(0 < len(p) <= MAX_UNIT and p == p.strip() for p in pieces)
    position = 0
    for piece in pieces:  # consecutive: only whitespace between units, source copied exactly
        found = text.index(piece, position)
        assert text[position:found].strip() == ""
        position = found + len(piece)
    assert text[position:].strip() == ""


def test_it_reads_first_then_translates_what_read_showed() -> None:
    policy = TranslatorPolicy()
    first = policy(body({"role": "user", "content": "Translate doc.md into French."}))
    assert calls(first) == [("Read", {"file_id": "f_1"})]
    shown = {"file_id": "f_1", "start": 0, "text": "# Title\n\nThe first paragraph.\n\nSecond.", "more": False}
    second = policy(
        body(
            {"role": "user", "content": "Translate doc.md into French."},
            {"role": "assistant", "tool_calls": [_call("c1", "Read", {"file_id": "f_1"})]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(shown)},
        )
    )
    assert [a["src_string"] for _, a in calls(second)] == ["# Title", "The first paragraph.", "Second."]
    assert calls(second)[1][1]["translate_string"] == "Le first paragraph."
    assert second.usage.prompt_tokens > 0


def test_after_approved_units_it_reads_again_and_after_a_reject_it_proposes_again() -> None:
    shown = {"file_id": "f_1", "start": 0, "text": "One.\n\nTwo.", "more": True}
    history = [
        {"role": "assistant", "tool_calls": [_call("c1", "Read", {"file_id": "f_1"})]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(shown)},
        {"role": "assistant", "tool_calls": [_call("c2", "Translate", _unit("One."))]},
    ]
    approved = {"role": "tool", "tool_call_id": "c2", "content": json.dumps({"status": "approve"})}
    assert calls(TranslatorPolicy()(body(*history, approved)))[0][0] == "Read"  # "Two." may go on: more=True
    rejected = {"role": "tool", "tool_call_id": "c2", "content": json.dumps({"status": "reject", "reason": "no"})}
    assert [a["src_string"] for _, a in calls(TranslatorPolicy()(body(*history, rejected)))] == ["One."]


def test_it_translates_a_next_text_block_and_stops_when_progress_says_complete() -> None:
    block = '<next-text file="f_1">Alpha beta.\n\nGamma.</next-text>'
    reply = TranslatorPolicy()(body({"role": "user", "content": f"Progress so far:\n{block}"}))
    assert [a["src_string"] for _, a in calls(reply)] == ["Alpha beta.", "Gamma."]
    done = TranslatorPolicy()(body({"role": "user", "content": "Progress so far:\n- f_1 doc.md: complete."}))
    assert done.text and not done.tool_calls


def test_the_server_streams_text_tool_call_deltas_and_usage() -> None:
    reply = Reply(
        text="Hi", tool_calls=(ToolCallSpec("Read", '{"file_id": "f_1"}', "call_1"),), usage=UsageSpec(9, 3, 0)
    )
    with FakeOpenAIServer(lambda b: reply) as server:
        request = {"model": "m", "messages": [], "stream": True, "stream_options": {"include_usage": True}}
        answer = httpx.post(f"{server.base_url}/chat/completions", json=request)
    events = [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: {")]
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == "Hi"
    args = "".join(t["function"]["arguments"] for d in deltas for t in d.get("tool_calls", []))
    assert args == '{"file_id": "f_1"}'
    assert events[-1]["usage"]["prompt_tokens"] == 9 and answer.text.endswith("data: [DONE]\n\n")
    assert server.requests[0].body["stream"] is True


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _unit(src: str) -> dict[str, str]:
    return {"file_id": "f_1", "src_string": src, "translate_string": src.upper()}
