"""The :class:`certdp.expr.compiler.Compiler` backend of mpmath ``iv`` intervals:
the second, independent kernel (no python-flint anywhere on this path)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import sympy
from mpmath import iv

from certdp.verifier import iv as kernel
from certdp.verifier.exact import exact




def _nothing() -> Any:
    return iv.mpf(["-inf", "inf"])


def _log(x: Any) -> Any:
    return iv.log(x) if x.a > 0 else _nothing()


def _rational_pow(x: Any, p: int, q: int) -> Any:
    if not x.a >= 0 or (p < 0 and not x.a > 0):
        return _nothing()
    if x.b == 0:
        return iv.mpf(0)
    if q == 2:
        r = iv.sqrt(x)
    elif x.a > 0:
        r = iv.exp(iv.log(x) / q)
    else:
        return iv.mpf([0, iv.exp(iv.log(iv.mpf(x.b)) / q).b]) ** p if p > 0 else _nothing()
    return r**p if p >= 0 else 1 / r ** (-p)


def _compare(x: Any, y: Any, op: str) -> bool | None:
    if op == "<":
        r = x < y
    elif op == "<=":
        r = x <= y
    elif op == ">":
        r = x > y
    elif op == ">=":
        r = x >= y
    else:
        return None
    return None if r is None else bool(r)


def _heaviside(x: Any) -> Any:
    if x.a > 0:
        return iv.mpf(1)
    if x.b < 0:
        return iv.mpf(0)
    return iv.mpf([0, 1])


def _sign(x: Any) -> Any:
    if x.a > 0:
        return iv.mpf(1)
    if x.b < 0:
        return iv.mpf(-1)
    return iv.mpf([-1 if x.a < 0 else 0, 1 if x.b > 0 else 0])


class IVBackend:
    """Values are ``iv.mpf`` intervals; a compiled function takes a tuple of them."""

    verb = "evaluate"
    unary: dict[type, Callable[[Any], Any]] = {
        sympy.exp: iv.exp, sympy.log: _log, sympy.erf: kernel.erf, sympy.erfc: kernel.erfc,
        sympy.Abs: abs, sympy.Heaviside: _heaviside, sympy.sign: _sign,
    }
    lift = staticmethod(lambda x: x)
    condition_env = staticmethod(lambda a: a)
    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    inv = staticmethod(lambda a: 1 / a)
    int_pow = staticmethod(lambda a, n: a**n if n >= 0 else 1 / a ** (-n))
    rational_pow = staticmethod(_rational_pow)
    general_pow = staticmethod(lambda b, e: iv.exp(e * iv.log(b)) if b.a > 0 else _nothing())
    max2 = staticmethod(lambda a, b: iv.mpf([max(a.a, b.a), max(a.b, b.b)]))
    min2 = staticmethod(lambda a, b: iv.mpf([min(a.a, b.a), min(a.b, b.b)]))
    compare = staticmethod(_compare)
    hull = staticmethod(kernel.hull)
    undecided = staticmethod(lambda x: x)
    nothing = staticmethod(_nothing)
    precision = staticmethod(lambda: iv.prec)

    @property
    def constants(self) -> "IVBackend":
        return self

    @staticmethod
    def variable(index: int) -> Callable[[Any], Any]:
        return lambda a: a[index]

    @staticmethod
    def atom(e: sympy.Basic) -> Callable[[Any], Any] | None:
        if e.is_Rational:
            q = Fraction(int(e.p), int(e.q))
            return lambda _a: kernel.point(q)
        if isinstance(e, sympy.Float):
            q = exact(e, "number")
            return lambda _a: kernel.point(q)
        if e is sympy.pi:
            return lambda _a: iv.pi
        if e is sympy.E:
            return lambda _a: iv.e
        if e is sympy.oo:
            return lambda _a: iv.mpf("inf")
        if e is sympy.S.NegativeInfinity:
            return lambda _a: iv.mpf("-inf")
        return None


INTERVALS = IVBackend()


def compile_iv(expr: sympy.Expr, variables: tuple) -> Callable[..., Any]:
    """``f(*intervals)``: an iv enclosure of ``expr`` over the input intervals."""
    from certdp.expr.compiler import Compiler  # noqa: PLC0415

    root = Compiler(INTERVALS, variables).node(expr)
    return lambda *xs: root(xs)
