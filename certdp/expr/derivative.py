"""(P, P'): a profile expression and its derivative compiled to ball functions,
for the second-order cell test of :mod:`certdp.numerics.cells` (shared by the
GDPT search and the certificate checker).

sympy writes derivatives of Max/Min with Heaviside, which we evaluate as the
step 0/1 (a union on a tie); expressions whose derivative needs DiracDelta or
unevaluated derivatives are not offered (None).
"""

from __future__ import annotations

from typing import Any, Callable

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.expr.evaluate import compile_ball
from certdp.expr.symbols import EPS


def _step(*args: Any) -> sympy.Expr:
    return sympy.Piecewise((0, args[0] < 0), (1, True))


def derivative(p: Any) -> sympy.Expr | None:
    """dP/dε of a profile expression in :data:`EPS` (Heaviside as the 0/1 step), or
    None when it needs DiracDelta or unevaluated derivatives."""
    try:
        if not isinstance(p, sympy.Basic) or p.free_symbols - {EPS}:
            return None
        d = sympy.diff(p, EPS).replace(sympy.Heaviside, _step)
    except (NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    if d.has(sympy.DiracDelta) or d.has(sympy.Derivative) or d.has(sympy.Subs):
        return None
    return d


def expression_functions(p: Any) -> tuple[Callable[[arb], arb], Callable[[arb], arb]] | None:
    """(P, P') as compiled ball functions of the profile expression ``p`` in
    :data:`EPS`, or None when the expression or its derivative cannot be evaluated."""
    d = derivative(p)
    if d is None:
        return None
    try:
        fp = compile_ball(p, (EPS,))
        fd = compile_ball(d, (EPS,))
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    return fp, fd
