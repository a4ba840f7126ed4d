"""The symbols shared by every certdp expression.

* :data:`EPS` -- the privacy-profile variable ε (nonnegative real), as in
  δ(ε) (Liu et al. 2022, Def 4.1).
* :data:`X` -- the positive real variable of penalty functions g(x)
  (Guingona et al. 2023, Lemma 2.3).

Any other variable name gets a plain real symbol (:func:`symbol_for`).
"""

from __future__ import annotations

import sympy

#: The privacy-profile variable ε (nonnegative real).
EPS = sympy.Symbol("eps", nonnegative=True, real=True)

#: The variable x of penalty functions g(x) (positive real; Guingona et al. 2023).
X = sympy.Symbol("x", positive=True, real=True)

#: The δ variable of σ = f(ε, δ) formulas (Liu et al. 2022 §2), and positive
#: versions of ε and δ used when solving such formulas for δ.
DELTA = sympy.Symbol("delta", real=True)
DELTA_POS = sympy.Symbol("delta", positive=True)
EPS_POS = sympy.Symbol("eps", positive=True)

_KNOWN = {"eps": EPS, "x": X}


def symbol_for(name: str) -> sympy.Symbol:
    """The canonical symbol for a variable name (``eps`` -> EPS, ``x`` -> X,
    anything else a real symbol of that name)."""
    return _KNOWN.get(name) or sympy.Symbol(name, real=True)
