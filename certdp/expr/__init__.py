"""Safe symbolic expressions and their certified ball evaluation.

* :func:`parse_expression` -- untrusted text -> exact sympy expression (no eval).
* :func:`evaluate_ball` / :func:`compile_ball` -- sympy expression -> ball
  enclosing its range over input balls.
* :func:`evaluate` -- adaptive-precision Enclosure at exact inputs.
* :func:`validate_profile` -- prove δ(ε) is a privacy profile (or reject it
  with a witness).
"""

from certdp.expr.evaluate import compile_ball, evaluate, evaluate_ball
from certdp.expr.parser import parse_expression
from certdp.expr.profile import ProfileCheck, validate_profile
from certdp.expr.symbols import EPS, X, symbol_for

__all__ = ["EPS", "X", "symbol_for", "parse_expression", "compile_ball", "evaluate_ball", "evaluate", "validate_profile", "ProfileCheck"]
