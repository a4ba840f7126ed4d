"""Three-valued logic for conditions evaluated on balls or intervals.

A compiled condition returns True, False, or None (undecided on the given
input: the ball straddles the boundary).  Junctions decide as soon as one
operand decides them and are undecided otherwise.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

T = TypeVar("T")
Condition = Callable[[T], "bool | None"]


def junction(parts: Sequence[Condition], is_and: bool) -> Condition:
    """And (``is_and``) / Or of three-valued conditions."""

    def decide(arg: T) -> bool | None:
        undecided = False
        for p in parts:
            v = p(arg)
            if v is None:
                undecided = True
            elif v is (not is_and):
                return v
        return None if undecided else is_and

    return decide


def negation(inner: Condition) -> Condition:
    """Not of a three-valued condition (undecided stays undecided)."""

    def decide(arg: T) -> bool | None:
        v = inner(arg)
        return None if v is None else not v

    return decide
