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

import importlib
import sys
import types

#: Where each public name lives, loaded on first use (PEP 562): a sympy-free submodule
#: (``expr.brackets`` at a rational ε or δ) then never imports sympy (0.4 s per run).
_HOME = {
    "compile_ball": "evaluate", "evaluate": "evaluate", "evaluate_ball": "evaluate",
    "parse_expression": "parser", "ProfileCheck": "profile", "validate_profile": "profile",
    "EPS": "symbols", "X": "symbols", "symbol_for": "symbols",
}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'certdp.expr' has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f"certdp.expr.{_HOME[name]}"), name)
    return value


class _Package(types.ModuleType):
    """Keeps ``certdp.expr.evaluate`` the function, not the submodule the import system
    binds there on its first import (as when the package imported it eagerly)."""

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in _HOME and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
