"""The mechanism protocol shared by every analysis.

A mechanism (sympy.stats style) declares its exact parameters, validates them
in one ``check``, and exposes what it can: at least its privacy profile
δ(ε) on ε >= 0 as a sympy expression in :data:`EPS`, and a ball evaluation
of it.  Analyses use :meth:`Mechanism.delta_ball`, which must return a ball
containing δ(ε) for every ε in the ball ``eps`` (the range, when ``eps`` is
an interval).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Mapping

import sympy
from flint import arb

from certdp.expr.symbols import EPS  # the privacy-profile variable ε (nonnegative real)


class Mechanism(ABC):
    """A mechanism with exact parameters and (at least) a privacy profile."""

    #: Name in the mechanism spec grammar, e.g. ``"laplace"``.
    name: ClassVar[str]

    @property
    @abstractmethod
    def params(self) -> Mapping[str, Any]:
        """Exact parameters by name (Fractions, nested Mechanisms, strings)."""

    @abstractmethod
    def profile(self) -> sympy.Expr:
        """δ(ε) for ε >= 0 as an exact sympy expression in :data:`EPS`."""

    def delta_ball(self, eps: arb) -> arb:
        """Ball containing δ(ε) for all ε in the ball ``eps`` (current precision).

        Default: evaluate :meth:`profile` with the certified expression
        evaluator.  Subclasses override with faster specialised kernels.
        """
        from certdp.expr import evaluate_ball  # noqa: PLC0415 (layering: expr is below)

        return evaluate_ball(self.profile(), {EPS: eps})

    def spec(self) -> str:
        """The canonical spec string, ``name(key=value, ...)``."""
        from certdp.mechanisms.spec import format_spec  # noqa: PLC0415

        return format_spec(self)

    def __repr__(self) -> str:
        return self.spec()
