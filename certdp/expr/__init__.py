"""Safe symbolic expressions and their certified ball evaluation.

* :func:`parse_expression` -- untrusted text -> exact sympy expression, by a
  hand-written tokenizer and recursive-descent parser (no ``eval``,
  ``sympify`` or ``parse_expr``).  Decisions: ``^`` is rejected (write
  ``**``); ``Phi(t)`` becomes ``erfc(-t/sqrt(2))/2``; numbers are exact
  Rationals; sizes are bounded (text, depth, numerals, powers); Max/Min and
  Piecewise beyond a small budget are built unevaluated (sympy's own
  simplification of them can take minutes on crafted input).
* :func:`evaluate_ball` / :func:`compile_ball` -- a ball that contains the
  expression's value at every point of the input balls (range enclosure).
  Domain violations (log/fractional power of a ball not certainly in the
  domain, division by a ball containing 0, no applicable Piecewise branch)
  give a non-finite ball, never an exception and never a finite guess.
* :func:`evaluate` -- Enclosure at exact inputs with adaptive precision;
  PrecisionError when the value cannot be enclosed.
* :func:`validate_profile` -- prove δ(ε) is a privacy profile on [0, ∞)
  (values in [0, 1], non-increasing, δ(0) < 1) or reject it with a witness.
* :data:`EPS` (ε, nonnegative real) and :data:`X` (x, positive real; the
  penalty variable of Guingona et al. 2023) live in :mod:`certdp.expr.symbols`.
"""

from certdp.expr.evaluate import compile_ball, evaluate, evaluate_ball
from certdp.expr.parser import parse_expression
from certdp.expr.profile import ProfileCheck, validate_profile
from certdp.expr.symbols import EPS, X, symbol_for

__all__ = [
    "EPS",
    "X",
    "symbol_for",
    "parse_expression",
    "compile_ball",
    "evaluate_ball",
    "evaluate",
    "validate_profile",
    "ProfileCheck",
]
