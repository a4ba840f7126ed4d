"""Exact parameters.

certdp's inputs are exact numbers (DESIGN.md principle 2): ``int``,
``fractions.Fraction``, sympy ``Rational``, decimal strings (``"0.1"`` is
1/10, ``"1e-5"`` is 1/100000, ``"1/3"`` is one third) and Python floats, which
mean their exact binary value.  Strings are parsed with a regular expression,
never with ``eval``.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Union

from certdp.verifier.errors import InputError

ExactLike = Union[int, Fraction, float, str, Decimal, "sympy.Rational"]  # noqa: F821

#: Largest decimal exponent accepted in an exact parameter.  "1e-400" is fine;
#: "1e-99999999" would build a 330-million-bit integer and is rejected; the
#: bound also keeps every exact number printable (Python refuses to print
#: integers of more than 4300 digits).
MAX_DECIMAL_EXPONENT = 4_000
#: Largest number of characters accepted in one numeral (below Python's
#: 4300-digit int-string limit).
MAX_DIGITS = 4_000

_DECIMAL = re.compile(
    r"""^\s*(?P<sign>[+-]?)
        (?:(?P<int>\d+)(?:\.(?P<frac>\d*))?|\.(?P<frac2>\d+))
        (?:[eE](?P<exp>[+-]?\d+))?\s*$""",
    re.VERBOSE | re.ASCII,  # ASCII digits only: "١/٢" is not a number here
)
_RATIO = re.compile(r"^\s*(?P<num>[+-]?\d+)\s*/\s*(?P<den>\d+)\s*$", re.ASCII)


def parse_decimal(text: str) -> Fraction:
    """Parse ``"0.1"``, ``"-3"``, ``"1e-5"``, ``"2.5E3"`` or ``"1/3"`` exactly."""
    if not isinstance(text, str):
        raise InputError(f"expected a number string, got {type(text).__name__}")
    return _parse_decimal_cached(text)


@functools.lru_cache(maxsize=4096)
def _parse_decimal_cached(text: str) -> Fraction:
    """Parsing is pure and Fractions are immutable, so results are cached."""
    if len(text) > MAX_DIGITS:
        raise InputError(f"number string of {len(text)} characters is too long (at most {MAX_DIGITS})")
    m = _RATIO.match(text)
    if m:
        den = int(m.group("den"))
        if den == 0:
            raise InputError(f"division by zero in number {text!r}")
        return Fraction(int(m.group("num")), den)
    m = _DECIMAL.match(text)
    if not m:
        raise InputError(f"not an exact decimal number: {text!r}")
    int_part = m.group("int") or ""
    frac_part = m.group("frac") or m.group("frac2") or ""
    exp = int(m.group("exp") or 0)
    if abs(exp) > MAX_DECIMAL_EXPONENT:
        raise InputError(f"exponent of {text!r} is outside ±{MAX_DECIMAL_EXPONENT}")
    value = Fraction(int((int_part + frac_part) or "0"))
    scale = exp - len(frac_part)
    value = value * 10**scale if scale >= 0 else value / 10**(-scale)
    return -value if m.group("sign") == "-" else value


def exact(x: object, name: str = "value") -> Fraction:
    """Return ``x`` as an exact :class:`~fractions.Fraction`.

    Raises :class:`InputError` naming ``name`` for anything that is not an
    exact finite real number (booleans, NaN, infinities, complex, expressions).
    """
    if type(x) is Fraction:  # fast path: the common case on hot paths
        return x
    if isinstance(x, bool):
        raise InputError(f"{name}: a boolean is not a number")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InputError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise InputError(f"{name} must be finite, got {x!r}")
        return Fraction(x)
    if isinstance(x, str):
        try:
            return parse_decimal(x)
        except InputError as err:
            raise InputError(f"{name}: {err}") from None
    # sympy numbers, without importing sympy eagerly
    mod = type(x).__module__ or ""
    if mod.startswith("sympy"):
        import sympy

        if isinstance(x, sympy.Rational):
            return Fraction(int(x.p), int(x.q))
        if isinstance(x, sympy.Float) and x.is_finite:
            sign, man, exp, _ = x._mpf_  # exact binary value, like a Python float
            value = Fraction(int(man)) * Fraction(2) ** int(exp)
            return -value if sign else value
        raise InputError(f"{name}: {x} is not an exact rational number")
    raise InputError(f"{name}: cannot use {type(x).__name__} {x!r} as an exact number")


def fraction_to_str(q: Fraction) -> str:
    """Exact string of a rational: ``"3"``, ``"-1/10"`` (round-trips through :func:`exact`)."""
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def check_nonnegative(x: object, name: str) -> Fraction:
    """Exact ``x >= 0`` (e.g. ε), or InputError naming ``name``."""
    q = exact(x, name)
    if q < 0:
        raise InputError(f"{name} must be >= 0, got {name} = {x}")
    return q


def check_positive(x: object, name: str) -> Fraction:
    """Exact ``x > 0`` (e.g. μ, a width), or InputError naming ``name``."""
    q = exact(x, name)
    if q <= 0:
        raise InputError(f"{name} must be positive, got {name} = {x}")
    return q


def check_open_unit(x: object, name: str) -> Fraction:
    """Exact ``0 < x < 1`` (e.g. a target δ), or InputError naming ``name``."""
    q = exact(x, name)
    if not 0 < q < 1:
        raise InputError(f"{name} must lie in the open interval (0, 1), got {name} = {x}")
    return q


def printed_numeral(reported: object) -> tuple[Fraction, Fraction]:
    """What a printed value is, the one rule for the audit and the certificate checker: a decimal
    numeral (optional sign, point and exponent; "1/2" has no last printed digit).  Returns (value,
    unit of the last printed place): ``"5.28"`` → (5.28, 0.01); InputError for anything else."""
    m = _DECIMAL.fullmatch(reported) if isinstance(reported, str) and reported == reported.strip() else None
    if m is None:
        raise InputError(f"not a printed decimal numeral (digits with an optional sign, point and exponent): {reported!r}")
    decimals = len(m.group("frac") or m.group("frac2") or "")
    return parse_decimal(reported), Fraction(10) ** (int(m.group("exp") or 0) - decimals)


def printed_interval(reported: str, rounding: str) -> tuple[Fraction, Fraction]:
    """The reals a printed decimal stands for: ``"5.28"`` nearest → [5.275, 5.285];
    up (printed is a ceiling) → [5.27, 5.28]; down/truncate → [5.28, 5.29]."""
    v, u = printed_numeral(reported)
    return {"nearest": (v - u / 2, v + u / 2), "up": (v - u, v)}.get(rounding, (v, v + u))
