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
from enum import Enum
from fractions import Fraction
from typing import Any, ClassVar, Iterable, Mapping

import sympy
from flint import arb

from certdp.expr.symbols import EPS  # the privacy-profile variable ε (nonnegative real)


class ProfileKind(Enum):
    """What a mechanism's privacy profile (``delta_ball``/``profile()``) is.

    * ``EXACT`` — the tight privacy profile of the concrete mechanism (for
      noise mechanisms: on the worst-case query of the stated sensitivity);
    * ``GUARANTEE`` — the tight profile of a stated guarantee, i.e. the worst
      case over every mechanism meeting it (``pure_dp``, ``approx_dp``:
      Thm 3.1 of Liu, Sun, Jiang, Kong, "Identification, amplification and
      measurement: a bridge to Gaussian differential privacy", 2022 = Liu et al. 2022); statements about it are statements about
      the guarantee;
    * ``UPPER`` — only an upper bound on the profile: proves (ε, δ)-DP and
      μ-GDP claims, never refutes one.  Lower ends, witnesses, μ⁻ and ``not_*``
      certificates need ``EXACT`` or ``GUARANTEE``; an audit REFUTED from an upper
      bound is decided by its upper end (a ``not_dp`` claim, a printed value above it).
    """

    EXACT = "exact"
    GUARANTEE = "exact for the stated guarantee"
    UPPER = "upper bound only"

    @property
    def bounds_from_below(self) -> bool:
        """Is the lower end of an enclosure of this profile a lower bound on the truth?"""
        return self is not ProfileKind.UPPER


def weakest(kinds: Iterable[ProfileKind]) -> ProfileKind:
    """The kind of a profile built from profiles of the given kinds by a
    transform that preserves exactness (UPPER if any is UPPER, else
    GUARANTEE if any is, else EXACT)."""
    ks = set(kinds)
    for k in (ProfileKind.UPPER, ProfileKind.GUARANTEE):
        if k in ks:
            return k
    return ProfileKind.EXACT


class Mechanism(ABC):
    """A mechanism with exact parameters and (at least) a privacy profile.

    Besides the profile, every mechanism states what is known about it:
    :attr:`profile_kind` (exact, exact for a guarantee, or an upper bound) and
    :attr:`assumptions`, the hypotheses certdp could not prove, collected
    recursively from nested mechanisms.  Every analysis, certificate and
    audit verdict carries them.
    """

    #: Name in the mechanism spec grammar, e.g. ``"laplace"``.
    name: ClassVar[str]

    #: Is this a transform (subsampling, composition) whose trade-off function is
    #: monotone in its inner mechanisms' (Dong, Roth, Su 2022: ⊗ is monotone; a
    #: subsampled pair is a mixture, and post-processing commutes with mixing)?  Then a
    #: parameter's proved monotonicity rule (``Param.more_private``) inside it holds for
    #: the whole; calibration uses nothing else (default False: not proved).
    keeps_privacy_order: ClassVar[bool] = False

    #: How :meth:`delta_ball` evaluates the profile (the route named in answers).
    profile_route: ClassVar[str] = "closed-form privacy profile"

    @property
    def route(self) -> str:
        """The route of a direct profile evaluation: a mechanism built from one
        evaluated otherwise (e.g. a certified series) names that route."""
        for c in self.children():
            if c.route != Mechanism.profile_route:
                return c.route
        return self.profile_route

    @property
    @abstractmethod
    def params(self) -> Mapping[str, Any]:
        """Exact parameters by name (Fractions, nested Mechanisms, strings)."""

    @abstractmethod
    def profile(self) -> sympy.Expr:
        """δ(ε) for ε >= 0 as an exact sympy expression in :data:`EPS`."""

    # -- what is known ---------------------------------------------------
    def children(self) -> tuple["Mechanism", ...]:
        """The mechanisms this one is built from (parameters that are mechanisms)."""
        return tuple(v for v in self.params.values() if isinstance(v, Mechanism))

    @property
    def own_kind(self) -> ProfileKind:
        """The kind this mechanism's own construction gives (class default EXACT);
        :attr:`profile_kind` combines it with the children's."""
        return ProfileKind.EXACT

    @property
    def profile_kind(self) -> ProfileKind:
        """What :meth:`delta_ball` encloses: see :class:`ProfileKind`."""
        return weakest([self.own_kind, *(c.profile_kind for c in self.children())])

    def own_assumptions(self) -> tuple[str, ...]:
        """Unproved hypotheses introduced by this mechanism itself (default none)."""
        return ()

    @property
    def assumptions(self) -> tuple[str, ...]:
        """Every unproved hypothesis the profile rests on, this mechanism's and
        its children's (recursively, without repeats, in spec order)."""
        out: list[str] = []
        for a in (*self.own_assumptions(), *(a for c in self.children() for a in c.assumptions)):
            if a not in out:
                out.append(a)
        return tuple(out)

    def vanishes_from(self) -> Fraction | None:
        """An exact T with δ(ε) = 0 for every ε >= T, when the profile is
        known to vanish there (pure-DP-type mechanisms); None otherwise."""
        return None

    def gdp_mu_squared(self) -> Fraction | None:
        """μ² when the mechanism's trade-off curve is *exactly* Gaussian
        (μ-GDP and no better, Dong, Roth, Su, "Gaussian differential
        privacy", 2022), as an exact rational; None otherwise.  Default None."""
        return None

    def delta_ball(self, eps: arb) -> arb:
        """Ball containing δ(ε) for all ε in the ball ``eps`` (current precision).

        Default: evaluate :meth:`profile` with the certified expression
        evaluator.  Subclasses override with faster specialised kernels.
        """
        from certdp.expr import evaluate_ball  # noqa: PLC0415 (layering: expr is below)

        return evaluate_ball(self.profile(), {EPS: eps})

    def spec(self) -> str:
        """The canonical spec string, ``name(key=value, ...)``."""
        from certdp.mechanisms.format import format_spec  # noqa: PLC0415

        return format_spec(self)

    def __repr__(self) -> str:
        return self.spec()
