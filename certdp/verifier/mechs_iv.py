"""The closed forms of the checker's mechanism table (:mod:`certdp.verifier.mechs`) and
their slopes (:mod:`certdp.verifier.slopes`) a second time, in mpmath interval arithmetic
(``mpmath.iv``), for ``certdp verify --kernel mpmath``: no sympy, no python-flint.

The formulas and their sources are those of :mod:`certdp.verifier.mechs`:

* laplace: (1 − e^{(ε − Δ/b)/2})⁺; gaussian / gaussian_dp / Gaussian compositions: δ_μ
  (Dong, Roth & Su 2022 Cor 2.13), Φ from the fixed-point series of
  :mod:`certdp.verifier.phi_series` (the rigorous erfc of :mod:`certdp.numerics.iv` where
  it leaves δ_μ wide);
* randomized_response: (q − (1 − q)e^ε)⁺; pure_dp / approx_dp: δ₀ + (1 − δ₀)(e^{ε₀} − e^ε)⁺/(1 + e^{ε₀});
* discrete_laplace: Σ over atoms of loss ℓ > ε of (p − q e^ε)⁺ (Canonne, Kamath & Steinke 2020);
* subsample(M, γ): γ δ_M(log(1 + (e^ε − 1)/γ)) (Balle, Barthe & Gaboardi 2018);
* compose(M, k): k = 1, μ√k for exactly Gaussian M, and the binomial profile of k-fold
  pure_dp / randomized_response (Kairouz, Oh & Viswanath 2015 Thm 3.3) in logs, as the table;
* clip_reify(M, ε_h): min(δ_M, (1 − e^{(ε − ε_h)/2})⁺) (Liu et al. 2022 Thm 4.7).

Every function is evaluated by interval arithmetic on its argument (the natural interval
extension, outward rounded), so an interval ε gives an enclosure of δ over it.  Where ε is
an exact rational the kinks are decided exactly (ε >= ε₀ makes (e^{ε₀} − e^ε)⁺ exactly 0,
as the flint table does), so a zero tail at a kink is proved, not left undecided.

``discrete_gaussian`` is the table's sum with bounded tails (Canonne, Kamath & Steinke 2020).
``compose_all``, other compositions and ``profile("...")`` have no entry here (:func:`delta` raises :class:`NoClosedForm`): the caller takes user expressions
through the expression evaluator and refuses the rest.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Callable

from mpmath import iv, libmp

from certdp.verifier import iv as kernel
from certdp.verifier.mechs import (ApproxDP, ClipReify, Compose, DiscreteGaussian, DiscreteLaplace, GaussianDP,
                                      Laplace, Mech, RandomizedResponse, Subsample, _pure_loss)


class NoClosedForm(Exception):
    """The mechanism has no closed form in this table."""


def _pt(q: Fraction) -> Any:
    return _point(Fraction(q), iv.prec)


@functools.lru_cache(maxsize=256)
def _point(q: Fraction, prec: int) -> Any:
    """A mechanism's constant at ``prec`` bits (made once: a cell proof asks for it on every piece)."""
    return kernel.point(q)


def _pos(x: Any) -> Any:
    """(x)⁺ over an interval."""
    return iv.mpf([max(x.a, 0), max(x.b, 0)])


def _min(x: Any, y: Any) -> Any:
    return iv.mpf([min(x.a, y.a), min(x.b, y.b)])


def _nonneg(x: Any) -> Any:
    """x ∩ [0, ∞) (ε is non-negative; an outward-rounded inner ε may dip below 0)."""
    return iv.mpf([max(x.a, 0), max(x.b, 0)])


def delta_mu(m: Any, x: Any) -> Any:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for intervals μ > 0, ε >= 0 at the current
    precision, Φ from the fixed-point series of :mod:`certdp.verifier.phi_series`: absolute
    accuracy 2^−(prec+32), raised by the bits δ_μ is below 1 while the result is relatively
    wide (the cancellation) until more bits no longer narrow it (then the arguments' width
    at this precision dominates, and the decision loop raises the precision)."""
    from certdp.verifier.phi_series import ncdf  # noqa: PLC0415

    a = -x / m + m / 2
    p, width = iv.prec + 32, None
    x_lo, x_hi = x._mpi_  # the tests below on mpmath's raw tuples (rounded up: a guide, not a bound)
    thin = libmp.mpf_le(libmp.mpf_shift(libmp.mpf_sub(x_hi, x_lo, 53, "c"), iv.prec - 16),
                        libmp.mpf_add(libmp.mpf_abs(x_hi), libmp.fone, 53, "c"))
    e_x = iv.exp(x)
    for _ in range(3 if thin else 1):  # a wide ε (a cell) is as wide at any Φ accuracy
        v = ncdf(a, p) - e_x * ncdf(a - m, p)
        v_lo, v_hi = v._mpi_
        w = libmp.mpf_sub(v_hi, v_lo, 53, "c")
        if not _regular(w):
            return v
        if ((_positive(v_lo) and libmp.mpf_le(libmp.mpf_shift(w, iv.prec - 8), v_lo))
                or (width is not None and libmp.mpf_gt(libmp.mpf_shift(w, 1), width))):
            return v  # tight, or as tight as the arguments' own width allows at this precision
        if not _positive(v_hi):
            break
        # the bits the absolute accuracy lacks for a relative 2^−(prec−8) (capped: far tails are
        # relative already, and there more bits do not narrow it); a guide from the exponents
        ref = v_lo if _positive(v_lo) else libmp.mpf_shift(v_hi, -1)
        lack = (w[2] + w[3]) - (ref[2] + ref[3]) + iv.prec - 8 + 1 + 16 if w != libmp.fzero else 0
        width, p = w, min(p + max(lack, 16), 8 * iv.prec + 64)
    return v


def _regular(t: tuple) -> bool:
    """A finite mpf tuple (not ±inf, nan)."""
    return t not in (libmp.finf, libmp.fninf, libmp.fnan)


def _positive(t: tuple) -> bool:
    """The mpf tuple is > 0 and finite."""
    return t[0] == 0 and t[1] != 0 and _regular(t)


def _lap_tail(c: Fraction, x: Any, xq: Fraction | None) -> Any:
    """(1 − e^{(ε − c)/2})⁺, exactly 0 for an exact ε >= c."""
    if xq is not None and xq >= c:
        return iv.mpf(0)
    return _pos(1 - iv.exp((x - _pt(c)) / 2))


def delta(mech: Mech, x: Any, xq: Fraction | None = None) -> Any:
    """An interval containing δ_mech(ε) for every ε in the interval ``x`` (>= 0); ``xq`` is
    ε itself when it is an exact rational (kinks decided exactly)."""
    if isinstance(mech, Laplace):
        return _lap_tail(mech.sensitivity / mech.scale, x, xq)
    if isinstance(mech, GaussianDP):  # Gaussian too (its mu is Δ/σ)
        return delta_mu(_pt(mech.mu), x)
    if isinstance(mech, RandomizedResponse):
        q = max(mech.p, 1 - mech.p)
        return _pos(_pt(q) - _pt(1 - q) * iv.exp(x))
    if isinstance(mech, ApproxDP):
        if xq is not None and xq >= mech.eps:
            term = iv.mpf(0)
        else:
            e0 = iv.exp(_pt(mech.eps))
            term = _pos(e0 - iv.exp(x)) / (1 + e0)
        if mech.delta0 == 0:
            return term
        d0 = _pt(mech.delta0)
        return d0 + (1 - d0) * term
    if isinstance(mech, DiscreteLaplace):
        return _discrete_laplace(mech, x, xq)
    if isinstance(mech, DiscreteGaussian):
        if xq is not None:
            return _discrete_gaussian(mech, xq)
        lo, hi = (Fraction(*libmp.to_rational(e)) for e in x._mpi_)  # non-increasing: the ends
        return kernel.hull(_discrete_gaussian(mech, hi), _discrete_gaussian(mech, max(lo, Fraction(0))))
    if isinstance(mech, Subsample):
        if mech.rate == 1:
            return delta(mech.mechanism, x, xq)
        g = _pt(mech.rate)
        return g * delta(mech.mechanism, _inner(g, x))
    if isinstance(mech, Compose) and mech.has_closed_form:
        if mech.k == 1:
            return delta(mech.mechanism, x, xq)
        if mech.binomial:
            return _binomial(mech, x, xq)
        return delta_mu(iv.sqrt(_pt(mech.gdp_mu_squared())), x)
    if isinstance(mech, ClipReify):
        lap = _lap_tail(mech.eps_h, x, xq)
        if lap.b <= 0:
            return lap
        return _min(delta(mech.mechanism, x, xq), lap)
    raise NoClosedForm(f"{type(mech).__name__} has no closed form in the mpmath kernel's table")


def _inner(g: Any, x: Any) -> Any:
    """log(1 + (e^ε − 1)/γ), the subsampled mechanism's inner ε, within [0, ∞)."""
    return _nonneg(iv.log(1 + (iv.exp(x) - 1) / g))


def _discrete_laplace(mech: DiscreteLaplace, x: Any, xq: Fraction | None) -> Any:
    """Σ over atoms of loss ℓ > ε of (p − q e^ε)⁺ (an atom with ℓ <= ε adds (p − q e^ε)⁺ = 0)."""
    d, t = int(mech.sensitivity), Fraction(mech.scale)
    r = iv.exp(-1 / _pt(t))
    c = (1 - r) / (1 + r)
    atoms = [(Fraction(d) / t, 1 / (1 + r), r**d / (1 + r))]
    atoms += [(Fraction(d - 2 * j) / t, c * r**j, c * r**(d - j)) for j in range(1, d) if d - 2 * j > 0]
    e = iv.exp(x)
    total = iv.mpf(0)
    for ell, p, q in atoms:
        if xq is not None and ell <= xq:
            continue
        total += _pos(p - q * e)
    return total


def _discrete_gaussian(mech: DiscreteGaussian, eps: Fraction) -> Any:
    """δ(ε) = Σ_{x <= m} (w(x) − e^ε w(x − Δ))/Z, m = ⌈Δ/2 − εσ²/Δ⌉ − 1, w(x) = e^{−x²/(2σ²)}: the terms
    |x| <= N summed, each tail Σ_{x>N} w(x) in [0, w(N+1)/(1 − e^{−(2N+3)/(2σ²)})] (the table's
    :class:`certdp.verifier.mechs.DiscreteGaussian`, N for 2^−(prec+64))."""
    s, d = Fraction(mech.sigma), int(mech.sensitivity)
    n = int(math.ceil(float(s) * math.sqrt(2 * (iv.prec + 64) * math.log(2)))) + d + 1
    s2 = _pt(2 * s * s)

    def w(x: int) -> Any:
        return iv.exp(-iv.mpf(x * x) / s2)

    tail = w(n + 1) / (1 - iv.exp(-iv.mpf(2 * n + 3) / s2))
    spread = iv.mpf([0, tail.b])
    z = sum((w(x) for x in range(-n, n + 1)), iv.mpf(0)) + 2 * spread
    c = Fraction(d, 2) - eps * s * s / d
    m = -((-c.numerator) // c.denominator) - 1  # ⌈c⌉ − 1
    e = iv.exp(_pt(eps))
    top = min(m, n)
    a = sum((w(x) - e * w(x - d) for x in range(-n, top + 1)), iv.mpf(0)) if top >= -n else iv.mpf(0)
    return _pos((a + spread) / z)


def _binomial_logs(mech: Compose) -> tuple[Any, Any, Any, Fraction | None] | None:
    """(ℓ, log q, log(1 − q), ε₀ or None) of the binary randomized response under the
    composition; None when δ ≡ 0 (q = 1/2)."""
    e0, q = _pure_loss(mech.mechanism)
    if e0 is not None:
        ell = _pt(e0)
        return ell, -iv.log(1 + iv.exp(-ell)), -iv.log(1 + iv.exp(ell)), e0
    if q == Fraction(1, 2):
        return None
    return iv.log(_pt(q) / _pt(1 - q)), iv.log(_pt(q)), iv.log(_pt(1 - q)), None


def _binomial(mech: Compose, x: Any, xq: Fraction | None) -> Any:
    """δ_k(ε) = Σ_{i < k/2} C(k, i) q^{k−i}(1 − q)^i e^ε (e^{(k−2i)ℓ − ε} − 1)⁺ (the table's
    :meth:`Compose._binomial_ball`, same logs)."""
    logs = _binomial_logs(mech)
    if logs is None:
        return iv.mpf(0)
    ell, lq, l1q, e0 = logs
    k = mech.k
    total, log_binom = iv.mpf(0), iv.mpf(0)
    for i in range((k + 1) // 2):
        if e0 is not None and xq is not None and (k - 2 * i) * e0 <= xq:
            break  # the loss (k − 2i)ε₀ <= ε exactly: this and later terms are 0
        if i:
            log_binom += iv.log(iv.mpf(k - i + 1) / i)
        t = (k - 2 * i) * ell - x
        if t.b <= 0:
            break
        total += iv.exp(log_binom + i * lq + (k - i) * l1q + x) * _pos(iv.exp(t) - 1)
    return total


# -- slopes (the second-order cell test) -------------------------------------------


def _before(kink: Any, s: Any, cell: Any) -> Any:
    """``s`` where ε < kink, 0 beyond: the cell's side, or both sides' hull."""
    if cell.b <= kink.a:
        return s
    if cell.a >= kink.b:
        return iv.mpf(0)
    return kernel.hull(s, iv.mpf(0))


def _gauss_slope(m: Any, cell: Any) -> Any:
    """δ_μ'(ε) = −e^ε Φ(−ε/μ − μ/2)."""
    from certdp.verifier.phi_series import ncdf  # noqa: PLC0415

    return -(iv.exp(cell) * ncdf(-cell / m - m / 2))


def _coefficient(mech: Mech, cell: Any) -> Any | None:
    """β >= 0 with P' = −β e^ε a.e. on ``cell`` (:func:`certdp.verifier.slopes._coefficient`)."""
    if isinstance(mech, RandomizedResponse):
        q = max(mech.p, 1 - mech.p)
        return _before(iv.log(_pt(q) / _pt(1 - q)), _pt(1 - q), cell)
    if isinstance(mech, ApproxDP):
        return _before(_pt(mech.eps), (1 - _pt(mech.delta0)) / (1 + iv.exp(_pt(mech.eps))), cell)
    if isinstance(mech, DiscreteLaplace):
        d, t = int(mech.sensitivity), Fraction(mech.scale)
        r = iv.exp(-1 / _pt(t))
        c = (1 - r) / (1 + r)
        out = _before(_pt(Fraction(d) / t), r**d / (1 + r), cell)
        for j in range(1, d):
            if d - 2 * j > 0:
                out += _before(_pt(Fraction(d - 2 * j) / t), c * r**(d - j), cell)
        return out
    if isinstance(mech, Subsample):
        return _coefficient(mech.mechanism, cell if mech.rate == 1 else _inner(_pt(mech.rate), cell))
    if isinstance(mech, Compose) and mech.has_closed_form:
        if mech.k == 1:
            return _coefficient(mech.mechanism, cell)
        if mech.binomial:
            return _binomial_coefficient(mech, cell)
    return None


def _binomial_coefficient(mech: Compose, cell: Any) -> Any:
    logs = _binomial_logs(mech)
    if logs is None:
        return iv.mpf(0)
    ell, lq, l1q, _ = logs
    k = mech.k
    sure, maybe, log_binom = iv.mpf(0), iv.mpf(0), iv.mpf(0)
    for i in range((k + 1) // 2):
        if i:
            log_binom += iv.log(iv.mpf(k - i + 1) / i)
        loss = (k - 2 * i) * ell
        if loss.b <= cell.a:
            break
        w = iv.exp(log_binom + i * lq + (k - i) * l1q)
        if loss.a >= cell.b:
            sure += w
        else:
            maybe += w
    return kernel.hull(sure, sure + maybe)


def slope(mech: Mech, cell: Any) -> Any | None:
    """An interval containing P'(ε) for almost every ε in ``cell`` ∩ [0, ∞); None: no closed form."""
    cell = _nonneg(cell)
    beta = _coefficient(mech, cell)
    if beta is not None:
        return -beta * iv.exp(cell)
    if isinstance(mech, Laplace):
        c = _pt(mech.sensitivity / mech.scale)
        return _before(c, -iv.exp((cell - c) / 2) / 2, cell)
    if isinstance(mech, GaussianDP):
        return _gauss_slope(_pt(mech.mu), cell)
    if isinstance(mech, Subsample):
        if mech.rate == 1:
            return slope(mech.mechanism, cell)
        g = _pt(mech.rate)
        inner = slope(mech.mechanism, _inner(g, cell))
        return None if inner is None else g * inner * (iv.exp(cell) / (g + iv.exp(cell) - 1))
    if isinstance(mech, Compose) and mech.has_closed_form:
        if mech.k == 1:
            return slope(mech.mechanism, cell)
        return _gauss_slope(iv.sqrt(_pt(mech.gdp_mu_squared())), cell)
    if isinstance(mech, ClipReify):
        inner = slope(mech.mechanism, cell)
        if inner is None:
            return None
        c = _pt(mech.eps_h)
        lap_slope = _before(c, -iv.exp((cell - c) / 2) / 2, cell)
        p_m, lap = delta(mech.mechanism, cell), _lap_tail(mech.eps_h, cell, None)
        if p_m.b < lap.a:
            return inner
        if p_m.a > lap.b:
            return lap_slope
        return kernel.hull(inner, lap_slope)
    return None


#: Sub-cells a slope is evaluated on (as :data:`certdp.verifier.slopes.PIECES`).
PIECES = 8


def functions(mech: Mech) -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """(P, P') on intervals for the second-order cell test; None when there is no slope here."""
    if not covered(mech) or slope(mech, iv.mpf(0)) is None:
        return None

    def d_p(cell: Any) -> Any:
        lo, hi = max(cell.a, 0), max(cell.b, 0)
        ends = [iv.mpf(lo) + (iv.mpf(hi) - iv.mpf(lo)) * j / PIECES for j in range(PIECES + 1)]
        ends[0], ends[-1] = iv.mpf(lo), iv.mpf(hi)
        one = _clip_side(mech, kernel.hull(ends[0], ends[-1]))
        out = None
        for a, b in zip(ends, ends[1:]):
            s = one(kernel.hull(a, b))
            out = s if out is None else kernel.hull(out, s)
        return out

    return (lambda x: delta(mech, _nonneg(x))), d_p


def _clip_side(mech: Mech, cell: Any) -> Callable[[Any], Any]:
    """The slope on the pieces of ``cell``: for clip_reify whose smaller side is decided on the
    whole cell, that side's slope (the same side is the smaller on every piece, so the
    comparison is made once, not per piece); else :func:`slope` itself."""
    if isinstance(mech, ClipReify) and slope(mech.mechanism, iv.mpf(0)) is not None:
        cell = _nonneg(cell)
        p_m, lap = delta(mech.mechanism, cell), _lap_tail(mech.eps_h, cell, None)
        if p_m.b < lap.a:
            return lambda piece: slope(mech.mechanism, _nonneg(piece))
        if p_m.a > lap.b:
            c = _pt(mech.eps_h)
            return lambda piece: _before(c, -iv.exp((_nonneg(piece) - c) / 2) / 2, _nonneg(piece))
    return lambda piece: slope(mech, piece)


def covered(mech: Mech) -> bool:
    """Whether :func:`delta` has a closed form for ``mech`` (structure only, no arithmetic)."""
    if isinstance(mech, (Laplace, GaussianDP, RandomizedResponse, ApproxDP, DiscreteLaplace, DiscreteGaussian)):
        return True
    if isinstance(mech, Subsample):
        return covered(mech.mechanism)
    if isinstance(mech, Compose):
        return mech.has_closed_form and (mech.k > 1 or covered(mech.mechanism))
    if isinstance(mech, ClipReify):
        return covered(mech.mechanism)
    return False


def profile(mech: Mech) -> Callable[[Fraction], Any]:
    """ε ↦ an interval containing δ_mech(ε) at the current precision: the closed forms here (no
    sympy); only a mechanism with a user expression (``profile("...")``) goes through the
    expression evaluator's interval backend.  NoClosedForm when neither applies."""
    if covered(mech):
        return lambda e: delta(mech, kernel.point(e), e)
    from certdp.verifier.errors import InputError  # noqa: PLC0415
    from certdp.expr.ivbackend import compile_iv  # noqa: PLC0415  (sympy: user expressions only)
    from certdp.expr.symbols import EPS  # noqa: PLC0415

    try:
        f = compile_iv(mech.profile(), (EPS,))
    except InputError as err:
        raise NoClosedForm(f"the profile cannot be evaluated by the mpmath kernel: {err}") from None
    return lambda e: f(kernel.point(e))
