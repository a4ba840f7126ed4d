"""Certified Gaussian differential privacy primitives.

For μ > 0 the privacy profile of μ-GDP (Liu et al. 2022, Thm 3.2; Dong et al.) is

    δ_μ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2),     ε >= 0.

It is increasing in μ (∂δ_μ/∂μ = φ(ε/μ - μ/2) > 0) and decreasing in ε
(∂δ_μ/∂ε = -e^ε Φ(-ε/μ - μ/2) < 0).  For large ε the two terms agree to about
log2(ε/μ²) bits and cancel; writing a = -ε/μ + μ/2, b = a - μ one has
e^ε φ(b) = φ(a), so δ_μ(ε) = φ(a)(R(-a) - R(-b)) with R the Mills ratio.  We
evaluate the direct form in ball arithmetic, with the working precision raised
by the predicted cancellation (and raised further until the ball is tight):
the ball result is an enclosure at every precision, so cancellation can cost
time but never soundness.

Derived quantities (all certified enclosures):

* ``mu_from_eps_delta``  μ_GDP(ε, δ): the μ with δ_μ(ε) = δ (Liu et al. 2022 Def 4.1).
* ``eps_from_mu_delta``  the smallest ε >= 0 with δ_μ(ε) <= δ.
* ``tradeoff_mu``        f_μ(α) = Φ(Φ⁻¹(1-α) - μ) (Gomez et al. 2025 eq. 4).
* ``mu_from_pure_dp``    ε-DP ⇒ μ-GDP with μ = -2Φ⁻¹(1/(1+e^ε)) (Liu et al. 2022 Thm 5.1,
                         Gomez et al. 2025 Prop 6.1).

Roots are found by a float-guided Newton iteration (search only) and then
*certified* by two ball sign checks at the bracket ends; if the guess is
wrong the bracket is repaired by certified bisection.  No comparison is ever
guessed: undecided balls are recomputed at higher precision.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Callable

from flint import arb

from certdp.errors import InputError, PrecisionError
from certdp.numerics.decide import adaptive, decide
from certdp.numerics.ball import (
    MAX_PREC,
    digits_to_bits,
    to_ball,
    working_precision,
)
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import check_nonnegative, check_open_unit, check_positive, exact
from certdp.numerics.normal import (
    Phi_ball,
    Phi_inv_exact_ball,
    Phi_inv_ball,
    phi_ball,
    _mag,
)
# one owner: the checker's own Gaussian primitives (the checker imports only its package)
from certdp.verifier.gauss import delta_mu_ball, delta_mu_start_prec as _delta_mu_start_prec  # noqa: F401

#: Default absolute width of root enclosures (μ_GDP, ε(δ)).
DEFAULT_WIDTH = Fraction(1, 10**12)


# ---------------------------------------------------------------------------
# δ_μ(ε)
# ---------------------------------------------------------------------------


def delta_mu_adaptive(mu: Fraction, eps: Fraction, rel_bits: int) -> arb:
    """Ball for δ_μ(ε) with at least ``rel_bits`` bits of relative accuracy."""
    start = _delta_mu_start_prec(rel_bits, _mag(mu), _mag(eps))
    return adaptive(lambda _p: delta_mu_ball(to_ball(mu), to_ball(eps)), rel_bits, start, "delta_mu")


def _check_mu(mu: object) -> Fraction:
    return check_positive(mu, "mu")


def _check_eps(eps: object) -> Fraction:
    return check_nonnegative(eps, "eps")


def _check_delta(delta: object) -> Fraction:
    return check_open_unit(delta, "delta")


def delta_mu(mu: object, eps: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified δ_μ(ε) = Φ(-ε/μ+μ/2) - e^ε Φ(-ε/μ-μ/2) (Liu et al. 2022 Thm 3.2).

    Relative width <= 10^-digits (default 1e-15), held even where the two
    terms cancel (large ε, small μ).
    """
    m, e = _check_mu(mu), _check_eps(eps)
    bits = digits_to_bits(digits, prec)
    # fast path: the first iteration of delta_mu_adaptive, inlined (usually enough)
    start = max(_start_prec_cached(m, e, bits), bits + 10)
    with working_precision(start):
        y = delta_mu_ball(to_ball(m), to_ball(e))
    if not (y.is_finite() and y.rel_accuracy_bits() >= bits):
        y = delta_mu_adaptive(m, e, bits)
    return _in_unit(Enclosure.from_ball(y))


def _in_unit(enc: Enclosure) -> Enclosure:
    """The enclosure cut to [0, 1], where every δ and every β lies."""
    lo = enc.lo if enc.lo > 0 else arb(0)
    hi = enc.hi if enc.hi < 1 else arb(1)
    return enc if (lo is enc.lo and hi is enc.hi) else Enclosure(lo, hi)


@functools.lru_cache(maxsize=4096)
def _start_prec_cached(mu: Fraction, eps: Fraction, rel_bits: int) -> int:
    return _delta_mu_start_prec(rel_bits, _mag(mu), _mag(eps))


# ---------------------------------------------------------------------------
# certified monotone root finding
# ---------------------------------------------------------------------------


def _dyadic(x: float, bits: int = 60) -> Fraction:
    """A dyadic rational close to the float x (search points only)."""
    if x == 0:
        return Fraction(0)
    if not math.isfinite(x):
        raise PrecisionError(f"the float search left the representable range ({x})")
    m, e = math.frexp(x)
    return Fraction(round(m * (1 << bits))) / Fraction(2) ** (bits - e)


def certified_sign(evaluate: Callable[[int], arb], target: Fraction, what: str) -> int:
    """Sign of (value - target) where ``evaluate(rel_bits)`` returns a ball for
    the value.  Raises precision until the ball excludes the target."""
    def test(prec: int) -> int | None:
        rel_bits = prec - 64
        y = evaluate(rel_bits)
        with working_precision(rel_bits + 64):
            t = to_ball(target)
            return 1 if y > t else (-1 if y < t else None)

    return decide(test, start=40 + 64, cap=MAX_PREC // 4 + 64, what=f"{what}: the sign")


def certified_root(
    sign_at: Callable[[Fraction], int],
    guess: Fraction,
    width: Fraction,
    lower_limit: Fraction,
    upper_hint: Fraction,
) -> tuple[Fraction, Fraction]:
    """Bracket the unique sign change of an increasing function.

    ``sign_at(x)`` is a *certified* sign of f(x) (-1 or +1).  Returns exact
    (lo, hi) with hi - lo <= width, sign_at(lo) = -1, sign_at(hi) = +1.
    ``lower_limit`` is a point where the sign is known to be -1 (not
    evaluated); ``upper_hint`` is a start for the upward search.
    """
    half = width / 2
    lo, hi = guess - half * Fraction(9, 10), guess + half * Fraction(9, 10)
    lo = max(lo, lower_limit)
    s_lo = -1 if lo == lower_limit else sign_at(lo)
    s_hi = sign_at(hi)
    if s_lo < 0 < s_hi:
        return lo, hi
    # repair: find a certified bracket, then bisect
    if s_lo > 0:  # root below lo
        hi = lo
        step = max(width, abs(guess) / 1024)
        while True:
            cand = max(hi - step, lower_limit)
            if cand == lower_limit or sign_at(cand) < 0:
                lo = cand
                break
            hi, step = cand, step * 4
    elif s_hi < 0:  # root above hi
        lo = hi
        step = max(width, abs(guess) / 1024, upper_hint - hi if upper_hint > hi else width)
        while True:
            cand = lo + step
            if sign_at(cand) > 0:
                hi = cand
                break
            lo, step = cand, step * 4
    while hi - lo > width:
        mid = _dyadic(float((lo + hi) / 2)) if hi - lo > Fraction(1, 2**40) * abs(hi) else (lo + hi) / 2
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        if sign_at(mid) < 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


#: Relative accuracy every root gets at least (tiny results keep their digits).
RELATIVE_BITS = 40


def _relative(width: Fraction, guess: float) -> Fraction:
    """The absolute width asked for, narrowed to 2^-40 of the (float-guessed)
    root's size so that a tiny root (μ ≈ 1e-300) is not reported as [0, 1e-12]."""
    if guess > 0 and math.isfinite(guess):
        return min(width, _dyadic(guess) / 2**RELATIVE_BITS)
    return width


def _check_width(width: object) -> Fraction:
    return check_positive(width, "width")


# ---------------------------------------------------------------------------
# μ_GDP(ε, δ)
# ---------------------------------------------------------------------------


def _mu_guess(eps: Fraction, delta: Fraction, width: float = 1e-12) -> tuple[float, float]:
    """Float Newton iteration for μ_GDP(ε, δ) in t = log μ (search only).

    Returns (guess, lower) where lower = 2Φ⁻¹((1+δ)/2) = μ_GDP(0, δ) <= μ_GDP(ε, δ).
    """
    if eps > 10**300:
        raise InputError("eps is outside the range of μ_GDP(ε, δ): the search needs ε <= 1e300")
    with working_precision(64):
        lower = float((2 * Phi_inv_exact_ball((1 + delta) / 2)).mid())
        log_delta = to_ball(delta).log()
    e = float(eps)
    s = math.sqrt(max(-2.0 * float(log_delta.mid()), 0.0))
    mu = max(-s + math.sqrt(s * s + 2 * e), lower, 1e-300)
    if e == 0:
        return lower, lower
    for _ in range(30):
        with working_precision(64 + int(math.log2(1 + e / (mu * mu)))):
            m = arb(mu)
            ep = to_ball(eps)
            d = delta_mu_ball(m, ep)
            if not (d > 0):
                break
            g = float((d.log() - log_delta).mid())
            dg = float((m * phi_ball(-ep / m + m / 2) / d).mid())
        if not math.isfinite(g) or not math.isfinite(dg) or dg <= 0:
            break
        step = max(min(g / dg, 2.0), -2.0)
        mu = max(mu * math.exp(-step), lower)
        # quadratic convergence: once the step is far below the target width
        # the next error is negligible (the result is certified afterwards anyway)
        if abs(step) * mu < width / 64 or abs(step) < 1e-15:
            break
    return mu, lower


def mu_from_eps_delta(
    eps: object, delta: object, *, width: object = DEFAULT_WIDTH
) -> Enclosure:
    """Certified μ_GDP(ε, δ): the μ with δ_μ(ε) = δ (Liu et al. 2022 Def 4.1).

    μ-GDP implies (ε, δ)-DP exactly for μ <= μ_GDP(ε, δ).  The enclosure has
    absolute width <= ``width`` (default 1e-12).  Requires ε >= 0, 0 < δ < 1.
    """
    e, d, w = _check_eps(eps), _check_delta(delta), _check_width(width)
    guess, lower = _mu_guess(e, d, float(w))
    if e == 0 and d < Fraction(1, 10**8):
        guess = float(d) * math.sqrt(2 * math.pi)  # δ_μ(0) = 2Φ(μ/2) − 1 ≈ μ/√(2π) for tiny μ (search only)

    def sign_at(mu: Fraction) -> int:
        return certified_sign(lambda bits: delta_mu_adaptive(mu, e, bits), d, "mu_from_eps_delta")

    lo, hi = certified_root(sign_at, _dyadic(guess), _relative(w, guess), Fraction(0), _dyadic(2 * guess + 1))
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(hi))


# ---------------------------------------------------------------------------
# ε(μ, δ)
# ---------------------------------------------------------------------------


def _eps_guess(mu: Fraction, delta: Fraction, width: float = 1e-12) -> float:
    """Float Newton iteration for the ε with δ_μ(ε) = δ (search only)."""
    m = float(mu)
    with working_precision(64):
        log_delta = to_ball(delta).log()
    s = math.sqrt(max(-2.0 * float(log_delta.mid()), 0.0))
    e = max(m * (m / 2 + s), 0.0)
    if not math.isfinite(e) or m * m == 0:
        raise InputError(f"mu = {m:.3g} is outside the range of ε(μ, δ) (the search needs 1e-150 < μ < 1e150)")
    for _ in range(30):
        with working_precision(64 + int(math.log2(1 + e / (m * m)))):
            ep, mb = arb(e), to_ball(mu)
            dd = delta_mu_ball(mb, ep)
            if not (dd > 0):
                break
            g = float((dd.log() - log_delta).mid())
            dg = float((-(ep.exp()) * Phi_ball(-ep / mb - mb / 2) / dd).mid())
        if not math.isfinite(g) or not math.isfinite(dg) or dg >= 0:
            break
        step = g / dg
        e = max(e - step, 0.0)
        if abs(step) < width / 64 or abs(step) < 1e-15 * max(1.0, e):
            break
    return e


def eps_from_mu_delta(mu: object, delta: object, *, width: object = DEFAULT_WIDTH) -> Enclosure:
    """Certified smallest ε >= 0 with δ_μ(ε) <= δ.

    If δ >= δ_μ(0) = 2Φ(μ/2) - 1 this is exactly 0.  Otherwise it is the root
    of δ_μ(ε) = δ, enclosed with absolute width <= ``width`` (default 1e-12).
    """
    m, d, w = _check_mu(mu), _check_delta(delta), _check_width(width)
    zero = Fraction(0)

    def sign_at(eps: Fraction) -> int:
        # increasing function of ε: δ - δ_μ(ε)
        return -certified_sign(lambda bits: delta_mu_adaptive(m, eps, bits), d, "eps_from_mu_delta")

    if sign_at(zero) >= 0:  # δ_μ(0) <= δ (certainly: sign_at never returns 0)
        return Enclosure.exact(0)
    guess = _eps_guess(m, d, float(w))
    lo, hi = certified_root(sign_at, _dyadic(guess), w, zero, _dyadic(2 * guess + 1))
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(hi))


# ---------------------------------------------------------------------------
# trade-off function and pure DP
# ---------------------------------------------------------------------------


def tradeoff_mu(mu: object, alpha: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified f_μ(α) = Φ(Φ⁻¹(1-α) - μ), the μ-GDP trade-off function
    (Gomez et al. 2025 eq. 4), for 0 <= α <= 1 (f_μ(0) = 1, f_μ(1) = 0)."""
    m = exact(mu, "mu")
    if m < 0:
        raise InputError(f"mu must be >= 0, got mu = {mu}")
    a = exact(alpha, "alpha")
    if not 0 <= a <= 1:
        raise InputError(f"alpha must lie in [0, 1], got alpha = {alpha}")
    if a == 0:
        return Enclosure.exact(1)
    if a == 1:
        return Enclosure.exact(0)
    if m == 0:
        return Enclosure.exact(1 - a)
    bits = digits_to_bits(digits, prec)

    def compute(_p: int) -> arb:
        z = -Phi_inv_exact_ball(a)  # Φ⁻¹(1-α)
        return Phi_ball(z - to_ball(m))

    return _in_unit(Enclosure.from_ball(adaptive(compute, bits, bits + 30 + 2 * int(math.log2(1 + _mag(m))),
                                                 "tradeoff_mu")))


def mu_from_pure_dp(eps: object, *, digits: int | None = None, prec: int | None = None) -> Enclosure:
    """Certified μ = -2Φ⁻¹(1/(1+e^ε)): every ε-DP mechanism is μ-GDP, and the
    bound is tight for randomized response (Liu et al. 2022 Thm 5.1, Gomez et al. 2025 Prop 6.1)."""
    e = _check_eps(eps)
    if e == 0:
        return Enclosure.exact(0)
    bits = digits_to_bits(digits, prec)

    def compute(_p: int) -> arb:
        p = 1 / (1 + to_ball(e).exp())
        return -2 * Phi_inv_ball(p)

    return Enclosure.from_ball(adaptive(compute, bits, bits + 20 + int(math.log2(1 + _mag(e))), "mu_from_pure_dp"))
