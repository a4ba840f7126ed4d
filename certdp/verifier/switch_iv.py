"""Switch-point ``value`` certificates under the second kernel (``--kernel mpmath``).

The proof of :mod:`certdp.verifier.switch` (Liu et al. 2022 App. B) in mpmath intervals:
every cell of [0, r0] has S < 0 or q < q(r0), every cell of [r1, T] has S > 0 or
q < q(r0), 1/(1 + e^T) < q(r0), and the claimed quantity over [r0, r1] lies in
[lo, hi].  Cells are bisected at exact dyadic midpoints (rationals), at most
:data:`certdp.verifier.switch.MAX_CELLS`; nothing is computed with python-flint.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from mpmath import iv, libmp

from certdp.numerics import iv as kernel
from certdp.verifier.facts import assumptions_of
from certdp.verifier.switch import MAX_CELLS, bracket_of, naive_mechanism


class _Undecided(Exception):
    pass


def _finite(x: Any) -> bool:
    lo, hi = x._mpi_
    return lo not in (libmp.fninf, libmp.fnan) and hi not in (libmp.finf, libmp.fnan)


def _hull(a: Any, b: Any) -> Any:
    return kernel.hull(a, b)


def _functions(mech: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """(δ̂, δ̂') over an interval: sgd B exp(−(cx)²), −2c²x δ̂; icea K/x, −K/x² (c = σ/A, K = n e^{−m/10})."""
    p = mech.params
    if mech.name == "sgd":
        def naive(x: Any) -> Any:
            c = kernel.point(p["sigma"] / p["A"])
            return kernel.point(p["B"]) * iv.exp(-((c * x) ** 2))

        def dnaive(x: Any) -> Any:
            c = kernel.point(p["sigma"] / p["A"])
            return -2 * c * c * x * naive(x)
        return naive, dnaive

    def k() -> Any:
        return kernel.point(p["n"]) * iv.exp(-kernel.point(p["m"]) / 10)

    def naive_icea(x: Any) -> Any:
        if not x.a > 0:
            return iv.mpf([0, "inf"])  # the pole at 0: no information
        return k() / x

    def dnaive_icea(x: Any) -> Any:
        if not x.a > 0:
            return iv.mpf(["-inf", "inf"])
        return -k() / (x * x)
    return naive_icea, dnaive_icea


def check_switch_iv(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a switch-point value certificate in mpmath intervals, or None."""
    mech = naive_mechanism(doc)
    if assumptions_of(doc):
        return "claim.assumptions lists hypotheses the mechanism does not have"
    r0, r1, tail = bracket_of(doc["evidence"], "evidence", tail=True)
    assert tail is not None
    naive, dnaive = _functions(mech)

    def dhat(x: Any) -> Any:
        s = naive(x)
        if not _finite(s):
            return iv.mpf([0, 1])
        if s.a >= 1:
            return iv.mpf(1)
        return s if s.b < 1 else iv.mpf([s.a, 1])

    def q(x: Any) -> Any:
        return (1 - dhat(x)) / (1 + iv.exp(x))

    def big_s(x: Any) -> Any:
        return dnaive(x) * (1 + iv.exp(x)) + (1 - naive(x)) * iv.exp(x)

    def cells(a: Fraction, b: Fraction, ok: Callable[[Any, Fraction, Fraction], bool]) -> bool:
        stack, n = [(a, b)], 0
        while stack:
            u, v = stack.pop()
            n += 1
            if n > MAX_CELLS:
                return False
            if ok(_hull(kernel.point(u), kernel.point(v)), u, v):
                continue
            if v - u < Fraction(1, 2 ** (iv.prec - 12)) * max(1, abs(u)):
                return False
            m = (u + v) / 2
            stack += [(u, m), (m, v)]
        return True

    def proof() -> str | None:
        q0 = q(kernel.point(r0))
        q_star = q0.a
        tail_q = 1 / (1 + iv.exp(kernel.point(tail)))
        if not tail_q.b < q_star:
            if tail_q.a >= q0.b:
                return f"1/(1 + e^T) < q(r0) does not hold at T = {tail}: the tail is not excluded"
            raise _Undecided

        def below(c: Any, u: Fraction, v: Fraction) -> bool:
            if _finite(naive(c)):
                return bool(q(c).b < q_star)
            bound = (1 - dhat(kernel.point(v))) / (1 + iv.exp(kernel.point(u)))
            return bool(bound.b < q_star)

        def left(c: Any, u: Fraction, v: Fraction) -> bool:
            s = big_s(c)
            return bool((_finite(s) and s.b < 0) or below(c, u, v))

        def right(c: Any, u: Fraction, v: Fraction) -> bool:
            s = big_s(c)
            return bool((_finite(s) and s.a > 0) or below(c, u, v))

        if r0 > 0 and not cells(Fraction(0), r0, left):
            return "a cell of [0, r0] has neither S < 0 nor q < q(r0): a maximiser may lie left of the bracket"
        if r1 < tail and not cells(r1, tail, right):
            return "a cell of [r1, T] has neither S > 0 nor q < q(r0): a maximiser may lie right of the bracket"
        hull = _hull(kernel.point(r0), kernel.point(r1))
        if not _finite(naive(hull)):
            raise _Undecided
        value = hull if quantity == "switch_eps" else dhat(hull)
        lo_i, hi_i = kernel.point(lo), kernel.point(hi)
        if value.a >= lo_i.b and value.b <= hi_i.a:
            return None
        if value.b < lo_i.a or value.a > hi_i.b:
            return f"{quantity} on the bracket is not inside [lo, hi]"
        raise _Undecided

    old = iv.prec
    try:
        for p in (prec, 2 * prec, 4 * prec):
            iv.prec = p
            try:
                return proof()
            except _Undecided:
                continue
    finally:
        iv.prec = old
    return "undecided under the mpmath kernel"
