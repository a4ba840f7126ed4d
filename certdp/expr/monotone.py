"""Monotonicity of σ = f(ε, δ) formulas (Liu et al. 2022 App. C, §5.2).

The noise refinement's cell proof bounds f near ε0_max, where δ0 → 0 and f
cannot be enclosed, by f(ε0_max, δ0(cell's left end)); that bound needs f
non-increasing in ε and in δ.  The one owner of that verdict is the checker's sign
calculus (:mod:`certdp.verifier.formula_monotone`), on the formula's text:
:func:`monotonicity_assumption` is that calculus, for the search
(:mod:`certdp.analyses.noise_refinement`), so the writer and the checker state the same
hypothesis.  :func:`decreasing_in_eps_and_delta` is sympy's own proof, kept as an
independent cross-check for the tests (``tests/verifier/test_formula_grammar.py``); neither
the writer nor the checker uses it.
"""

from __future__ import annotations

import sympy

from certdp.expr.derivative import may_jump
from certdp.expr.symbols import DELTA, EPS, EPS_POS

_U = sympy.Symbol("_u", positive=True)


def _may_blow_up(f: sympy.Expr) -> bool:
    """A pole or a log singularity sympy has not proved absent (1/(eps - 6/5) is
    decreasing on both sides of its jump from -oo to +oo)."""
    pos = f.xreplace({EPS: EPS_POS, DELTA: 1 / (1 + _U)})
    return any((n.is_Pow and n.exp.is_negative and n.base.free_symbols and n.base.is_positive is not True)
               or (isinstance(n, sympy.log) and n.args[0].is_positive is not True)
               for n in sympy.preorder_traversal(pos))


def decreasing_in_eps_and_delta(formula: sympy.Expr) -> bool:
    """Does sympy *prove* ∂f/∂ε <= 0 and ∂f/∂δ <= 0 for ε > 0, 0 < δ < 1
    (δ = 1/(1+u), u > 0; other symbols positive)?  False means "not proved".

    A formula that may jump (``if``/Piecewise) is never proved this way: sympy
    differentiates it piece by piece and drops the jumps (:func:`may_jump`)."""
    if may_jump(formula) or _may_blow_up(formula):
        return False
    others = {x: sympy.Symbol(x.name, positive=True) for x in formula.free_symbols if x not in (EPS, DELTA)}
    f = formula.xreplace({EPS: EPS_POS, **others})
    try:
        for var in (EPS_POS, DELTA):
            d = sympy.diff(f, var).xreplace({DELTA: 1 / (1 + _U)})
            if sympy.simplify(d).is_nonpositive is not True:
                return False
    except Exception:  # noqa: BLE001 - sympy's own failures mean "not proved"
        return False
    return True


def monotonicity_assumption(formula: str | sympy.Expr) -> tuple[str, ...]:
    """The hypothesis a noise refinement of ``formula`` (its text, as in ``claim.formula``,
    or a sympy expression, read as its printed text) rests on: none when the checker's
    calculus proves it, else its statement."""
    from certdp.verifier.formula_monotone import monotonicity_assumption as calculus  # noqa: PLC0415

    return calculus(formula if isinstance(formula, str) else str(formula))
