"""Unique names in linear time: the first `a` stays `a`, later ones become `a<sep>2`, `a<sep>3`…"""

from __future__ import annotations


class UniqueNames:
    """Gives each asked-for name back, or a numbered variant no earlier answer has used.

    The next number to try is kept per name, so n copies of one name cost O(n) in all (a loop that
    tried `a#2`, `a#3`… from 2 each time made 20,000 copies cost 200 million lookups).
    """

    def __init__(self, separator: str) -> None:
        self.separator = separator
        self.used: set[str] = set()
        self.next: dict[str, int] = {}

    def __call__(self, name: str) -> str:
        """`name`, or `name<sep>n` for the lowest n from where the last copy of `name` stopped."""
        candidate = name
        if candidate in self.used:
            n = self.next.get(name, 2)
            candidate = f"{name}{self.separator}{n}"
            while candidate in self.used:
                n += 1
                candidate = f"{name}{self.separator}{n}"
            self.next[name] = n + 1
        self.used.add(candidate)
        return candidate
