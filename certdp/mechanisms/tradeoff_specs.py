"""Spec-grammar entries for the trade-off mechanisms of
:mod:`certdp.mechanisms.tradeoff` (seed 000 §2, App. B).

* ``tradeoff("<σ formula in eps, delta>", sigma=σ)`` — any σ = f(ε, δ);
* ``sgd(A=..., B=..., sigma=...)`` — σ = A ε⁻¹ √log(B/δ);
* ``icea(m=..., n=...)`` — (ε, δ)-DP iff m > 10 log(n/(εδ)).

These thin subclasses declare parameters (for the parser, validation and
``certdp mechanisms``) and delegate all mathematics to
:class:`~certdp.mechanisms.tradeoff.TradeoffMechanism`.  Their
``delta_ball`` is the *refined* profile (certified branch and bound);
``profile()`` is the naive one (a valid, larger profile).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from certdp.mechanisms.params import Param, bind_arguments
from certdp.mechanisms.tradeoff import TradeoffMechanism, icea, sgd


class _Declared(TradeoffMechanism):
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    description: ClassVar[str] = ""

    def _bind(self, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        return bind_arguments(type(self), args, kwargs)

    def _adopt(self, built: TradeoffMechanism, values: Mapping[str, Any]) -> None:
        # reuse the already-solved naive profile instead of solving twice
        self.__dict__.update(built.__dict__)
        self._declared = dict(values)

    @property
    def params(self) -> Mapping[str, Any]:
        return dict(self._declared)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TradeoffMechanism) and other.name == self.name and dict(other.params) == self.params

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.params.items())))


class Tradeoff(_Declared):
    """σ = f(ε, δ) mechanism from a formula string (seed 000 §2, App. B)."""

    name = "tradeoff"
    description = 'mechanism known by σ = f(ε, δ): tradeoff("A/eps*sqrt(log(B/delta))", sigma=2); refined profile (seed 000 App B)'
    PARAMS = (
        Param("sigma_formula", "string", "σ as a formula in eps and delta (safe expression syntax)"),
        Param("sigma", "number", "the noise parameter σ > 0 actually used"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = self._bind(args, kwargs)
        built = TradeoffMechanism(values["sigma_formula"], values["sigma"])
        self._adopt(built, {"sigma_formula": built.params["sigma_formula"], "sigma": values["sigma"]})


class Sgd(_Declared):
    """Noisy-SGD family σ = A ε⁻¹ √log(B/δ) (seed 000 §2; example A=2, B=1, σ=2)."""

    name = "sgd"
    description = "noisy-SGD family σ = A ε⁻¹ √log(B/δ) (seed 000 §2); refined profile"
    PARAMS = (
        Param("A", "number", "A > 0"),
        Param("B", "number", "B > 0"),
        Param("sigma", "number", "noise σ > 0"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = self._bind(args, kwargs)
        self._adopt(sgd(values["A"], values["B"], values["sigma"]), values)


class Icea(_Declared):
    """ICEA: (ε, δ)-DP if m > 10 log(n/(εδ)) (seed 000 §2; example m=20, n=4)."""

    name = "icea"
    description = "invisibility cloak encoder: (ε, δ)-DP if m > 10 log(n/(εδ)) (seed 000 §2); refined profile"
    PARAMS = (
        Param("m", "number", "number of messages m > 0"),
        Param("n", "number", "number of users n > 0"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = self._bind(args, kwargs)
        self._adopt(icea(values["m"], values["n"]), values)


__all__ = ["Tradeoff", "Sgd", "Icea"]
