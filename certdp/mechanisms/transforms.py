"""Mechanisms built from other mechanisms: subsampling, composition, clip-and-reify.

* ``subsample(M, rate=γ)`` — Poisson subsampling with add/remove neighbours.
  If M is (ε, δ)-DP then M∘S_γ is (log(1 − γ + γe^ε), γδ)-DP in both
  directions (Liu et al. 2022 §5.3; Balle, Barthe, Gaboardi, "Privacy amplification
  by subsampling: tight analyses via couplings and divergences", 2018,
  Thm 8/10).  Applied to every point of M's profile this gives
  δ'(ε') <= γ δ_M(log(1 + (e^{ε'} − 1)/γ)), and the bound is attained: for
  the "remove" pair of the worst case (the mechanism whose output law is P
  when the differing record is in the sample and Q otherwise, with
  H_{e^ε}(P‖Q) = δ_M(ε)) one has (1−γ)Q + γP − e^{ε'}Q = γ(P − e^{ε''}Q)
  with e^{ε''} = 1 + (e^{ε'} − 1)/γ, so the hockey-stick divergence equals
  γ δ_M(ε'') exactly (Balle et al. 2018, tightness).  Hence subsampling keeps
  the :class:`~certdp.mechanisms.base.ProfileKind` of M.
* ``compose(M, k)`` — k-fold adaptive composition where a closed form exists:
  μ-GDP composes to √k μ-GDP (Dong et al.); nested compositions flatten.
  Other mechanisms need an accountant (``certdp account``).
* ``clip_reify(M, eps_h, lo, hi)`` — Liu et al. 2022 Thm 4.7: clip M's numerical
  output to [lo, hi] and add Laplace((hi − lo)/ε_h) noise.  By
  post-processing δ ≤ δ_M, and the result is a Laplace mechanism with
  sensitivity <= hi − lo and scale (hi − lo)/ε_h (joint convexity of the
  hockey-stick divergence over couplings of the clipped outputs), so
  δ(ε) <= min(δ_M(ε), max(1 − e^{(ε − ε_h)/2}, 0)); in particular δ = 0 for
  ε >= ε_h, which is the proof of Thm 4.7 (Liu et al. 2022 App. A.7).  This is
  **only an upper bound** on the clipped mechanism's profile (e.g.
  clip_reify(laplace(scale=0.4), eps_h=2, lo=0, hi=1) has δ(0) ≈ 0.41, not
  the bound's 0.63): :attr:`ClipReify.own_kind` is UPPER, so no lower end,
  witness or refutation is ever derived from it.  The profile depends on lo,
  hi only through validation (lo < hi).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import EPS, Mechanism, ProfileKind
from certdp.mechanisms.basic import Gaussian, Laplace, RandomizedResponse, RandomizedResponseK, _q, gdp_profile
from certdp.mechanisms.params import (
    CatalogMechanism,
    DeltaUnattainable,
    closed_form_enclosure,
    lower_over,
    MorePrivate,
    Param,
    upper_over,
    bind_arguments,
    min_ball,
    positive_part,
)
from certdp.numerics.ball import to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu_ball


#: proved monotonicity rules (``Param.more_private``; calibration reads them)
_SMALLER_RATE = MorePrivate("smaller", "the rate-γ' pair is the rate-γ pair post-processed by keeping the output "
                            "w.p. γ'/γ, else replacing it by a fresh draw from the component both laws of the pair share")
_FEWER_STEPS = MorePrivate("smaller", "dropping the last outputs is a post-processing")


class Subsample(CatalogMechanism):
    """Poisson subsampling with rate γ (add/remove neighbours), Liu et al. 2022 §5.3:
    δ'(ε') = γ δ_M(log(1 + (e^{ε'} − 1)/γ)), attained by the worst case, so
    the kind of M's profile is kept (module docstring)."""

    name = "subsample"
    description = "Poisson subsampling at rate γ (add/remove): δ'(ε) = γ δ_M(log(1 + (e^ε − 1)/γ))"
    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism run on the subsample"),
        Param("rate", "number", "sampling probability γ, 0 < γ <= 1", more_private=(_SMALLER_RATE,)),
    )
    keeps_privacy_order = True  # the pair is a mixture of M's pair: post-processing M's pair carries over

    def check(self) -> None:
        if not 0 < self.rate <= 1:
            raise InputError(f"subsample: rate must satisfy 0 < rate <= 1, got {self.rate}")
        if getattr(self.mechanism, "replace_one", False):
            raise InputError(f"subsample: {self.mechanism.spec()} is stated for replace-one neighbours; Poisson "
                             "sampling under add/remove cannot wrap it (different neighbouring relations)")

    @property
    def own_kind(self) -> ProfileKind:
        """Randomized response is a replace-one pair (one record's value changes; an absent
        record has no report), so Poisson sampling under add/remove cannot be applied to the
        mechanism itself.  Inside ``subsample`` it stands for its **guarantee**: a mechanism
        whose add/remove pairs are dominated by RR's pair (for binary RR: ε-DP with
        ε = log(q/(1 − q))), for which the answer is tight (GUARANTEE, not EXACT).  The
        replace-one mechanism subsampled is ``subset_replace(randomized_response(p=...), batch=b, n=N)``."""
        if type(self) is Subsample and _holds_rr(self.mechanism):
            return ProfileKind.GUARANTEE
        return ProfileKind.EXACT

    def vanishes_from(self) -> Fraction | None:
        """δ'(ε) = γ δ_M(log(1 + (e^ε − 1)/γ)) = 0 once log(1 + (e^ε − 1)/γ) >= T_M, in
        particular for ε >= T_M (the map is >= ε): subsampling never weakens pure DP."""
        return self.mechanism.vanishes_from()

    def gdp_mu_squared(self) -> Fraction | None:
        """Rate 1 is no subsampling: the inner mechanism's μ², if exact."""
        return self.mechanism.gdp_mu_squared() if self.rate == 1 else None

    def profile(self) -> sympy.Expr:
        g = _q(self.rate)
        inner = self.mechanism.profile()
        if self.rate == 1:
            return inner
        return g * inner.subs(EPS, sympy.log(1 + (sympy.exp(EPS) - 1) / g))

    def _inner_eps(self, eps: arb) -> arb:
        return (eps.expm1() / to_ball(self.rate)).log1p()

    def delta_point_ball(self, eps: arb) -> arb:
        if self.rate == 1:
            return self.mechanism.delta_ball(eps)
        return self.delta_lower_at(eps).lower().union(self.delta_upper_at(eps).upper())

    def delta_upper_at(self, eps: arb) -> arb:
        """γ · (upper bound of δ_M at the lower end of the mapped ε): one chain."""
        if self.rate == 1:
            return upper_over(self.mechanism, eps)
        return to_ball(self.rate) * upper_over(self.mechanism, self._inner_eps(eps))

    def delta_lower_at(self, eps: arb) -> arb:
        if self.rate == 1:
            return lower_over(self.mechanism, eps)
        return to_ball(self.rate) * lower_over(self.mechanism, self._inner_eps(eps))

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        """γ δ_M(ε) <= D  ⇔  ε >= ε_M(D/γ), and ε' = log(1 + γ(e^ε − 1)) is
        increasing in ε: map the inner enclosure through it."""
        from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

        target = delta / self.rate
        if target >= 1:
            return Enclosure.exact(0)
        inner = eps_enclosure(self.mechanism, target, bits=bits + 8)
        g = self.rate

        def compute() -> arb:
            lo = (to_ball(g) * inner.lo.expm1()).log1p()
            hi = (to_ball(g) * inner.hi.expm1()).log1p()
            return lo.union(hi)

        return closed_form_enclosure(compute, bits, "subsample: eps(delta)")


def _holds_rr(mech: Mechanism) -> bool:
    """Is randomized response one of the steps of ``mech`` (itself, or inside a composition)?"""
    if isinstance(mech, (RandomizedResponse, RandomizedResponseK)):
        return True
    return isinstance(mech, (Compose, ComposeAll)) and any(_holds_rr(c) for c in mech.children())


class SubsetSample(Subsample):
    """Sampling without replacement: a subset of m = γn of the n records (fixed batch size).

    Seed 002 (Zhu, Dong & Wang 2022) Thm 11(2): if (P, Q) dominates M for replace-one
    neighbours, then (P, (1−γ)P + γQ) dominates M∘S_subset for add and
    ((1−γ)P + γQ, P) for remove neighbours of the full dataset.  For the symmetric
    pairs of every catalog mechanism ((P, Q) and (Q, P) alike) these are exactly the
    Poisson pairs of :class:`Subsample`, so the profile and every accountant route
    are the same; what differs is the statement: M's parameters must hold for
    **replace-one** neighbours (e.g. sensitivity 2C for a sum of records clipped to C).
    """

    name = "subset"
    description = ("sampling without replacement, batch fraction γ = m/n (Zhu, Dong & Wang 2022 Thm 11(2)); "
                   "the inner mechanism stated for replace-one neighbours: δ'(ε) = γ δ_M(log(1 + (e^ε − 1)/γ))")
    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism run on the batch, stated for replace-one neighbours"),
        Param("rate", "number", "batch fraction γ = m/n, 0 < γ <= 1", more_private=(_SMALLER_RATE,)),
    )

    def check(self) -> None:
        if not 0 < self.rate <= 1:
            raise InputError(f"subset: rate must satisfy 0 < rate <= 1, got {self.rate}")


def require_closed_form(mech: Any) -> None:
    """InputError unless the composition ``mech`` (compose / compose_all) has a
    closed-form profile; without one it is evaluated by a certified accountant."""
    if not mech.has_closed_form:
        raise InputError(
            f"{mech.name}: {mech.spec()} has no closed-form privacy profile; it is evaluated by a "
            "certified accountant (`certdp profile`, `certdp account`, `certdp measure`)"
        )


class Compose(CatalogMechanism):
    """k-fold (adaptive) composition of a mechanism with itself.

    A closed-form privacy profile exists for Gaussian-type mechanisms
    (μ-GDP ∘ k = (√k μ)-GDP); ``compose(compose(M, k1), k2)`` is
    ``compose(M, k1·k2)`` and ``compose(M, 1)`` is M.  Every other composition
    is a valid mechanism without a closed-form profile: :meth:`profile` and
    :meth:`delta_ball` raise InputError, and analyses route it to a certified
    accountant (:mod:`certdp.analyses.dispatch`: the φ accountant, or the PLD accountant
    for Poisson-subsampled Gaussians).
    """

    name = "compose"
    description = "k-fold composition (closed form for gaussian/gaussian_dp: μ√k; otherwise evaluated by an accountant)"
    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism composed with itself"),
        Param("k", "integer", "number of compositions k >= 1", more_private=(_FEWER_STEPS,)),
    )
    keeps_privacy_order = True  # Dong, Roth, Su 2022: composition is monotone in each part's trade-off function

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = bind_arguments(type(self), args, kwargs)
        inner = values["mechanism"]
        if isinstance(inner, Compose) and values["k"] >= 1:
            values = {"mechanism": inner.mechanism, "k": inner.k * values["k"]}
        object.__setattr__(self, "_params", values)
        self.check()

    def check(self) -> None:
        if self.k < 1:
            raise InputError(f"compose: k must be an integer >= 1, got {self.k}")

    @property
    def has_closed_form(self) -> bool:
        """Is the composed profile available in closed form (k = 1 or Gaussian)?"""
        return self.k == 1 or self.mechanism.gdp_mu_squared() is not None

    def vanishes_from(self) -> Fraction | None:
        """k-fold composition of a T-DP mechanism (δ = 0 from T on) is kT-DP."""
        t = self.mechanism.vanishes_from()
        return None if t is None else self.k * t

    def gdp_mu_squared(self) -> Fraction | None:
        """k-fold composition of exactly μ-GDP mechanisms is exactly √k μ-GDP
        (Dong, Roth, Su 2022, Cor. 2): μ² multiplies by k."""
        inner = self.mechanism.gdp_mu_squared()
        return None if inner is None else self.k * inner

    def _require_closed_form(self) -> None:
        require_closed_form(self)

    def profile(self) -> sympy.Expr:
        self._require_closed_form()
        if self.k == 1:
            return self.mechanism.profile()
        return gdp_profile(sympy.sqrt(_q(self.gdp_mu_squared())))

    def delta_point_ball(self, eps: arb) -> arb:
        self._require_closed_form()
        if self.k == 1:
            return self.mechanism.delta_ball(eps)
        return delta_mu_ball(to_ball(self.gdp_mu_squared()).sqrt(), eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        self._require_closed_form()
        if self.k == 1:
            from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

            return eps_enclosure(self.mechanism, delta, bits=bits)
        if delta == 0:
            raise DeltaUnattainable("compose: δ_μ(ε) > 0 for every ε, so no ε reaches δ = 0")
        return None


class ComposeAll(CatalogMechanism):
    """Heterogeneous (adaptive) composition ``compose_all(M1, ..., Mn)``, n >= 2: the
    mechanisms run one after another on the same data, in any order (the composed
    privacy loss is the sum of independent losses, so the order does not matter).

    A closed-form profile exists when every Mi is exactly GDP: μ² = Σ μi² (Dong,
    Roth & Su 2022, Cor. 2).  Otherwise the profile has no closed form and analyses
    route the composition's items (:meth:`items`) to a certified accountant
    (:func:`certdp.analyses.dispatch.composition_accountant`: the PLD engine, or the φ
    accountant).  The certificate checker knows the same spec (``compose_all``,
    evidence ``pld_items``).
    """

    name = "compose_all"
    description = ("heterogeneous composition compose_all(M1, M2, ...) (closed form when every Mi is "
                   "exactly GDP: μ² = Σ μi²; otherwise evaluated by an accountant)")
    PARAMS = (Param("mechanisms", "mechanism", "two or more mechanisms, positional: compose_all(M1, M2, ...)"),)
    keeps_privacy_order = True  # as Compose

    def __init__(self, *mechanisms: Any, **kwargs: Any) -> None:
        if kwargs:
            raise InputError("compose_all: takes its mechanisms as positional arguments only, "
                             "compose_all(M1, M2, ...)")
        for m in mechanisms:
            if not isinstance(m, Mechanism):
                raise InputError(f"compose_all: every argument must be a mechanism, got {m!r}")
        object.__setattr__(self, "_params", {"mechanisms": tuple(mechanisms)})
        self.check()

    def check(self) -> None:
        if len(self.mechanisms) < 2:
            raise InputError("compose_all: takes two or more mechanisms (for one, use it, or compose(M, k=...))")

    def children(self) -> tuple[Mechanism, ...]:
        return tuple(self.mechanisms)

    def items(self) -> list[tuple[Mechanism, int]]:
        """The composition as (mechanism, count) items: compose(M, k) counts k, and
        equal mechanisms are one item (the order of a composition does not matter)."""
        counts: dict[Mechanism, int] = {}
        for m in self.mechanisms:
            inner, k = (m.mechanism, int(m.k)) if isinstance(m, Compose) else (m, 1)
            counts[inner] = counts.get(inner, 0) + k
        return list(counts.items())

    @property
    def has_closed_form(self) -> bool:
        return self.gdp_mu_squared() is not None

    def gdp_mu_squared(self) -> Fraction | None:
        parts = [m.gdp_mu_squared() for m in self.mechanisms]
        return None if any(p is None for p in parts) else sum(parts, Fraction(0))

    def vanishes_from(self) -> Fraction | None:
        """Pure-DP-type parts: δ = 0 from Σ Ti on (basic composition)."""
        ends = [m.vanishes_from() for m in self.mechanisms]
        return None if any(t is None for t in ends) else sum(ends, Fraction(0))

    def _require_closed_form(self) -> None:
        require_closed_form(self)

    def profile(self) -> sympy.Expr:
        self._require_closed_form()
        return gdp_profile(sympy.sqrt(_q(self.gdp_mu_squared())))

    def delta_point_ball(self, eps: arb) -> arb:
        self._require_closed_form()
        return delta_mu_ball(to_ball(self.gdp_mu_squared()).sqrt(), eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        self._require_closed_form()
        if delta == 0:
            raise DeltaUnattainable("compose_all: δ_μ(ε) > 0 for every ε, so no ε reaches δ = 0")
        return None


def dpsgd(*args: Any, **kwargs: Any) -> Compose:
    """DP-SGD: ``steps``-fold composition of the Poisson-subsampled Gaussian
    mechanism with noise multiplier σ = ``noise`` and sampling rate ``rate``
    (sensitivity 1).  The spec ``dpsgd(noise=S, rate=Q, steps=T)`` names the
    same mechanism as ``compose(subsample(gaussian(sigma=S), rate=Q), k=T)``,
    which is also its canonical spec."""
    v = bind_arguments(dpsgd, args, kwargs)  # exact values, InputError on bad ones
    return Compose(Subsample(Gaussian(sigma=v["noise"]), rate=v["rate"]), k=v["steps"])


dpsgd.name = "dpsgd"  # type: ignore[attr-defined]
dpsgd.description = "alias: dpsgd(noise=S, rate=Q, steps=T) = compose(subsample(gaussian(sigma=S), rate=Q), k=T)"  # type: ignore[attr-defined]
dpsgd.PARAMS = (  # type: ignore[attr-defined]
    Param("noise", "number", "noise multiplier σ > 0 (sensitivity 1)",
          more_private=Gaussian.PARAMS[0].more_private),
    Param("rate", "number", "Poisson sampling rate 0 < q <= 1", more_private=(_SMALLER_RATE,)),
    Param("steps", "integer", "number of steps T >= 1", more_private=(_FEWER_STEPS,)),
)


class ClipReify(CatalogMechanism):
    """Clip-and-reify (Liu et al. 2022 Thm 4.7): clip to [lo, hi], add Laplace((hi − lo)/ε_h).

    δ(ε) <= min(δ_M(ε), max(1 − e^{ε/2 − ε_h/2}, 0)); zero for ε >= ε_h.
    An upper bound only (see the module docstring).
    """

    own_kind = ProfileKind.UPPER

    name = "clip_reify"
    description = "clip output to [lo, hi] and add Laplace((hi−lo)/ε_h) (Liu et al. 2022 Thm 4.7): δ <= min(δ_M, Laplace profile), an upper bound only"
    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism with a numerical output"),
        Param("eps_h", "number", "head bound ε_h > 0 (the result is ε_h-DP)"),
        Param("lo", "number", "clipping lower bound y⁻"),
        Param("hi", "number", "clipping upper bound y⁺ > y⁻"),
    )

    def check(self) -> None:
        if self.eps_h <= 0:
            raise InputError(f"clip_reify: eps_h must be > 0, got {self.eps_h}")
        if not self.lo < self.hi:
            raise InputError(f"clip_reify: need lo < hi, got lo = {self.lo}, hi = {self.hi}")

    def vanishes_from(self) -> Fraction:
        """The Laplace bound vanishes from ε_h on (Thm 4.7), the inner profile maybe earlier."""
        inner = self.mechanism.vanishes_from()
        return self.eps_h if inner is None else min(inner, self.eps_h)

    @property
    def noise_scale(self) -> Any:
        """The Laplace scale b = (hi − lo)/ε_h of the reification step."""
        return (self.hi - self.lo) / self.eps_h

    def profile(self) -> sympy.Expr:
        lap = sympy.Max(1 - sympy.exp(EPS / 2 - _q(self.eps_h) / 2), 0)
        return sympy.Min(self.mechanism.profile(), lap)

    def _laplace_bound(self, eps: arb) -> arb:
        return positive_part(-((eps - to_ball(self.eps_h)) / 2).expm1())

    def delta_point_ball(self, eps: arb) -> arb:
        lap = self._laplace_bound(eps)
        if lap.is_zero():
            return lap
        return min_ball(self.mechanism.delta_ball(eps), lap)

    def delta_upper_at(self, eps: arb) -> arb:
        lap = self._laplace_bound(eps)
        return lap if lap.is_zero() else min_ball(upper_over(self.mechanism, eps), lap)

    def delta_lower_at(self, eps: arb) -> arb:
        lap = self._laplace_bound(eps)
        return lap if lap.is_zero() else min_ball(lower_over(self.mechanism, eps), lap)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        """min(δ_M, δ_lap) <= D  ⇔  ε >= min(ε_M(D), ε_lap(D)), with
        ε_lap(D) = max(ε_h + 2 log(1 − D), 0)."""
        from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

        lap = Laplace(scale=1, sensitivity=self.eps_h).eps_for_delta(delta, bits)
        assert lap is not None
        try:
            inner = eps_enclosure(self.mechanism, delta, bits=bits)
        except DeltaUnattainable:
            return lap
        return Enclosure(min(lap.lo, inner.lo), min(lap.hi, inner.hi))
