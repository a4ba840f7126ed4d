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

from certdp.verifier import iv as kernel
from certdp.verifier.facts import assumptions_of
from certdp.verifier.switch import MAX_CELLS, MAX_TAIL, bracket_of, naive_mechanism


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
    consts: dict[int, tuple[Any, Any]] = {}  # per precision: (c, B) of sgd, (K, 0) of icea

    def const() -> tuple[Any, Any]:
        if iv.prec not in consts:
            consts[iv.prec] = ((kernel.point(p["sigma"] / p["A"]), kernel.point(p["B"])) if mech.name == "sgd"
                               else (kernel.point(p["n"]) * iv.exp(-kernel.point(p["m"]) / 10), None))
        return consts[iv.prec]

    if mech.name == "sgd":
        def naive(x: Any) -> Any:
            c, b = const()
            return b * iv.exp(-((c * x) ** 2))

        def dnaive(x: Any) -> Any:
            c = const()[0]
            return -2 * c * c * x * naive(x)
        return naive, dnaive

    def k() -> Any:
        return const()[0]

    def naive_icea(x: Any) -> Any:
        if not x.a > 0:
            return iv.mpf([0, "inf"])  # the pole at 0: no information
        return k() / x

    def dnaive_icea(x: Any) -> Any:
        if not x.a > 0:
            return iv.mpf(["-inf", "inf"])
        return -k() / (x * x)
    return naive_icea, dnaive_icea


def _dhat(naive: Callable[[Any], Any], x: Any) -> Any:
    """min(1, δ̂) over x; [0, 1] where δ̂ cannot be enclosed."""
    s = naive(x)
    if not _finite(s):
        return iv.mpf([0, 1])
    if s.a >= 1:
        return iv.mpf(1)
    return s if s.b < 1 else iv.mpf([s.a, 1])


def _q(naive: Callable[[Any], Any], x: Any) -> Any:
    return (1 - _dhat(naive, x)) / (1 + iv.exp(x))


def _cells(a: Fraction, b: Fraction, ok: Callable[[Any, Fraction, Fraction], bool]) -> bool:
    """ok on every cell of a partition of [a, b] bisected at exact midpoints (False: not proved)."""
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


def switch_proof_iv(mech: Any, r0: Fraction, r1: Fraction, tail: Fraction) -> str | None:
    """At the current iv precision: None when every maximiser of q lies in [r0, r1], else the
    failing step (_Undecided: retry finer)."""
    naive, dnaive = _functions(mech)

    def big_s(x: Any) -> Any:
        return dnaive(x) * (1 + iv.exp(x)) + (1 - naive(x)) * iv.exp(x)

    q0 = _q(naive, kernel.point(r0))
    q_star = q0.a
    tail_q = 1 / (1 + iv.exp(kernel.point(tail)))
    if not tail_q.b < q_star:
        if tail_q.a >= q0.b:
            return f"1/(1 + e^T) < q(r0) does not hold at T = {tail}: the tail is not excluded"
        raise _Undecided

    def below(c: Any, u: Fraction, v: Fraction) -> bool:
        if _finite(naive(c)):
            return bool(_q(naive, c).b < q_star)
        bound = (1 - _dhat(naive, kernel.point(v))) / (1 + iv.exp(kernel.point(u)))
        return bool(bound.b < q_star)

    def left(c: Any, u: Fraction, v: Fraction) -> bool:
        s = big_s(c)
        return bool((_finite(s) and s.b < 0) or below(c, u, v))

    def right(c: Any, u: Fraction, v: Fraction) -> bool:
        s = big_s(c)
        return bool((_finite(s) and s.a > 0) or below(c, u, v))

    if r0 > 0 and not _cells(Fraction(0), r0, left):
        return "a cell of [0, r0] has neither S < 0 nor q < q(r0): a maximiser may lie left of the bracket"
    if r1 < tail and not _cells(r1, tail, right):
        return "a cell of [r1, T] has neither S > 0 nor q < q(r0): a maximiser may lie right of the bracket"
    if not _finite(naive(_hull(kernel.point(r0), kernel.point(r1)))):
        raise _Undecided
    return None


def _run(proof: Callable[[], str | None], prec: int) -> str | None:
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


def check_switch_iv(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a switch-point value certificate in mpmath intervals, or None."""
    mech = naive_mechanism(doc)
    if assumptions_of(doc):
        return "claim.assumptions lists hypotheses the mechanism does not have"
    r0, r1, tail = bracket_of(doc["evidence"], "evidence", tail=True)
    assert tail is not None
    naive, _ = _functions(mech)

    def proof() -> str | None:
        step = switch_proof_iv(mech, r0, r1, tail)
        if step is not None:
            return step
        hull = _hull(kernel.point(r0), kernel.point(r1))
        value = hull if quantity == "switch_eps" else _dhat(naive, hull)
        lo_i, hi_i = kernel.point(lo), kernel.point(hi)
        if value.a >= lo_i.b and value.b <= hi_i.a:
            return None
        if value.b < lo_i.a or value.a > hi_i.b:
            return f"{quantity} on the bracket is not inside [lo, hi]"
        raise _Undecided

    return _run(proof, prec)


class RefinedIV:
    """The refined profile of sgd/icea in intervals (:class:`certdp.verifier.switch.Refined`
    in mpmath): bounds from the switch point proved by :meth:`prove`."""

    def __init__(self, mech: Any, r0: Fraction, r1: Fraction, tail: Fraction) -> None:
        from certdp.verifier.switch import Refined  # noqa: PLC0415  (what is known: rationals only)

        self.facts = Refined(mech, r0, r1, tail)
        self.mech, self.r0, self.r1, self.tail = mech, r0, r1, tail
        self.naive, self.dnaive = _functions(mech)
        self.decreasing_to: Fraction | None = None
        self._consts: dict[int, tuple[Any, Any, Any]] = {}

    def _at_prec(self) -> tuple[Any, Any, Any]:
        """q(r0), the upper end of q over [r0, r1] and e^{x_t} at the current precision: the
        same on every cell, made once per precision."""
        c = self._consts.get(iv.prec)
        if c is None:
            naive = self.naive
            q_hull = _q(naive, _hull(kernel.point(self.r0), kernel.point(self.r1))).b if self.facts.proved else None
            xt = self.decreasing_to
            c = self._consts[iv.prec] = (_q(naive, kernel.point(self.r0)), q_hull,
                                         None if xt is None else iv.exp(kernel.point(xt)))
        return c

    @property
    def assumptions(self) -> tuple[str, ...]:
        return ()

    @property
    def profile_kind(self) -> Any:
        return self.facts.profile_kind

    def prove(self, prec: int, reach: Fraction) -> str | None:
        step = _run(lambda: switch_proof_iv(self.mech, self.r0, self.r1, self.tail), prec)
        self.facts.proved = step is None
        x = min(max(reach, self.r1) + 64, Fraction(MAX_TAIL))

        def positive(c: Any, u: Fraction, v: Fraction) -> bool:
            s = self.dnaive(c) * (1 + iv.exp(c)) + (1 - self.naive(c)) * iv.exp(c)
            return bool(_finite(s) and s.a > 0)

        if step is None and _run(lambda: None if _cells(self.r1, x, positive) else "not proved", prec) is None:
            self.decreasing_to = x
        self._consts.clear()  # made from what prove() found
        return step

    def prof(self, e: Fraction) -> Any:
        """[lower, upper] of the refined δ at ε = e (the bounds of :class:`switch.Refined`)."""
        x, naive = kernel.point(e), self.naive
        q_r0, q_hull, exp_xt = self._at_prec()
        exp_x = iv.exp(x)
        up = _dhat(naive, x).b
        if e <= self.r0:
            g = (1 - (1 + exp_x) * q_r0).b
            up = g if g < up else up
        low = iv.mpf(0).a
        if self.facts.proved:
            cand = (1 - (1 + exp_x) * q_hull).a
            low = cand if cand > low else low
            xt = self.decreasing_to
            if xt is not None and self.r1 <= e <= xt:
                right = _dhat(naive, x).a
                beyond = (1 - (1 + exp_x) / (1 + exp_xt)).a
                right = right if right < beyond else beyond
                low = right if right > low else low
        return _hull(low, up)

    def functions(self) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        """(P, P') for the second-order cell test, as :meth:`switch.Refined.functions`."""
        naive, dnaive, r0 = self.naive, self.dnaive, self.r0

        def p(x: Any) -> Any:
            if x.b <= kernel.point(r0).a:
                return 1 - (1 + iv.exp(x)) * _q(naive, kernel.point(r0))
            return _dhat(naive, x)

        def dp(cell: Any) -> Any:
            if cell.b <= kernel.point(r0).a:
                return -iv.exp(cell) * _q(naive, kernel.point(r0))
            if not cell.a >= kernel.point(r0).b:
                return iv.mpf(["-inf", "inf"])
            s, d = naive(cell), dnaive(cell)
            if not (_finite(s) and _finite(d)):
                return iv.mpf(["-inf", "inf"])
            return d if s.b < 1 else iv.mpf(0) if s.a > 1 else _hull(d, iv.mpf(0))

        return p, dp
