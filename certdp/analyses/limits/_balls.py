"""Minimal certified ball evaluation of sympy expressions for :mod:`certdp.analyses.limits`.

Used only to certify thresholds (signs of constants, values at a point
ε = T, limits of monotone pieces).  Supports the profile vocabulary: numbers,
π, e, +, ×, powers, exp, log, sqrt, erf, erfc, Max, Min, Abs.  erfc is
evaluated through :func:`certdp.numerics.normal.Phi_ball` (rigorous Mills
series in the far tail; arb's own erfc is inaccurate for huge arguments).
Anything else raises :class:`_NoBall` (the caller then reports "undecided").
"""

from __future__ import annotations

from typing import Mapping

import sympy
from flint import arb

from certdp.numerics.ball import working_precision
from certdp.numerics.normal import Phi_ball


class _NoBall(Exception):
    """The expression cannot be evaluated in ball arithmetic here."""


def _rat(q: sympy.Rational) -> arb:
    return arb(int(q.p)) / arb(int(q.q))


def ball(expr: sympy.Expr, env: Mapping[sympy.Symbol, arb]) -> arb:
    """A ball containing ``expr`` with symbols replaced by the balls in ``env``
    (at the current flint precision)."""
    e = expr
    if e.is_Integer or e.is_Rational:
        return _rat(sympy.Rational(e))
    if e.is_Symbol:
        if e in env:
            return env[e]
        raise _NoBall(f"free symbol {e}")
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    if e.is_Float:
        raise _NoBall("floating-point literal")
    if e.is_Add:
        r = arb(0)
        for a in e.args:
            r = r + ball(a, env)
        return r
    if e.is_Mul:
        r = arb(1)
        for a in e.args:
            r = r * ball(a, env)
        return r
    if e.is_Pow:
        b, x = e.args
        if x == sympy.Rational(1, 2):
            return ball(b, env).sqrt()
        if x.is_Integer:
            bb = ball(b, env)
            n = int(x)
            return bb**n if n >= 0 else 1 / bb ** (-n)
        return (ball(x, env) * ball(b, env).log()).exp()
    f = e.func
    if f is sympy.exp:
        return ball(e.args[0], env).exp()
    if f is sympy.log and len(e.args) == 1:
        return ball(e.args[0], env).log()
    if f is sympy.erfc:
        # erfc(z) = 2 Φ(-z√2)
        return 2 * Phi_ball(-ball(e.args[0], env) * arb(2).sqrt())
    if f is sympy.erf:
        return 1 - 2 * Phi_ball(-ball(e.args[0], env) * arb(2).sqrt())
    if f is sympy.Abs:
        return abs(ball(e.args[0], env))
    if f in (sympy.Max, sympy.Min):
        vals = [ball(a, env) for a in e.args]
        r = vals[0]
        for v in vals[1:]:
            r = r.max(v) if f is sympy.Max else r.min(v)
        return r
    raise _NoBall(f"no ball rule for {f}")


def const_sign(expr: sympy.Expr, max_prec: int = 4096) -> int | None:
    """Certified sign (-1, 0, 1) of an ε-free numeric sympy expression, or None
    when it cannot be evaluated.  Exact zero is recognised by sympy only when
    the ball keeps containing 0 (then ``expr.equals(0)`` must prove it)."""
    if expr.free_symbols:
        return None
    prec = 64
    while prec <= max_prec:
        try:
            with working_precision(prec):
                v = ball(expr, {})
        except _NoBall:
            return None
        if v > 0:
            return 1
        if v < 0:
            return -1
        prec *= 4
    try:
        z = sympy.simplify(expr)
    except Exception:  # pragma: no cover - defensive
        return None
    return 0 if z == 0 else None
