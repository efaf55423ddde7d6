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
