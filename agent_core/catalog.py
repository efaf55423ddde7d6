"""The models a deployment offers: a session translates with one of them, by name.

A catalog is a list of model names, the first being the default; a session that names none uses the
default. Each model is resolved the first time a step, an analysis or a budget needs it (so a
provider's SDK is imported only when its model is used) and kept for the process; its price comes
with it (None: unknown). A name the catalog does not hold is refused with the list of those it does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.models import Model

from .budget import Price
from .errors import InvalidRequestError


class ModelCatalog:
    """The configured models by name, each resolved once, on first use."""

    def __init__(
        self,
        names: Sequence[str],
        *,
        resolve: Callable[[str], Model],
        price: Callable[[Model], Price | None],
    ) -> None:
        if not names:
            raise ValueError("a catalog needs at least one model")
        self.names: tuple[str, ...] = tuple(dict.fromkeys(names))
        """The configured names, in order; the first is the default."""
        self._resolve, self._price = resolve, price
        self._models: dict[str, Model] = {}

    @classmethod
    def of(cls, model: Model, name: str, price: Price | None) -> ModelCatalog:
        """A catalog of one model already built (tests, benchmarks, an injected model)."""
        return cls([name], resolve=lambda _: model, price=lambda _: price)

    @property
    def default(self) -> str:
        """The model a session that names none uses."""
        return self.names[0]

    def name(self, chosen: str | None) -> str:
        """`chosen`, or the default for None; InvalidRequestError for a name not configured."""
        if chosen is None:
            return self.default
        if chosen not in self.names:
            listed = ", ".join(self.names)
            raise InvalidRequestError(f"model {chosen[:80]!r} is not configured here; the configured models: {listed}.")
        return chosen

    def model(self, chosen: str | None) -> Model:
        """The pydantic-ai Model of `chosen` (the default for None), resolved on first use."""
        name = self.name(chosen)
        if name not in self._models:
            self._models[name] = self._resolve(name)
        return self._models[name]

    def price(self, chosen: str | None) -> Price | None:
        """What `chosen`'s tokens cost (None: unknown)."""
        return self._price(self.model(chosen))
