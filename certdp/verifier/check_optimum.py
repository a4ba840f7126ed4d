"""Value certificates for the two optima of Liu et al. 2022:
the switch point of a refined profile (App. B) and the noise refinement of a
σ-formula (App. C, §5.2).

Both claim where a function of one variable attains its extremum.  The evidence
names a bracket [r0, r1]; the checker re-proves, on cells it bisects itself
(ball arithmetic, :func:`certdp.numerics.cells.prove_on_cells`), that every
extremiser lies in the bracket, then encloses the claimed quantity over it.

**Switch point**: :mod:`certdp.verifier.switch` (sympy-free).

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
from typing import Any, Mapping

import sympy
from flint import arb

from certdp.verifier.facts import assumptions_of
from certdp.verifier.schema import MalformedCertificate, number_string
from certdp.verifier.switch import MAX_CELLS, bracket_of, inside as _inside, run_proof as _run
from certdp.verifier.errors import InputError, PrecisionError
from certdp.expr.derivative import expression_functions
from certdp.expr.evaluate import compile_ball, evaluate_ball
from certdp.expr.monotone import monotonicity_assumption
from certdp.expr.parser import parse_expression
from certdp.expr.symbols import DELTA, EPS
from certdp.verifier.ball import lower_bound, to_ball, upper_bound
from certdp.verifier.cells import CellBudgetExceeded, prove_on_cells


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
    r0, r1, _ = bracket_of(doc["evidence"], "evidence", tail=False)
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
