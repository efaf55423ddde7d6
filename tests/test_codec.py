"""Stored messages parsed once per process (storage.codec): the same messages back, in their order,
within bounds."""

from __future__ import annotations

from storage.codec import _Parsed, dump_message, load_messages
from tests.storage_cases import calls, user


def test_messages_come_back_the_same_in_their_order_each_parsed_once() -> None:
    messages = [user("one"), calls("a", "b"), user("one")]
    data = [dump_message(m) for m in messages]
    parsed = _Parsed()
    first = parsed.load(data)
    assert [dump_message(m) for m in first] == data
    again = parsed.load(list(reversed(data)))
    assert [dump_message(m) for m in again] == list(reversed(data))
    assert again[1] is first[1], "parsed once: the same message"
    assert [dump_message(m) for m in load_messages(data)] == data and load_messages([]) == []


def test_what_is_kept_is_bounded_by_messages_and_by_characters() -> None:
    data = [dump_message(user(f"message {k}")) for k in range(10)]
    few = _Parsed(messages=3)
    kept = few.load(data)
    assert few.load(data[-3:])[0] is kept[-3], "the latest three are kept"
    assert few.load(data[:1])[0] is not kept[0], "the first was let go"
    small = _Parsed(chars=len(data[0]) * 2)
    kept = small.load(data[:3])
    assert small.load(data[2:3])[0] is kept[2] and small.load(data[:1])[0] is not kept[0]
    (alone,) = _Parsed(chars=5).load(data[:1])
    assert dump_message(alone) == data[0], "too large to keep, still parsed"


def test_no_step_changes_a_message_it_was_given_parsed() -> None:
    """The parsed messages are shared by every later load in the process (a session's window, and
    the same JSON in any session): a whole translation through the API, reviewed with edits and
    rejections, leaves each one as it was parsed."""
    import asyncio

    from agent_core.models import resolve_model
    from storage import codec
    from tests.helpers import AsyncApi, services_for

    async def translate() -> None:
        api = AsyncApi(services_for(model=resolve_model("pseudo")))
        text = "".join(f"Line {k} of the guide, with `code` and a [link](https://example.com).\n\n" for k in range(40))
        sid, _ = await api.start(text)
        agent = await api.until_user(sid, userInput="Translate doc.md into French.")
        for round_ in range(100):
            if not agent["copilotRequests"]:
                return
            verdicts = []
            for k, r in enumerate(agent["copilotRequests"]):
                if (round_ + k) % 5 == 0:
                    verdicts.append({"tool": r["tool"], "status": "reject", "reason": "Too literal."})
                elif k % 3 == 0:
                    verdicts.append(
                        {"tool": r["tool"], "status": "refined", "translated_string": "« " + r["translate_string"]}
                    )
                else:
                    verdicts.append({"tool": r["tool"], "status": "approve"})
            agent = await api.until_user(sid, copilotResponses=verdicts)
        raise AssertionError("the translation did not finish")

    asyncio.run(translate())
    kept = list(codec._PARSED._found.items())
    assert len(kept) > 20
    for data, message in kept:
        (again,) = _Parsed().load([data])
        assert dump_message(message) == dump_message(again), data[:200]
