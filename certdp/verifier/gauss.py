"""The checker's own Gaussian primitives in balls: Φ, φ, Φ⁻¹, the Mills-ratio series
and δ_μ (the cell tests are in :mod:`certdp.verifier.cells`).

Their one owner: :mod:`certdp.numerics.normal`, :mod:`certdp.numerics.gdp` and
:mod:`certdp.numerics.cells` import them from here, so that the checker loads none of
the search's numerics (enclosures, root finding, reporting: issue 36).  Mathematics:
Dong, Roth & Su 2022 Cor 2.13 (δ_μ); DLMF 7.12.1 (the Mills-ratio series).
"""

from __future__ import annotations

import math

from flint import arb, ctx


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


def delta_mu_ball(mu: arb, eps: arb) -> arb:
    """δ_μ(ε) at the current precision (a valid ball at any precision)."""
    a = -eps / mu + mu / 2
    if a < _MINUS_MILLS_FROM:  # certainly in the far tail
        # far tail: δ = φ(a)(R(-a) - R(-b)), b = a - μ (uses e^ε φ(b) = φ(a))
        return phi_ball(a) * (mills_ratio_series_ball(-a) - mills_ratio_series_ball(mu - a))
    return Phi_ball(a) - eps.exp() * Phi_ball(a - mu)


def _safe_float(x: object) -> float:
    """A float near the non-negative number x for precision guesses: never
    raises (huge → 1e300, tiny → 0)."""
    try:
        return float(x)  # type: ignore[arg-type]
    except OverflowError:
        return 1e300
    except (ZeroDivisionError, ValueError, TypeError):
        return 0.0


def delta_mu_start_prec(rel_bits: int, mu: object, eps: object) -> int:
    """Precision that usually suffices on the first try: target bits, the
    cancellation log2(1 + ε/μ²), the sensitivity of Φ at |a| ~ ε/μ + μ/2 to
    rounding of the inputs, and e^ε's sensitivity to rounding of ε."""
    # a guess only (the result is re-checked): clamp so floats never overflow
    mu, eps = _safe_float(mu), _safe_float(eps)
    mu = min(max(mu, 1e-150), 1e150)
    eps = min(max(eps, 0.0), 1e300)
    a = min(eps / mu + mu / 2, 1e300)
    return min(
        rel_bits
        + 12
        + int(math.log2(1.0 + min(eps / (mu * mu), 1e300)))
        + 2 * int(math.log2(1.0 + a))
        + int(math.log2(1.0 + eps)),
        1 << 16,
    )
