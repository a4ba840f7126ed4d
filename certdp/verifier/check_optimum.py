"""Value certificates for the two optima of Liu et al. 2022 (seed 000_51e7fe2ae605e010):
the switch point of a refined profile (App. B) and the noise refinement of a
σ-formula (App. C, §5.2).

Both claim where a function of one variable attains its extremum.  The evidence
names a bracket [r0, r1]; the checker re-proves, on cells it bisects itself
(ball arithmetic, :func:`certdp.numerics.cells.prove_on_cells`), that every
extremiser lies in the bracket, then encloses the claimed quantity over it.

**Switch point** (``switch_eps``, ``switch_delta``; mechanism ``sgd(...)`` or
``icea(...)`` with its naive profile δ̂ from
:class:`certdp.verifier.mechs.NaiveFamily`; evidence ``{"bracket": [r0, r1],
"tail": T}``).  q(x) = (1 − min(1, δ̂(x)))/(1 + eˣ) and, where δ̂ < 1,
q' = −S/(1 + eˣ)² with S(x) = δ̂'(x)(1 + eˣ) + (1 − δ̂(x))eˣ.  Every maximiser of
q on [0, ∞) lies in [r0, r1] when

* every cell of [0, r0] has S < 0 or q < q(r0) (where δ̂ cannot be enclosed, at
  ICEA's pole, q ≤ (1 − min(1, δ̂(b)))/(1 + eᵃ) on [a, b]: δ̂ is non-increasing);
* every cell of [r1, T] has S > 0 or q < q(r0);
* 1/(1 + e^T) < q(r0), which bounds q beyond T (δ̂ ≥ 0).

A point with δ̂ ≥ 1 has q = 0 < q(r0); elsewhere S < 0 makes q strictly
increasing, so no maximiser lies left of r0 (symmetrically right of r1), and q,
continuous where δ̂ is enclosed, attains its maximum on [r0, r1].  ``switch_eps``
needs [r0, r1] ⊆ [lo, hi]; ``switch_delta`` (δ* = δ̂(ε*)) needs
min(1, δ̂)([r0, r1]) ⊆ [lo, hi].

**Noise refinement** (``refined_sigma``, ``refined_eps0``, ``refined_delta0``; no
mechanism; ``claim.formula`` is σ = f(eps, delta), ``claim.at`` the target
(ε, δ), closed forms such as ``exp(-2)`` allowed; evidence ``{"bracket": [r0, r1]}``).
δ0(x) = (δ + e^ε − (1 − δ)eˣ)/(1 + e^ε) on [ε, x_max], x_max = log((δ + e^ε)/(1 − δ))
(where δ0 = 0), F(x) = f(x, δ0(x)).  Every minimiser of F lies in [r0, r1] when
every cell of [ε, r0] has F' < 0 or F > F(ρ), every cell of [r1, x_max] has
F' > 0 or F > F(ρ) (ρ = max(r0, ε), a point of the domain), and F is enclosed on
[r0, r1].  A cell where F cannot be enclosed (δ0 → 0) is bounded by
F ≥ f(x_max, δ0(a)), which needs f non-increasing in ε and in δ: proved by sympy
(:mod:`certdp.expr.monotone`) or stated in ``claim.assumptions``.  Then
σ* ∈ F([r0, r1]), ε0 ∈ [r0, r1], δ0* ∈ δ0([r0, r1]).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy
from flint import arb

from certdp.verifier.facts import assumptions_of
from certdp.verifier.schema import MalformedCertificate, _fields, number_string
from certdp.errors import InputError, PrecisionError
from certdp.expr.derivative import derivative_function, expression_functions
from certdp.expr.evaluate import compile_ball, evaluate_ball
from certdp.expr.monotone import monotonicity_assumption
from certdp.expr.parser import parse_expression
from certdp.expr.symbols import DELTA, EPS
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.cells import CellBudgetExceeded, prove_on_cells
from certdp.numerics.decide import decide
from certdp.numerics.exact import exact

#: Largest tail point T of a switch-point certificate (q ≤ 1/(1+e^T) beyond it).
MAX_TAIL = 10_000
#: Cells one proof may use (the seeds' proofs use about 160).
MAX_CELLS = 2_000


def _num(text: Any, where: str) -> Fraction:
    try:
        return exact(number_string(text, where), where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def _bracket(doc: Mapping[str, Any], tail: bool) -> tuple[Fraction, Fraction, Fraction | None]:
    ev = _fields(doc["evidence"], "evidence", {"bracket", "tail"} if tail else {"bracket"}, set())
    b = ev["bracket"]
    if not isinstance(b, list) or len(b) != 2:
        raise MalformedCertificate("evidence.bracket must be a list [r0, r1] of two decimal strings")
    r0, r1 = _num(b[0], "evidence.bracket[0]"), _num(b[1], "evidence.bracket[1]")
    if not r0 <= r1:
        raise MalformedCertificate("evidence.bracket needs r0 <= r1")
    t = _num(ev["tail"], "evidence.tail") if tail else None
    if t is not None and not (r1 <= t <= MAX_TAIL and r0 >= 0):
        raise MalformedCertificate(f"evidence needs 0 <= r0 <= r1 <= tail <= {MAX_TAIL}")
    return r0, r1, t


def _inside(x: arb, lo: Fraction, hi: Fraction) -> bool | None:
    """[x] ⊆ [lo, hi] (True), certainly not (False), or undecided (None)."""
    if not x.is_finite():
        return None
    if lower_bound(x) >= to_ball(lo) and upper_bound(x) <= to_ball(hi):
        return True
    if x.upper() < to_ball(lo) or x.lower() > to_ball(hi):
        return False
    return None


def _run(proof: Callable[[], str | None], prec: int) -> str | None:
    """Run ``proof`` (None: holds; a string: the failing step; PrecisionError:
    undecided, retried) at prec, 2 prec, 4 prec (the one decision loop)."""
    failed: list[str] = []

    def test(p: int) -> bool | None:
        with working_precision(p):
            try:
                step = proof()
            except PrecisionError as err:
                failed[:] = [f"undecided: {err}"]
                return None
        failed[:] = [] if step is None else [step]
        return True

    try:
        decide(test, start=prec, doublings=2, what="an optimum certificate's proof")
    except PrecisionError:
        return failed[0] if failed else "undecided"
    return failed[0] if failed else None


def check_switch(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a switch-point value certificate, or None."""
    from certdp.verifier.mechs import NaiveFamily, parse  # noqa: PLC0415

    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("a switch point needs its mechanism (a spec string)")
    try:
        mech = parse(doc["mechanism"])
    except InputError as err:
        raise MalformedCertificate(f"mechanism: {err}") from None
    if not isinstance(mech, NaiveFamily):
        raise MalformedCertificate("switch points are certified for sgd(...) and icea(...) only")
    if assumptions_of(doc):
        return "claim.assumptions lists hypotheses the mechanism does not have"
    r0, r1, tail = _bracket(doc, tail=True)
    naive = mech.naive()
    sol = compile_ball(naive, (EPS,))
    dsol = derivative_function(naive)  # guarded at breakpoints: NaN on a cell that holds one
    if dsol is None:
        return "the naive profile's derivative cannot be evaluated"

    def dhat(x: arb) -> arb:  # min(1, δ̂) on the ball x (δ̂ > 0)
        s = sol(x)
        if not s.is_finite():
            return arb(0).union(arb(1))
        return arb(1) if s >= 1 else (s if s < 1 else s.union(arb(1)))

    def q(x: arb) -> arb:
        return (1 - dhat(x)) / (1 + x.exp())

    def big_s(x: arb) -> arb:
        return dsol(x) * (1 + x.exp()) + (1 - sol(x)) * x.exp()

    def proof() -> str | None:
        b0, b1, bt = lower_bound(to_ball(r0)), upper_bound(to_ball(r1)), upper_bound(to_ball(tail))
        q_star, tail_q = q(b0).lower(), 1 / (1 + bt.exp())
        if not tail_q < q_star:
            if tail_q >= q(b0).upper():
                return f"1/(1 + e^T) < q(r0) does not hold at T = {doc['evidence']['tail']}: the tail is not excluded"
            raise PrecisionError("1/(1 + e^T) against q(r0)")

        def below(c: arb) -> bool:
            if sol(c).is_finite():
                return bool(q(c).upper() < q_star)
            return bool(((1 - dhat(upper_bound(c))) / (1 + lower_bound(c).exp())).upper() < q_star)

        def left(c: arb) -> bool:
            s = big_s(c)
            return bool((s.is_finite() and s < 0) or below(c))

        def right(c: arb) -> bool:
            s = big_s(c)
            return bool((s.is_finite() and s > 0) or below(c))

        try:
            if r0 > 0:
                prove_on_cells(arb(0), b0, left, MAX_CELLS)
        except CellBudgetExceeded:
            return "a cell of [0, r0] has neither S < 0 nor q < q(r0): a maximiser may lie left of the bracket"
        try:
            if r1 < tail:
                prove_on_cells(b1, bt, right, MAX_CELLS)
        except CellBudgetExceeded:
            return "a cell of [r1, T] has neither S > 0 nor q < q(r0): a maximiser may lie right of the bracket"
        hull = b0.union(b1)
        if not sol(hull).is_finite():
            raise PrecisionError("δ̂ cannot be enclosed on the bracket")
        inside = _inside(hull if quantity == "switch_eps" else dhat(hull), lo, hi)
        if inside is None:
            raise PrecisionError("δ̂ on the bracket against [lo, hi]")
        return None if inside else f"{quantity} on the bracket is not inside [lo, hi]"

    return _run(proof, prec)


def refined_setup(doc: Mapping[str, Any]) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
    """(f, ε, δ) of a noise-refinement claim, parsed by the safe parser
    (MalformedCertificate on any problem)."""
    claim = doc["claim"]
    if doc["mechanism"] is not None:
        raise MalformedCertificate("a noise refinement has no mechanism (mechanism must be null)")
    if not isinstance(claim.get("formula"), str):
        raise MalformedCertificate("claim.formula must be the σ = f(eps, delta) formula as a string")
    try:
        f = parse_expression(claim["formula"], ("eps", "delta"))
        at = {k: parse_expression(number_string(v, f"claim.at.{k}"), ()) for k, v in claim["at"].items()}
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    if DELTA not in f.free_symbols:
        raise MalformedCertificate("claim.formula does not depend on delta")
    return f, at["eps"], at["delta"]


def check_refined(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a noise-refinement value certificate, or None."""
    f, e, d = refined_setup(doc)
    needed, stated = monotonicity_assumption(f), assumptions_of(doc)
    if set(needed) != set(stated):
        return ("claim rests on an unproved hypothesis it does not state: " + needed[0] if needed
                else "claim.assumptions lists hypotheses the formula does not need")
    r0, r1, _ = _bracket(doc, tail=False)
    d0 = (d + sympy.exp(e) - (1 - d) * sympy.exp(EPS)) / (1 + sympy.exp(e))
    fns = expression_functions(f.xreplace({DELTA: d0}))
    if fns is None:
        return "F(x) = f(x, δ0(x)) or its derivative cannot be evaluated"
    big_f, dbig_f = fns
    f2 = compile_ball(f, (EPS, DELTA))
    d0b = compile_ball(d0, (EPS,))

    def proof() -> str | None:
        eb, db = evaluate_ball(e, {}), evaluate_ball(d, {})
        if not (eb.is_finite() and db.is_finite()):
            raise PrecisionError("the target (eps, delta) cannot be enclosed")
        if not (eb >= 0 and db > 0 and db < 1):
            if eb < 0 or db <= 0 or db >= 1:
                return "claim.at needs eps >= 0 and 0 < delta < 1"
            raise PrecisionError("the target's range")
        xmax = ((db + eb.exp()) / (1 - db)).log()
        xmax_up, e_lo = upper_bound(xmax), lower_bound(eb)
        b0, b1 = lower_bound(to_ball(r0)), upper_bound(to_ball(r1))  # exact ends, outward
        if not b0 < xmax:  # F(r0) must be a value on the domain (f may be defined beyond it)
            if b0 >= xmax:
                return "the bracket's left end is not below x_max: outside the domain [ε, x_max]"
            raise PrecisionError("the bracket's left end against x_max")
        rho = b0 if b0 >= eb else eb  # a point of the domain [ε, x_max]
        f_ref = big_f(rho)
        if not f_ref.is_finite():
            raise PrecisionError("F cannot be enclosed at the bracket's left end")
        f_ref_up = f_ref.upper()

        def above(c: arb) -> bool:
            v = big_f(c)
            if v.is_finite():
                return bool(v.lower() > f_ref_up)
            # f non-increasing in ε and δ: proved, or stated in claim.assumptions (checked above)
            w = f2(xmax_up, d0b(lower_bound(c)))
            return bool(w.is_finite() and w.lower() > f_ref_up)

        def left(c: arb) -> bool:
            g = dbig_f(c)
            return bool((g.is_finite() and g < 0) or above(c))

        def right(c: arb) -> bool:
            if lower_bound(c) > xmax:  # beyond the domain
                return True
            g = dbig_f(c)
            return bool((g.is_finite() and g > 0) or above(c))

        try:
            if b0 > e_lo:
                prove_on_cells(e_lo, b0, left, MAX_CELLS)
        except CellBudgetExceeded:
            return "a cell of [ε, r0] has neither F' < 0 nor F > F(r0): a minimiser may lie left of the bracket"
        try:
            if b1 < xmax_up:
                prove_on_cells(b1, xmax_up, right, MAX_CELLS)
        except CellBudgetExceeded:
            return "a cell of [r1, x_max] has neither F' > 0 nor F > F(r0): a minimiser may lie right of the bracket"
        hull = b0.union(b1)
        value = {"refined_sigma": big_f(hull), "refined_delta0": d0b(hull)}.get(quantity, hull)
        inside = _inside(value, lo, hi)
        if inside is None:
            raise PrecisionError(f"{quantity} on the bracket against [lo, hi]")
        return None if inside else f"{quantity} on the bracket is not inside [lo, hi]"

    return _run(proof, prec)
