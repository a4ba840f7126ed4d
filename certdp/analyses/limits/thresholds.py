"""Certified thresholds: "for every ε ≥ T, s·d(ε) ≥ 0".

Two arguments, both stated in the trace:

* **monotone crossing** -- d is monotone towards sign s on (0, ∞)
  (:mod:`certdp.analyses.limits.monotone`) and s·d(T) ≥ 0, with T an exact root
  (sympy ``solve`` on small exp/log/algebraic expressions, verified by
  simplification) or a dyadic point where the sign is certified in ball
  arithmetic;
* **tail range** -- an interval enclosure of d over [T, ∞) built from
  monotone pieces (each piece lies between its value at T and its limit)
  combined by interval arithmetic has lower bound > 0 (for s = +1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import sympy
from flint import arb

from certdp.expr.derivative import may_jump
from certdp.expr.evaluate import try_ball
from certdp.analyses.limits.asymptotics import Undecided, sign_of
from certdp.analyses.limits.monotone import dsign, erfc_pair_positive, mono
from certdp.errors import PrecisionError
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.decide import decide
from certdp.numerics.enclosure import Enclosure

_PRECS = (128, 512, 2048)


@dataclass(frozen=True)
class Threshold:
    """s·d(ε) ≥ 0 for every ε ≥ point.  ``point`` is an exact sympy number/expr;
    ``crossing`` an Enclosure of the sign change when only bracketed."""

    point: sympy.Expr | None
    argument: str
    crossing: Enclosure | None = None
    #: the statement holds for ε > point (not necessarily at the point itself)
    strict: bool = False


def _ball(e: sympy.Expr, env: dict) -> arb:
    """The certified ball of ``e`` (current precision), or Undecided."""
    v = try_ball(e, env)
    if v is None:
        raise Undecided(f"no certified ball for {e}")
    return v


def _sign_at(d: sympy.Expr, eps: sympy.Symbol, t: Fraction) -> int | None:
    """Certified sign of d(t), by the one decision loop; None when undecided."""
    def test(_prec: int) -> int | None:
        v = _ball(d, {eps: to_ball(t)})
        if v > 0:
            return 1
        if v < 0:
            return -1
        return 0 if v.is_exact() and v.is_zero() else None

    try:
        return decide(test, start=_PRECS[0], cap=_PRECS[-1], what=f"the sign of {d} at {t}")
    except (Undecided, PrecisionError):
        return None


def _is_numeric(d: sympy.Expr, eps: sympy.Symbol) -> bool:
    return d.free_symbols <= {eps}


def _solvable(d: sympy.Expr) -> bool:
    return sympy.count_ops(d) <= 40 and not d.has(sympy.erfc, sympy.erf, sympy.Max, sympy.Min, sympy.Piecewise)


def isolate(d: sympy.Expr, eps: sympy.Symbol) -> sympy.Expr | None:
    """Solve d(ε) = 0 when ε occurs along a single chain of invertible steps
    (k·u, c + u, exp, log, u^r); each step is an exact equivalence under the
    positivity condition checked on the way.  Returns the root or None."""
    lhs, rhs = d, sympy.Integer(0)
    for _ in range(50):
        if lhs == eps:
            return sympy.simplify(rhs)
        if lhs.is_Add:
            const = [a for a in lhs.args if eps not in a.free_symbols]
            var = [a for a in lhs.args if eps in a.free_symbols]
            if len(var) != 1:
                return None
            lhs, rhs = var[0], rhs - sympy.Add(*const)
        elif lhs.is_Mul:
            const = [a for a in lhs.args if eps not in a.free_symbols]
            var = [a for a in lhs.args if eps in a.free_symbols]
            if len(var) != 1:
                return None
            k = sympy.Mul(*const)
            if sign_of(k) == 0:
                return None
            lhs, rhs = var[0], rhs / k
        elif lhs.func is sympy.exp:
            if sign_of(rhs) <= 0:
                return None
            lhs, rhs = lhs.args[0], sympy.log(rhs)
        elif lhs.func is sympy.log:
            lhs, rhs = lhs.args[0], sympy.exp(rhs)
        elif lhs.is_Pow and eps not in lhs.args[1].free_symbols:
            b, r = lhs.args
            # u^r = v with u > 0 (required) and v > 0  ⇔  u = v^(1/r)
            if dsign(b, eps) != "pos" or sign_of(rhs) <= 0:
                return None
            lhs, rhs = b, rhs ** (1 / r)
        else:
            return None
    return None


def exact_root(d: sympy.Expr, eps: sympy.Symbol) -> sympy.Expr | None:
    """The nonnegative root of a small monotone expression: by isolation
    (exact equivalences), else sympy ``solve`` verified by substitution."""
    try:
        r = isolate(d, eps)
    except Undecided:
        r = None
    if r is not None:
        try:
            return r if sign_of(r) >= 0 else None
        except Undecided:
            return None
    if not _solvable(d):
        return None
    try:
        sols = sympy.solve(sympy.Eq(d, 0), eps)
    except Exception:
        return None
    good = []
    for r in sols:
        try:
            if sympy.simplify(d.subs(eps, r)) != 0:
                continue
        except Exception:
            continue
        if r.is_real is False:
            continue
        good.append(sympy.simplify(r))
    return good[0] if len(good) == 1 else None


def _frac_str(t: Fraction) -> sympy.Expr:
    return sympy.Rational(t.numerator, t.denominator)


def certify(d: sympy.Expr, eps: sympy.Symbol, s: int,
            limit_of: Callable[[sympy.Expr], sympy.Expr], hints: tuple = (),
            eventual_sign: Callable[[sympy.Expr], int] | None = None) -> Threshold:
    """A certified T with s·d(ε) ≥ 0 for all ε ≥ T (s = ±1; non-strict).

    ``limit_of(expr)`` returns lim_{ε→∞} expr (exact), used by the tail-range
    argument.  Raises Undecided if no argument succeeds for numeric input;
    for symbolic parameters returns point=None when only existence is known.
    """
    m = mono(d, eps)
    if m is not None and m in (0, s):
        direction = "nondecreasing" if s > 0 else "nonincreasing"
        if _is_numeric(d, eps):
            s0 = _sign_at(d, eps, Fraction(0))
            if s0 is not None and s0 * s >= 0:
                return Threshold(sympy.Integer(0), f"{d} is {direction} on (0, oo) (composition of monotone "
                                 f"functions) and has sign {s:+d} at eps = 0 (ball arithmetic)")
        r = exact_root(d, eps)
        if r is not None:
            return Threshold(r, f"{d} is {direction} on (0, oo) (composition of monotone functions) and "
                             f"vanishes exactly at eps = {r} (exact inversion)")
        if _is_numeric(d, eps):
            br = _bracket(d, eps, s)
            if br is not None:
                lo, hi = br
                with working_precision(128):
                    enc = Enclosure(to_ball(lo), to_ball(hi))
                return Threshold(_frac_str(hi), f"{d} is {direction} on (0, oo) (composition of monotone "
                                 f"functions); its sign change lies in {enc} (certified bisection in ball "
                                 f"arithmetic), sign {s:+d} from eps = {_frac_str(hi)} on", enc)
    if _is_numeric(d, eps):
        t = _tail_range_threshold(d, eps, s, limit_of, hints, eventual_sign)
        if t is not None:
            return Threshold(_frac_str(t), f"on [{_frac_str(t)}, oo) every monotone piece of {d} lies between "
                             f"its value at the left end and its limit (monotone by composition, or by a "
                             f"certified sign of its factored derivative there); interval arithmetic on these "
                             f"ranges gives sign {s:+d} (ball arithmetic)")
        raise Undecided(f"could not certify a threshold after which {d} has sign {s:+d}")
    return Threshold(None, "no explicit threshold for symbolic parameters; the eventual sign itself is "
                           "proved by the asymptotic rules")


def _bracket(d: sympy.Expr, eps: sympy.Symbol, s: int) -> tuple[Fraction, Fraction] | None:
    lo = Fraction(0)
    hi = Fraction(1)
    for _ in range(64):
        sg = _sign_at(d, eps, hi)
        if sg is None:
            return None
        if sg * s > 0:
            break
        lo, hi = hi, hi * 2
    else:
        return None
    for _ in range(60):
        mid = (lo + hi) / 2
        sg = _sign_at(d, eps, mid)
        if sg is None:
            break
        if sg * s > 0:
            hi = mid
        else:
            lo = mid
        if hi - lo <= Fraction(1, 2**40) * max(hi, Fraction(1)):
            break
    return lo, hi


Interval = tuple  # (lo: arb | None, hi: arb | None); None = -oo / +oo


def tail_range(e: sympy.Expr, eps: sympy.Symbol, t: arb,
               limit_of: Callable[[sympy.Expr], sympy.Expr], split: bool = True,
               eventual_sign: Callable[[sympy.Expr], int] | None = None, depth: int = 0) -> Interval | None:
    """Enclosure of {e(ε): ε ≥ t} by monotone pieces + interval arithmetic.

    A piece is monotone on [t, ∞) when it is compositionally monotone, or
    (numeric pieces, depth <= 1) when its factored derivative has a certified
    constant sign on [t, ∞) (checked by this same function)."""
    rec = lambda a, sp=True: tail_range(a, eps, t, limit_of, sp, eventual_sign, depth)  # noqa: E731
    if eps not in e.free_symbols:
        v = _ball(e, {})
        return (v, v)
    m = mono(e, eps)
    if m is None and split and eventual_sign is not None and depth <= 1 and e.free_symbols <= {eps} \
            and not e.is_Add:
        m = _derivative_direction(e, eps, t, limit_of, eventual_sign, depth)
    if m is not None:
        ft = _ball(e, {eps: t})
        lim = limit_of(e)
        if lim in (sympy.oo, -sympy.oo):
            lv = None
        else:
            lv = _ball(lim, {})
        if m >= 0:
            return (ft, None if lim == sympy.oo else lv) if lim != -sympy.oo else None
        return (None if lim == -sympy.oo else lv, ft) if lim != sympy.oo else None
    if e.is_Add and split:
        lo, hi = arb(0), arb(0)
        args = _group_pairs(list(e.args), eps)
        for a in args:
            r = rec(a.expr, False) if isinstance(a, _Pair) else rec(a)
            if r is None:
                return None
            lo = None if (lo is None or r[0] is None) else lo + r[0]
            hi = None if (hi is None or r[1] is None) else hi + r[1]
        return (lo, hi)
    if e.is_Mul and split:
        return _mul_ranges([rec(a) for a in e.args])
    if e.func in (sympy.Max, sympy.Min) and split:
        rs = [rec(a) for a in e.args]
        if any(r is None for r in rs):
            return None
        los = [r[0] for r in rs]
        his = [r[1] for r in rs]
        if e.func is sympy.Max:
            fin = [x for x in los if x is not None]
            lo = _fold(fin, "max") if fin else None
            hi = None if any(x is None for x in his) else _fold(his, "max")
        else:
            lo = None if any(x is None for x in los) else _fold(los, "min")
            fin = [x for x in his if x is not None]
            hi = _fold(fin, "min") if fin else None
        return (lo, hi)
    s = dsign(e, eps)
    if s in ("pos", "nonneg"):
        return (arb(0), None)
    if s in ("neg", "nonpos"):
        return (None, arb(0))
    return None


def _mul_ranges(rs: list) -> Interval | None:
    """Product of ranges; unbounded ranges only when every factor has a sign."""
    if any(r is None for r in rs):
        return None
    if all(r[0] is not None and r[1] is not None for r in rs):
        lo, hi = arb(1), arb(1)
        for r in rs:
            c = [lo * r[0], lo * r[1], hi * r[0], hi * r[1]]
            lo = c[0].min(c[1]).min(c[2]).min(c[3])
            hi = c[0].max(c[1]).max(c[2]).max(c[3])
        return (lo, hi)
    neg = False
    small, big = arb(1), arb(1)  # bounds of the magnitude; big None = unbounded
    for lo, hi in rs:
        if lo is not None and lo >= 0:
            a, b = lo, hi
        elif hi is not None and hi <= 0:
            neg = not neg
            a, b = -hi, (None if lo is None else -lo)
        else:
            return None
        small = small * a
        big = None if (big is None or b is None) else big * b
    if neg:
        return (None if big is None else -big, -small)
    return (small, big)


def _derivative_direction(e: sympy.Expr, eps: sympy.Symbol, t: arb,
                          limit_of: Callable[[sympy.Expr], sympy.Expr],
                          eventual_sign: Callable[[sympy.Expr], int], depth: int) -> int | None:
    """+1/−1 if e' = d e/dε has that sign on all of [t, ∞) (certified), else None.
    None for an expression that may jump: sympy's derivative drops the jumps."""
    if may_jump(e):
        return None
    try:
        de = sympy.factor(sympy.diff(e, eps))
        s = eventual_sign(de)
    except Exception:  # noqa: BLE001 - no direction: the caller falls back
        return None
    if s == 0:
        return None
    r = tail_range(de, eps, t, limit_of, True, eventual_sign, depth + 1)
    if r is None:
        return None
    if s > 0 and r[0] is not None and r[0] >= 0:
        return 1
    if s < 0 and r[1] is not None and r[1] <= 0:
        return -1
    return None


class _Pair:
    """Marker: a δ_μ-type erfc pair, ranged as one unit (proved positive)."""

    def __init__(self, expr: sympy.Expr) -> None:
        self.expr = expr


def _group_pairs(args: list, eps: sympy.Symbol) -> list:
    """Group erfc pairs proved positive (δ_μ-type) into one summand."""
    out = list(args)
    for i in range(len(out)):
        for j in range(i + 1, len(out)):
            if erfc_pair_positive(out[i], out[j], eps):
                pair = _Pair(out[i] + out[j])
                return [pair] + [a for k, a in enumerate(out) if k not in (i, j)]
    return out


def _fold(xs: list, how: str) -> arb:
    r = xs[0]
    for x in xs[1:]:
        r = r.max(x) if how == "max" else r.min(x)
    return r


def _tail_range_threshold(d: sympy.Expr, eps: sympy.Symbol, s: int,
                          limit_of: Callable[[sympy.Expr], sympy.Expr], hints: tuple = (),
                          eventual_sign: Callable[[sympy.Expr], int] | None = None) -> Fraction | None:
    def ok(t: Fraction) -> bool:
        """Does the tail range on [t, ∞) certify the sign s?  (False when it
        certainly cannot tell; the one decision loop raises the precision
        while it is merely undecided.)"""
        def test(_prec: int) -> bool | None:
            try:
                r = tail_range(d, eps, to_ball(t), limit_of, True, eventual_sign)
            except Undecided:
                return False
            if r is None:
                return False
            if (s > 0 and r[0] is not None and r[0] >= 0) or (s < 0 and r[1] is not None and r[1] <= 0):
                return True
            return None

        try:
            return decide(test, start=_PRECS[0], cap=_PRECS[1], what=f"the tail sign of {d} from {t}")
        except PrecisionError:
            return False

    for h in hints:  # earlier certified thresholds (e.g. where a branch vanishes)
        if isinstance(h, sympy.Rational) and h >= 0:
            fh = Fraction(int(h.p), int(h.q))
            if ok(fh):
                return fh
    t = Fraction(1, 8)
    for _ in range(40):
        if ok(t):
            break
        t *= 2
    else:
        return None
    lo = t / 2
    for _ in range(12):  # tighten (the argument is re-checked at the reported point)
        mid = (lo + t) / 2
        if ok(mid):
            t = mid
        else:
            lo = mid
    return t
