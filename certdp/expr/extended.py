"""Extended-interval arithmetic with forward-mode derivatives, for proofs of
monotonicity and range on cells ``[a, b]`` and on tails ``[M, ∞)``.

An interval is a pair ``(lo, hi)`` of exact ``arb`` numbers, possibly
``-inf``/``+inf``, meaning the closed set ``{lo <= t <= hi}``; every
operation rounds its endpoints outward (``arb.lower()`` / ``arb.upper()`` at
the current precision).  Unlike arb's midpoint-radius balls this represents
half-infinite ranges, so ``δ`` and ``dδ/dε`` can be enclosed on ``[M, ∞)``.
Products use the interval convention ``0 · ∞ = 0`` for exact-zero endpoints.
Anything undefined somewhere on the input (log of a range reaching 0, division
by a range containing 0, an undecided discontinuity) becomes ``UNKNOWN =
(-inf, +inf)``: it can never be used as a proof.

:func:`compile_interval_ad` maps a sympy expression in one variable to
``f(x, rep) -> (value, derivative)``.  Derivatives follow the chain rule;
at kinks of Max/Min/Abs the hull of the one-sided derivatives is returned,
which contains Clarke's generalised gradient, so "derivative enclosure <= 0 on
[a, b]" proves that a continuous such function is non-increasing there
(Lebourg's mean value theorem).  Piecewise conditions are decided on the
interval ``rep`` (``rep = x`` normally; a cell's midpoint when the caller
knows no switch point lies inside the open cell); an undecided condition
gives the hull of the branch values and an UNKNOWN derivative.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import sympy
from flint import arb, fmpq

from certdp.verifier.errors import InputError
from certdp.expr.compiler import Compiler
from certdp.expr.evaluate import BALLS, _erf1, _erfc1, _exp1, _log1
from certdp.verifier.ball import exact_ball

Interval = tuple  # (lo: arb, hi: arb), exact endpoints
ADPair = tuple  # (value: Interval, derivative: Interval)

NEG_INF = arb.neg_inf()
POS_INF = arb.pos_inf()
UNKNOWN: Interval = (NEG_INF, POS_INF)
ZERO: Interval = (arb(0), arb(0))
ONE: Interval = (arb(1), arb(1))


def _L(r: arb) -> arb:
    return NEG_INF if r.is_nan() else r.lower()


def _U(r: arb) -> arb:
    return POS_INF if r.is_nan() else r.upper()


def from_ball(x: arb) -> Interval:
    return (_L(x), _U(x))


def point(q: Fraction) -> Interval:
    """The (rounded outward if not dyadic) interval of an exact number."""
    den = q.denominator
    if den & (den - 1) == 0:
        b = exact_ball(q.numerator, 1 - den.bit_length())
        return (b, b)
    return from_ball(arb(fmpq(q.numerator, den)))


def to_ball(x: Interval) -> arb:
    """A ball containing the interval (non-finite if unbounded)."""
    lo, hi = x
    if lo.is_finite() and hi.is_finite():
        u = lo.union(hi)
        if lo >= 0:
            return u.nonnegative_part()
        return u
    return arb.nan()


def is_unknown(x: Interval) -> bool:
    return not x[0].is_finite() and not x[1].is_finite()


def add(a: Interval, b: Interval) -> Interval:
    return (_L(a[0] + b[0]), _U(a[1] + b[1]))


def neg(a: Interval) -> Interval:
    return (-a[1], -a[0])


def sub(a: Interval, b: Interval) -> Interval:
    return add(a, neg(b))


def _prod(x: arb, y: arb) -> arb:
    if x.is_zero() or y.is_zero():
        return arb(0)
    return x * y


def mul(a: Interval, b: Interval) -> Interval:
    if a is ZERO or b is ZERO:
        return ZERO
    a0, a1 = a
    b0, b1 = b
    # sign cases (no endpoint search) when neither factor straddles 0
    if a0 >= 0:
        if b0 >= 0:
            return (_L(_prod(a0, b0)), _U(_prod(a1, b1)))
        if b1 <= 0:
            return (_L(_prod(a1, b0)), _U(_prod(a0, b1)))
    elif a1 <= 0:
        if b0 >= 0:
            return (_L(_prod(a0, b1)), _U(_prod(a1, b0)))
        if b1 <= 0:
            return (_L(_prod(a1, b1)), _U(_prod(a0, b0)))
    ps = [_prod(x, y) for x in a for y in b]
    if any(p.is_nan() for p in ps):
        return UNKNOWN
    lo = min((p.lower() for p in ps), key=_key)
    hi = max((p.upper() for p in ps), key=_key)
    return (lo, hi)


class _key:
    """Sort key for exact arbs (including infinities)."""

    __slots__ = ("x",)

    def __init__(self, x: arb):
        self.x = x

    def __lt__(self, other: "_key") -> bool:
        return bool(self.x < other.x)


def inv(a: Interval) -> Interval:
    lo, hi = a
    if lo > 0 or hi < 0:
        return (_L(_inv1(hi)), _U(_inv1(lo)))
    return UNKNOWN


def _inv1(x: arb) -> arb:
    if x.is_exact() and not x.is_finite():
        return arb(0)
    return 1 / x


def hull(a: Interval, b: Interval) -> Interval:
    return (min(a[0], b[0], key=_key), max(a[1], b[1], key=_key))


def _increasing(f: Callable[[arb], arb], a: Interval) -> Interval:
    return (_L(f(a[0])), _U(f(a[1])))


def _decreasing(f: Callable[[arb], arb], a: Interval) -> Interval:
    return (_L(f(a[1])), _U(f(a[0])))


def exp(a: Interval) -> Interval:
    lo, hi = _increasing(_exp1, a)
    return (lo if lo >= 0 else arb(0), hi)


def log(a: Interval) -> Interval:
    if not a[0] > 0:
        return UNKNOWN
    return _increasing(_log1, a)


def erf(a: Interval) -> Interval:
    return _increasing(_erf1, a)


def erfc(a: Interval) -> Interval:
    lo, hi = _decreasing(_erfc1, a)
    return (lo if lo >= 0 else arb(0), hi)


def _pow_point(x: arb, n: int) -> arb:
    if x.is_exact() and not x.is_finite():
        if n < 0:
            return arb(0)
        if x > 0 or n % 2 == 0:
            return POS_INF
        return NEG_INF
    return x**n


def int_pow(a: Interval, n: int) -> Interval:
    if n == 0:
        return ONE
    if n < 0:
        return inv(int_pow(a, -n))
    if n == 1:
        return a
    lo, hi = a
    if n % 2 == 1 or lo >= 0:
        return (_L(_pow_point(lo, n)), _U(_pow_point(hi, n)))
    if hi <= 0:
        return (_L(_pow_point(hi, n)), _U(_pow_point(lo, n)))
    m = max(-lo, hi, key=_key)
    return (arb(0), _U(_pow_point(m, n)))


def _root_point(x: arb, p: int, q: int) -> arb:
    if x.is_exact() and not x.is_finite():
        return POS_INF if p > 0 else arb(0)
    if x.is_zero():
        return arb(0) if p > 0 else POS_INF
    r = x.sqrt() if q == 2 else x.root(q)
    return r**p if p >= 0 else 1 / r ** (-p)


def rational_pow(a: Interval, p: int, q: int) -> Interval:
    lo, hi = a
    if not lo >= 0 or (p < 0 and not lo > 0):
        return UNKNOWN
    f = lambda t: _root_point(t, p, q)  # noqa: E731
    return _increasing(f, a) if p > 0 else _decreasing(f, a)


def abs_(a: Interval) -> Interval:
    lo, hi = a
    if lo >= 0:
        return a
    if hi <= 0:
        return neg(a)
    return (arb(0), max(-lo, hi, key=_key))


def max2(a: Interval, b: Interval) -> Interval:
    return (max(a[0], b[0], key=_key), max(a[1], b[1], key=_key))


def min2(a: Interval, b: Interval) -> Interval:
    return (min(a[0], b[0], key=_key), min(a[1], b[1], key=_key))


def less(a: Interval, b: Interval, strict: bool) -> bool | None:
    """Three-valued ``a < b`` (strict) or ``a <= b`` for all points."""
    if strict:
        if a[1] < b[0]:
            return True
        if a[0] >= b[1]:
            return False
    else:
        if a[1] <= b[0]:
            return True
        if a[0] > b[1]:
            return False
    return None


# ---------------------------------------------------------------------------
# the backend: (value, derivative) pairs of intervals
# ---------------------------------------------------------------------------


def _two_over_sqrt_pi() -> Interval:
    return from_ball(2 / arb.pi().sqrt())


def _exp_ad(a: ADPair) -> ADPair:
    u, du = a
    v = exp(u)
    return (v, mul(v, du))


def _log_ad(a: ADPair) -> ADPair:
    u, du = a
    return (log(u), mul(du, inv(u)))


def _erf_ad(a: ADPair) -> ADPair:
    u, du = a
    return (erf(u), mul(mul(_two_over_sqrt_pi(), exp(neg(int_pow(u, 2)))), du))


def _erfc_ad(a: ADPair) -> ADPair:
    u, du = a
    return (erfc(u), neg(mul(mul(_two_over_sqrt_pi(), exp(neg(int_pow(u, 2)))), du)))


def _abs_ad(a: ADPair) -> ADPair:
    v, d = a
    if v[0] >= 0:
        return (v, d)
    if v[1] <= 0:
        return (neg(v), neg(d))
    return (abs_(v), hull(d, neg(d)))  # Clarke: hull of the one-sided derivatives


def _extremum_ad(a: ADPair, b: ADPair, is_max: bool) -> ADPair:
    (v, d), (v2, d2) = a, b
    if less(v2, v, strict=True) if is_max else less(v, v2, strict=True):
        return a
    if less(v, v2, strict=True) if is_max else less(v2, v, strict=True):
        return b
    return (max2(v, v2) if is_max else min2(v, v2)), hull(d, d2)


class DerivativeBackend:
    """The :class:`certdp.expr.compiler.Compiler` backend of (value, derivative)
    interval pairs: a compiled function takes ``(x, rep)`` — the interval of
    the variable and the interval on which Piecewise conditions are decided."""

    verb = "differentiate"
    unary = {sympy.exp: _exp_ad, sympy.log: _log_ad, sympy.erf: _erf_ad,
             sympy.erfc: _erfc_ad, sympy.Abs: _abs_ad}

    @property
    def constants(self) -> object:
        return BALLS

    @staticmethod
    def lift(ball: arb) -> ADPair:
        return (from_ball(ball), ZERO)

    @staticmethod
    def atom(e: sympy.Basic) -> None:
        return None  # constants are evaluated by the ball backend and lifted

    @staticmethod
    def variable(index: int) -> Callable[[tuple], ADPair]:
        if index != 0:  # pragma: no cover - compile_interval_ad has one variable
            raise InputError("interval differentiation takes one variable")
        return lambda env: (env[0], ONE)

    @staticmethod
    def condition_env(env: tuple) -> tuple:
        return (env[1], env[1])

    @staticmethod
    def add(a: ADPair, b: ADPair) -> ADPair:
        (v, d), (v2, d2) = a, b
        return (add(v, v2), d if d2 is ZERO else d2 if d is ZERO else add(d, d2))

    @staticmethod
    def mul(a: ADPair, b: ADPair) -> ADPair:
        (v, d), (v2, d2) = a, b
        if d2 is ZERO:
            dd = mul(d, v2)
        elif d is ZERO:
            dd = mul(v, d2)
        else:
            dd = add(mul(d, v2), mul(v, d2))
        return (mul(v, v2), dd)

    @staticmethod
    def int_pow(a: ADPair, n: int) -> ADPair:
        u, du = a
        return (int_pow(u, n), mul(mul(point(Fraction(n)), int_pow(u, n - 1)), du))

    @classmethod
    def inv(cls, a: ADPair) -> ADPair:
        return cls.int_pow(a, -1)

    @staticmethod
    def rational_pow(a: ADPair, p: int, q: int) -> ADPair:
        u, du = a
        return (rational_pow(u, p, q), mul(mul(point(Fraction(p, q)), rational_pow(u, p - q, q)), du))

    @staticmethod
    def general_pow(a: ADPair, b: ADPair) -> ADPair:
        (u, du), (w, dw) = a, b
        lu = log(u)
        v = exp(mul(w, lu))
        return (v, mul(v, add(mul(dw, lu), mul(w, mul(du, inv(u))))))

    @staticmethod
    def max2(a: ADPair, b: ADPair) -> ADPair:
        return _extremum_ad(a, b, True)

    @staticmethod
    def min2(a: ADPair, b: ADPair) -> ADPair:
        return _extremum_ad(a, b, False)

    @staticmethod
    def compare(a: ADPair, b: ADPair, op: str) -> bool | None:
        x, y = a[0], b[0]
        if op == "<":
            return less(x, y, strict=True)
        if op == "<=":
            return less(x, y, strict=False)
        if op == ">":
            return less(y, x, strict=True)
        if op == ">=":
            return less(y, x, strict=False)
        return None  # (in)equality of intervals: never decided here

    @staticmethod
    def hull(a: ADPair, b: ADPair) -> ADPair:
        return (hull(a[0], b[0]), UNKNOWN)  # a switch (possibly a jump) may lie inside

    @staticmethod
    def undecided(a: ADPair) -> ADPair:
        return (a[0], UNKNOWN)

    @staticmethod
    def nothing() -> ADPair:
        return (UNKNOWN, UNKNOWN)


#: The extended-interval / forward-derivative number context.
DERIVATIVES = DerivativeBackend()


def compile_interval_ad(expr: sympy.Expr, var: sympy.Symbol) -> Callable[[Interval, Interval], ADPair]:
    """``f(x, rep) -> (value, derivative)`` enclosures of ``expr`` and
    ``d expr / d var`` over the interval ``x`` (conditions decided on ``rep``)."""
    root = Compiler(DERIVATIVES, (var,)).node(expr)
    return lambda x, rep: root((x, rep))


def interval(a: Fraction, b: Fraction | None) -> Interval:
    """``[a, b]`` (``b=None`` means ``+inf``), endpoints rounded outward."""
    lo = point(a)[0]
    hi = POS_INF if b is None else point(b)[1]
    return (lo, hi)


__all__: Sequence[str] = ["compile_interval_ad", "interval", "UNKNOWN", "to_ball", "is_unknown"]
