"""The model's window over the history: its boundary counts only what the model is shown."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

from agent_core.context import Context, is_hidden, reviews_shown

WINDOW, CHUNK = 2, 4


def _exchange(call_id: str, tool: str = "Remember") -> list[ModelMessage]:
    """A call and its return (a tool whose exchanges stay in the window: decided Translate calls do not)."""
    return [
        ModelResponse(parts=[ToolCallPart(tool, {"n": call_id}, tool_call_id=call_id)]),
        ModelRequest(parts=[ToolReturnPart(tool, "ok", tool_call_id=call_id)]),
    ]


def _history(pattern: str) -> list[ModelMessage]:
    """The task, then an exchange per letter: `m` the model's, `t` the translation memory's."""
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Translate doc.md.")])]
    for k, kind in enumerate(pattern):
        history += _exchange(f"memory_{k:04d}" if kind == "t" else f"call_{k:04d}")
    return history


def _sent(history: list[ModelMessage], loaded: int | None = None) -> list[list[tuple[str, str]]]:
    """What the model is sent, from the whole history or from its latest `loaded` messages."""
    hidden = sum(map(is_hidden, history))
    window = history if loaded is None else history[-loaded:]
    context = Context(
        window,
        complete=len(window) == len(history),
        first_index=len(history) - len(window),
        hidden_messages=hidden,
        user_inputs=["Translate doc.md."],
    )
    sent = context.to_model_messages("system", "state", window=WINDOW, chunk=CHUNK)
    return [[(p.part_kind, str(getattr(p, "tool_call_id", None) or p.content)) for p in m.parts] for m in sent]


def test_a_memory_batch_neither_shows_nor_moves_the_window() -> None:
    pattern = "mmtmttmmmtmtmmttmmm"
    for k in range(1, len(pattern) + 1):
        if pattern[k - 1] != "m":
            continue
        before, after = _history(pattern[:k]), _history(pattern[:k] + "tt")
        assert _sent(before, loaded=16) == _sent(after, loaded=16), f"after {pattern[:k]!r}"


def test_the_boundary_moves_every_chunk_of_the_models_messages() -> None:
    starts = []
    for k in range(1, 12):
        sent = _sent(_history("mt" * k), loaded=16)
        starts.append(next(c for m in sent[1:] for kind, c in m if kind == "tool-call"))
    # Two visible messages an exchange: the window's first response moves every CHUNK // 2 exchanges.
    assert len(set(starts)) == len(starts) // (CHUNK // 2) + 1
    assert all(not s.startswith("memory_") for s in starts)


def test_a_loaded_window_shows_what_the_whole_history_would() -> None:
    pattern = "mtmtmmttmmtm"
    history = _history(pattern)
    assert _sent(history, loaded=16) == _sent(history)


def test_reviews_shown_are_the_edited_texts_and_the_rejected_proposals() -> None:
    calls = [
        ToolCallPart("Translate", {"src_string": s, "translate_string": t}, tool_call_id=c)
        for c, s, t in [("a", "One.", "Un."), ("b", "Two.", "Deu."), ("c", "Three.", "Trois.")]
    ]
    returns = [
        ToolReturnPart("Translate", "approve", tool_call_id="a"),
        ToolReturnPart("Translate", {"translated_string": "Deux.", "status": "refined"}, tool_call_id="b"),
        ToolReturnPart("Translate", {"translated_string": "", "status": "reject", "reason": "no"}, tool_call_id="c"),
    ]
    shown = reviews_shown([ModelResponse(parts=calls), ModelRequest(parts=returns)])
    assert shown == {"Deux.", "Trois."}, "the edit's final text and the rejected proposal; not an approval"


def test_decided_translate_calls_are_not_sent_again_and_the_rest_stays() -> None:
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Translate doc.md.")])]
    history += _exchange("call_0001", "Translate")
    history += [
        ModelResponse(
            parts=[
                ToolCallPart("Translate", {"n": 2}, tool_call_id="call_0002"),
                ToolCallPart("Remember", {"n": 3}, tool_call_id="call_0003"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("Translate", "approve", tool_call_id="call_0002"),
                ToolReturnPart("Remember", "Kept.", tool_call_id="call_0003"),
                UserPromptPart("Use the formal register."),
            ]
        ),
    ]
    sent = _sent(history)
    assert sent == [
        [("system-prompt", "system"), ("user-prompt", "Translate doc.md.")],
        [("tool-call", "call_0003")],
        [("tool-return", "call_0003"), ("user-prompt", "Use the formal register."), ("user-prompt", "state")],
    ], "the Translate exchanges are left out; the Remember call, its return and the user's message stay"
    later = [*history, *_exchange("call_0004", "Translate"), ModelRequest(parts=[UserPromptPart("Go on.")])]

    def wide(messages: list[ModelMessage]) -> list[list[tuple[str, str]]]:
        context = Context(messages, complete=True, user_inputs=["Translate doc.md."])
        sent = context.to_model_messages("system", "", window=8, chunk=8)
        return [[(p.part_kind, str(getattr(p, "tool_call_id", None) or p.content)) for p in m.parts] for m in sent]

    before, after = wide(history), wide(later)
    assert after[: len(before) - 1] == before[:-1] and len(after) == len(before)
    assert after[-1][: len(before[-1])] == before[-1], "a later request only adds at the end"
