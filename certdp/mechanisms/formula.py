"""Mechanisms known only through a privacy–utility equation σ = f(ε, δ).

Liu et al. 2022 (§2, §3, App. B, App. C, §5.2).  Given σ, the *naive* profile is
δ̂(ε) = min(1, δ) with σ = f(ε, δ) solved for δ (closed form, via sympy's
``solve`` on an exact sympy expression -- never on a string).  Every pair
(ε0, δ̂(ε0)) is a valid guarantee, and by Thm 3.1 it implies (ε, g(ε, ε0)) with

    g(ε, ε0) = δ̂(ε0) + (1 − δ̂(ε0)) (e^{ε0} − e^{ε})⁺ / (1 + e^{ε0}),

so the *refined* profile (App. B) is δ(ε) = inf_{ε0 ≥ ε} g(ε, ε0).  For
ε0 ≥ ε one has g = 1 − (1+e^ε) q(ε0) with q(x) = (1 − δ̂(x))/(1 + e^x), and
∂g/∂ε0 = (1+e^ε)/(1+e^{ε0})² · S(ε0), S(x) = δ̂'(x)(1+e^x) + (1−δ̂(x)) e^x,
whose sign does not depend on ε (App. B).

Certified optimisation: branch and bound over ε0-cells.  A cell's lower bound
is the endpoint value when S has a certain sign on the cell (g monotone), else
the mean-value form g(m) + ∂g(cell)(cell − m).  Any g at a point ε0 ≥ ε is an
upper bound.  The tail ε0 ≥ T is bounded by g ≥ 1 − (1+e^ε)/(1+e^T)
(because δ̂ ≥ 0), with T chosen so that this exceeds the upper bound.
Near poles of the closed form (e.g. ICEA's K/ε at 0), where interval
evaluation is not finite, the bound uses δ̂ ≥ δ̂(cell's right end), i.e. it
assumes the naive profile is non-increasing there (a privacy profile must
be); wherever δ̂' is evaluated and is certainly positive, InputError is raised.

Seed findings (certified here, checked in tests/test_tradeoff.py):
* SGD (A=2, B=1, σ=2): ε2 ∈ [1.1878488995805132583, 1.187848899580513258331],
  δ2 = e^{-ε2²} ≈ 0.2439029184.  The printed δ2 ≈ 0.244 holds; the printed
  ε2 ≈ 1.187 is the *truncation* of 1.18785 (rounded it is 1.188).
* ICEA (m=20, n=4): ε3 ≈ 1.1566070354, δ3 = 4e^{-2}/ε3 ≈ 0.4680424002.
  The printed δ3 ≈ 0.468 holds; the printed ε3 ≈ 1.159 is WRONG in the third
  decimal (the true value is 1.1566...; 1.15 holds).
* §5.2 example (σ = −C log δ0/ε0, target (0.2, e^{-2})): ε0 ≈ 0.3338923411,
  δ0 ≈ 0.0672216935, σ ≈ 8.0857178544 C: every printed digit (0.334, 0.067,
  8.086) holds.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy
from flint import arb, ctx

from certdp.errors import InputError, PrecisionError, check_budget
from certdp.expr import compile_ball, evaluate_ball
from certdp.expr.derivative import derivative, may_jump
from certdp.mechanisms.base import EPS, Mechanism, ProfileKind
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.cells import prove_on_cells
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: The δ variable of trade-off formulas (a real symbol named ``delta``).
from certdp.expr.symbols import DELTA, DELTA_POS as _DPOS, EPS_POS as _EPOS  # noqa: E402
_X = sympy.Symbol("_eps0", positive=True)

_MAX_CELLS = 4000


# --------------------------------------------------------------------------
# formula handling and a small ball evaluator
# --------------------------------------------------------------------------


def _to_formula(sigma_formula: object, parameters: Mapping[str, object] | None) -> sympy.Expr:
    """σ-formula as a sympy expression in EPS and DELTA with exact parameters."""
    params = {k: exact(v, k) for k, v in (parameters or {}).items()}
    if isinstance(sigma_formula, str):
        from certdp.expr import parse_expression  # noqa: PLC0415

        expr = parse_expression(sigma_formula, ("eps", "delta"), params)
    elif isinstance(sigma_formula, sympy.Expr):
        expr = sigma_formula
    else:
        raise InputError(f"sigma_formula must be a sympy expression or a string, got {sigma_formula!r}")
    repl: dict[sympy.Symbol, sympy.Expr] = {}
    for s in expr.free_symbols:
        if s.name == "eps":
            repl[s] = EPS
        elif s.name == "delta":
            repl[s] = DELTA
        elif s.name in params:
            repl[s] = sympy.Rational(params[s.name].numerator, params[s.name].denominator)
        else:
            raise InputError(f"trade-off formula has unknown symbol {s.name!r} (give it in parameters)")
    expr = expr.xreplace(repl)
    if DELTA not in expr.free_symbols:
        raise InputError(f"trade-off formula {expr} does not depend on delta")
    _check_supported(expr)
    return expr


def _check_supported(e: sympy.Expr) -> None:
    """Reject expressions the certified evaluator cannot handle (InputError)."""
    compile_ball(e, sorted(e.free_symbols, key=lambda t: t.name))


def _ev(e: sympy.Expr, env: Mapping[sympy.Symbol, arb]) -> arb:
    """Ball containing the range of ``e`` over the balls in ``env``
    (:func:`certdp.expr.evaluate_ball`; non-finite on domain violations such
    as division by a ball containing 0)."""
    return evaluate_ball(e, env)


# --------------------------------------------------------------------------
# the mechanism
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SwitchPoint:
    """Certified switch point of a refined profile (Liu et al. 2022 App. B).

    ``eps`` encloses every maximiser of q(x) = (1−δ̂(x))/(1+e^x) on [0, ∞);
    ``delta`` = δ̂(eps).  Proved: δ(ε) = 1 − (1+e^ε)(1−δ*)/(1+e^{ε*}) for
    ε ≤ ε*, and δ(ε) = δ̂(ε) for ε in [eps.hi, naive_until].  ``tail``: the
    point T beyond which q ≤ 1/(1+e^T) excludes maximisers (a certificate's evidence)."""

    eps: Enclosure
    delta: Enclosure
    naive_until: Fraction
    tail: int = 60

    def to_json(self) -> dict[str, object]:
        """Plain JSON types only: the enclosures as outward decimal strings, exact numbers as strings."""
        return {"eps": self.eps.to_json(), "delta": self.delta.to_json(), "naive_until": str(self.naive_until),
                "tail": self.tail}


class TradeoffMechanism(Mechanism):
    """Mechanism given by a privacy–utility equation σ = f(ε, δ) (Liu et al. 2022 §2, App. B).

    ``delta_ball`` evaluates the *refined* profile inf_{ε0≥ε} g(ε, ε0);
    ``profile()`` returns the symbolic *naive* profile min(1, δ̂(ε)), which is
    a valid (larger) profile of the same mechanism and equals the refined one
    from the switch point on.

    What is known (:class:`~certdp.mechanisms.base.ProfileKind`): the refined
    profile uses one guarantee (ε0, δ̂(ε0)) at a time.  As a function of
    t = e^ε each such implication is the chord from (−1, 1) to (t0, δ̂(ε0)),
    and the worst case over all mechanisms meeting *every* guarantee is the
    largest valid (convex in t) profile below them.  The two agree when δ̂ is
    convex in t beyond the switch point, but not in general (two guarantees
    (0.5, 0.3) and (2, 0.01) imply δ(1) <= 0.246, while the best single
    implication gives 0.3).  So for a general formula the refined profile is
    an UPPER bound, and the branch and bound assumes δ̂ non-increasing near
    poles (an assumption carried by every result); :class:`SGDMechanism`
    and :class:`ICEAMechanism` prove both facts and are exact for their
    guarantee.
    """

    name = "tradeoff"
    own_kind = ProfileKind.UPPER

    def children(self) -> tuple[Mechanism, ...]:
        return ()

    def own_assumptions(self) -> tuple[str, ...]:
        if self.__dict__.get("_naive_monotone") is None:
            self.__dict__["_naive_monotone"] = naive_decreasing(self._sol)
        if self.__dict__["_naive_monotone"]:
            return ()
        return (f"{self.spec()}: the naive profile δ̂(ε) solving σ = f(ε, δ) is non-increasing in ε "
                "(used near poles of its closed form; sympy could not prove it)",)

    def __init__(
        self,
        sigma_formula: object,
        sigma: object,
        parameters: Mapping[str, object] | None = None,
        naive: sympy.Expr | None = None,
    ) -> None:
        """``naive``: the closed-form δ̂(ε) solving σ = f(ε, δ) when the caller
        knows it (SGD, ICEA); otherwise it is found by symbolic solving
        (:mod:`certdp.mechanisms.formula_solve`, which the certificate checker
        never loads)."""
        self._formula = _to_formula(sigma_formula, parameters)
        self._sigma = exact(sigma, "sigma")
        if self._sigma <= 0:
            raise InputError(f"sigma must be positive, got {self._sigma}")
        if naive is None:
            from certdp.mechanisms.formula_solve import solve_naive  # noqa: PLC0415 (search code, loaded on demand)

            naive = solve_naive(self._formula, self._sigma)
        _check_supported(naive)
        self._sol = naive
        self._dsol_search = sympy.diff(self._sol, EPS)  # float search only (lambdify)
        dsol = derivative(self._sol)  # guarded: no information on a cell holding a breakpoint
        if dsol is None:
            raise InputError(f"cannot differentiate the naive profile {self._sol} for a certified proof")
        self._dsol = dsol

    # ---- protocol ---------------------------------------------------------
    @property
    def params(self) -> Mapping[str, Any]:
        return {"sigma_formula": str(self._formula), "sigma": self._sigma}

    @property
    def formula(self) -> sympy.Expr:
        return self._formula

    def naive_profile(self) -> sympy.Expr:
        """δ̂(ε) = min(1, δ solving σ = f(ε, δ))."""
        return sympy.Min(sympy.Integer(1), self._sol)

    def profile(self) -> sympy.Expr:
        """The naive profile (an upper bound of the refined one; see class doc)."""
        return self.naive_profile()

    def naive_delta_ball(self, eps: arb) -> arb:
        return self._dhat(eps)

    def delta_ball(self, eps: arb) -> arb:
        """Ball containing the refined δ(ε) for every ε in ``eps``.

        Fast path (closed form): with the certified switch point (ε*, δ*) of
        :meth:`switch_point`, δ(ε) = 1 − (1+e^ε)·q* for ε <= ε*, where
        q* = max q = (1−δ*)/(1+e^{ε*}) is enclosed by q over the ε* enclosure,
        and δ(ε) = δ̂(ε) (naive) on [ε*.hi, naive_until].  Elsewhere (and if
        the switch point cannot be certified) the branch-and-bound below.
        """
        prec = ctx.prec
        fast = self._switch_fast(eps, prec)
        if fast is not None:
            return fast
        with working_precision(prec + 20):
            lo, hi = self._refined_bounds(eps, prec)
        with working_precision(prec + 20):
            return lo.union(hi)

    def _switch_fast(self, eps: arb, prec: int) -> arb | None:
        """Closed-form refined profile from the cached switch point, or None."""
        digits = max(20, int(prec / 3.3) + 8)
        cache = self.__dict__.setdefault("_switch_cache", {})
        if digits not in cache:
            try:
                cache[digits] = self.switch_point(digits=digits)
            except (InputError, PrecisionError):
                cache[digits] = None
        sp = cache[digits]
        if sp is None or not eps.is_finite():
            return None
        with working_precision(prec + 20):
            star = sp.eps.ball
            if eps.upper() <= sp.eps.lo:
                q_star = (1 - self._dhat(star)) / (1 + star.exp())  # range over [ε*] contains q(ε*)
                return 1 - (1 + eps.exp()) * q_star
            if eps.lower() >= sp.eps.hi and eps.upper() <= to_ball(sp.naive_until):
                return self._dhat(eps)
            if eps.lower() >= to_ball(sp.naive_until):
                # beyond the proved range: 0 <= refined <= naive (inf over ε0 includes ε0 = ε)
                top = self._dhat(eps)
                if top.is_finite():
                    return arb(0).union(top.upper())
        return None

    def refined_delta(self, eps: object, digits: int = 15) -> Enclosure:
        """Certified enclosure of the refined δ(ε) at an exact ε."""
        e = exact(eps, "eps")
        if e < 0:
            raise InputError(f"eps must be >= 0, got {e}")
        prec = max(64, int(digits * 3.33) + 30)
        with working_precision(prec):
            lo, hi = self._refined_bounds(to_ball(e), prec)
            return Enclosure.from_ball(lo.union(hi))

    # ---- ball pieces --------------------------------------------------------
    def _sol_ball(self, x: arb) -> arb:
        return _ev(self._sol, {EPS: x})

    def _dhat(self, x: arb) -> arb:
        """Ball of δ̂ = min(1, sol) on the ball x (uses δ̂ ∈ [0, 1])."""
        s = self._sol_ball(x)
        if not s.is_finite():
            return arb(0).union(arb(1))
        if s >= 1:
            return arb(1)
        if s < 1 and s >= 0:
            return s
        lo = lower_bound(s)
        lo = lo if lo > 0 else arb(0)
        return lo.union(arb(1)) if not s < 1 else lo.union(upper_bound(s))

    def _g(self, e: arb, x: arb, d: arb) -> arb:
        """g(ε, x) = d + (1 − d) e^ε expm1(x − ε)/(1 + e^x) (formula without ⁺)."""
        return d + (1 - d) * e.exp() * (x - e).expm1() / (1 + x.exp())

    def _cell_lower(self, e: arb, lo: arb, hi: arb) -> arb:
        """Certified lower bound of g(ε, x) over ε ∈ e, x ∈ [lo, hi]."""
        cell = lo.union(hi)
        s = self._sol_ball(cell)
        if s.is_finite() and s >= 1:
            return arb(1)
        if s.is_finite() and s < 1:
            ds = _ev(self._dsol, {EPS: cell})
            if ds.is_finite():
                if ds > 0:
                    raise InputError(
                        f"naive profile {self._sol} increases on [{lo.mid()}, {hi.mid()}]"
                    )
                ex = cell.exp()
                big_s = ds * (1 + ex) + (1 - s) * ex
                if big_s > 0:
                    return self._g(e, lo, self._dhat(lo)).lower()
                if big_s < 0:
                    return self._g(e, hi, self._dhat(hi)).lower()
                m = (lo + hi) / 2
                gm = self._g(e, m, self._dhat(m))
                gd = (1 + e.exp()) / (1 + ex) ** 2 * big_s
                mvf = (gm + gd * (cell - m)).lower()
                naive = self._g(e, cell, s).lower()
                return mvf.max(naive) if mvf.is_finite() else naive
            return self._g(e, cell, s).lower()
        if s.is_finite():
            return self._g(e, cell, self._dhat(cell)).lower()
        # interval evaluation failed (pole) or straddles 1: use δ̂ ≥ δ̂(hi)
        dh = self._dhat(hi).lower()
        dh = dh if dh > 0 else arb(0)
        # g is increasing in d and in x-part; bound with d ≥ dh, x ≥ lo
        return (dh + (1 - dh) * e.exp() * (lo - e).expm1() / (1 + lo.exp())).lower()

    def _float_guess(self, b: float) -> float:
        """Float-guided minimiser of g(b, ·) on [b, b+60] (search only)."""
        f = sympy.lambdify(EPS, self._sol, "math")

        def gf(x: float) -> float:
            try:
                d = min(1.0, float(f(x)))
            except (ZeroDivisionError, OverflowError, ValueError):
                d = 1.0
            # (e^x - e^b)/(1 + e^x) written without overflow for x >= b >= 0
            return d + (1 - d) * (1 - math.exp(b - x)) / (1 + math.exp(-x))

        xs = [b + 60 * (k / 600) ** 2 for k in range(601)]
        best = min(xs, key=gf)
        lo, hi = max(b, best - 0.5), best + 0.5
        for _ in range(80):  # golden-ish ternary refinement
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if gf(m1) <= gf(m2):
                hi = m2
            else:
                lo = m1
        return max(b, (lo + hi) / 2)

    def _refined_bounds(self, eps: arb, prec: int) -> tuple[arb, arb]:
        """(lower, upper) exact balls bounding inf_{ε0≥ε} g(ε, ε0) over ε ∈ eps."""
        if not eps.is_finite():
            raise InputError(f"eps ball {eps} is not finite")
        a, b = lower_bound(eps), upper_bound(eps)
        if b < 0:
            raise InputError(f"eps must be >= 0, got ball {eps}")
        if a < 0:  # the profile lives on ε >= 0: enclose its range over eps ∩ [0, ∞)
            a = arb(0)
            eps = a.union(b)
        # upper bound: g at certified points x >= b
        ub = self._g(eps, b, self._dhat(b)).upper()
        xg = to_ball(Fraction(self._float_guess(float(b.mid()))).limit_denominator(1 << 40))
        if xg > b:
            ub = ub.min(self._g(eps, xg, self._dhat(xg)).upper())
        if not ub < 1:
            return arb(0), arb(1)  # no information: [0, 1]
        # tail: for x >= T, g >= 1 - (1+e^b)/(1+e^T) >= ub
        t = math.ceil(math.log((1 + math.exp(min(float(b.mid()), 700))) / max(1 - float(ub.mid()), 1e-300))) + 2
        tt = to_ball(max(t, int(math.ceil(float(b.mid()))) + 1))
        tail = (1 - (1 + b.exp()) / (1 + tt.exp())).lower()
        while not tail >= ub:
            tt = tt * 2
            tail = (1 - (1 + b.exp()) / (1 + tt.exp())).lower()
        tol = arb(2) ** (-(prec - 6))
        # cells narrower than w_min are not split: mean-value bounds are
        # O(w²) at a point ε; for an interval ε the width of eps dominates
        w_min = (arb(2) ** (-(prec // 2 + 4))).max((b - a) / 64)
        heap: list[tuple[float, int, arb, arb, arb]] = []
        counter = 0

        def push(lo: arb, hi: arb) -> None:
            nonlocal counter
            lb = self._cell_lower(eps, lo, hi)
            if not lb.is_finite():
                lb = arb(0)
            counter += 1
            heapq.heappush(heap, (float(lb.mid()), counter, lb, lo, hi))

        push(a, tt)
        for _ in range(_MAX_CELLS):
            key, _c, lb, lo, hi = heap[0]
            cur_lo = lb.min(tail)
            if ub - cur_lo <= tol * ub:
                break
            if hi - lo < w_min:  # the lowest cell is as fine as it needs to be
                break
            heapq.heappop(heap)
            m = to_ball(_mid_fraction(lo, hi))
            if m >= b:
                ub = ub.min(self._g(eps, m, self._dhat(m)).upper())
            if not (m > lo and m < hi):
                heapq.heappush(heap, (key, _c, lb, lo, hi))
                break
            push(lo, m)
            push(m, hi)
        lower = min((h[2] for h in heap), key=lambda v: float(v.mid()))
        for h in heap:
            lower = lower.min(h[2])
        lower = lower.min(tail)
        lower = lower if lower > 0 else arb(0)
        return lower, ub.min(arb(1))

    # ---- switch point -------------------------------------------------------
    def switch_point(self, digits: int = 20, tail: int = 60) -> SwitchPoint:
        """Certified switch point (ε*, δ*) of the refined profile (Liu et al. 2022 App. B).

        Proof steps (all ball arithmetic): S(r0) < 0 < S(r1); every cell of
        [0, r0] has S < 0 or q < q(r0); every cell of [r1, T] has S > 0;
        q(x) ≤ 1/(1+e^T) < q(r0) for x ≥ T.  Hence all maximisers of q lie
        in [r0, r1], and q decreases on [r1, T] (naive = refined there, up to
        the ``naive_until`` point where q exceeds the tail bound)."""
        prec = max(80, int(digits * 3.33) + 40)
        f_s = sympy.lambdify(EPS, self._dsol_search * (1 + sympy.exp(EPS)) + (1 - self._sol) * sympy.exp(EPS), "mpmath")
        # mpmath, not sympy's evalf: evalf expands exp(1e600) digit by digit (minutes)
        f_sol = sympy.lambdify(EPS, self._sol, "mpmath")
        import mpmath  # noqa: PLC0415  (search only)

        with working_precision(prec):

            def big_s(x: arb) -> arb:
                s = self._sol_ball(x)
                return _ev(self._dsol, {EPS: x}) * (1 + x.exp()) + (1 - s) * x.exp()

            def q(x: arb) -> arb:
                return (1 - self._dhat(x)) / (1 + x.exp())

            # float/mpmath search for the sign change of S (search only)
            xs = [Fraction(k, 64) for k in range(1, 64 * 20)]
            root = None
            with mpmath.workdps(30):
                prev = None
                for i, x in enumerate(xs):
                    check_budget("searching the switch point", i, len(xs))
                    try:
                        xm = mpmath.mpf(x.numerator) / x.denominator
                        v = f_s(xm)
                        sv = f_sol(xm)
                        if isinstance(sv, mpmath.mpc):  # float() of a complex value raised, as before
                            raise TypeError("complex")
                        ok = bool(sv < 1)
                    except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                        prev = None
                        continue
                    if ok and prev is not None and prev[1] < 0 < v:
                        root = (prev[0], x)
                        break
                    prev = (x, v) if ok else None
            if root is None:
                raise PrecisionError("no sign change of dg/d eps0 found on (0, 20): no switch point")
            lo, hi = to_ball(root[0]), to_ball(root[1])
            if not (big_s(lo) < 0 and big_s(hi) > 0):
                raise PrecisionError("switch point bracket not certified")
            target = arb(2) ** (-(int(digits * 3.33) + 8))
            while hi - lo > target:
                m = to_ball(_mid_fraction(lo, hi))
                sm = big_s(m)
                if sm < 0:
                    lo = m
                elif sm > 0:
                    hi = m
                else:
                    break
            r0, r1 = lo, hi
            q_star_lo = q(r0).lower()
            tt = to_ball(tail)
            if not (1 / (1 + tt.exp())) < q_star_lo:
                raise PrecisionError("tail bound does not exceed q(eps*)")
            # left of r0: S < 0 or q < q(r0)
            def left_ok(c: arb) -> bool:
                s_c = self._sol_ball(c)
                if s_c.is_finite():
                    return bool(big_s(c) < 0 or q(c).upper() < q_star_lo)
                # pole: q <= (1 - δ̂(right end))/(1 + e^{left end}) (δ̂ non-increasing)
                c_lo, c_hi = lower_bound(c), upper_bound(c)
                return bool(((1 - self._dhat(c_hi)) / (1 + c_lo.exp())).upper() < q_star_lo)

            self._prove_cells(to_ball(0), r0, left_ok)
            # right of r1: S > 0 (q strictly decreasing)
            self._prove_cells(r1, tt, lambda c: big_s(c) > 0)
            # naive = refined on [r1, U] where q(U) > 1/(1+e^T)
            until = Fraction(tail - 2)
            if not q(to_ball(until)).lower() > 1 / (1 + tt.exp()):
                until = Fraction(0)
            e_enc = Enclosure.from_ball(r0.union(r1))
            d_enc = Enclosure.from_ball(self._dhat(r0.union(r1)))
            return SwitchPoint(e_enc, d_enc, until, tail)

    @staticmethod
    def _prove_cells(a: arb, b: arb, ok: Callable[[arb], bool], max_cells: int = 20000) -> None:
        """Check ``ok(cell)`` on a partition of [a, b], splitting as needed
        (:func:`certdp.numerics.cells.prove_on_cells`)."""
        prove_on_cells(a, b, ok, max_cells)


def _mid_fraction(lo: arb, hi: arb) -> Fraction:
    """Exact dyadic midpoint of two exact balls."""
    return (_frac(lo) + _frac(hi)) / 2


def _frac(x: arb) -> Fraction:
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))


# --------------------------------------------------------------------------
# instances (Liu et al. 2022 §2)
# --------------------------------------------------------------------------


class SGDMechanism(TradeoffMechanism):
    """Noisy-SGD family σ = A ε⁻¹ √log(B/δ) (Liu et al. 2022 §2; example A=2, B=1, σ=2)."""

    name = "sgd"

    def __init__(self, A: object, B: object, sigma: object) -> None:  # noqa: N803 (seed notation)
        a, bb = exact(A, "A"), exact(B, "B")
        if a <= 0 or bb <= 0:
            raise InputError(f"sgd: A and B must be positive, got A={a}, B={bb}")
        self._sgd_params = {"A": a, "B": bb, "sigma": exact(sigma, "sigma")}
        ra, rb = sympy.Rational(a.numerator, a.denominator), sympy.Rational(bb.numerator, bb.denominator)
        s = exact(sigma, "sigma")
        rs = sympy.Rational(s.numerator, s.denominator)
        # A/ε √log(B/δ) = σ  ⇔  δ = B exp(−(σε/A)²)
        super().__init__(ra / EPS * sympy.sqrt(sympy.log(rb / DELTA)), sigma,
                         naive=rb * sympy.exp(-((rs * EPS / ra) ** 2)))

    @property
    def params(self) -> Mapping[str, Any]:
        return dict(self._sgd_params)

    def own_assumptions(self) -> tuple[str, ...]:
        return ()  # δ̂ = B exp(−(σε/A)²) is decreasing: nothing assumed

    @property
    def own_kind(self) -> ProfileKind:  # type: ignore[override]
        """GUARANTEE when δ̂(log t) = B exp(−c² log² t), c = σ/A, is convex in t
        on [e^{ε2}, ∞): its second derivative is (2c²δ̂/t²)(2c²u² + u − 1),
        u = log t, positive for u >= ε2 iff 2c²ε2² + ε2 − 1 > 0 (certified at
        the lower end of the switch point ε2); otherwise UPPER."""
        cached = self.__dict__.get("_kind")
        if cached is None:
            cached = ProfileKind.UPPER
            try:
                sp = self.switch_point()
                c = self._sgd_params["sigma"] / self._sgd_params["A"]
                with working_precision(128):
                    u = sp.eps.lo
                    if 2 * to_ball(c * c) * u * u + u - 1 > 0:
                        cached = ProfileKind.GUARANTEE
            except (InputError, PrecisionError):
                pass
            self.__dict__["_kind"] = cached
        return cached


class ICEAMechanism(TradeoffMechanism):
    """ICEA: (ε, δ)-DP if m > 10 log(n/(εδ)) (Liu et al. 2022 §2; example m=20, n=4).

    The strict inequality has the same infimum as the equation m = 10 log(n/(εδ))."""

    name = "icea"

    def __init__(self, m: object, n: object) -> None:
        mm, nn = exact(m, "m"), exact(n, "n")
        if mm <= 0 or nn <= 0:
            raise InputError(f"icea: m and n must be positive, got m={mm}, n={nn}")
        self._icea_params = {"m": mm, "n": nn}
        rn = sympy.Rational(nn.numerator, nn.denominator)
        rm = sympy.Rational(mm.numerator, mm.denominator)
        # 10 log(n/(εδ)) = m  ⇔  δ = n e^{−m/10}/ε
        super().__init__(10 * sympy.log(rn / (EPS * DELTA)), mm, naive=rn * sympy.exp(-rm / 10) / EPS)

    @property
    def params(self) -> Mapping[str, Any]:
        return dict(self._icea_params)

    #: δ̂ = K/ε (K = n e^{−m/10}) is decreasing, and K/log t is convex in t > 1
    #: (second derivative K(log t + 2)/(t² log³ t) > 0), so the refined profile
    #: is the worst case of the ICEA guarantee (see TradeoffMechanism).
    own_kind = ProfileKind.GUARANTEE

    def own_assumptions(self) -> tuple[str, ...]:
        return ()


def sgd(A: object, B: object, sigma: object) -> SGDMechanism:  # noqa: N803
    """The SGD-family mechanism (see :class:`SGDMechanism`)."""
    return SGDMechanism(A, B, sigma)


def icea(m: object, n: object) -> ICEAMechanism:
    """The ICEA mechanism (see :class:`ICEAMechanism`)."""
    return ICEAMechanism(m, n)


def naive_decreasing(sol: sympy.Expr) -> bool:
    """Does sympy prove that the naive δ̂(ε) = sol is non-increasing on ε > 0?
    Never for an expression that may jump (sympy's derivative drops the jumps)."""
    if may_jump(sol):
        return False
    try:
        d = sympy.diff(sol.xreplace({EPS: _EPOS}), _EPOS)
        return sympy.simplify(d).is_nonpositive is True
    except Exception:  # noqa: BLE001
        return False
