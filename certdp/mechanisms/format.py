"""Canonical text of mechanism specs and exact numbers (the writer half of
the spec grammar; the parser is :mod:`certdp.mechanisms.spec`).  Imports
nothing from the catalog, so every mechanism module can use it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


#: Longest decimal expansion written as a decimal (longer: written as p/q).
MAX_DECIMAL_DIGITS = 40


def _is_2_5_smooth(n: int) -> tuple[int, int] | None:
    a = b = 0
    while n % 2 == 0:
        n //= 2
        a += 1
    while n % 5 == 0:
        n //= 5
        b += 1
    return (a, b) if n == 1 else None


def _is_mechanism(value: Any) -> bool:
    """A nested mechanism (duck-typed: a name and parameters), without importing the base class."""
    return hasattr(value, "params") and isinstance(getattr(value, "name", None), str) and not isinstance(value, str)


def format_number(q: Fraction | int) -> str:
    """Canonical exact text of a rational: ``3``, ``0.5``, ``1e-5``, ``1/3``.

    ``parse_decimal(format_number(q)) == q`` (the spec parser reads it exactly).
    """
    q = Fraction(q)
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    q = abs(q)
    ab = _is_2_5_smooth(q.denominator)
    if ab is not None:
        k = max(ab)
        n = q.numerator * 10**k // q.denominator  # exact: denominator divides 10^k
        while n % 10 == 0:
            n //= 10
            k -= 1
        s = str(n)
        if len(s) <= MAX_DECIMAL_DIGITS:
            plain = s[:-k] + "." + s[-k:] if len(s) > k else "0." + "0" * (k - len(s)) + s
            sci = s[0] + ("." + s[1:] if len(s) > 1 else "") + f"e{len(s) - 1 - k}"
            return sign + (plain if len(plain) <= len(sci) else sci)
    return f"{sign}{q.numerator}/{q.denominator}"


def format_value(value: Any) -> str:
    """Canonical text of one parameter value."""
    if _is_mechanism(value):
        return format_spec(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        raise TypeError("booleans are not spec values")
    if isinstance(value, (int, Fraction)):
        return format_number(value)
    raise TypeError(f"cannot write {type(value).__name__} {value!r} in a mechanism spec")


def format_spec(mech: Any) -> str:
    """The canonical spec of ``mech``: ``name(positional..., key=value, ...)``."""
    parts: list[str] = []
    leading = True
    for key, value in mech.params.items():
        if leading and isinstance(value, tuple):  # a variadic list of mechanisms (compose_all)
            parts.extend(format_value(v) for v in value)
        elif leading and (_is_mechanism(value) or isinstance(value, str)):
            parts.append(format_value(value))
        else:
            leading = False
            parts.append(f"{key}={format_value(value)}")
    return f"{mech.name}({', '.join(parts)})"
