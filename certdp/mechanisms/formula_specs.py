"""Spec-grammar entries for the trade-off mechanisms of
:mod:`certdp.mechanisms.formula` (Liu et al. 2022 §2, App. B).

* ``tradeoff("<σ formula in eps, delta>", sigma=σ)`` — any σ = f(ε, δ);
* ``sgd(A=..., B=..., sigma=...)`` — σ = A ε⁻¹ √log(B/δ);
* ``icea(m=..., n=...)`` — (ε, δ)-DP if m > 10 log(n/(εδ)).

These thin subclasses only declare parameters (for the parser, argument
binding and ``certdp mechanisms``) and value equality; all mathematics is in
:mod:`certdp.mechanisms.formula`.  ``delta_ball`` is the *refined* profile
(certified branch and bound); ``profile()`` is the naive one (a valid,
larger profile).
"""

from __future__ import annotations

from typing import Any, ClassVar

from certdp.mechanisms.params import Param, bind_arguments
from certdp.mechanisms.formula import ICEAMechanism, SGDMechanism, TradeoffMechanism


class _SpecEquality:
    """Equality by spec name and exact parameters."""

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TradeoffMechanism)
            and other.name == self.name  # type: ignore[attr-defined]
            and dict(other.params) == dict(self.params)  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.params.items())))  # type: ignore[attr-defined]


class Tradeoff(_SpecEquality, TradeoffMechanism):
    """σ = f(ε, δ) mechanism from a formula string (Liu et al. 2022 §2, App. B)."""

    description = (
        'mechanism known by σ = f(ε, δ), e.g. tradeoff("2/eps*sqrt(log(1/delta))", sigma=2); '
        "refined profile (Liu et al. 2022 App B), an upper bound only"
    )
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("sigma_formula", "string", "σ as a formula in eps and delta (safe expression syntax)"),
        Param("sigma", "number", "the noise parameter σ > 0 actually used"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = bind_arguments(type(self), args, kwargs)
        super().__init__(values["sigma_formula"], values["sigma"])


class Sgd(_SpecEquality, SGDMechanism):
    """Noisy-SGD family σ = A ε⁻¹ √log(B/δ) (Liu et al. 2022 §2; example A=2, B=1, σ=2)."""

    description = "noisy-SGD family σ = A ε⁻¹ √log(B/δ) (Liu et al. 2022 §2); refined profile"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("A", "number", "A > 0"),
        Param("B", "number", "B > 0"),
        Param("sigma", "number", "noise σ > 0"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = bind_arguments(type(self), args, kwargs)
        super().__init__(values["A"], values["B"], values["sigma"])


class Icea(_SpecEquality, ICEAMechanism):
    """ICEA: (ε, δ)-DP if m > 10 log(n/(εδ)) (Liu et al. 2022 §2; example m=20, n=4)."""

    description = "invisibility cloak encoder: (ε, δ)-DP if m > 10 log(n/(εδ)) (Liu et al. 2022 §2); refined profile"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("m", "number", "number of messages m > 0"),
        Param("n", "number", "number of users n > 0"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = bind_arguments(type(self), args, kwargs)
        super().__init__(values["m"], values["n"])


__all__ = ["Tradeoff", "Sgd", "Icea"]
