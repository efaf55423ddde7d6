"""How a session reviews and where a unit stands in its review: plain names, importable by the lightest
modules (a project's record) without the agent's core."""

from __future__ import annotations

from typing import Literal

ReviewMode = Literal["single", "double", "pretranslate"]
"""How a session reviews: once (`single`), a translator then a reviewer (`double`), or the model's
pre-translation of everything, written `translated` without a card, then a reviewer (`pretranslate`)."""
ReviewStage = Literal["translated", "reviewed"]
"""Where a unit stands in a session with a second review: `translated` (a translator approved or edited
it, the routing approved it, or the model pre-translated it) until a reviewer approves or edits it, then
`reviewed`."""
