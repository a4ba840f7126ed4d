"""numpy scalars as exact numbers, read once at the boundary (the API, the accountants' checks).

Every integer kind (``np.int64``, ``np.int32``, ``np.uint8``, ...) is its Python int;
every floating kind (``np.float16/32/64``, ``np.longdouble``) is its exact binary value,
read with ``as_integer_ratio`` (never through a rounding conversion: a longdouble keeps
its extra bits); a 0-d array is its element; ``np.bool_``, NaN and infinities are refused.
numpy itself is not imported: a value is recognised by its ``dtype``.  The certificate
checker never sees numpy (its inputs are JSON), so this module is not in its closure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeVar

from certdp.errors import InputError

T = TypeVar("T")


def from_numpy(x: T, name: str = "value") -> T | int | Fraction:
    """``x`` as an exact int or Fraction if it is a numpy scalar or 0-d array; otherwise ``x`` itself."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind is None or getattr(x, "shape", None) != ():
        return x
    value = x[()]  # type: ignore[index]
    if kind in ("i", "u"):
        return int(value)
    if kind == "f":
        try:
            return Fraction(*(int(t) for t in value.as_integer_ratio()))
        except (OverflowError, ValueError):
            raise InputError(f"{name} must be finite, got {x!r}") from None
    raise InputError(f"{name}: cannot use the numpy {type(value).__name__} {x!r} as an exact number")


def from_numpy_int(x: T, name: str = "count") -> T | int:
    """A numpy integer scalar as a Python int (a numpy float stays as it is, to be refused as a count)."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind == "b":
        raise InputError(f"{name}: a boolean is not a number")
    return int(x) if kind in ("i", "u") and getattr(x, "shape", None) == () else x  # type: ignore[call-overload]
