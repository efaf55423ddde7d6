"""The storage contract's check of a step's units (`check_units`): each written once, outside the
coverage the step loaded and inside its new coverage, answered by bisection over the spans."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core.effects import StepEffects, StepToken, UnitWrite
from storage.errors import ConflictError, InvalidRequestError
from storage.interface import _Spans, check_units

spans = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)).map(lambda p: (p[0], p[0] + p[1])), max_size=12)


@given(spans, st.integers(0, 80), st.integers(0, 20))
def test_the_spans_answer_as_a_scan_of_them_would(given_spans: list[tuple[int, int]], start: int, width: int) -> None:
    end = start + width
    found = _Spans(given_spans)
    assert found.overlaps(start, end) == any(s < end and start < e for s, e in given_spans)
    assert found.covers(start, end) == any(s <= start and end <= e for s, e in given_spans)


def _unit(start: int, end: int) -> UnitWrite:
    return UnitWrite(file_id="f1", start=start, end=end, cover_end=end, text="x", call_id=f"c{start}", status="approve")


def _token(covered: list[tuple[int, int]]) -> StepToken:
    return StepToken(session_id="s", owner="o", version=1, created_at="", message_count=0, covered={"f1": covered})


def test_a_bulk_approval_of_many_scattered_units_is_checked_whole() -> None:
    units = [_unit(10 * i, 10 * i + 5) for i in range(20_000)]
    coverage = {"f1": [(10 * i, 10 * i + 5) for i in range(20_000)]}
    check_units(_token([(10 * i + 6, 10 * i + 8) for i in range(20_000)]), StepEffects(units=units, coverage=coverage))
    with pytest.raises(ConflictError):
        check_units(_token([(199_990, 199_992)]), StepEffects(units=units, coverage=coverage))
    with pytest.raises(InvalidRequestError):
        check_units(_token([]), StepEffects(units=[*units, _unit(200_001, 200_002)], coverage=coverage))
