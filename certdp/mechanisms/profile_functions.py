"""(P, P') of a mechanism's profile expression, compiled to ball functions, for
the second-order cell test of :mod:`certdp.numerics.cells`; see
:func:`certdp.expr.derivative.expression_functions`."""

from __future__ import annotations

from typing import Any, Callable

from flint import arb

from certdp.errors import InputError
from certdp.expr.derivative import expression_functions


def profile_functions(mech: Any) -> tuple[Callable[[arb], arb], Callable[[arb], arb]] | None:
    """(P, P') as compiled ball functions of the mechanism's profile expression,
    or None when the expression or its derivative cannot be evaluated."""
    try:
        p = mech.profile()
    except (InputError, NotImplementedError, TypeError, ValueError, AttributeError):
        return None
    return expression_functions(p)
