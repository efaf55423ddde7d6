"""A Translate call that carries many units: a card a unit, a refusal a unit, the outcome in the note."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart

from agent_core.copilot import Approve, Refined, Reject, ToolRef
from agent_core.runtime import StepInput
from agent_core.tools.base import NOT_REVIEWED
from agent_core.tools.units import unit_calls, with_unit_calls
from tests.helpers import Harness, calls, harness, translate_ids

DOC = "# Title\n\nFirst paragraph. Second sentence.\n\nThird paragraph.\n"
"""Segments: s1 `# Title`, s2 `First paragraph.`, s3 `Second sentence.`, s4 `Third paragraph.`"""


def ref(call_id: str) -> ToolRef:
    return ToolRef(name="Translate", call_id=call_id)


def units_call(call_id: str, *units: dict[str, object], file_id: str = "f1") -> ToolCallPart:
    return ToolCallPart("Translate", {"file_id": file_id, "units": list(units)}, tool_call_id=call_id)


async def step(h: Harness, **kw: object) -> object:
    outcome = await h.runtime.step(h.owner, h.session_id, StepInput(**kw))  # type: ignore[arg-type]
    return outcome.result


def returns(h: Harness) -> dict[str, ToolReturnPart]:
    return {
        p.tool_call_id: p
        for m in h.history()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }


def test_a_multi_unit_call_is_a_call_a_unit_and_anything_else_stays_as_it_came() -> None:
    call = units_call("c1", {"segments": "s1", "translation": "# Titre"}, {"src_string": "x", "translation": "y"})
    assert [(c.tool_call_id, c.args) for c in unit_calls(call) or []] == [
        ("c1-u1", {"file_id": "f1", "segments": "s1", "translate_string": "# Titre"}),
        ("c1-u2", {"file_id": "f1", "src_string": "x", "translate_string": "y"}),
    ]
    one = translate_ids("f1", ["s1"], "# Titre", call_id="c2")
    empty = units_call("c3")
    response = ModelResponse(parts=[TextPart("Voici."), one, empty, ToolCallPart("Read", {"file_id": "f1"})])
    assert with_unit_calls(response) is response, "one-unit calls, empty units and other tools are left alone"
    mixed = with_unit_calls(ModelResponse(parts=[call, one]))
    assert [c.tool_call_id for c in mixed.tool_calls] == ["c1-u1", "c1-u2", "c2"]
    by_ids = ToolCallPart("Translate", {"file_id": "f1", "units": {"s2 s3": "Deux.", "s1": "Un."}}, "c4")
    assert [(c.tool_call_id, c.args) for c in unit_calls(by_ids) or []] == [
        ("c4-u1", {"file_id": "f1", "segments": "s2 s3", "translate_string": "Deux."}),
        ("c4-u2", {"file_id": "f1", "segments": "s1", "translate_string": "Un."}),
    ], "an object of units is read in its order (the tool then checks each position)"
    assert unit_calls(ToolCallPart("Translate", {"file_id": "f1", "units": {}}, "c5")) is None


async def test_each_unit_is_its_own_card_and_verdict_and_a_bad_unit_is_refused_alone() -> None:
    h = harness()
    h.add_file(DOC)
    h.script.replies.append(
        calls(
            ToolCallPart(
                "Translate",
                {
                    "file_id": "f1",
                    "units": {
                        "s1": "# Titre",
                        "s2 s3": "Premier paragraphe. Deuxième phrase.",
                        "s9": "Hors de l'écran.",  # skips s4: refused alone
                    },
                },
                tool_call_id="c1",
            )
        )
    )
    result = await step(h, user_input="Translate into French")
    requests = result.copilot_requests  # type: ignore[attr-defined]
    assert [(r.tool.call_id, r.src_string) for r in requests] == [
        ("c1-u1", "# Title"),
        ("c1-u2", "First paragraph. Second sentence."),
    ], "the good units reach the reviewer, each with its own card"
    assert h.translation() == "", "nothing is written before the verdicts"
    await step(
        h,
        copilot_responses=[
            Approve(tool=ref("c1-u1"), status="approve"),
            Refined(tool=ref("c1-u2"), status="refined", translated_string="Premier paragraphe. Seconde phrase."),
        ],
    )
    answered = returns(h)
    assert answered["c1-u1"].content == "approve"
    assert answered["c1-u2"].content["status"] == "refined"  # type: ignore[index]
    refusal = answered["c1-u3"].content
    assert isinstance(refusal, dict) and refusal["reason"].startswith(NOT_REVIEWED) and "s4" in refusal["reason"]
    assert h.translation().startswith("# Titre\n\nPremier paragraphe. Seconde phrase.")
    # The next request: the decided calls are not sent again; the note says what became of them.
    sent = h.script.seen[-1]
    assert not any(isinstance(p, ToolCallPart | ToolReturnPart) for m in sent for p in m.parts)
    note = str(sent[-1].parts[-1].content)
    assert "Your latest answer (its other units were written as proposed):" in note
    changed = "«Premier paragraphe. Deuxième phrase.» → «Premier paragraphe. Seconde phrase.»"
    assert f"- s2 s3: edited, {changed}" in note
    assert "- s9: refused by the tool: A unit begins at the next untranslated segment" in note
    assert "【s4】Third paragraph." in note, "the refused unit's text is the next screen"


async def test_a_rejected_unit_comes_back_with_its_reason_and_one_call_a_unit_still_works() -> None:
    h = harness()
    h.add_file(DOC)
    h.script.replies.append(
        calls(
            translate_ids("f1", ["s1"], "# Titre", call_id="a"),
            translate_ids("f1", ["s2", "s3"], "Premier. Deuxième.", call_id="b"),
        )
    )
    result = await step(h, user_input="Translate into French")
    assert [r.tool.call_id for r in result.copilot_requests] == ["a", "b"]  # type: ignore[attr-defined]
    await step(
        h,
        copilot_responses=[
            Approve(tool=ref("a"), status="approve"),
            Reject(tool=ref("b"), status="reject", reason="Too terse."),
        ],
    )
    note = str(h.script.seen[-1][-1].parts[-1].content)
    assert "Your latest answer (its other units were written as proposed):" in note
    assert "- s2 s3: rejected by the reviewer: Too terse. Translate it again." in note
    assert "【s2】First paragraph." in note
    assert "rejected «Premier. Deuxième.»" not in note, "said once, in the outcome"


async def test_units_that_cannot_be_read_are_refused_with_the_shape_to_send() -> None:
    h = harness()
    h.add_file(DOC)
    h.script.replies.append(
        calls(
            ToolCallPart("Translate", {"file_id": "f1", "units": "s1: # Titre"}, tool_call_id="c1"),
            units_call("c2", "not an object", {"segments": "s1"}),
            ToolCallPart("Translate", {"file_id": "f1", "units": {"s1": 5}}, tool_call_id="c3"),
            ToolCallPart("Translate", {"file_id": "f1", "units": {"segments": "s1", "translation": "x"}}, "c4"),
        )
    )
    result = await step(h, user_input="Translate into French")
    assert result.copilot_requests == []  # type: ignore[attr-defined]
    answered = returns(h)
    shape = 'an object of translations by segment ids such as {"s12 s13"'
    assert shape in answered["c1"].content["reason"]  # type: ignore[index]
    assert shape in answered["c4"].content["reason"], "one unit's arguments without their list"  # type: ignore[index]
    for unit in ("c2-u1", "c2-u2", "c3-u1"):
        reason = answered[unit].content["reason"]  # type: ignore[index]
        assert reason.startswith(NOT_REVIEWED + "Invalid arguments") and "translation" in reason
    assert h.translation() == ""


def test_a_streamed_multi_unit_call_shows_a_proposal_a_unit_by_the_ids_its_cards_get() -> None:
    from agent_core.deltas import DeltaTracker

    forming = '{"file_id": "f1", "units": {"s1": "# Titre", "s2'
    tracker = DeltaTracker(interval=0)
    deltas = tracker.changes([ToolCallPart("Translate", forming, tool_call_id="c1")])
    assert [(d.proposal.callId, d.proposal.translate_string) for d in deltas if d.proposal] == [("c1-u1", "# Titre")]
    done = forming + '": "Premier"}}'
    later = tracker.changes([ToolCallPart("Translate", done, tool_call_id="c1")])
    assert [(d.proposal.callId, d.proposal.translate_string) for d in later if d.proposal] == [("c1-u2", "Premier")]
    stored = with_unit_calls(ModelResponse(parts=[ToolCallPart("Translate", done, tool_call_id="c1")]))
    assert [c.tool_call_id for c in stored.tool_calls] == ["c1-u1", "c1-u2"]


def test_the_outcome_is_told_once_a_text_answer_later_has_none() -> None:
    from agent_core.tools.outcomes import latest_outcomes

    call = ToolCallPart("Translate", {"file_id": "f1", "segments": ["s2"], "translate_string": "Deux."}, "c1")
    rejected = ToolReturnPart("Translate", {"translated_string": "", "status": "reject", "reason": "No."}, "c1")
    history = [ModelResponse(parts=[call]), ModelRequest(parts=[rejected])]
    told = latest_outcomes(history)
    assert told.section == "Your latest answer (its other units were written as proposed):\n" + (
        "- s2: rejected by the reviewer: No. Translate it again."
    )
    assert told.shown == {"Deux."}
    broken = ToolCallPart("Translate", "{not json", "c2")
    failed = ToolReturnPart("Translate", "Invalid JSON.", "c2", outcome="failed")
    with_failed = [ModelResponse(parts=[call, broken]), ModelRequest(parts=[rejected, failed])]
    assert latest_outcomes(with_failed).section.startswith(
        "Your latest answer (its other units were written as proposed, but for the calls that failed):\n"
    )
    memory = ToolCallPart("Translate", {"file_id": "f1", "segments": ["s3"], "translate_string": "Trois."}, "memory_1")
    after_memory = [
        *history,
        ModelResponse(parts=[memory]),
        ModelRequest(parts=[ToolReturnPart("Translate", "approve", "memory_1")]),
    ]
    assert latest_outcomes(after_memory) == told, "the memory's batch is not the model's answer"
    later = [*history, ModelResponse(parts=[TextPart("Done for now.")])]
    assert latest_outcomes(later).section == ""


async def test_the_pseudo_model_answers_a_screen_with_one_call_of_its_units() -> None:
    from pydantic_ai.messages import SystemPromptPart, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from agent_core.pseudo import PseudoModel

    note = (
        "Progress so far:\n- f1 doc.md: 0 of 61 characters translated.\n\n"
        '<next-text file="f1">【s1】# Title\n\n【s2】First paragraph. 【s3】Second sentence.</next-text>'
    )
    request = ModelRequest(parts=[SystemPromptPart("Rules.\n\n- f1: 'doc.md', 61 characters"), UserPromptPart(note)])
    response = await PseudoModel().request([request], None, ModelRequestParameters())
    [call] = response.tool_calls
    assert call.tool_name == "Translate" and call.args_as_dict()["file_id"] == "f1"
    units = call.args_as_dict()["units"]
    assert list(units) == ["s1", "s2 s3"] and all(units.values())
    assert [c.args_as_dict()["segments"] for c in with_unit_calls(response).tool_calls] == ["s1", "s2 s3"]
