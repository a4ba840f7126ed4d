"""The standard normal distribution in ball arithmetic.

Functions ending in ``_ball`` take and return ``arb`` balls at the current
working precision and are correct at any precision (they may be loose).  The
public functions take exact inputs, choose precision adaptively, and return an
:class:`~certdp.numerics.enclosure.Enclosure` of the requested relative
accuracy (default: relative width <= 1e-15).

    φ(x) = exp(-x²/2)/√(2π),   Φ(x) = erfc(-x/√2)/2,   Φ⁻¹(p) = -√2 erfcinv(2p),
    R(x) = (1 - Φ(x))/φ(x)   (Mills ratio).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from certdp.errors import InputError
from certdp.numerics.decide import adaptive
from certdp.numerics.ball import digits_to_bits, to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
# one owner: the checker's own Gaussian primitives (the checker imports only its package)
from certdp.verifier.gauss import (  # noqa: F401
    MILLS_SERIES_FROM, Phi_ball, Phi_inv_ball, Phi_upper_ball, mills_ratio_series_ball,
    phi_ball, sqrt2,
)


def log_Phi_ball(x: arb) -> arb:
    """log Φ(x): log(erfc(-x/√2)/2) for x < 0, log1p(-Φ(-x)) for x >= 0."""
    if x < 0:
        return Phi_ball(x).log()
    if x > 0:
        return (-Phi_upper_ball(x)).log1p()
    return Phi_ball(x).log()


#: (MILLS_SERIES_FROM, from the checker's kernel: beyond it the Mills ratio uses the
#: asymptotic series, since arb's ``erfc`` loses accuracy for large arguments.)


def mills_ratio_ball(x: arb) -> arb:
    """Mills ratio R(x) = (1-Φ(x))/φ(x) = Φ(-x)/φ(x); R(x) ~ 1/x as x → ∞."""
    if x.lower() >= MILLS_SERIES_FROM:
        return mills_ratio_series_ball(x)
    return Phi_upper_ball(x) / phi_ball(x)


def _start_prec(rel_bits: int, magnitude: float) -> int:
    """Working precision for a Gaussian-tail evaluation at |argument| ~ magnitude:
    an input error of relative size 2^-p in x becomes ~ x²·2^-p in Φ(x)."""
    return rel_bits + 16 + 2 * int(math.log2(1.0 + magnitude))


def _mag(q: Fraction) -> float:
    """|q| as a float, saturating instead of overflowing (for precision heuristics)."""
    try:
        return abs(float(q))
    except OverflowError:
        return 1e308


def Phi(x: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified Φ(x), the standard normal CDF."""
    q = exact(x, "x")
    bits = digits_to_bits(digits, prec)
    return Enclosure.from_ball(
        adaptive(lambda _p: Phi_ball(to_ball(q)), bits, _start_prec(bits, _mag(q)), "Phi")
    )


def log_Phi(x: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified log Φ(x) (no underflow for very negative x)."""
    q = exact(x, "x")
    bits = digits_to_bits(digits, prec)
    return Enclosure.from_ball(
        adaptive(lambda _p: log_Phi_ball(to_ball(q)), bits, _start_prec(bits, _mag(q)), "log_Phi")
    )


def mills_ratio(x: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified Mills ratio R(x) = (1 - Φ(x))/φ(x)."""
    q = exact(x, "x")
    bits = digits_to_bits(digits, prec)
    return Enclosure.from_ball(
        adaptive(lambda _p: mills_ratio_ball(to_ball(q)), bits, _start_prec(bits, _mag(q)), "mills_ratio")
    )


def Phi_inv_exact_ball(p: Fraction) -> arb:
    """Φ⁻¹(p) for an exact p in (0,1) at the current precision, using the
    symmetry Φ⁻¹(p) = -Φ⁻¹(1-p) so that the erfcinv argument is never near 2."""
    if p > Fraction(1, 2):
        return -Phi_inv_ball(to_ball(1 - p))
    return Phi_inv_ball(to_ball(p))


def Phi_inv(p: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified Φ⁻¹(p) for p in the open interval (0, 1)."""
    q = exact(p, "p")
    if not 0 < q < 1:
        raise InputError(f"Phi_inv needs 0 < p < 1, got p = {p}")
    if q == Fraction(1, 2):
        return Enclosure.exact(0)
    bits = digits_to_bits(digits, prec)
    return Enclosure.from_ball(adaptive(lambda _p: Phi_inv_exact_ball(q), bits, bits + 20, "Phi_inv"))
