"""Validation of a privacy profile δ(ε) on [0, ∞).

A privacy profile is a non-increasing function δ: [0, ∞) → [0, 1] with
δ(0) < 1 (issue 3).  Note: Liu et al. 2022, Def 4.1 (GDPT) only asks for f
non-increasing, non-negative, f(0) <= 1; certdp requires δ(0) < 1 because
δ_μ(0) = 2Φ(μ/2) − 1 < 1 for every finite μ, so δ(0) = 1 makes
G_f(0) = μ_GDP(0, 1) = ∞ (no GDP guarantee at all).
:func:`validate_profile` proves as much of this as it can and says exactly
what it could not prove:

* δ(0) < 1 by a certified point evaluation;
* non-increasing on [0, M] by forward-mode derivative enclosures in interval
  arithmetic (:mod:`certdp.expr.extended`) on an adaptive partition into
  cells; Piecewise switch points ``eps op c`` (c rational) are cell
  boundaries, the branch used on an open cell is fixed, and at each switch
  point the one-sided limits are compared with the value there (certified,
  or exact equality by sympy on exact numbers);
* non-increasing on the tail [M, ∞) by the same enclosure on the
  half-infinite interval (possible for Laplace/pure-DP-type profiles; the
  GDP profile's tail derivative suffers from the dependency problem, so its
  tail stays *unproved*);
* 0 <= δ <= 1 from the above (δ <= δ(0) < 1, δ >= tail lower bound), or
  cell by cell when monotonicity is not proved.

A profile that is **certainly** invalid raises :class:`InputError` naming
the witness: δ(0) >= 1, δ(p) > 1, δ(p) < 0, or points p < q with
δ(p) < δ(q), all certified by ball evaluation at exact points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
from flint import arb

from certdp.verifier.errors import InputError, PrecisionError
from certdp.expr import extended as ext
from certdp.expr.evaluate import compile_ball
from certdp.expr.parser import parse_expression
from certdp.expr.symbols import EPS
from certdp.verifier.ball import to_ball, working_precision
from certdp.numerics.decide import refine
from certdp.numerics.enclosure import Enclosure
from certdp.verifier.exact import exact, fraction_to_str


@dataclass(frozen=True)
class ProfileCheck:
    """What :func:`validate_profile` proved and what it could not prove.

    ``ok`` is True iff nothing is left unproved (δ is then a valid profile).
    """

    proved: tuple[str, ...]
    unproved: tuple[str, ...]
    ok: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ok", not self.unproved)

    def __str__(self) -> str:
        lines = [f"profile check: {'OK' if self.ok else 'INCOMPLETE'}"]
        lines += [f"  proved:   {p}" for p in self.proved]
        lines += [f"  unproved: {u}" for u in self.unproved]
        return "\n".join(lines)


#: Tail witness scan: δ is also checked at M·2^k, k = 1..TAIL_SCAN.
TAIL_SCAN = 20


def _end(x: arb) -> str:
    """An exact interval endpoint for messages."""
    if not x.is_finite():
        return "-inf" if x < 0 else "inf"
    return x.str(10, radius=False)


def _fmt(q: Fraction) -> str:
    """Exact rational (witness points must be exactly checkable)."""
    return fraction_to_str(q)


def _show(b: arb) -> str:
    try:
        return str(Enclosure.from_ball(b))
    except Exception:  # non-finite
        return str(b)


class _Profile:
    """Point and cell evaluators of one profile expression."""

    def __init__(self, expr: sympy.Expr, prec: int):
        self.expr = expr
        self.prec = prec
        self.ball = compile_ball(expr, [EPS])
        self.ad = ext.compile_interval_ad(expr, EPS)

    def at(self, t: Fraction) -> arb:
        """δ(t) as a ball, raising precision until it is reasonably tight."""
        def good(b: arb) -> bool:
            return b.is_exact() or b.rel_accuracy_bits() >= 24 or b.rad() < arb(2) ** -200

        try:
            return refine(lambda _p: self.ball(to_ball(t)), good, start=self.prec, cap=16 * self.prec,
                          what=f"the profile at {t}")
        except PrecisionError:
            return arb.nan()  # never finite: the callers treat a NaN ball as "not evaluable here"

    def cell(self, a: Fraction, b: Fraction | None, rep: Fraction | None) -> tuple:
        with working_precision(self.prec):
            x = ext.interval(a, b)
            r = x if rep is None else ext.point(rep)
            return self.ad(x, r)


def _thresholds(expr: sympy.Expr) -> tuple[list[Fraction], bool]:
    """Rational switch points of Piecewise conditions ``eps op c``; the flag
    says whether every condition has that simple form."""
    points: list[Fraction] = []
    simple = True
    for pw in expr.atoms(sympy.Piecewise):
        for pair in pw.args:
            for rel in pair.cond.atoms(sympy.core.relational.Relational):
                lhs, rhs = rel.lhs, rel.rhs
                other = rhs if lhs == EPS else lhs if rhs == EPS else None
                if other is None or not other.is_Rational:
                    simple = False
                    continue
                points.append(Fraction(int(other.p), int(other.q)))
            if not isinstance(pair.cond, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanAtom,
                                          sympy.And, sympy.Or, sympy.Not)):
                simple = False
    return sorted(set(points)), simple


def _resolve(expr: sympy.Expr, rep: Fraction) -> sympy.Expr:
    """expr with every Piecewise replaced by its branch at eps = rep (exact)."""
    r = sympy.Rational(rep.numerator, rep.denominator)

    def pick(pw: sympy.Piecewise) -> sympy.Expr:
        for pair in pw.args:
            c = pair.cond.subs(EPS, r)
            if c is sympy.true:
                return pair.expr
            if c is not sympy.false:
                raise InputError(f"cannot decide {pair.cond} at eps = {rep}")
        return sympy.nan

    return expr.replace(lambda n: isinstance(n, sympy.Piecewise), pick)


def _merge(cells: list[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    out: list[tuple[Fraction, Fraction]] = []
    for a, b in sorted(cells):
        if out and out[-1][1] >= a:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _certainly_not_real(expr: sympy.Expr, t: Fraction) -> bool:
    """Is δ(t) certainly not a real number (sympy's exact evaluation at the rational t
    says so, e.g. log(−t) = log(t) + iπ)?  Asked only where the ball is not finite."""
    try:
        value = expr.subs(EPS, sympy.Rational(t.numerator, t.denominator))
        return value.is_extended_real is False
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def validate_profile(
    expr: sympy.Expr | str,
    *,
    eps_max: object = 16,
    cells: int = 64,
    max_cells: int = 20_000,
    min_width: object = Fraction(1, 2**20),
    prec: int = 64,
) -> ProfileCheck:
    """Check that ``expr`` (a sympy expression in EPS, or text for
    :func:`parse_expression`) is a privacy profile on [0, ∞).

    ``eps_max`` is the end M of the certified cell partition of [0, M]
    (raised beyond every Piecewise switch point); [M, ∞) is the tail.
    ``cells`` initial cells are bisected adaptively (at most ``max_cells``
    evaluations, cells no narrower than ``min_width``).
    Returns a :class:`ProfileCheck`; raises :class:`InputError` with the
    witness when the profile is certainly invalid.
    """
    if isinstance(expr, str):
        expr = parse_expression(expr)
    if not isinstance(expr, sympy.Expr):
        raise InputError(f"a privacy profile must be an expression, got {type(expr).__name__}")
    extra = expr.free_symbols - {EPS}
    if extra:
        raise InputError(f"a privacy profile may only depend on eps, found {sorted(map(str, extra))}")
    M = exact(eps_max, "eps_max")
    width_min = exact(min_width, "min_width")
    if M <= 0 or cells < 1 or max_cells < cells or width_min <= 0:
        raise InputError("need eps_max > 0, cells >= 1, max_cells >= cells, min_width > 0")

    P = _Profile(expr, prec)
    proved: list[str] = []
    unproved: list[str] = []

    # -- δ(0) < 1 ------------------------------------------------------------
    d0 = P.at(Fraction(0))
    if not d0.is_finite():
        unproved.append(f"δ(0) could not be evaluated (got {d0}); is δ defined at 0?")
    elif d0 >= 1:
        raise InputError(
            f"not a privacy profile: δ(0) = {_show(d0)} >= 1 (certdp needs δ(0) < 1: no finite μ has "
            f"δ_μ(0) = 2Φ(μ/2) - 1 >= 1)"
        )
    elif d0 < 0:
        raise InputError(f"not a privacy profile: δ(0) = {_show(d0)} < 0")
    elif d0 < 1:
        proved.append(f"δ(0) = {_show(d0)} < 1 [certified]")
    else:
        unproved.append(f"δ(0) < 1: δ(0) = {_show(d0)} is not separated from 1")

    # -- grid ------------------------------------------------------------------
    thresholds, simple = _thresholds(expr)
    if thresholds and thresholds[-1] >= M:
        M = Fraction(math.floor(thresholds[-1]) + 1)
    inner_t = [t for t in thresholds if 0 <= t < M] if simple else []
    grid = sorted({Fraction(0), M} | {M * k / cells for k in range(1, cells)} | set(inner_t))
    base = list(zip(grid[:-1], grid[1:]))

    # -- witness scan: certain violations at grid points and midpoints ----------
    pts = sorted(set(grid) | {(a + b) / 2 for a, b in base})
    vals = [P.at(t) for t in pts]
    for t, v in zip(pts, vals):
        if not v.is_finite() and _certainly_not_real(expr, t):
            raise InputError(f"not a privacy profile: δ({_fmt(t)}) = {expr.subs(EPS, sympy.Rational(t.numerator, t.denominator))} "
                             "is not a real number")
        if v > 1:
            raise InputError(f"not a privacy profile: δ({_fmt(t)}) = {_show(v)} > 1")
        if v < 0:
            raise InputError(f"not a privacy profile: δ({_fmt(t)}) = {_show(v)} < 0")
    for (p, vp), (q, vq) in zip(zip(pts, vals), zip(pts[1:], vals[1:])):
        if vp < vq:
            raise InputError(
                f"not a privacy profile: δ increases, δ({_fmt(p)}) = {_show(vp)} < δ({_fmt(q)}) = {_show(vq)}"
            )

    # -- monotonicity on cells ------------------------------------------------
    def rep_of(a: Fraction, b: Fraction) -> Fraction | None:
        return (a + b) / 2 if simple else None

    budget = max_cells
    mono_bad: list[tuple[Fraction, Fraction]] = []
    value_bad: list[tuple[Fraction, Fraction]] = []
    n_cells = 0
    stack = list(reversed(base))
    while stack:
        a, b = stack.pop()
        v, d = P.cell(a, b, rep_of(a, b))
        budget -= 1
        values_ok = v[0] >= 0 and v[1] <= 1
        if d[1] <= 0:
            n_cells += 1
            if not values_ok:
                value_bad.append((a, b))
            continue
        if d[0] > 0:
            w = b - a
            p, q = a + w / 4, a + 3 * w / 4
            vp, vq = P.at(p), P.at(q)
            if vp < vq:
                raise InputError(
                    f"not a privacy profile: δ increases, δ({_fmt(p)}) = {_show(vp)} < δ({_fmt(q)}) = {_show(vq)}"
                )
        if b - a > 2 * width_min and budget > 2:
            m = (a + b) / 2
            stack.append((m, b))
            stack.append((a, m))
        else:
            n_cells += 1
            mono_bad.append((a, b))
            if not values_ok:
                value_bad.append((a, b))

    # -- switch points: left limit >= value >= right limit -----------------------
    jump_bad: list[Fraction] = []
    jump_ok: list[Fraction] = []
    if simple:
        cells_at = {a: b for a, b in base}
        ends_at = {b: a for a, b in base}
        for t in inner_t:
            vt = P.at(t)
            if not (vt >= 0 and vt <= 1):  # the cells enclose the branches, not δ(t)
                value_bad.append((t, t))
            ok = True
            sides = []
            if t in ends_at:
                sides.append(("left", ends_at[t], t))
            if t in cells_at:
                sides.append(("right", t, cells_at[t]))
            for side, a, b in sides:
                rep = (a + b) / 2
                lim = P.cell(t, t, rep)[0]
                good = lim[0] >= vt.upper() if side == "left" else lim[1] <= vt.lower()
                if not good:
                    good = _exactly_equal(_resolve(expr, rep), expr, t)
                if not good:
                    bad = lim[1] < vt.lower() if side == "left" else lim[0] > vt.upper()
                    if bad:
                        _jump_witness(P, t, vt, a if side == "left" else b, side)
                    ok = False
            (jump_ok if ok else jump_bad).append(t)

    # -- tail [M, ∞): witness scan at M·2^k, then the enclosure ------------------
    prev_t, prev_v = pts[-1], vals[-1]
    for k in range(1, TAIL_SCAN + 1):
        t = M * 2**k
        v = P.at(t)
        if v > 1:
            raise InputError(f"not a privacy profile: δ({_fmt(t)}) = {_show(v)} > 1")
        if v < 0:
            raise InputError(f"not a privacy profile: δ({_fmt(t)}) = {_show(v)} < 0")
        if prev_v < v:
            raise InputError(
                f"not a privacy profile: δ increases, δ({_fmt(prev_t)}) = {_show(prev_v)} < δ({_fmt(t)}) = {_show(v)}"
            )
        prev_t, prev_v = t, v
    tv, td = P.cell(M, None, None)
    tail_mono = td[1] <= 0
    tail_vals = tv[0] >= 0 and tv[1] <= 1
    if tv[0] > 1 or tv[1] < 0:
        raise InputError(f"not a privacy profile: δ on [{_fmt(M)}, ∞) lies in [{_end(tv[0])}, {_end(tv[1])}]")

    # -- conclusions ---------------------------------------------------------------
    mono_head = not mono_bad and not jump_bad
    sw = f", switch points {', '.join(_fmt(t) for t in jump_ok)} checked" if jump_ok else ""
    if mono_head:
        proved.append(
            f"δ non-increasing on [0, {_fmt(M)}] [certified: derivative enclosure <= 0 on {n_cells} cells{sw}]"
        )
    else:
        for a, b in _merge(mono_bad)[:5]:
            unproved.append(f"δ non-increasing on [{_fmt(a)}, {_fmt(b)}]: derivative sign undecided")
        if len(_merge(mono_bad)) > 5:
            unproved.append(f"... and {len(_merge(mono_bad)) - 5} more intervals")
        for t in jump_bad:
            unproved.append(f"δ non-increasing across the switch point eps = {_fmt(t)}: one-sided limits undecided")
        if not simple and expr.has(sympy.Piecewise):
            unproved.append("(Piecewise conditions other than 'eps < c' with rational c are only checked on closed cells)")
    if tail_mono:
        proved.append(f"δ non-increasing on [{_fmt(M)}, ∞) [certified: derivative enclosure <= 0 on the tail]")
    else:
        unproved.append(
            f"δ non-increasing on [{_fmt(M)}, ∞): derivative enclosure on the tail is [{_end(td[0])}, {_end(td[1])}]"
        )

    dM = P.at(M)
    upper_ok = mono_head and d0 < 1
    lower_head = mono_head and dM >= 0
    if not upper_ok or not lower_head:
        bad_vals = _merge([c for c in value_bad])
        if not bad_vals:
            upper_ok = lower_head = True
            proved.append(f"0 <= δ <= 1 on [0, {_fmt(M)}] [certified on cells]")
        else:
            for a, b in bad_vals[:5]:
                unproved.append(f"0 <= δ <= 1 on [{_fmt(a)}, {_fmt(b)}]")
    else:
        proved.append(
            f"0 <= δ <= 1 on [0, {_fmt(M)}] [from monotonicity: δ <= δ(0) < 1 and δ >= δ({_fmt(M)}) = {_show(dM)}]"
        )
    if tail_vals:
        proved.append(f"0 <= δ <= 1 on [{_fmt(M)}, ∞) [certified: tail enclosure [{_end(tv[0])}, {_end(tv[1])}]]")
    elif tail_mono and tv[0] >= 0 and dM <= 1:
        proved.append(f"0 <= δ <= 1 on [{_fmt(M)}, ∞) [from monotonicity and δ({_fmt(M)}) <= 1]")
    else:
        unproved.append(f"0 <= δ <= 1 on [{_fmt(M)}, ∞): tail enclosure [{_end(tv[0])}, {_end(tv[1])}]")
    return ProfileCheck(tuple(proved), tuple(unproved))


def _exactly_equal(branch: sympy.Expr, expr: sympy.Expr, t: Fraction) -> bool:
    """Is the branch's value at t exactly δ(t)?  (sympy on exact numbers.)"""
    r = sympy.Rational(t.numerator, t.denominator)
    try:
        diff = branch.subs(EPS, r) - expr.subs(EPS, r)
        # sympy's automatic evaluation settles typical junctions (1 - exp(0) = 0);
        # no simplify(): it can take minutes, and an undecided junction is
        # reported as unproved instead
        return diff == 0 or (len(str(diff)) < 2000 and sympy.expand(diff) == 0)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def _jump_witness(P: _Profile, t: Fraction, vt: arb, far: Fraction, side: str) -> None:
    """Find a certified upward jump next to the switch point t and raise."""
    for k in range(1, 60):
        s = t + (far - t) / 2**k
        vs = P.at(s)
        if side == "left" and vs < vt:
            raise InputError(
                f"not a privacy profile: δ increases, δ({_fmt(s)}) = {_show(vs)} < δ({_fmt(t)}) = {_show(vt)}"
            )
        if side == "right" and vs > vt:
            raise InputError(
                f"not a privacy profile: δ increases, δ({_fmt(t)}) = {_show(vt)} < δ({_fmt(s)}) = {_show(vs)}"
            )
