"""Derivatives of user and catalog expressions for proofs on cells, and the
one rule about their jumps.

``(P, P')``: a profile expression and its derivative compiled to ball
functions, for the second-order cell test of :mod:`certdp.numerics.cells`
(shared by the GDPT search and the certificate checker), the switch points
and noise refinements of :mod:`certdp.certificates.check_optimum` and the
searches behind them.

sympy writes derivatives of Max/Min with Heaviside, which we evaluate as the
step 0/1 (a union on a tie): Max/Min/Abs are continuous, so the hull of the
one-sided derivatives is a Clarke-gradient enclosure and a sign of it on a
cell is a proof of monotonicity there (Lebourg's mean value theorem).

**Jumps.** sympy differentiates ``Piecewise((f1, c1), (f2, c2), ...)`` branch
by branch and drops the jumps at the breakpoints, so "P' > 0 on a cell" says
nothing about a cell that contains a breakpoint.  :func:`derivative`
therefore adds, for every condition atom ``c`` of every Piecewise of the
expression that depends on the variable, the guard term
``Piecewise((0, c), (0, not c))`` with no catch-all branch: it is 0 on a ball
where ``c`` is decided and "no information" (NaN) on a ball where it is not
(:class:`certdp.expr.compiler.Compiler` returns nothing when no branch is
certainly taken).  So a derivative enclosure is finite only on cells that lie
inside one piece of every Piecewise, and a monotonicity proof across a
breakpoint must come from values (the hull of the branches that a ball
evaluation of the expression itself gives), never from the derivative.
:func:`may_jump` is the same rule for symbolic "proofs" (sympy deciding the
sign of a derivative): an expression that may jump is never proved monotone
that way.  Expressions whose derivative needs DiracDelta or unevaluated
derivatives are not offered (None).
"""

from __future__ import annotations

from typing import Any, Callable

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.expr.evaluate import compile_ball
from certdp.expr.symbols import EPS

#: functions that may be discontinuous (their sympy derivatives drop the jumps)
_JUMPY = (sympy.Piecewise, sympy.Heaviside, sympy.sign, sympy.floor, sympy.ceiling, sympy.frac,
          sympy.Mod, sympy.DiracDelta)


def may_jump(e: Any) -> bool:
    """Could ``e`` be discontinuous (a Piecewise, a step, a sign, ...)?  Then
    no sign of its derivative proves it monotone across its breakpoints."""
    return isinstance(e, sympy.Basic) and e.has(*_JUMPY)


def _step(*args: Any) -> sympy.Expr:
    return sympy.Piecewise((0, args[0] < 0), (1, True))


def _comparisons_only(c: sympy.Basic) -> bool:
    if isinstance(c, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanAtom)):
        return True
    return isinstance(c, (sympy.And, sympy.Or, sympy.Not)) and all(_comparisons_only(a) for a in c.args)


def jump_conditions(p: sympy.Basic, var: sympy.Symbol = EPS) -> tuple[sympy.Basic, ...] | None:
    """The comparisons in ``var`` at which a Piecewise of ``p`` may switch
    branch (its breakpoints), or None when a condition depends on ``var``
    through something other than comparisons, and/or/not."""
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
    """``d`` plus one guard term per condition: the same value where every
    condition is decided on the ball, no information (NaN) where one is not."""
    if not conditions:
        return d
    terms = [sympy.Piecewise((0, c), (0, c.negated), evaluate=False) for c in conditions]
    return sympy.Add(d, *terms, evaluate=False)


def derivative(p: Any, var: sympy.Symbol = EPS) -> sympy.Expr | None:
    """d p / d var of an expression in ``var`` alone (Heaviside as the 0/1 step),
    guarded at the breakpoints of its Piecewise parts (see the module doc), or
    None when it needs DiracDelta or unevaluated derivatives."""
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
    """The guarded derivative of ``p`` (:func:`derivative`) as a ball function
    of ``var``, or None when it cannot be built or evaluated."""
    d = derivative(p, var)
    if d is None:
        return None
    try:
        return compile_ball(d, (var,))
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None


def expression_functions(p: Any) -> tuple[Callable[[arb], arb], Callable[[arb], arb]] | None:
    """(P, P') as compiled ball functions of the profile expression ``p`` in
    :data:`EPS`, or None when the expression or its derivative cannot be evaluated."""
    fd = derivative_function(p)
    if fd is None:
        return None
    try:
        fp = compile_ball(p, (EPS,))
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    return fp, fd
