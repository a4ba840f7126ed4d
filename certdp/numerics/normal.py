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

from flint import arb, ctx

from certdp.errors import InputError
from certdp.numerics.decide import adaptive
from certdp.numerics.ball import digits_to_bits, to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact


_SQRT2_CACHE: dict[int, arb] = {}


def sqrt2() -> arb:
    """√2 at the current precision (cached per precision: it sits on every Φ call)."""
    p = ctx.prec
    v = _SQRT2_CACHE.get(p)
    if v is None:
        v = _SQRT2_CACHE[p] = arb(2).sqrt()
    return v


def phi_ball(x: arb) -> arb:
    """Standard normal density φ(x)."""
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def Phi_ball(x: arb) -> arb:
    """Standard normal CDF Φ(x) = erfc(-x/√2)/2; in the far lower tail
    Φ(x) = φ(x) R(-x) with the Mills-ratio series (relatively accurate)."""
    if x < _MINUS_MILLS_FROM:  # certainly below: the far lower tail
        return phi_ball(x) * mills_ratio_series_ball(-x)
    return (-x / sqrt2()).erfc() / 2


def Phi_upper_ball(x: arb) -> arb:
    """Upper tail 1 - Φ(x) = Φ(-x), without cancellation."""
    return Phi_ball(-x)


def Phi_inv_ball(p: arb) -> arb:
    """Φ⁻¹(p) for a ball p ⊂ (0, 1).  NaN if p touches 0 or 1 (callers use
    the symmetry Φ⁻¹(p) = -Φ⁻¹(1-p) with an exact 1-p near 1)."""
    return -sqrt2() * (2 * p).erfcinv()


def log_Phi_ball(x: arb) -> arb:
    """log Φ(x): log(erfc(-x/√2)/2) for x < 0, log1p(-Φ(-x)) for x >= 0."""
    if x < 0:
        return Phi_ball(x).log()
    if x > 0:
        return (-Phi_upper_ball(x)).log1p()
    return Phi_ball(x).log()


#: Beyond this argument the Mills ratio uses the asymptotic series: arb's
#: ``erfc`` loses accuracy for large arguments (about 90 of 128 bits at
#: x = 7e4, everything at x = 7e6), while the series needs few terms there.
MILLS_SERIES_FROM = 64
_MINUS_MILLS_FROM = arb(-MILLS_SERIES_FROM)  # exact

def mills_ratio_series_ball(x: arb) -> arb:
    """R(x) for x >= MILLS_SERIES_FROM by the asymptotic expansion

        R(x) = (1/x) [ Σ_{k<N} (-1)^k (2k-1)!! / x^{2k}  +  r_N ],
        |r_N| <= (2N-1)!! / x^{2N}

    (erfc's expansion, DLMF 7.12.1, with y = x/√2: for real y > 0 the
    remainder is bounded by the first neglected term, DLMF §7.12(ii)).
    N is chosen so the bound is below 2^-(prec+8); the bound is then added to
    the ball's radius, so the result is rigorous at any precision.
    """
    x_lo = x.lower()
    if not x_lo >= MILLS_SERIES_FROM:
        raise ValueError("mills_ratio_series_ball needs x >= MILLS_SERIES_FROM")
    inv_x2 = 1 / (x * x)
    inv_x2_hi = 1 / (x_lo * x_lo)  # bounds the terms from above
    target = arb(2) ** (-(ctx.prec + 8))
    total = arb(1)
    term = arb(1)
    term_hi = arb(1)
    k = 0
    while True:
        k += 1
        term = -term * (2 * k - 1) * inv_x2
        term_hi = term_hi * (2 * k - 1) * inv_x2_hi
        if term_hi.upper() < target or k > 4 * ctx.prec:
            break
        total += term
    # remainder bound: the first neglected term (index k) in magnitude
    bound = term_hi.upper()
    return (total + arb(0, bound)) / x


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
