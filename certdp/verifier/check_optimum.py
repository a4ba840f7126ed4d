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
F ≥ f(x_max, δ0(a)), which needs f non-increasing in ε and in δ: proved by the sign
calculus (:mod:`certdp.verifier.formula_monotone`) or stated in ``claim.assumptions``.  Then
σ* ∈ F([r0, r1]), ε0 ∈ [r0, r1], δ0* ∈ δ0([r0, r1]).

The formula and the target are read by the checker's own grammar
(:mod:`certdp.verifier.formula`: numbers, eps, delta, + − × ÷, rational powers, log,
exp, sqrt, pi, E), evaluated with F' by forward-mode differentiation in balls: no sympy.
A formula outside it (``if``, ``Piecewise``, ``Max``, ``erf``, ... of the safe parser's
language, which the writer accepts) takes the sympy route (safe parser, expression
evaluator), and its monotonicity is always a stated hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from flint import arb

from certdp.verifier import formula as fm
from certdp.verifier.ball import lower_bound, to_ball, upper_bound
from certdp.verifier.cells import CellBudgetExceeded, prove_on_cells
from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.facts import assumptions_of
from certdp.verifier.formula_monotone import assumption_text, monotonicity_assumption
from certdp.verifier.schema import MalformedCertificate, number_string
from certdp.verifier.switch import MAX_CELLS, bracket_of, inside as _inside, run_proof as _run

Ball = Callable[[arb], arb]


@dataclass(frozen=True)
class Functions:
    """A refinement's functions in balls: F, F', f(x, d), δ0, and the target (ε, δ)."""

    big_f: Ball
    dbig_f: Ball
    f2: Callable[[arb, arb], arb]
    d0b: Ball
    eps: Callable[[], arb]
    delta: Callable[[], arb]


@dataclass(frozen=True)
class Refinement:
    """σ = f(eps, delta), the target (ε, δ) as exact trees, and the formula's text."""

    f: fm.Node
    eps: fm.Node
    delta: fm.Node
    text: str

    def delta0(self) -> fm.Node:
        """δ0(x) = (δ + e^ε − (1 − δ)eˣ)/(1 + e^ε), x the variable ``eps``."""
        e, d, op, call = self.eps, self.delta, fm.Op, fm.call
        top = call(op.SUB, call(op.ADD, d, call(op.EXP, e)),
                   call(op.MUL, call(op.SUB, fm.num(1), d), call(op.EXP, fm.var("eps"))))
        return call(op.DIV, top, call(op.ADD, fm.num(1), call(op.EXP, e)))

    def big_f(self) -> fm.Node:
        """F(x) = f(x, δ0(x))."""
        return fm.substitute(self.f, "delta", self.delta0())


def refinement(doc: Mapping[str, Any]) -> Refinement:
    """The formula and target of a noise-refinement certificate (MalformedCertificate on any
    problem; :class:`certdp.verifier.formula.Unsupported` when they need the safe parser's larger language)."""
    claim = doc["claim"]
    if doc["mechanism"] is not None:
        raise MalformedCertificate("a noise refinement has no mechanism (mechanism must be null)")
    text = claim.get("formula")
    if not isinstance(text, str):
        raise MalformedCertificate("claim.formula must be the σ = f(eps, delta) formula as a string")
    at = claim.get("at")
    if not isinstance(at, dict) or set(at) != {"eps", "delta"}:
        raise MalformedCertificate("claim.at must give eps and delta")
    f = fm.parse(text)
    e, d = (fm.parse(number_string(at[k], f"claim.at.{k}"), (), f"claim.at.{k}") for k in ("eps", "delta"))
    if "delta" not in f.variables():
        raise MalformedCertificate("claim.formula does not depend on delta")
    return Refinement(f, e, d, text)


def grammar_functions(r: Refinement) -> Functions:
    """The functions of a formula in the checker's own grammar (sympy-free)."""
    big, d0, b = r.big_f(), r.delta0(), fm.BALLS
    return Functions(
        big_f=lambda c: fm.evaluate(big, {"eps": c}, b),
        dbig_f=lambda c: fm.value_and_slope(big, c, b)[1],
        f2=lambda x, d: fm.evaluate(r.f, {"eps": x, "delta": d}, b),
        d0b=lambda c: fm.evaluate(d0, {"eps": c}, b),
        eps=lambda: fm.evaluate(r.eps, {}, b),
        delta=lambda: fm.evaluate(r.delta, {}, b),
    )


def refined_setup(doc: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """(f, ε, δ) of a noise-refinement claim outside the checker's grammar, parsed by the
    safe parser into sympy (MalformedCertificate on any problem)."""
    from certdp.expr.parser import parse_expression  # noqa: PLC0415  (sympy: formulas outside the grammar)
    from certdp.expr.symbols import DELTA  # noqa: PLC0415

    claim = doc["claim"]
    try:
        f = parse_expression(claim["formula"], ("eps", "delta"))
        at = {k: parse_expression(number_string(v, f"claim.at.{k}"), ()) for k, v in claim["at"].items()}
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    if DELTA not in f.free_symbols:
        raise MalformedCertificate("claim.formula does not depend on delta")
    return f, at["eps"], at["delta"]


def _sympy_functions(doc: Mapping[str, Any]) -> Functions | None:
    """The functions of a formula the grammar refuses (if, Piecewise, Max, erf, ...), by the
    safe parser and the expression evaluator; None when F' cannot be evaluated."""
    import sympy  # noqa: PLC0415

    from certdp.expr.derivative import expression_functions  # noqa: PLC0415
    from certdp.expr.evaluate import compile_ball, evaluate_ball  # noqa: PLC0415
    from certdp.expr.symbols import DELTA, EPS  # noqa: PLC0415

    f, e, d = refined_setup(doc)
    d0 = (d + sympy.exp(e) - (1 - d) * sympy.exp(EPS)) / (1 + sympy.exp(e))
    fns = expression_functions(f.xreplace({DELTA: d0}))
    if fns is None:
        return None
    f2, d0b = compile_ball(f, (EPS, DELTA)), compile_ball(d0, (EPS,))
    return Functions(fns[0], fns[1], f2, d0b, lambda: evaluate_ball(e, {}), lambda: evaluate_ball(d, {}))


def setup(doc: Mapping[str, Any]) -> tuple[Refinement | None, tuple[str, ...]]:
    """The refinement in the grammar (None: outside it, the sympy route) and the hypothesis
    it must state (:mod:`certdp.verifier.formula_monotone`; always, outside the grammar)."""
    try:
        r = refinement(doc)
    except fm.Unsupported:
        return None, (assumption_text(doc["claim"]["formula"]),)
    return r, monotonicity_assumption(r.text)


def assumption_step(needed: tuple[str, ...], doc: Mapping[str, Any]) -> str | None:
    if set(needed) != set(assumptions_of(doc)):
        return ("claim rests on an unproved hypothesis it does not state: " + needed[0] if needed
                else "claim.assumptions lists hypotheses the formula does not need")
    return None


def check_refined(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a noise-refinement value certificate, or None."""
    r, needed = setup(doc)
    step = assumption_step(needed, doc)
    if step is not None:
        return step
    r0, r1, _ = bracket_of(doc["evidence"], "evidence", tail=False)
    fns = grammar_functions(r) if r is not None else _sympy_functions(doc)
    if fns is None:
        return "F(x) = f(x, δ0(x)) or its derivative cannot be evaluated"
    big_f, dbig_f, f2, d0b = fns.big_f, fns.dbig_f, fns.f2, fns.d0b

    def proof() -> str | None:
        eb, db = fns.eps(), fns.delta()
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
