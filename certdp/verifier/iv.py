"""A second, independent interval kernel: mpmath's ``iv`` arithmetic plus a
rigorous erfc (mpmath.iv has none), for ``certdp verify --kernel mpmath``.

Nothing here uses python-flint, so a bug in one arithmetic library cannot make
a false certificate VALID under both kernels.

erfc(t) = 2Φ(−t√2), Φ by :mod:`certdp.verifier.phi_series` (the fixed-point series near 0,
Laplace's continued fraction for Mills' ratio in the tails: absolute accuracy 2^−(prec+8),
relative in the far tails), over an interval by monotonicity.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import iv

from certdp.verifier.phi_series import ncdf as _phi


def point(q: Fraction) -> "iv.mpf":
    """The interval of an exact rational (outward rounded)."""
    return iv.mpf(q.numerator) / iv.mpf(q.denominator)


def hull(a: "iv.mpf", b: "iv.mpf") -> "iv.mpf":
    return iv.mpf([min(a.a, b.a), max(a.b, b.b)])


def erfc(x: "iv.mpf") -> "iv.mpf":
    """erfc over an interval: 2Φ(−x√2), within [0, 2]."""
    v = 2 * _phi(-x * iv.sqrt(2))
    return iv.mpf([max(v.a, 0), min(v.b, 2)])


def erfc_point(t: "iv.mpf | float | str") -> "iv.mpf":
    """A rigorous interval containing erfc(t) for an exact t."""
    return erfc(iv.mpf(t))


def erf(x: "iv.mpf") -> "iv.mpf":
    return 1 - erfc(x)


def ncdf(x: "iv.mpf") -> "iv.mpf":
    """Φ(x) over an interval."""
    return _phi(x)
