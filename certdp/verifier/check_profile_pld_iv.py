"""Evidence ``pld_profile`` and ``pld_items`` under the second kernel (``certdp verify
--kernel mpmath``): :mod:`certdp.verifier.check_profile_pld` with its real-valued steps in
mpmath intervals, only the exact integer composition shared.

* ``pld_profile`` (Zhu, Dong & Wang 2022 Def 7, Lemma 9): D_j >= δ_M(ε_j) from the upper ends
  of the table's closed forms in intervals (:mod:`certdp.verifier.mechs_iv`; a
  ``profile("...")`` expression through the expression evaluator), capped by 1 and by
  D_{j−1}; the chord slopes s_j through (e^{ε_j}, D_j) certainly increasing, the last one 0,
  D_0 − 2 s_0 < 1; P-masses e^{ε_j}(s_j − s_{j−1}) at ε_j and (s_j − s_{j−1}) at −ε_j, D_L at +∞
  and the rest at 0, each rounded UP to 2^−bits (the upper end of its interval, ceiled exactly).
* ``pld_items``: per relation, the product of the items' dominating one-step PLDs — the
  (subsampled) Gaussian mixture of :func:`certdp.verifier.check_pld_iv.one_step`, the exact
  pair of (ε₀, δ₀)-DP (Kairouz, Oh & Viswanath 2015) or the profile pair above.
* F_ε of the composed law: :func:`certdp.verifier.check_pld_iv.f_eps_upper`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

import mpmath
from mpmath import iv

from certdp.verifier.errors import InputError, PrecisionError, check_budget
from certdp.verifier import iv as kernel
from certdp.verifier.check_pld import _Pair, _product, compose, subsampled_gaussians
from certdp.verifier.check_pld_iv import ceil_mpf, f_eps_upper
from certdp.verifier.check_pld_iv import one_step as gaussian_one_step
from certdp.verifier.check_profile_pld import parse_evidence, parse_items_evidence, split


def _units_up(m: Any, bits: int) -> int:
    """⌈upper(m)·2^bits⌉, at least 0 (PrecisionError if m is not bounded)."""
    x = m * iv.mpf(2) ** bits
    if mpmath.isinf(x.b) or mpmath.isnan(x.b):
        raise PrecisionError("a probability mass could not be bounded at this precision "
                             "(the loss law is too extreme for this grid)")
    return max(ceil_mpf(x), 0)


def _profile_of(mech: Any) -> Any:
    """ε ↦ an interval containing δ_M(ε) (:func:`certdp.verifier.mechs_iv.profile`), or InputError."""
    from certdp.verifier.mechs_iv import NoClosedForm, profile  # noqa: PLC0415

    try:
        return profile(mech)
    except NoClosedForm as err:
        raise InputError(str(err)) from None


def profile_samples(mech: Any, h: Fraction, knots: tuple[int, ...]) -> list[Any]:
    """D_j >= δ_M(i_j h) as point intervals: upper ends, capped by 1 and by D_{j−1}."""
    prof = _profile_of(mech)
    out: list[Any] = []
    for j, i in enumerate(knots):
        if not j % 256:
            check_budget("evaluating the privacy profile at the knots (mpmath kernel)", j, len(knots))
        v = prof(i * h).b
        if mpmath.isinf(v) or mpmath.isnan(v):
            raise InputError(f"the profile is not finite at eps = {i * h}")
        v = min(max(v, 0), 1)
        if out and v > out[-1].b:
            v = out[-1].b
        out.append(iv.mpf(v))
    return out


def one_step(mech: Any, h: Fraction, bits: int, knots: tuple[int, ...]) -> tuple[int, list[int], int] | str:
    """The symmetric profile pair through the knots in fixed point (rounded up), or the reason."""
    D = profile_samples(mech, h, knots)
    g = [iv.exp(i * kernel.point(h)) for i in knots]
    slopes = [(D[j + 1] - D[j]) / (g[j + 1] - g[j]) for j in range(len(knots) - 1)] + [iv.mpf(0)]
    if len(knots) > 1 and not (D[0] - 2 * slopes[0]).b < 1:
        return "the profile pair's mass at 0 is not proved >= 0 (first slope too steep)"
    top, L = D[-1], knots[-1]
    coeffs = [0] * (2 * L + 1)
    total = top
    for j in range(1, len(knots)):
        d = slopes[j] - slopes[j - 1]
        if not d.a >= 0:
            return f"the interpolation is not proved convex at knot {knots[j]} (eps = {knots[j] * h})"
        m = g[j] * d
        total += m + d
        coeffs[L + knots[j]] = _units_up(m, bits)
        coeffs[L - knots[j]] = _units_up(d, bits)
    zero = 1 - total
    if zero.b < 0:
        return "the profile pair's mass at 0 is not proved >= 0"
    coeffs[L] = _units_up(zero, bits)
    return -L, coeffs, _units_up(top, bits)


def _with_prec(prec: int, f: Any) -> Any:
    old = iv.prec
    iv.prec = prec
    try:
        return f()
    finally:
        iv.prec = old


def delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """An upper bound (mpf) on δ_M(ε) from ``evidence.pld_profile``, or the unproved step (str)."""
    h, bits, tau, knots = parse_evidence(ev)
    base, count = split(mech)

    def run() -> Any:
        step = one_step(base, h, bits, knots)
        if isinstance(step, str):
            return step
        return f_eps_upper(compose(step, count, bits, int(tau * (1 << bits))), h, bits, eps)

    return _with_prec(prec, run)


def atoms_one_step(mech: Any, h: Fraction, bits: int) -> tuple[int, list[int], int] | str:
    """:func:`certdp.verifier.check_profile_pld.atoms_one_step` in intervals."""
    if getattr(mech, "name", None) not in ("pure_dp", "approx_dp"):
        return "an item given as atoms must be pure_dp(...) or approx_dp(...)"
    e0, d0 = Fraction(mech.eps), Fraction(mech.delta0)
    up, down = math.ceil(e0 / h), math.ceil(-e0 / h)
    big = iv.exp(kernel.point(e0))
    coeffs = [0] * (up - down + 1)
    for index, mass in ((0, (1 - kernel.point(d0)) / (1 + big)), (up - down, (1 - kernel.point(d0)) * big / (1 + big))):
        coeffs[index] += _units_up(mass, bits)
    return down, coeffs, _units_up(kernel.point(d0), bits)


def items_delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> Any:
    """An upper bound (mpf) on δ(ε) of ``compose_all(M1, ..., Mn)`` from ``evidence.pld_items``
    (:func:`certdp.verifier.check_profile_pld.items_delta_upper` in intervals), or the step (str)."""
    items = mech.children()
    h, bits, tau, z, knots = parse_items_evidence(ev, len(items))
    tau_units = int(tau * (1 << bits))

    def run() -> Any:
        per_relation: dict[int, Any] = {1: None, -1: None}
        for j, (item, kn) in enumerate(zip(items, knots)):
            check_budget("re-deriving the PLD of each composed mechanism (mpmath kernel)", j, len(items))
            if kn is None:
                sigma, q, count = subsampled_gaussians(item)
                steps = {sign: compose(gaussian_one_step(_Pair(sigma, q, sign), h, bits, z), count, bits, tau_units)
                         for sign in (1, -1)}
            else:
                base, count = split(item)
                step = atoms_one_step(base, h, bits) if kn == "atoms" else one_step(base, h, bits, kn)
                if isinstance(step, str):
                    return f"item {j + 1}: {step}"
                composed = compose(step, count, bits, tau_units)
                steps = {1: composed, -1: composed}
            for sign in (1, -1):
                acc = per_relation[sign]
                per_relation[sign] = steps[sign] if acc is None else _product(acc, steps[sign], bits, tau_units)
        return max(f_eps_upper(pld, h, bits, eps) for pld in per_relation.values())

    return _with_prec(prec, run)
