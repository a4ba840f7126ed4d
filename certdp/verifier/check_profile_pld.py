"""Independent re-derivation of an upper bound on δ(ε) for ``compose(M, k=n)``
(or ``M``) from the closed-form privacy profile of M in the checker's table: the
evidence ``pld_profile`` of a ``dp`` certificate (answers of the generic PLD
engine: Laplace, randomized response, pure/approximate DP, subsampled ones, …).

Mathematics (Zhu, Dong & Wang 2022, Zhu, Dong & Wang 2022 §4.1, Def 7 and Lemma 9: a
symmetric pair built from a privacy profile dominates the mechanism):

* With γ = e^ε, the profile δ(γ) is convex and non-increasing (a hockey-stick
  divergence, the max over both orders of every neighbouring pair).  Take
  D_j >= δ(ε_j) at the stated knots ε_j = i_j h (i_0 = 0, upper ends of the
  table's closed form, capped by 1 and by the previous knot's value: δ does not
  increase) and the piecewise-linear F through (e^{ε_j}, D_j), constant D_L
  beyond the last knot.  F >= δ: between knots F is a chord through points above
  the convex δ.  The checker *proves* that F is convex (slopes s_j certainly
  increase, the last one is <= 0) and that the completion below has mass >= 0
  (D_0 + 2 S_0 < 1 with S_0 = −s_0).
* F is the hockey-stick curve of the symmetric loss law with P-masses
  m_j = e^{ε_j}(s_j − s_{j−1}) at ε_j, (s_j − s_{j−1}) at −ε_j, D_L at +∞ and
  1 − D_L − Σ(...) at 0; it dominates both orders of every neighbouring pair, so
  its n-fold composition dominates M's (composition preserves dominance).
* Masses are rounded up to multiples of 2^−bits (more mass only raises every
  F_ε); composition and the τ-truncation are those of
  :mod:`certdp.verifier.check_pld` (rounded up, tails moved up / to +∞).

The knots are evidence (the writer found them); the checker only re-evaluates
and proves.  Assumptions of M (a ``profile("...")`` with unproved hypotheses)
travel with the claim as everywhere else.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.check_pld import MAX_BITS, MAX_GRID, _Pair, _product, _Undecided, compose, f_eps
from certdp.verifier.check_pld import one_step as gaussian_one_step, parse_evidence as parse_pld_evidence
from certdp.verifier.check_pld import subsampled_gaussians
from certdp.verifier.schema import MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, check_budget
from certdp.verifier.ball import fixed_point_units, to_ball, upper_bound, working_precision
from certdp.verifier.exact import exact

EVIDENCE_FIELDS = {"h", "bits", "tau", "knots"}
MAX_COUNT = 10**9


def parse_evidence(ev: Any) -> tuple[Fraction, int, Fraction, tuple[int, ...]]:
    """(h, bits, τ, knot indices) of ``evidence.pld_profile`` (MalformedCertificate if out of range)."""
    ev = _fields(ev, "evidence.pld_profile", EVIDENCE_FIELDS, set())
    try:
        h = exact(number_string(ev["h"], "evidence.pld_profile.h"), "evidence.pld_profile.h")
        tau = exact(number_string(ev["tau"], "evidence.pld_profile.tau"), "evidence.pld_profile.tau")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    bits, knots = ev["bits"], ev["knots"]
    if type(bits) is not int or not 8 <= bits <= MAX_BITS:
        raise MalformedCertificate(f"evidence.pld_profile.bits must be an integer in [8, {MAX_BITS}]")
    if not (Fraction(1, 2**40) <= h <= 2**20 and 0 <= tau < 1):
        raise MalformedCertificate("evidence.pld_profile: need 2^-40 <= h <= 2^20 and 0 <= tau < 1")
    if (not isinstance(knots, list) or not knots or any(type(i) is not int for i in knots)
            or knots[0] != 0 or any(not a < b for a, b in zip(knots, knots[1:])) or knots[-1] > MAX_GRID // 2):
        raise MalformedCertificate("evidence.pld_profile.knots must be increasing integers from 0 "
                                   f"to at most {MAX_GRID // 2}")
    return h, bits, tau, tuple(knots)


def split(mech: Any) -> tuple[Any, int]:
    """(M, n) of ``compose(M, k=n)`` (nested compositions multiply) or (M, 1);
    MalformedCertificate unless M has a closed-form profile in the checker's table."""
    count = 1
    while getattr(mech, "name", None) == "compose":
        count *= int(mech.k)
        mech = mech.mechanism
    if not getattr(mech, "has_closed_form", True) or not 1 <= count <= MAX_COUNT:
        raise MalformedCertificate("evidence.pld_profile certifies compose(M, k=n) for a mechanism M with a "
                                   "closed-form profile in the checker's table")
    return mech, count


def profile_samples(mech: Any, h: Fraction, knots: tuple[int, ...]) -> list[arb]:
    """D_j >= δ_M(i_j h): the table's upper ends, capped by 1 and by D_{j−1} (δ does not increase)."""
    out: list[arb] = []
    for j, i in enumerate(knots):
        if not j % 256:
            check_budget("evaluating the privacy profile at the knots", j, len(knots))
        v = upper_bound(mech.delta_ball(to_ball(i * h)))
        if not v.is_finite():
            raise InputError(f"the profile is not finite at eps = {i * h}")
        v = v if v < 1 else arb(1)
        v = v if v > 0 else arb(0)
        if out and v > out[-1]:
            v = out[-1]
        out.append(v)
    return out


def one_step(mech: Any, h: Fraction, bits: int, knots: tuple[int, ...]) -> tuple[int, list[int], int] | str:
    """(offset, fixed-point P-masses on (offset + i)h, mass at +∞), rounded up, of the
    symmetric profile pair through the knots — or the reason it is not proved."""
    D = profile_samples(mech, h, knots)
    g = [(i * to_ball(h)).exp() for i in knots]
    slopes = [(D[j + 1] - D[j]) / (g[j + 1] - g[j]) for j in range(len(knots) - 1)] + [arb(0)]
    if len(knots) > 1 and not D[0] - 2 * slopes[0] < 1:
        return "the profile pair's mass at 0 is not proved >= 0 (first slope too steep)"
    top, L = D[-1], knots[-1]
    scale = arb(2) ** bits
    coeffs = [0] * (2 * L + 1)  # index i + L holds loss i·h
    total = top
    for j in range(1, len(knots)):
        d = slopes[j] - slopes[j - 1]
        if not d >= 0:
            return f"the interpolation is not proved convex at knot {knots[j]} (eps = {knots[j] * h})"
        m = g[j] * d
        total += m + d
        coeffs[L + knots[j]] = fixed_point_units(m, scale, True)
        coeffs[L - knots[j]] = fixed_point_units(d, scale, True)
    zero = 1 - total
    if zero < 0:
        return "the profile pair's mass at 0 is not proved >= 0"
    coeffs[L] = fixed_point_units(zero, scale, True)
    return -L, coeffs, fixed_point_units(top, scale, True)


_CACHE: dict[tuple, tuple[int, tuple[int, ...], int] | str] = {}


def upper_pld(spec: str, mech: Any, ev: Mapping[str, Any], prec: int) -> tuple[int, tuple[int, ...], int] | str:
    """The composed upper PLD (offset, fixed-point masses, mass at +∞) of ``mech``
    (whose spec string is ``spec``) from ``evidence.pld_profile``, or the step that
    is not proved (str).  Cached: the writer may check a few roundings of one claim."""
    h, bits, tau, knots = parse_evidence(ev)
    key = (spec, h, bits, tau, knots, prec)
    if key not in _CACHE:
        base, count = split(mech)
        with working_precision(prec):
            step = one_step(base, h, bits, knots)
            if isinstance(step, str):
                _CACHE[key] = step
            else:
                offset, cs, inf = compose(step, count, bits, int(tau * (1 << bits)))
                _CACHE[key] = (offset, tuple(cs), inf)
        while len(_CACHE) > 4:
            _CACHE.pop(next(iter(_CACHE)))
    return _CACHE[key]


def delta_upper(spec: str, mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb | str:
    """A certified upper bound on δ_M(ε) re-derived from ``evidence.pld_profile``, or the
    step that is not proved (str)."""
    pld = upper_pld(spec, mech, ev, prec)
    if isinstance(pld, str):
        return pld
    h, bits = parse_evidence(ev)[:2]
    with working_precision(prec):
        return upper_bound(f_eps((pld[0], list(pld[1]), pld[2]), h, bits, eps))


# ---------------------------------------------------------------------------
# heterogeneous compositions: compose_all(M1, ..., Mn) with evidence pld_items
# ---------------------------------------------------------------------------

ITEMS_FIELDS = {"h", "bits", "tau", "z", "knots"}


def parse_items_evidence(ev: Any, n: int) -> tuple[Fraction, int, Fraction, float,
                                                   tuple[tuple[int, ...] | str | None, ...]]:
    """(h, bits, τ, z, per item: knots, None or "atoms") of ``evidence.pld_items`` for n items."""
    ev = _fields(ev, "evidence.pld_items", ITEMS_FIELDS, set())
    knots = ev["knots"]
    if not isinstance(knots, list) or len(knots) != n:
        raise MalformedCertificate(f"evidence.pld_items.knots must list {n} entries (knots, or null for a "
                                   "(subsampled) Gaussian), one per mechanism of compose_all")
    h, bits, tau, z = parse_pld_evidence({"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"], "z": ev["z"]})
    out: list[tuple[int, ...] | str | None] = []
    for k in knots:
        out.append(k if k is None or k == "atoms" else parse_evidence({"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"],
                                                          "knots": k})[3])
    return h, bits, tau, z, tuple(out)


def atoms_one_step(mech: Any, h: Fraction, bits: int) -> tuple[int, list[int], int] | str:
    """The exact pair of (ε0, δ0)-DP (Kairouz, Oh & Viswanath 2015; Liu et al. 2022 Thm 3.1):
    P-mass δ0 at loss +∞, (1 − δ0)e^{ε0}/(1 + e^{ε0}) at +ε0 and (1 − δ0)/(1 + e^{ε0}) at
    −ε0 — the same for both orders of the pair.  Losses are moved UP to the grid and
    masses rounded up (F_ε increases with both)."""
    if getattr(mech, "name", None) not in ("pure_dp", "approx_dp"):
        return "an item given as atoms must be pure_dp(...) or approx_dp(...)"
    e0, d0 = Fraction(mech.eps), Fraction(mech.delta0)
    up, down = math.ceil(e0 / h), math.ceil(-e0 / h)
    scale = arb(2) ** bits
    big = to_ball(e0).exp()
    coeffs = [0] * (up - down + 1)
    for index, mass in ((0, (1 - to_ball(d0)) / (1 + big)), (up - down, (1 - to_ball(d0)) * big / (1 + big))):
        coeffs[index] += fixed_point_units(mass, scale, True)
    inf = fixed_point_units(to_ball(d0), scale, True)
    return down, coeffs, inf


def items_delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb | str:
    """A certified upper bound on δ(ε) of ``compose_all(M1, ..., Mn)`` from
    ``evidence.pld_items``, or the step that is not proved (str).

    For each neighbouring relation r (remove, add) the composition's pair is the product
    of the items' r-pairs, so F_ε of the product of dominating one-step PLDs bounds its
    δ (composition preserves dominance; Zhu, Dong & Wang 2022 Thm 6 and Lemma 9):
    an item given as (subsampled) Gaussians (knots null) contributes its upper
    Gaussian-mixture PLD of relation r (:mod:`check_pld`); a ``pure_dp`` / ``approx_dp``
    item ("atoms") its exact pair (:func:`atoms_one_step`); any other item the symmetric
    pair through its profile knots (this module).  The last two dominate both relations.
    Every product is rounded up and truncated as in :func:`check_pld.compose`."""
    items = mech.children()
    h, bits, tau, z, knots = parse_items_evidence(ev, len(items))
    tau_units = int(tau * (1 << bits))
    per_relation: dict[int, tuple[int, list[int], int] | None] = {1: None, -1: None}
    with working_precision(prec):
        for j, (item, kn) in enumerate(zip(items, knots)):
            check_budget("re-deriving the PLD of each composed mechanism", j, len(items))
            if kn is None:
                sigma, q, count = subsampled_gaussians(item)
                steps = {}
                for sign in (1, -1):
                    try:
                        steps[sign] = compose(gaussian_one_step(_Pair(sigma, q, sign), h, bits, z), count, bits,
                                              tau_units)
                    except _Undecided:
                        return "a grid point's loss could not be placed at this precision"
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
        best = arb(0)
        for pld in per_relation.values():
            assert pld is not None
            d = upper_bound(f_eps(pld, h, bits, eps))
            best = d if d > best else best
        return best
