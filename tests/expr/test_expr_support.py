"""Support (no tests) for test_expr*.py: independent truth for certdp.expr tests: a small mpmath evaluator of sympy
trees (does not import certdp), plus a random-expression strategy.

``mp_value(expr, point)`` returns an mpf at ``mpmath.mp.dps`` digits, or
``None`` when the expression is undefined / non-real at the point.
Piecewise conditions are decided exactly by sympy at the rational point.
"""

from __future__ import annotations

import os
from fractions import Fraction

import mpmath
import sympy
from hypothesis import strategies as st

EPS = sympy.Symbol("eps", nonnegative=True, real=True)


def scaled(n: int) -> int:
    """Hypothesis example count, scaled by $CERTDP_FUZZ_SCALE (default 1) for long runs."""
    return max(1, int(n * float(os.environ.get("CERTDP_FUZZ_SCALE", "1"))))


class Undefined(Exception):
    pass


def _mp(e: sympy.Basic, env: dict, exact_env: dict):
    if isinstance(e, sympy.Symbol):
        return env[e]
    if e.is_Rational:
        return mpmath.mpf(int(e.p)) / int(e.q)
    if e is sympy.pi:
        return +mpmath.pi
    if e is sympy.E:
        return mpmath.e
    if e is sympy.oo:
        return mpmath.inf
    if isinstance(e, sympy.Add):
        return mpmath.fsum(_mp(a, env, exact_env) for a in e.args)
    if isinstance(e, sympy.Mul):
        r = mpmath.mpf(1)
        for a in e.args:
            r *= _mp(a, env, exact_env)
        return r
    if isinstance(e, sympy.Pow):
        b = _mp(e.args[0], env, exact_env)
        x = e.args[1]
        if x.is_Integer:
            if b == 0 and x < 0:
                raise Undefined
            return b ** int(x)
        xv = _mp(x, env, exact_env)
        if b < 0 or (b == 0 and xv <= 0):
            raise Undefined
        return b**xv
    if isinstance(e, sympy.exp):
        return mpmath.exp(_mp(e.args[0], env, exact_env))
    if isinstance(e, sympy.log):
        v = _mp(e.args[0], env, exact_env)
        if v <= 0:
            raise Undefined
        return mpmath.log(v)
    if isinstance(e, sympy.erf):
        return mpmath.erf(_mp(e.args[0], env, exact_env))
    if isinstance(e, sympy.erfc):
        return mpmath.erfc(_mp(e.args[0], env, exact_env))
    if isinstance(e, sympy.Abs):
        return abs(_mp(e.args[0], env, exact_env))
    if isinstance(e, sympy.Max):
        return max(_mp(a, env, exact_env) for a in e.args)
    if isinstance(e, sympy.Min):
        return min(_mp(a, env, exact_env) for a in e.args)
    if isinstance(e, sympy.Piecewise):
        for pair in e.args:
            c = pair.cond.subs(exact_env)
            if c not in (sympy.true, sympy.false):
                c = sympy.true if bool(c) else sympy.false  # numeric comparison by sympy
            if c is sympy.true:
                return _mp(pair.expr, env, exact_env)
        raise Undefined
    raise NotImplementedError(type(e).__name__)


def mp_value(expr: sympy.Basic, point: Fraction, dps: int = 50):
    """Value of ``expr`` at eps = point (mpf), or None if undefined there."""
    with mpmath.workdps(dps + 20):
        env = {EPS: mpmath.mpf(point.numerator) / point.denominator}
        exact_env = {EPS: sympy.Rational(point.numerator, point.denominator)}
        try:
            v = _mp(expr, env, exact_env)
        except (Undefined, ZeroDivisionError):
            return None
        if isinstance(v, mpmath.mpc) or mpmath.isnan(v):
            return None
        return +v


def small_rationals():
    return st.builds(
        lambda p, q: sympy.Rational(p, q), st.integers(-12, 12), st.integers(1, 6)
    )


def leaves():
    return st.one_of(st.just(EPS), st.just(EPS), small_rationals(), st.sampled_from([sympy.pi, sympy.E]))


def _safe(f):
    """Builder that turns sympy's construction errors into nan (filtered out)."""

    def g(*args):
        try:
            return f(*args)
        except (ValueError, TypeError, ZeroDivisionError, RecursionError):
            return sympy.nan

    return g


def _extend(children):
    unary = st.sampled_from(["exp", "log", "sqrt", "erf", "erfc", "Abs", "neg", "Phi"])
    binary = st.sampled_from(["+", "-", "*", "/", "Max", "Min"])

    def mk_unary(name, a):
        if name == "exp":
            return sympy.exp(sympy.Max(sympy.Min(a, 40), -40)) if a.has(sympy.exp) else sympy.exp(a)
        if name == "neg":
            return -a
        if name == "Phi":
            return sympy.erfc(-a / sympy.sqrt(2)) / 2
        return {"log": sympy.log, "sqrt": sympy.sqrt, "erf": sympy.erf, "erfc": sympy.erfc, "Abs": sympy.Abs}[
            name
        ](a)

    def mk_binary(op, a, b):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        return (sympy.Max if op == "Max" else sympy.Min)(a, b)

    def mk_pow(a, n):
        return a**n

    def mk_pw(a, b, c, rel):
        cond = {"<": EPS < c, "<=": EPS <= c, ">": EPS > c, ">=": EPS >= c}[rel]
        return sympy.Piecewise((a, cond), (b, True))

    return st.one_of(
        st.builds(_safe(mk_unary), unary, children),
        st.builds(_safe(mk_binary), binary, children, children),
        st.builds(
            _safe(mk_pow),
            children,
            st.sampled_from([sympy.Integer(2), sympy.Integer(3), sympy.Integer(-1), sympy.Integer(-2),
                             sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Rational(3, 2), sympy.Rational(-1, 2)]),
        ),
        st.builds(_safe(mk_pw), children, children, st.sampled_from([sympy.Integer(1), sympy.Rational(1, 2), sympy.Integer(2)]),
                  st.sampled_from(["<", "<=", ">", ">="])),
    )


def expressions(max_leaves: int = 8):
    """Random real expressions in EPS built from the supported functions."""
    return st.recursive(leaves(), _extend, max_leaves=max_leaves).filter(
        lambda e: isinstance(e, sympy.Expr) and not e.has(sympy.zoo, sympy.nan, sympy.I, sympy.oo, -sympy.oo)
    )
