"""How many bits each Coq lemma needs: a guide, never an answer.

The margin of an inequality lhs <= rhs (evaluated in balls with the checker's own
table, :mod:`certdp.verifier.mechs`) decides the relative width asked of the
Interval library's ``integral`` (Φ as 1/2 + ∫₀ˣ φ; the e^ε Φ(·) term multiplies
its error by e^ε) and of ``interval``.  A wrong guide only makes coqc fail (the
claim is then INVALID or retried at twice the bits); it can never make coqc accept
a false statement.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.verifier.ball import to_ball, working_precision
from certdp.verifier.gauss import Phi_ball, delta_mu_ball

#: Fewest / most bits asked of Interval; beyond the cap the kernel refuses (deep Gaussian tails).
MIN_BITS, MAX_BITS = 30, 240


class TooDeep(Exception):
    """The inequality needs more bits than the Coq kernel asks of Interval."""


def prof(mech: Any, eps: Fraction) -> Callable[[], arb]:
    return lambda: mech.delta_ball(to_ball(eps))


def dmu(mu: Fraction, eps: Fraction) -> Callable[[], arb]:
    return lambda: delta_mu_ball(to_ball(mu), to_ball(eps))


def mills(mu2: Fraction, eps: Fraction, upper: bool) -> Callable[[], arb]:
    """The library's ``delta_mu_tail`` bound on δ_μ(ε) (μ = √mu2, ε/μ > μ/2): with
    a = ε/μ − μ/2, b = ε/μ + μ/2, φ(a)(1/a − b/(b² + 1)) (upper) or φ(a)(a/(a² + 1) − 1/b)."""
    def value() -> arb:
        mu = to_ball(mu2).sqrt()
        e = to_ball(eps)
        a, b = e / mu - mu / 2, e / mu + mu / 2
        phi = (-a * a / 2).exp() / (2 * arb.pi()).sqrt()
        return phi * (1 / a - b / (b * b + 1)) if upper else phi * (a / (a * a + 1) - 1 / b)
    return value


def const(x: Fraction) -> Callable[[], arb]:
    return lambda: to_ball(x)


def bits(lhs: Callable[[], arb], rhs: Callable[[], arb], eps: Fraction = Fraction(0)) -> int:
    """Relative bits for a lemma lhs <= rhs whose terms involve e^eps (eps: the largest ε
    of a δ_μ term): log2((1 + e^eps) · max(1, |rhs|) / |rhs - lhs|) + 12."""
    with working_precision(320):
        a, b = lhs(), rhs()
        if not (a.is_finite() and b.is_finite()):
            return MAX_BITS
        gap = abs(b - a).mid()
        if gap == 0:
            return MAX_BITS
        scale = float(eps) / math.log(2) + 1
        need = scale + max(0.0, float(abs(b).mid().log() / arb(2).log())) - float(gap.log() / arb(2).log()) + 12
    n = max(MIN_BITS, int(math.ceil(need)))
    if n > MAX_BITS:
        raise TooDeep(n)
    return n


def relative_bits(lhs: Callable[[], arb], rhs: Callable[[], arb]) -> int:
    """Bits for lhs <= rhs measured relative to |rhs| (log2(|rhs| / |rhs - lhs|) + 12), capped at
    MAX_BITS: for goals free of cancelling integrals, whose floats carry their own exponent."""
    with working_precision(320):
        a, b = lhs(), rhs()
        if not (a.is_finite() and b.is_finite()) or (b - a).mid() == 0 or b.mid() == 0:
            return MAX_BITS
        need = float((abs(b).mid() / abs(b - a).mid()).log() / arb(2).log()) + 12
    return max(MIN_BITS, min(MAX_BITS, int(math.ceil(need))))


def laplace_second_order(scale: Fraction, sens: Fraction, mu: Fraction, a: Fraction, b: Fraction) -> Callable[[], arb]:
    """h(a) + D (b − a) of the library's ``laplace_cell2``: h = δ_μ − δ_A,
    D = e^((a − s/β)/2)/2 − e^b Φ(−a/μ − μ/2)."""
    def value() -> arb:
        M, A, Bb = to_ball(mu), to_ball(a), to_ball(b)
        h = delta_mu_ball(M, A) - (1 - ((A - to_ball(sens / scale)) / 2).exp())
        d = ((A - to_ball(sens / scale)) / 2).exp() / 2 - Bb.exp() * Phi_ball(-A / M - M / 2)
        return h + d * (Bb - A)
    return value


def margin(lhs: Callable[[], arb], rhs: Callable[[], arb]) -> float | None:
    """rhs − lhs as a float guide (None when not finite)."""
    with working_precision(320):
        a, b = lhs(), rhs()
        if not (a.is_finite() and b.is_finite()):
            return None
        return float((b - a).mid())
