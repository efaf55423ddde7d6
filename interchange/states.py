"""Project statuses ↔ XLIFF states.

| status       | XLIFF 2.0 `state` | 2.0 `subState`   | XLIFF 1.2 target `state`   | 1.2 `phase-name` |
| ------------ | ----------------- | ---------------- | -------------------------- | ---------------- |
| untranslated | initial           | tagent:untranslated | (no target)             | —                |
| pending      | translated        | tagent:pending   | needs-review-translation   | pending          |
| approved     | final             | tagent:approved  | signed-off                 | approved         |
| refined      | final             | tagent:refined   | signed-off                 | refined          |
| revised      | final             | tagent:revised   | signed-off                 | revised          |
| verbatim     | final             | tagent:verbatim  | signed-off                 | verbatim         |
| translated   | reviewed          | tagent:translated | translated                | translated       |
| reviewed     | final             | tagent:reviewed  | signed-off                 | reviewed         |

Why: a pending unit is the agent's proposal, translated but not reviewed (1.2 also marks it
`state-qualifier="mt-suggestion"`); approved, refined, revised, verbatim and reviewed units were
validated and are what the assembled translation uses, XLIFF 2.0's "ready to be used" (`final`) and
1.2's "reviewed and approved" (`signed-off`, with `approved="yes"` on the trans-unit). A translated
unit (a second review's first step) was validated by a translator and awaits its reviewer: 2.0's
`reviewed` (past translation, not yet final) and 1.2's `translated`. The exact status travels in
2.0's `subState` (prefix `tagent`) and in 1.2 as the target's `phase-name`, a phase declared in the
header's `<phase-group>`; reading a document written elsewhere falls back on the state.
"""

from __future__ import annotations

from .model import STATUSES, Status

SUBSTATE_PREFIX = "tagent"

_STATE2: dict[Status, str] = {
    "untranslated": "initial",
    "pending": "translated",
    "approved": "final",
    "refined": "final",
    "revised": "final",
    "verbatim": "final",
    "translated": "reviewed",
    "reviewed": "final",
}
_STATE12: dict[Status, str] = {
    "untranslated": "new",
    "pending": "needs-review-translation",
    "approved": "signed-off",
    "refined": "signed-off",
    "revised": "signed-off",
    "verbatim": "signed-off",
    "translated": "translated",
    "reviewed": "signed-off",
}
_FROM_STATE2: dict[str, Status] = {
    "initial": "untranslated",
    "translated": "pending",
    "reviewed": "approved",
    "final": "approved",
}
_FROM_STATE12: dict[str, Status] = {
    "new": "untranslated",
    "needs-translation": "untranslated",
    "needs-adaptation": "pending",
    "needs-l10n": "pending",
    "needs-review-translation": "pending",
    "needs-review-adaptation": "pending",
    "needs-review-l10n": "pending",
    "translated": "pending",
    "signed-off": "approved",
    "final": "approved",
}


def xliff2_state(status: Status) -> tuple[str, str]:
    """The XLIFF 2.0 `state` and `subState` for a status."""
    return _STATE2[status], f"{SUBSTATE_PREFIX}:{status}"


def xliff12_state(status: Status) -> str:
    """The XLIFF 1.2 target `state` for a status."""
    return _STATE12[status]


def status_from_xliff2(state: str | None, sub_state: str | None, *, has_target: bool) -> Status | None:
    """The status a 2.0 segment's `state`/`subState` mean; None when the document says nothing."""
    exact = _exact(sub_state.partition(":")[2] if sub_state and sub_state.startswith(SUBSTATE_PREFIX + ":") else None)
    if exact is not None:
        return exact
    if state is None:
        return "pending" if has_target else None
    return _FROM_STATE2.get(state)


def status_from_xliff12(state: str | None, phase: str | None, *, has_target: bool) -> Status | None:
    """The status a 1.2 target's `state`/`phase-name` mean; None when the document says nothing."""
    exact = _exact(phase)
    if exact is not None:
        return exact
    if state is None:
        return "pending" if has_target else None
    return _FROM_STATE12.get(state)


def _exact(value: str | None) -> Status | None:
    for status in STATUSES:
        if value == status:
            return status
    return None
