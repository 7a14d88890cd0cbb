"""Who sends and who receives a type: the sides a change can break."""

from __future__ import annotations

from .facts import SIDES, Facts

BOTH = SIDES
NOBODY: tuple[str, ...] = ()


def sides(found: frozenset[str] | set[str]) -> tuple[str, ...]:
    """`found` in a fixed order (agent, client), so output does not depend on set order."""
    return tuple(s for s in SIDES if s in found)


class Flow:
    """Who sends and who receives a type, over both schemas."""

    def __init__(self, old: Facts, new: Facts, name: str) -> None:
        sent = old.writers.get(name, frozenset()) | new.writers.get(name, frozenset())
        self.writers = sent or frozenset(SIDES)  # unreached types count as sent both ways
        self.readers = frozenset(s for s in SIDES for w in self.writers if s != w)

    def writer(self) -> tuple[str, ...]:
        return sides(self.writers)

    def reader(self) -> tuple[str, ...]:
        return sides(self.readers)


def owner_type(owner: str) -> str:
    return owner.split("[", 1)[0]
