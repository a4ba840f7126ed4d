"""Monotonicity of σ = f(eps, delta) on ε > 0, 0 < δ < 1, proved by a sign calculus (no sympy).

The noise refinement's cell proof (Liu et al. 2022 App. C, §5.2;
:mod:`certdp.verifier.check_optimum`) bounds F near x_max, where δ0 → 0 and f cannot be
enclosed, by f(x_max, δ0(a)): that needs f non-increasing in ε and in δ on the domain
D = {ε > 0, 0 < δ < 1}.  This module is the one owner of that verdict: the search
(:mod:`certdp.analyses.noise_refinement`, through :mod:`certdp.expr.monotone`) and both
kernels call :func:`monotonicity_assumption` on the formula's text, so the writer and the
checker agree on which hypothesis a certificate must state.

Each node of the formula's tree (:mod:`certdp.verifier.formula`) gets a range over D, an
interval with exact rational (or infinite) ends, each open or closed, and a direction in
each variable (0: constant, +1: non-decreasing, −1: non-increasing, None: unknown), by
these rules, sound on D:

* eps: (0, ∞), +1 in ε; delta: (0, 1), +1 in δ; numbers, pi, E: points (pi and E as
  rational enclosures), 0 in both;
* −a flips the direction; a + b keeps a common direction (0 is neutral);
* a·b where both factors have a known sign: with a' = ±a, b' = ±b non-negative, a'b' is
  monotone in a common direction of a' and b' (products of non-negative non-decreasing
  functions are non-decreasing), then the signs are put back;
* 1/b needs b > 0 or b < 0 on D and flips the direction; a/b = a·(1/b);
* log (argument > 0), exp, sqrt (argument ≥ 0) and x^r for rational r > 0 with x > 0 are
  increasing; x^r with r < 0 is 1/x^(−r); integer powers of a signed base by the sign rules.

Anything else (a factor of unknown sign, a log not proved defined) is "not proved", and
the hypothesis travels with the claim as ``claim.assumptions``.  A function defined and
monotone in each variable on D by these rules is also continuous on D (every node is).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from flint import arb

from certdp.verifier.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.formula import Node, Op, Unsupported, parse
from certdp.verifier.schema import MalformedCertificate

Dir = int | None


class _NotProved(Exception):
    pass


@dataclass(frozen=True)
class Rng:
    """Every value v of the node on D: lo < v (lo_open) or lo <= v; the same for hi.
    None ends are −∞ (lo) and +∞ (hi)."""

    lo: Fraction | None
    hi: Fraction | None
    lo_open: bool = False
    hi_open: bool = False

    def pos(self) -> bool:
        return self.lo is not None and (self.lo > 0 or (self.lo == 0 and self.lo_open))

    def neg(self) -> bool:
        return self.hi is not None and (self.hi < 0 or (self.hi == 0 and self.hi_open))

    def sign(self) -> int | None:
        if self.lo is not None and self.lo >= 0:
            return 1
        if self.hi is not None and self.hi <= 0:
            return -1
        return None

    def negate(self) -> "Rng":
        return Rng(None if self.hi is None else -self.hi, None if self.lo is None else -self.lo, self.hi_open, self.lo_open)


@dataclass(frozen=True)
class Info:
    rng: Rng
    d_eps: Dir
    d_delta: Dir


def _flip(d: Dir) -> Dir:
    return None if d is None else -d


def _both(a: Dir, b: Dir) -> Dir:
    """Direction of a sum (or of a product of non-negative factors)."""
    if a == 0:
        return b
    if b == 0 or a == b:
        return a
    return None


def _rounded(q: Fraction, fn: Callable[[arb], arb], up: bool) -> Fraction:
    with working_precision(96):
        b = fn(to_ball(q))
        if not b.is_finite():
            raise _NotProved
        return dyadic_to_fraction(upper_bound(b) if up else lower_bound(b))


def _map_up(r: Rng, fn: Callable[[arb], arb], at_lo: Fraction | None, at_hi: Fraction | None) -> Rng:
    """The range of an increasing continuous function: at_lo / at_hi are its limits at
    −∞ (or 0 for log/sqrt/powers, whichever end the domain starts at) and +∞."""
    lo = at_lo if r.lo is None or r.lo == 0 else _rounded(r.lo, fn, False)
    hi = at_hi if r.hi is None else (at_lo if r.hi == 0 else _rounded(r.hi, fn, True))
    exact_lo, exact_hi = r.lo is None or r.lo == 0, r.hi is not None and r.hi == 0
    return Rng(lo, hi, r.lo_open if exact_lo else False, r.hi_open if exact_hi else False)


def _mul_nonneg(a: Rng, b: Rng) -> Rng:
    assert a.lo is not None and b.lo is not None
    lo = a.lo * b.lo
    lo_open = (a.lo_open and b.lo > 0) or (b.lo_open and a.lo > 0) or (a.lo_open and b.lo_open)
    if a.hi == 0 or b.hi == 0:
        return Rng(Fraction(0), Fraction(0))
    hi = None if a.hi is None or b.hi is None else a.hi * b.hi
    hi_open = hi is not None and ((a.hi_open and b.hi > 0) or (b.hi_open and a.hi > 0))  # type: ignore[operator]
    return Rng(lo, hi, lo_open, hi_open)


def _mul(a: Info, b: Info) -> Info:
    sa, sb = a.rng.sign(), b.rng.sign()
    if sa is None or sb is None:
        raise _NotProved
    ra, rb = a.rng if sa > 0 else a.rng.negate(), b.rng if sb > 0 else b.rng.negate()
    r = _mul_nonneg(ra, rb)
    s = sa * sb

    def d(x: Dir, y: Dir) -> Dir:
        out = _both(x if sa > 0 else _flip(x), y if sb > 0 else _flip(y))
        return out if s > 0 else _flip(out)

    return Info(r if s > 0 else r.negate(), d(a.d_eps, b.d_eps), d(a.d_delta, b.d_delta))


def _recip(a: Info) -> Info:
    r = a.rng
    if not (r.pos() or r.neg()):
        raise _NotProved
    p = r if r.pos() else r.negate()
    assert p.lo is not None
    lo = Fraction(0) if p.hi is None else 1 / p.hi
    hi = None if p.lo == 0 else 1 / p.lo
    out = Rng(lo, hi, p.hi is None or p.hi_open, hi is not None and p.lo_open)
    return Info(out if r.pos() else out.negate(), _flip(a.d_eps), _flip(a.d_delta))


def _pow(a: Info, q: Fraction) -> Info:
    if q == 0:
        return Info(Rng(Fraction(1), Fraction(1)), 0, 0)
    if q < 0:
        return _recip(_pow(a, -q))
    if q.denominator == 1:
        k, s = q.numerator, a.rng.sign()
        if s is None and k % 2 == 0:
            raise _NotProved
        if s is None or s > 0:  # odd powers increase on the whole line
            r = a.rng
            lo = None if r.lo is None else r.lo ** k
            hi = None if r.hi is None else r.hi ** k
            return Info(Rng(lo, hi, r.lo_open, r.hi_open), a.d_eps, a.d_delta)
        inner = _pow(Info(a.rng.negate(), _flip(a.d_eps), _flip(a.d_delta)), q)  # (−a)^k
        return inner if k % 2 == 0 else Info(inner.rng.negate(), _flip(inner.d_eps), _flip(inner.d_delta))
    if not a.rng.pos():
        raise _NotProved
    rng = _map_up(a.rng, lambda x: (x.log() * to_ball(q)).exp(), Fraction(0), None)
    return Info(rng, a.d_eps, a.d_delta)


_PI = (Fraction(314159265, 100000000), Fraction(314159266, 100000000))
_E = (Fraction(271828182, 100000000), Fraction(271828183, 100000000))


def _info(n: Node) -> Info:
    op = n.op
    if op is Op.NUM:
        assert n.q is not None
        return Info(Rng(n.q, n.q), 0, 0)
    if op is Op.VAR:
        return Info(Rng(Fraction(0), None, True), 1, 0) if n.name == "eps" else \
            Info(Rng(Fraction(0), Fraction(1), True, True), 0, 1)
    if op in (Op.PI, Op.E):
        lo, hi = _PI if op is Op.PI else _E
        return Info(Rng(lo, hi), 0, 0)
    a = _info(n.kids[0])
    if op is Op.NEG:
        return Info(a.rng.negate(), _flip(a.d_eps), _flip(a.d_delta))
    if op in (Op.ADD, Op.SUB):
        b = _info(n.kids[1])
        if op is Op.SUB:
            b = Info(b.rng.negate(), _flip(b.d_eps), _flip(b.d_delta))
        ra, rb = a.rng, b.rng
        lo = None if ra.lo is None or rb.lo is None else ra.lo + rb.lo
        hi = None if ra.hi is None or rb.hi is None else ra.hi + rb.hi
        return Info(Rng(lo, hi, ra.lo_open or rb.lo_open, ra.hi_open or rb.hi_open),
                    _both(a.d_eps, b.d_eps), _both(a.d_delta, b.d_delta))
    if op is Op.MUL:
        return _mul(a, _info(n.kids[1]))
    if op is Op.DIV:
        return _mul(a, _recip(_info(n.kids[1])))
    if op is Op.POW:
        assert n.q is not None
        return _pow(a, n.q)
    if op is Op.LOG:
        if not a.rng.pos():
            raise _NotProved
        r = a.rng
        lo = None if r.lo == 0 else (Fraction(0) if r.lo == 1 else _rounded(r.lo, arb.log, False))  # type: ignore[arg-type]
        hi = None if r.hi is None else (Fraction(0) if r.hi == 1 else _rounded(r.hi, arb.log, True))
        return Info(Rng(lo, hi, r.lo == 1 and r.lo_open, r.hi == 1 and r.hi_open), a.d_eps, a.d_delta)
    if op is Op.EXP:
        r = a.rng
        lo = Fraction(0) if r.lo is None else _rounded(r.lo, arb.exp, False)
        hi = None if r.hi is None else _rounded(r.hi, arb.exp, True)
        return Info(Rng(lo, hi, r.lo is None or lo == 0), a.d_eps, a.d_delta)
    assert op is Op.SQRT
    if a.rng.sign() != 1:
        raise _NotProved
    return Info(_map_up(a.rng, arb.sqrt, Fraction(0), None), a.d_eps, a.d_delta)


def node_info(n: Node) -> Info | None:
    """The range and directions the calculus derives for the node ``n`` (None: not proved).
    The Coq kernel replays the derivation node by node (:mod:`certdp.verifier.coq.mono`)."""
    try:
        return _info(n)
    except _NotProved:
        return None


def reciprocal(i: Info) -> Info | None:
    """The rule for 1/b applied to b's ``i`` (the divisor of a quotient, or a negative power)."""
    try:
        return _recip(i)
    except _NotProved:
        return None


def proves_non_increasing(f: Node) -> bool:
    """Does the calculus prove f non-increasing in ε and in δ (and defined) on D?"""
    try:
        i = _info(f)
    except _NotProved:
        return False
    return i.d_eps in (0, -1) and i.d_delta in (0, -1)


def assumption_text(text: str) -> str:
    return (f"σ = {text} is non-increasing in ε and in δ (bounds the cell at ε0_max; "
            "the monotonicity calculus could not prove it)")


def monotonicity_assumption(text: str) -> tuple[str, ...]:
    """The hypothesis a noise refinement of the formula ``text`` rests on: none when the
    calculus proves it, else its statement (also for a formula outside the grammar)."""
    try:
        f = parse(text)
    except (Unsupported, MalformedCertificate):
        return (assumption_text(text),)
    return () if proves_non_increasing(f) else (assumption_text(text),)
