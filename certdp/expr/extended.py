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
from flint import arb, ctx, fmpq

from certdp.errors import InputError
from certdp.expr.evaluate import _erf1, _erfc1, _exp1, _log1
from certdp.numerics.ball import exact_ball
from certdp.expr.logic import junction, negation

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


def _const(e: sympy.Basic) -> Interval:
    from certdp.numerics.exact import exact

    if e.is_Rational:
        return point(Fraction(int(e.p), int(e.q)))
    if isinstance(e, sympy.Float):
        return point(exact(e, "number"))
    if e is sympy.pi:
        return from_ball(arb.pi())
    if e is sympy.E:
        return from_ball(arb.const_e())
    if e is sympy.oo:
        return (POS_INF, POS_INF)
    if e is sympy.S.NegativeInfinity:
        return (NEG_INF, NEG_INF)
    from certdp.expr.evaluate import compile_ball  # noqa: PLC0415

    return from_ball(compile_ball(e, [])())


ADNode = Callable[[Interval, Interval], ADPair]


class _ADCompiler:
    """Compile a sympy expression in ``var`` to ``f(x, rep) -> (value, derivative)``."""

    def __init__(self, var: sympy.Symbol):
        self.var = var

    def node(self, e: sympy.Basic) -> ADNode:
        if e == self.var:
            return lambda x, rep: (x, ONE)
        if isinstance(e, sympy.Symbol):
            raise InputError(f"expression has a free variable {e} besides {self.var}")
        if not e.free_symbols:
            # constant subtree: one ball evaluation per precision
            c = e
            cache: dict = {}

            def const(x: Interval, rep: Interval) -> ADPair:
                v = cache.get(ctx.prec)
                if v is None:
                    v = cache[ctx.prec] = _const(c)
                return (v, ZERO)

            return const
        if isinstance(e, sympy.Add):
            nodes = [self.node(t) for t in e.args]

            def add_(x: Interval, rep: Interval) -> ADPair:
                v, d = nodes[0](x, rep)
                for n in nodes[1:]:
                    v2, d2 = n(x, rep)
                    v = add(v, v2)
                    d = d if d2 is ZERO else d2 if d is ZERO else add(d, d2)
                return (v, d)

            return add_
        if isinstance(e, sympy.Mul):
            nodes = [self.node(t) for t in e.args]

            def mul_(x: Interval, rep: Interval) -> ADPair:
                v, d = nodes[0](x, rep)
                for n in nodes[1:]:
                    v2, d2 = n(x, rep)
                    if d2 is ZERO:
                        d = mul(d, v2)
                    elif d is ZERO:
                        d = mul(v, d2)
                    else:
                        d = add(mul(d, v2), mul(v, d2))
                    v = mul(v, v2)
                return (v, d)

            return mul_
        if isinstance(e, sympy.Pow):
            return self.pow(e)
        if isinstance(e, (sympy.exp, sympy.log, sympy.erf, sympy.erfc)):
            return self.unary(e)
        if isinstance(e, sympy.Abs):
            inner = self.node(e.args[0])

            def abs_node(x: Interval, rep: Interval) -> ADPair:
                v, d = inner(x, rep)
                if v[0] >= 0:
                    return (v, d)
                if v[1] <= 0:
                    return (neg(v), neg(d))
                return (abs_(v), hull(d, neg(d)))

            return abs_node
        if isinstance(e, (sympy.Max, sympy.Min)):
            nodes = [self.node(t) for t in e.args]
            is_max = isinstance(e, sympy.Max)

            def minmax(x: Interval, rep: Interval) -> ADPair:
                v, d = nodes[0](x, rep)
                for n in nodes[1:]:
                    v2, d2 = n(x, rep)
                    first = less(v2, v, strict=True) if is_max else less(v, v2, strict=True)
                    second = less(v, v2, strict=True) if is_max else less(v2, v, strict=True)
                    if first:
                        continue
                    if second:
                        v, d = v2, d2
                        continue
                    v, d = (max2(v, v2) if is_max else min2(v, v2)), hull(d, d2)
                return (v, d)

            return minmax
        if isinstance(e, sympy.Piecewise):
            return self.piecewise(e)
        raise InputError(f"cannot differentiate {type(e).__name__} in {e} in certified evaluation")

    def unary(self, e: sympy.Basic) -> ADNode:
        inner = self.node(e.args[0])
        two_over_sqrt_pi = sympy.Integer(2) / sympy.sqrt(sympy.pi)
        c = self.node(two_over_sqrt_pi)

        if isinstance(e, sympy.exp):

            def f(x: Interval, rep: Interval) -> ADPair:
                u, du = inner(x, rep)
                v = exp(u)
                return (v, mul(v, du))

        elif isinstance(e, sympy.log):

            def f(x: Interval, rep: Interval) -> ADPair:
                u, du = inner(x, rep)
                return (log(u), mul(du, inv(u)))

        else:
            sign = 1 if isinstance(e, sympy.erf) else -1
            fn = erf if sign == 1 else erfc

            def f(x: Interval, rep: Interval) -> ADPair:
                u, du = inner(x, rep)
                k = c(x, rep)[0]
                dens = mul(k, exp(neg(int_pow(u, 2))))
                d = mul(dens, du)
                return (fn(u), d if sign == 1 else neg(d))

        return f

    def pow(self, e: sympy.Pow) -> ADNode:
        base, ex = e.args
        b = self.node(base)
        if ex.is_Integer:
            n = int(ex)
            nn = point(Fraction(n))

            def ipow(x: Interval, rep: Interval) -> ADPair:
                u, du = b(x, rep)
                return (int_pow(u, n), mul(mul(nn, int_pow(u, n - 1)), du))

            return ipow
        if ex.is_Rational:
            p, q = int(ex.p), int(ex.q)
            rr = Fraction(p, q)

            def rpow(x: Interval, rep: Interval) -> ADPair:
                u, du = b(x, rep)
                return (rational_pow(u, p, q), mul(mul(point(rr), rational_pow(u, p - q, q)), du))

            return rpow
        g = self.node(ex)

        def gpow(x: Interval, rep: Interval) -> ADPair:
            u, du = b(x, rep)
            w, dw = g(x, rep)
            lu = log(u)
            v = exp(mul(w, lu))
            return (v, mul(v, add(mul(dw, lu), mul(w, mul(du, inv(u))))))

        return gpow

    def piecewise(self, e: sympy.Piecewise) -> ADNode:
        branches = [(self.node(pair.expr), self.cond(pair.cond)) for pair in e.args]

        def pw(x: Interval, rep: Interval) -> ADPair:
            v = d = None
            for value, cond in branches:
                c = cond(rep)
                if c is False:
                    continue
                bv, bd = value(x, rep)
                if v is None:
                    v, d = bv, bd
                else:
                    v, d = hull(v, bv), UNKNOWN
                if c is True:
                    return (v, d)
                d = UNKNOWN  # undecided: a switch (possibly a jump) may lie inside
            return (UNKNOWN, UNKNOWN)

        return pw

    def cond(self, c: sympy.Basic) -> Callable[[Interval], "bool | None"]:
        if c is sympy.true:
            return lambda rep: True
        if c is sympy.false:
            return lambda rep: False
        if isinstance(c, sympy.core.relational.Relational) and c.rel_op in ("<", "<=", ">", ">="):
            lhs, rhs = self.node(c.lhs), self.node(c.rhs)
            op = c.rel_op

            def rel(rep: Interval) -> bool | None:
                a, b = lhs(rep, rep)[0], rhs(rep, rep)[0]
                if op == "<":
                    return less(a, b, strict=True)
                if op == "<=":
                    return less(a, b, strict=False)
                if op == ">":
                    return less(b, a, strict=True)
                return less(b, a, strict=False)

            return rel
        if isinstance(c, (sympy.And, sympy.Or)):
            return junction([self.cond(t) for t in c.args], isinstance(c, sympy.And))
        if isinstance(c, sympy.Not):
            return negation(self.cond(c.args[0]))
        raise InputError(f"unsupported condition {c} in a Piecewise")


def compile_interval_ad(expr: sympy.Expr, var: sympy.Symbol) -> Callable[[Interval, Interval], ADPair]:
    """``f(x, rep) -> (value, derivative)`` enclosures of ``expr`` and
    ``d expr / d var`` over the interval ``x`` (conditions decided on ``rep``)."""
    return _ADCompiler(var).node(expr)


def interval(a: Fraction, b: Fraction | None) -> Interval:
    """``[a, b]`` (``b=None`` means ``+inf``), endpoints rounded outward."""
    lo = point(a)[0]
    hi = POS_INF if b is None else point(b)[1]
    return (lo, hi)


__all__: Sequence[str] = ["compile_interval_ad", "interval", "UNKNOWN", "to_ball", "is_unknown"]
