"""``gdp_except`` certificates under the second kernel (``--kernel mpmath``).

The argument of :mod:`certdp.verifier.check_fdp` (Gomez et al. 2025 eq. 21 with the
residual inside) on the composed upper PLD re-derived in intervals
(:mod:`certdp.verifier.check_pld_iv`; only the integer convolution is shared), without
an interval Φ⁻¹: a block of segments [k1, k2] needs Φ⁻¹(M_{k1} − η) − Φ⁻¹(S_{k2}) <= μ,
which holds when some rational t has

* Φ(t) <= S_{k2} (so t <= Φ⁻¹(S_{k2})), and
* M_{k1} − η <= Φ(μ + t) (so Φ⁻¹(M_{k1} − η) <= μ + t <= μ + Φ⁻¹(S_{k2})).

A float guess chooses t (Φ⁻¹(S) minus a little); both inequalities are decided in
intervals (Φ from :mod:`certdp.verifier.phi_series`, relatively accurate in the far tails).  A
block that fails is split; a single segment that fails is reported.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist
from typing import Any, Mapping

import mpmath
from mpmath import iv

from certdp.verifier.errors import InputError, PrecisionError, check_budget
from certdp.verifier import iv as kernel
from certdp.verifier.check_fdp import validate
from certdp.verifier.check_pld import _Pair, compose, cut_step, parse_cut, parse_evidence, subsampled_gaussians
from certdp.verifier.check_pld_iv import one_step
from certdp.verifier.facts import known_facts_step

_NORMAL = NormalDist()


def _ncdf(x: Any) -> Any:
    """Φ(x) in intervals to 2^−(prec+32) (:mod:`certdp.verifier.phi_series`)."""
    from certdp.verifier.phi_series import ncdf  # noqa: PLC0415

    return ncdf(x, iv.prec + 32)


#: Bits of Φ (absolute) in the first, cheap try of a block (a float guess of t); a block it
#: leaves unproved is tried again with the Newton guess at the working precision.
QUICK_BITS = 72


def _quick(s: Any, m: Any, mu: Any) -> bool:
    """The block's two inequalities with t from a float Φ⁻¹(s) moved down by 2^−40(1 + |t|)
    and Φ to 2^−QUICK_BITS: True when both hold (proved: intervals throughout); False tells
    nothing (the caller tries the precise guess)."""
    from certdp.verifier.phi_series import ncdf  # noqa: PLC0415

    f = float(s.a)
    if not 1e-300 < f < 1:
        return False
    t0 = _NORMAL.inv_cdf(f)
    t = Fraction(t0 - 2.0 ** -40 * (1 + abs(t0)))
    tb = kernel.point(t)
    return bool(ncdf(tb, QUICK_BITS).b <= s.a and m.b <= ncdf(mu + tb, QUICK_BITS).a)


def _guess(s: Any) -> Fraction | None:
    """A rational a little below Φ⁻¹(s) for the interval s (a guide only: both uses are
    re-checked in intervals): a float start, then Newton steps in mpmath at prec/2 + 40 bits
    (t is then moved down by 2^-(prec/2), clear of the intervals' widths)."""
    lo = s.a
    if not lo > 0 or not s.b < 1:
        return None
    with mpmath.workprec(iv.prec // 2 + 40):
        target = mpmath.mpf(lo._mpi_[0])
        f = float(target)
        t = mpmath.mpf(_NORMAL.inv_cdf(f) if 1e-300 < f < 1 else -math.sqrt(-2 * math.log(max(f, 1e-308))))
        for _ in range(60):
            step = (mpmath.ncdf(t) - target) / mpmath.npdf(t)
            t -= step
            # Newton's next error is about |t|/2·step²: stop once that is below the target (one
            # step from the float start at 128 bits, not a second one to see it converged)
            if step * step * (1 + abs(t)) < mpmath.mpf(2) ** (-(iv.prec // 2) - 24) * (1 + abs(t)):
                break
        t -= mpmath.mpf(2) ** (-(iv.prec // 2)) * (1 + abs(t))  # clear of the intervals' width
        num, den = mpmath.libmp.to_rational(t._mpf_)
    return Fraction(num, den)


def _relation(pld: tuple[int, list[int], int], h: Fraction, bits: int, mu: Fraction, eta: Fraction) -> str | bool:
    """True when δ <= δ_μ + η is proved for this relation, else the failing step."""
    offset, cs, inf = pld
    n = len(cs)
    if n == 0:
        return True if Fraction(inf, 1 << bits) <= eta else "residual: the mass at +infinity exceeds the residual"
    if offset > 0:
        return "the re-derived PLD's support lies above 0 (the segment at eps = 0 is not covered)"
    M = [0] * n
    acc = inf
    for k in range(n - 1, -1, -1):
        M[k] = acc
        acc += cs[k]
    k0 = min(n - 1, -offset)
    eta_units = eta * (1 << bits)
    c = next((k for k in range(k0, n) if M[k] <= eta_units), None)
    if c is None:
        return f"residual: the re-derived upper PLD's mass above its last point exceeds {eta}"
    if c == k0:
        return True
    scale = iv.mpf(2) ** (-bits)
    S: dict[int, Any] = {}
    e_up = iv.exp(kernel.point(h))
    e_j = iv.exp(-(kernel.point(Fraction(offset + n - 1)) * kernel.point(h)))
    run = iv.mpf(0)
    for j in range(n - 1, k0, -1):
        if not j % 4096:
            check_budget("checking the mu-GDP-except-eta segments in intervals", n - j, n)
        run += cs[j] * e_j
        if j - 1 < c:
            S[j - 1] = run * scale
        e_j *= e_up
    mu_i = kernel.point(mu)
    stack = [(k0, c - 1)]
    while stack:
        k1, k2 = stack.pop()
        m, s = kernel.point(Fraction(M[k1]) - eta_units) * scale, S[k2]
        if m.b < 1 and _quick(s, m, mu_i):
            continue
        # a block the quick try leaves is split (splitting proves nothing by itself); only a
        # single segment gets the precise guess before it is reported
        t = _guess(s) if m.b < 1 and k1 == k2 else None
        if t is not None:
            tb = kernel.point(t)
            if _ncdf(tb).b <= s.a and m.b <= _ncdf(mu_i + tb).a:
                continue
        if k1 == k2:
            return (f"segment {k1} (eps in [{(offset + k1) * h}, {(offset + k1 + 1) * h}]): "
                    f"Phi^-1(M - eta) - Phi^-1(S) <= mu = {mu} is not proved in intervals (Gomez et al. 2025 eq. 21)")
        mid = (k1 + k2) // 2
        stack += [(k1, mid), (mid + 1, k2)]
    return True


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, first failing step) for a ``gdp_except`` certificate in mpmath intervals."""
    mech, mu, eta = validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    h, bits, tau, z = parse_evidence(doc["evidence"]["pld"])
    cut = parse_cut(doc["evidence"]["pld"])
    sigma, q, count = subsampled_gaussians(mech)
    tau_units = int(tau * (1 << bits))
    failed = "undecided"
    for prec in (doc["precision"], 2 * doc["precision"]):
        old = iv.prec
        iv.prec = prec
        try:
            for i, (name, sign) in enumerate((("remove", 1), ("add", -1))):
                pld = one_step(_Pair(sigma, q, sign), h, bits, z)
                pld = compose(pld if cut is None else cut_step(pld, cut[i]), count, bits, tau_units)
                out = _relation(pld, h, bits, mu, eta)
                if out is not True:
                    failed = f"{name} relation: {out}"
                    break
            else:
                return True, None
        except (PrecisionError, InputError) as err:
            failed = f"re-deriving the PLD in intervals failed: {err}"
        finally:
            iv.prec = old
    return False, failed
