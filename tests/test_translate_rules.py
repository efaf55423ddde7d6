"""Translate's rules and the two-phase copilot flow, through AgentRuntime with a scripted model."""

from __future__ import annotations

import json

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, ToolCallPart, ToolReturnPart

from agent_core.copilot import Approve, Refined, Reject, ToolRef
from agent_core.errors import InvalidRequestError, ReviewMismatchError
from agent_core.runtime import StepInput
from agent_core.tools.base import result_status
from tests.helpers import Harness, calls, harness, translate, translate_ids

DOC = "# Title\n\nFirst paragraph.\n\n# Title\n\nSecond paragraph.\n"


def ref(call_id: str) -> ToolRef:
    return ToolRef(name="Translate", call_id=call_id)


async def step(h: Harness, **kw: object) -> object:
    outcome = await h.runtime.step(h.owner, h.session_id, StepInput(**kw))  # type: ignore[arg-type]
    return outcome.result


async def propose(h: Harness, *parts: object) -> object:
    """The user asks; the scripted model answers with these calls; the tools run in the same step."""
    h.script.replies.append(calls(*parts))  # type: ignore[arg-type]
    return await step(h, user_input="Translate into French")


def tool_returns(h: Harness) -> dict[str, ToolReturnPart]:
    return {
        p.tool_call_id: p
        for m in h.history()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }


async def test_valid_unit_asks_the_human_then_writes_the_verdict() -> None:
    h = harness()
    fid = h.add_file(DOC)
    result = await propose(h, translate(fid, "# Title", "# Titre", call_id="c1"))
    assert [r.src_string for r in result.copilot_requests] == ["# Title"]
    # The proposals' reviews came with the step that asked the model: the input and the response.
    assert result.actor == "user" and [type(m).__name__ for m in result.messages] == ["ModelRequest", "ModelResponse"]
    assert h.translation() == "", "nothing is written before the verdict"
    asked = len(h.script.seen)
    done = await step(h, copilot_responses=[Approve(tool=ref("c1"), status="approve")])
    # The verdict step goes on to the model in the same step: the returns, then its answer.
    assert done.called_model and len(h.script.seen) == asked + 1
    assert [type(m).__name__ for m in done.messages] == ["ModelRequest", "ModelResponse"]
    assert done.actor == "user", "the scripted model answered with text"
    assert h.translation() == "# Titre\n\n"
    assert tool_returns(h)["c1"].content == "approve", "approved as proposed: the bare status"


async def test_a_verdict_step_with_too_little_time_left_stops_after_the_returns() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(h, translate(fid, "# Title", "# Titre", call_id="c1"))
    asked = len(h.script.seen)
    verdict = [Approve(tool=ref("c1"), status="approve")]
    done = await step(h, copilot_responses=verdict, time_left=lambda: 5.0)
    assert not done.called_model and len(h.script.seen) == asked, "no model request without the time for it"
    assert done.actor == "agent" and len(done.messages) == 1, "the client continues with the next request"
    assert h.translation() == "# Titre\n\n"


async def test_the_model_is_shown_the_next_text_and_the_prefix_stays_the_same() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(h, translate(fid, "# Title", "# Titre", call_id="c1"))
    await step(h, copilot_responses=[Approve(tool=ref("c1"), status="approve")])
    first, second = h.script.seen[-2], h.script.seen[-1]
    state = second[-1].parts[-1].content  # type: ignore[union-attr]
    assert '<next-text file="f1">' in state, "the file's handle, not its id"
    assert "【s2】First paragraph.\n\n【s3】# Title" in state, "the next segments travel with the request, marked"
    assert first[0].parts[0].content == second[0].parts[0].content, "the system prompt is byte-identical"  # type: ignore[union-attr]
    assert h.script.infos[-2].function_tools == h.script.infos[-1].function_tools


async def test_a_screen_runs_across_code_kept_as_is_and_one_batch_covers_both_sides() -> None:
    h = harness()
    doc = "Intro text.\n\n```sh\nmake install\n```\n\nAfter the code.\n"
    fid = h.add_file(doc)  # the code block is written at upload
    result = await propose(
        h,
        translate(fid, "Intro text.", "Texte.", call_id="c1"),
        translate(fid, "After the code.", "Après.", call_id="c2"),
    )
    state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
    assert '<next-text file="f1">【s1】Intro text.</next-text>' in state
    assert '<next-text file="f1">【s3】After the code.</next-text>' in state
    assert "make install" not in state, "text already written is not shown again"
    assert [r.src_string for r in result.copilot_requests] == ["Intro text.", "After the code."]  # type: ignore[attr-defined]


async def test_a_rejected_unit_is_shown_again_with_the_text_after_it() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(
        h,
        translate(fid, "# Title", "# Titre", call_id="c1"),
        translate(fid, "First paragraph.", "Premier.", call_id="c2"),
        translate(fid, "# Title", "# Titre", call_id="c3"),
    )
    verdicts = [
        Approve(tool=ref("c1"), status="approve"),
        Reject(tool=ref("c2"), status="reject", reason="Too short."),
        Approve(tool=ref("c3"), status="approve"),
    ]
    await step(h, copilot_responses=verdicts)
    state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
    assert '<next-text file="f1">【s2】First paragraph.</next-text>' in state
    assert '<next-text file="f1">【s4】Second paragraph.</next-text>' in state, "one request for both"


async def test_a_model_that_covers_little_of_its_screen_is_shown_less_and_more_once_it_covers_it() -> None:
    h = harness()
    doc = "\n\n".join(f"Sentence number {n}." for n in range(1, 61)) + "\n"
    h.add_file(doc)

    def marks() -> list[str]:
        state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
        return [m for m in state.split("【")[1:]]

    await propose(h, translate_ids("f1", ["s1"], "Phrase 1.", call_id="a"))
    assert len(marks()) == 40, "the first screen is whole: 40 segments"
    h.script.replies.append(calls(translate_ids("f1", ["s2", "s3"], "Phrases 2 et 3.", call_id="b")))
    await step(h, copilot_responses=[Approve(tool=ref("a"), status="approve")])
    assert len(marks()) == 2, "one segment covered: the next screen shows two"
    h.script.replies.append(
        calls(*(translate_ids("f1", [f"s{n}"], f"Phrase {n}.", call_id=f"c{n}") for n in range(4, 8)))
    )
    await step(h, copilot_responses=[Approve(tool=ref("b"), status="approve")])
    assert len(marks()) == 4, "two covered, all it was shown: twice as many"
    await step(h, copilot_responses=[Approve(tool=ref(f"c{n}"), status="approve") for n in range(4, 8)])
    assert len(marks()) == 8, "four covered: twice as many again"


async def test_a_short_screen_shows_its_first_paragraph_whole_within_a_unit() -> None:
    h = harness()
    first = " ".join(f"Short sentence {n}." for n in range(1, 7))  # s1-s6, 113 characters
    long = [f"A longer sentence number {n} of the second paragraph." for n in range(8, 20)]  # s8-s19
    doc = f"{first}\n\nNext paragraph.\n\n{' '.join(long)}\n\nLast paragraph.\n"
    h.add_file(doc)

    def marks() -> list[str]:
        state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
        return ["s" + m.split("】")[0].lstrip("s") for m in state.split("【")[1:]]

    await propose(h, translate_ids("f1", ["s1"], "Phrase 1.", call_id="a"))
    h.script.replies.append(calls(translate_ids("f1", ["s2"], "Phrase 2.", call_id="b")))
    await step(h, copilot_responses=[Approve(tool=ref("a"), status="approve")])
    assert marks() == ["s2", "s3", "s4", "s5", "s6"], "two segments, then the rest of their paragraph"
    h.script.replies.append(calls(translate_ids("f1", ["s3", "s4", "s5", "s6"], "Phrases.", call_id="c")))
    await step(h, copilot_responses=[Approve(tool=ref("b"), status="approve")])
    assert marks() == ["s3", "s4", "s5", "s6"], "the paragraph's end ends the screen"
    h.script.replies.append(calls(translate_ids("f1", ["s7"], "Paragraphe.", call_id="d")))
    await step(h, copilot_responses=[Approve(tool=ref("c"), status="approve")])
    h.script.replies.append(calls(translate_ids("f1", ["s8"], "Longue.", call_id="e")))
    await step(h, copilot_responses=[Approve(tool=ref("d"), status="approve")])
    fits = max(k for k in range(1, len(long) + 1) if len(" ".join(long[:k])) <= 300)
    assert marks() == [f"s{n}" for n in range(8, 8 + fits)], "a paragraph longer than a unit: what one unit holds"
    assert 2 < fits < len(long)


async def test_a_short_screen_finds_paragraphs_in_crlf_text_and_leaves_other_files_a_glimpse() -> None:
    h = harness()
    h.add_file("One. Two. Three. Four.\r\n\r\nFive. Six. Seven.\r\n\r\nEight.\r\n")
    h.add_file("Other first. Other second.\n", name="other.md")

    def blocks() -> list[list[str]]:
        state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
        return [[m.split("】")[0] for m in block.split("【")[1:]] for block in state.split("<next-text")[1:]]

    await propose(h, translate_ids("f1", ["s1"], "Un.", call_id="a"))
    h.script.replies.append(calls(translate_ids("f1", ["s2"], "Deux.", call_id="b")))
    await step(h, copilot_responses=[Approve(tool=ref("a"), status="approve")])
    assert blocks() == [["s2", "s3", "s4"], ["s1"]], "the paragraph ends at a CRLF blank line; f2 shows one segment"


async def test_a_whole_screen_is_never_more_than_its_segments() -> None:
    h = harness()
    h.add_file("".join(f"- item {n}\n" for n in range(1, 61)))  # one paragraph of 60 short segments
    await propose(h, translate_ids("f1", ["s1"], "- élément 1", call_id="a"))
    state = h.script.seen[-1][-1].parts[-1].content  # type: ignore[union-attr]
    assert state.count("【") == 40, "a model's answer holds at most 40 calls: a screen shows at most 40 segments"


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("First paragraph.", "does not begin at the next untranslated text"),
        ("# Titel", "The first 5 characters match"),
        ("x" * 301, "at most 300"),
        ("   ", "Name the unit's segments"),
    ],
)
async def test_faulty_units_never_reach_the_human(src: str, expected: str) -> None:
    h = harness()
    fid = h.add_file(DOC)
    result = await propose(h, translate(fid, src, call_id="bad"))
    assert not result.copilot_requests
    returned = tool_returns(h)["bad"].content
    assert returned["status"] == "reject" and expected in returned["reason"]
    assert "is segment s1, at character 0: «# Title⏎⏎First paragraph.⏎⏎# Title" in returned["reason"]


async def test_a_file_is_named_by_its_handle_and_the_human_sees_its_id() -> None:
    h = harness()
    first = h.add_file(DOC)
    second = h.add_file("Other text.\n", name="other.md")
    result = await propose(h, translate("f2", "Other text.", "Autre texte.", call_id="c1"))
    (request,) = result.copilot_requests
    assert request.file_id == second != first, "the copilot request names the file by its id"
    await step(h, copilot_responses=[Approve(tool=ref("c1"), status="approve")])
    assert [u.text for u in h.storage.list_units(h.session_id, second)] == ["Autre texte."]


async def test_unknown_file_names_the_files() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(h, translate("f_" + "0" * 32, "# Title", call_id="c1"))
    reason = tool_returns(h)["c1"].content["reason"]
    assert "Unknown file" in reason and "f1 (doc.md)" in reason and fid not in reason


async def test_surrounding_whitespace_in_src_is_forgiven() -> None:
    h = harness()
    fid = h.add_file(DOC)
    result = await propose(h, translate(fid, "\n# Title\n\n", call_id="c1"))
    assert result.copilot_requests[0].src_string == "# Title"


async def test_a_batch_follows_in_order_and_may_be_answered_partly() -> None:
    h = harness()
    fid = h.add_file(DOC)
    result = await propose(
        h,
        translate(fid, "# Title", "# Titre", call_id="a"),
        translate(fid, "First paragraph.", "Premier.", call_id="b"),
        translate(fid, "# Title", "# Titre", call_id="c"),  # the repeated heading: position locates it
        translate(fid, "First paragraph.", call_id="d"),  # not what follows: rejected by the tool
    )
    assert [r.tool.call_id for r in result.copilot_requests] == ["a", "b", "c"]
    assert [r.start for r in result.copilot_requests] == [0, 9, 27]
    partly = await step(h, copilot_responses=[Approve(tool=ref("b"), status="approve")])
    assert [r.tool.call_id for r in partly.copilot_requests] == ["a", "c"] and not partly.messages
    assert h.translation() == ""
    # The verdict step goes on to the model, which proposes the rejected heading again.
    h.script.replies.append(calls(translate(fid, "# Title\n\nSecond", call_id="e")))
    rest = await step(
        h,
        copilot_responses=[
            Refined(tool=ref("a"), status="refined", translated_string="# Le titre"),
            Reject(tool=ref("c"), status="reject", reason="wrong"),
        ],
    )
    assert rest.actor == "user" and [r.tool.call_id for r in rest.copilot_requests] == ["e"]
    returns = tool_returns(h)
    assert {k: result_status(v.content) for k, v in returns.items()} == {
        "a": "refined",
        "b": "approve",
        "c": "reject",
        "d": "reject",
    }
    assert h.translation() == "# Le titre\n\nPremier.\n\n"
    # The rejected heading is next: the hole is translated again, from its start.
    again = await step(h)
    assert [(r.tool.call_id, r.start) for r in again.copilot_requests] == [("e", 27)]
    # The heading was refined earlier in this document: the translation memory proposes it, no model request.
    asked = len(h.script.seen)
    memory = await step(h, copilot_responses=[Reject(tool=ref("e"), status="reject", reason="one block per unit")])
    [proposal] = memory.copilot_requests
    assert (proposal.start, proposal.origin, proposal.match, proposal.translate_string) == (
        27,
        "memory",
        100,
        "# Le titre",
    )
    assert len(h.script.seen) == asked and not memory.called_model
    h.script.replies.append(calls(translate(fid, "Second paragraph.", "Second.", call_id="g")))
    await step(h, copilot_responses=[Approve(tool=proposal.tool, status="approve")])
    batch = await step(h)
    assert [r.start for r in batch.copilot_requests] == [36]
    await step(h, copilot_responses=[Approve(tool=ref("g"), status="approve")])
    assert h.translation() == "# Le titre\n\nPremier.\n\n# Le titre\n\nSecond.\n"
    assert h.services.sessions.files(h.owner, h.session_id)[0].complete


async def test_a_unit_may_not_run_into_written_text() -> None:
    h = harness()
    fid = h.add_file("One.\n\nTwo.\n\nThree.\n")
    await propose(h, translate(fid, "One.", call_id="a"), translate(fid, "Two.", call_id="b"))
    h.script.replies.append(calls(translate(fid, "One.\n\nTwo.", call_id="c")))
    await step(h, copilot_responses=[Reject(tool=ref("a"), status="reject"), Approve(tool=ref("b"), status="approve")])
    await step(h)
    reason = tool_returns(h)["c"].content["reason"]
    assert "runs into text that is already translated, from character 6 («Two.⏎⏎Three.⏎»)" in reason
    assert "is segment s1, at character 0: «One.⏎⏎»" in reason


async def test_verdicts_must_match_a_pending_review() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(h, translate(fid, "# Title", call_id="a"))
    version = h.storage.get_session(h.session_id).version
    with pytest.raises(ReviewMismatchError):
        await step(h, copilot_responses=[Approve(tool=ref("zzz"), status="approve")])
    with pytest.raises(ReviewMismatchError):
        await step(h, copilot_responses=[Approve(tool=ToolRef(name="Read", call_id="a"), status="approve")])
    with pytest.raises(InvalidRequestError):
        await step(h, copilot_responses=[Approve(tool=ref("a"), status="approve")] * 2)
    assert h.storage.get_session(h.session_id).version == version, "refused requests change nothing"


async def test_sending_the_same_verdict_again_is_harmless() -> None:
    h = harness()
    fid = h.add_file(DOC)
    await propose(h, translate(fid, "# Title", "# Titre", call_id="a"))
    verdict = [Approve(tool=ref("a"), status="approve")]
    await step(h, copilot_responses=verdict)
    asked = len(h.script.seen)
    again = await step(h, copilot_responses=verdict)  # a retry after a lost response: changes nothing
    assert not again.messages and len(h.script.seen) == asked
    assert h.translation() == "# Titre\n\n"
    assert len(h.storage.list_units(h.session_id, fid)) == 1


async def test_the_model_is_told_the_files_and_rules() -> None:
    h = harness([ModelResponse(parts=[TextPart("Which language?")])])
    fid = h.add_file(DOC, name="guide.md")
    await step(h, user_input="translate my document")
    first = h.script.seen[0][0]
    assert isinstance(first, ModelRequest) and isinstance(first.parts[0], SystemPromptPart)
    system = first.parts[0].content
    assert f"- f1: 'guide.md', {len(DOC)} characters" in system and fid not in system
    assert "one `Translate` call" in system and "Read" in system
    tools = h.script.infos[0].function_tools
    assert [t.name for t in tools] == ["Read", "Translate", "Revise", "Remember"]
    # What a unit is, once: in Translate's description, which the rules point to.
    assert "most 300 characters" in (tools[1].description or "") and "300" not in system


async def test_continue_while_waiting_for_the_user_calls_no_model() -> None:
    h = harness([ModelResponse(parts=[TextPart("Hello")])])
    h.add_file(DOC)
    await step(h, user_input="hi")
    result = await step(h)
    assert result.actor == "user" and not result.messages and len(h.script.seen) == 1


def revise(file_id: str, start: int, text: str, *, call_id: str) -> ToolCallPart:
    return ToolCallPart("Revise", {"file_id": file_id, "start": start, "translate_string": text}, tool_call_id=call_id)


async def test_revisions_by_the_agent_after_the_document_is_complete_are_reviewed() -> None:
    h = harness()
    fid = h.add_file("# Title\n\nHello you.\n")
    await propose(
        h, translate(fid, "# Title", "# Titre", call_id="a"), translate(fid, "Hello you.", "Salut toi.", call_id="b")
    )
    await step(
        h, copilot_responses=[Approve(tool=ref("a"), status="approve"), Approve(tool=ref("b"), status="approve")]
    )
    assert h.translation() == "# Titre\n\nSalut toi.\n"
    # "Use the formal register throughout": the model revises the written unit, the human reviews it.
    h.script.replies.append(
        calls(
            revise(fid, 9, "Bonjour à vous.", call_id="r1"),
            revise(fid, 3, "nowhere", call_id="r2"),  # no unit begins there: refused to the model
            revise(fid, 9, "Again.", call_id="r3"),  # the same unit twice in one response: refused
        )
    )
    asked = await step(h, user_input="Use the formal register throughout.")
    [request] = asked.copilot_requests
    assert (request.tool.name, request.start, request.current_string) == ("Revise", 9, "Salut toi.")
    assert request.src_string == "Hello you." and request.translate_string == "Bonjour à vous."
    assert h.translation() == "# Titre\n\nSalut toi.\n", "nothing changes unreviewed"
    await step(
        h,
        copilot_responses=[
            Refined(tool=ToolRef(name="Revise", call_id="r1"), status="refined", translated_string="Bonjour, vous.")
        ],
    )
    assert h.translation() == "# Titre\n\nBonjour, vous.\n"
    [unit] = [u for u in h.storage.list_units(h.session_id, fid) if u.start == 9]
    assert (unit.status, unit.origin, unit.text) == ("revised", "human", "Bonjour, vous.")
    returns = tool_returns(h)
    assert "No written unit" in returns["r2"].content["reason"] and "already revised" in returns["r3"].content["reason"]
    [kept] = h.storage.recent_corrections(h.owner, limit=1)
    assert (kept.status, kept.final) == ("revised", "Bonjour, vous.")


async def test_units_name_their_segments_and_the_source_is_read_from_the_file() -> None:
    h = harness()
    doc = "# Title\n\nOne sentence. Two sentence.\n\nLast one.\n"
    h.add_file(doc)
    result = await propose(
        h,
        translate_ids("f1", ["s1"], "# Titre", call_id="a"),
        translate_ids("f1", ["s2", "s3"], "Une. Deux.", call_id="b"),
        translate_ids("f1", "s4", "Dernière.", call_id="c", src_string="Last one."),
    )
    requests = result.copilot_requests
    assert [(r.src_string, r.segments) for r in requests] == [
        ("# Title", ("s1",)),
        ("One sentence. Two sentence.", ("s2", "s3")),
        ("Last one.", ("s4",)),
    ]
    await step(h, copilot_responses=[Approve(tool=ref(c), status="approve") for c in "abc"])
    assert h.translation() == "# Titre\n\nUne. Deux.\n\nDernière.\n"


@pytest.mark.parametrize(
    ("segments", "more", "expected"),
    [
        (["s2"], {}, "would skip s1"),
        (["s1", "s3"], {}, "s1 is followed by s2, not s3"),
        (["x7"], {}, "'x7' is not a segment id"),
        (["s1"], {"src_string": "# Titel"}, "src_string is not the source of segments s1"),
        ([f"s{i}" for i in range(1, 21)], {}, "more than 300 characters"),
    ],
)
async def test_segment_rules_are_checked_before_the_human_sees_a_unit(
    segments: list[str], more: dict[str, str], expected: str
) -> None:
    h = harness()
    h.add_file("# Title\n\n" + "Long words here. " * 20 + "\n\nEnd.\n")
    result = await propose(h, translate_ids("f1", segments, "x", call_id="bad", **more))
    assert not result.copilot_requests
    reason = tool_returns(h)["bad"].content["reason"]
    assert expected in reason and "is segment s1, at character 0" in reason


async def test_a_unit_after_a_written_one_names_the_next_segment_not_an_earlier_one() -> None:
    h = harness()
    h.add_file(DOC)
    await propose(
        h, translate_ids("f1", ["s1"], "# Titre", call_id="a"), translate_ids("f1", ["s1"], "Encore", call_id="b")
    )
    await step(h, copilot_responses=[Approve(tool=ref("a"), status="approve")])
    reason = tool_returns(h)["b"].content["reason"]
    assert "s1 is translated already" in reason and "is segment s2" in reason


@pytest.mark.parametrize("rating", [float("inf"), float("-inf"), float("nan"), "1e400"])
async def test_a_non_finite_rating_is_refused_to_the_model_not_a_server_error(rating: object) -> None:
    h = harness()
    fid = h.add_file(DOC)
    call = translate_ids(fid, ["s1"], "# Titre", call_id="bad")
    args = call.args_as_dict()
    # "1e400" is what a provider's JSON holds: Python's parser reads it as infinity.
    raw = json.dumps({**args, "rating": 0}).replace('"rating": 0', '"rating": 1e400')
    call = ToolCallPart("Translate", raw if rating == "1e400" else {**args, "rating": rating}, tool_call_id="bad")
    result = await propose(h, call)
    assert not result.copilot_requests
    returned = tool_returns(h)["bad"].content
    assert returned["status"] == "reject" and "rating" in returned["reason"]


@pytest.mark.parametrize(
    ("translation", "markup"),
    [
        ("【s1】# Titre", "【s1】"),
        ("# Titre\n\n【s2】Premier paragraphe.", "【s2】"),
        ("⟪key: title | note: the page's title⟫\n# Titre", "⟪key: title | note: the page's title⟫"),
    ],
)
async def test_a_translation_holding_the_screen_s_marks_is_refused_to_the_model(translation: str, markup: str) -> None:
    h = harness()
    fid = h.add_file(DOC)
    result = await propose(h, translate_ids(fid, ["s1"], translation, call_id="bad"))
    assert not result.copilot_requests, "the reviewer never sees it"
    returned = tool_returns(h)["bad"].content
    assert returned["status"] == "reject" and repr(markup) in returned["reason"]


async def test_a_source_that_holds_such_marks_may_keep_them() -> None:
    h = harness()
    fid = h.add_file("Use 【s1】 in the template.\n")
    result = await propose(h, translate_ids(fid, ["s1"], "Utilisez 【s1】 dans le modèle.\n", call_id="ok"))
    assert [r.translate_string for r in result.copilot_requests] == ["Utilisez 【s1】 dans le modèle.\n"]
