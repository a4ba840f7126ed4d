"""Derivatives for proofs on cells, and the one rule about their jumps.

(P, P') as ball functions serve the second-order cell test of
:mod:`certdp.numerics.cells`, the optimum proofs of
:mod:`certdp.verifier.check_optimum` and the searches behind them.  Max/Min
derivatives (Heaviside) are the 0/1 step, a union on a tie: a Clarke-gradient
enclosure of a continuous function.  sympy differentiates ``Piecewise`` branch
by branch and **drops its jumps**, so :func:`derivative` adds, per condition
``c`` in the variable, ``Piecewise((0, c), (0, not c))`` with no catch-all: 0
where the ball decides ``c``, NaN where it does not.  A derivative enclosure is
thus finite only on cells inside one piece; across a breakpoint only values
prove anything.  :func:`may_jump` is the same rule for sympy's symbolic sign
"proofs".  None when DiracDelta or unevaluated derivatives are needed.
"""

from __future__ import annotations

from typing import Any, Callable

import sympy
from flint import arb

from certdp.verifier.errors import InputError
from certdp.expr.evaluate import compile_ball
from certdp.expr.symbols import EPS

#: functions that may be discontinuous (their sympy derivatives drop the jumps)
_JUMPY = (sympy.Piecewise, sympy.Heaviside, sympy.sign, sympy.floor, sympy.ceiling, sympy.frac,
          sympy.Mod, sympy.DiracDelta)


def may_jump(e: Any) -> bool:
    """Could ``e`` be discontinuous?  Then no derivative sign proves it monotone."""
    return isinstance(e, sympy.Basic) and e.has(*_JUMPY)


def _step(*args: Any) -> sympy.Expr:
    return sympy.Piecewise((0, args[0] < 0), (1, True))


def _comparisons_only(c: sympy.Basic) -> bool:
    if isinstance(c, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanAtom)):
        return True
    return isinstance(c, (sympy.And, sympy.Or, sympy.Not)) and all(_comparisons_only(a) for a in c.args)


def jump_conditions(p: sympy.Basic, var: sympy.Symbol = EPS) -> tuple[sympy.Basic, ...] | None:
    """The comparisons in ``var`` where a Piecewise of ``p`` may switch branch, or
    None when a condition is not made of comparisons, and/or/not (or p has a step)."""
    out: list[sympy.Basic] = []
    for pw in p.atoms(sympy.Piecewise):
        for pair in pw.args:
            c = pair.cond
            if var not in c.free_symbols:
                continue
            if not _comparisons_only(c):
                return None
            out.extend(r for r in c.atoms(sympy.core.relational.Relational) if var in r.free_symbols)
    if p.has(*(f for f in _JUMPY if f is not sympy.Piecewise)):
        return None  # a step or sign of the user's own: no guard is known for it
    return tuple(dict.fromkeys(out))


def guard(d: sympy.Expr, conditions: tuple[sympy.Basic, ...]) -> sympy.Expr:
    """``d`` where the ball decides every condition, NaN where it does not."""
    if not conditions:
        return d
    terms = [sympy.Piecewise((0, c), (0, c.negated), evaluate=False) for c in conditions]
    return sympy.Add(d, *terms, evaluate=False)


def derivative(p: Any, var: sympy.Symbol = EPS) -> sympy.Expr | None:
    """d p / d var (p in ``var`` alone), guarded at its breakpoints, or None."""
    try:
        if not isinstance(p, sympy.Basic) or p.free_symbols - {var}:
            return None
        conditions = jump_conditions(p, var)
        if conditions is None:
            return None
        d = sympy.diff(p, var).replace(sympy.Heaviside, _step)
    except (NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    if d.has(sympy.DiracDelta) or d.has(sympy.Derivative) or d.has(sympy.Subs):
        return None
    return guard(d, conditions)


def derivative_function(p: Any, var: sympy.Symbol = EPS) -> Callable[[arb], arb] | None:
    """:func:`derivative` as a ball function of ``var``, or None."""
    d = derivative(p, var)
    if d is None:
        return None
    try:
        return compile_ball(d, (var,))
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None


def expression_functions(p: Any) -> tuple[Callable[[arb], arb], Callable[[arb], arb]] | None:
    """(P, P') as ball functions of ``p`` in :data:`EPS`, or None."""
    fd = derivative_function(p)
    if fd is None:
        return None
    try:
        fp = compile_ball(p, (EPS,))
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    return fp, fd
