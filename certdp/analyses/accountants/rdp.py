"""Certified Rényi-DP accountant (upper bounds only).

A mechanism is (α, ρ(α))-RDP when D_α(M(D) ‖ M(D')) <= ρ(α) for neighbours
(Mironov 2017, "Rényi differential privacy", Def 4); RDP composes by adding
ρ per order (Prop 1).  Curves used here, every value a ball:

* Gaussian, sensitivity Δ, noise σ (and gaussian_dp(μ), μ = Δ/σ):
  ρ(α) = α μ²/2, exact (Mironov 2017 Table II); this is μ²/2-zCDP
  (Bun & Steinke 2016, "Concentrated differential privacy", Prop 1.6).
* Laplace, scale b/Δ: ρ(α) = log(α/(2α−1) e^{(α−1)/b} + (α−1)/(2α−1) e^{−α/b})/(α−1),
  exact (Mironov 2017 Table II).
* Randomized response reporting the true bit with probability p:
  ρ(α) = log(p^α (1−p)^{1−α} + (1−p)^α p^{1−α})/(α−1), exact (Mironov 2017 Table II).
* Pure ε-DP: ρ(α) <= min(ε, α ε²/2) (Mironov 2017 Prop 3 part; Bun & Steinke
  2016 Prop 3.3) — a bound, not the curve.
* Poisson-subsampled Gaussian at integer orders α >= 2:
  ρ(α) = log A_α/(α−1), A_α = Σ_k C(α,k)(1−q)^{α−k} q^k e^{(k²−k)/(2σ²)}
  (Mironov, Talwar & Zhang 2019, "Rényi differential privacy of the sampled
  Gaussian mechanism", §3.3).  Only integer orders are used: fractional orders
  need an integral with rigorous error bounds that certdp does not implement.

Conversions to (ε, δ)-DP, each a valid upper bound, minimised over the orders:

* ``classic`` (Mironov 2017 Prop 3): ε = ρ(α) + log(1/δ)/(α−1);
* ``improved`` (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for
  differential privacy", Prop 12; Balle et al. 2020 Thm 21):
  ε = ρ(α) + log((α−1)/α) − (log δ + log α)/(α−1), and for δ at ε
  δ = e^{(α−1)(ρ(α)−ε)} (1 − 1/α)^{α−1}/α (the classic: without the last two factors).

RDP answers are upper bounds of the mechanism's true ε (or δ): an enclosure
[0, hi], never a lower end; :class:`RDPBound` names the order and conversion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from flint import arb

from certdp.analyses.accountants.base import Accountant, check_count, check_delta, check_eps
from certdp.errors import InputError
from certdp.numerics.ball import to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure

#: The orders minimised over (integers: see the module doc).
ORDERS: tuple[int, ...] = tuple(range(2, 65)) + (80, 96, 128, 160, 192, 256, 384, 512, 768, 1024)
PREC = 256
Conversion = Literal["classic", "improved"]


@dataclass(frozen=True)
class RDPBound:
    """A certified upper bound from the RDP route: ``enclosure`` = [0, hi]."""

    enclosure: Enclosure
    order: int
    conversion: Conversion

    @property
    def method(self) -> str:
        name = ("improved conversion (Canonne, Kamath & Steinke 2020 Prop 12)" if self.conversion == "improved"
                else "classic conversion (Mironov 2017 Prop 3)")
        return f"RDP accountant, {name} at order α = {self.order}; upper bound only"


def _curve(mech: object) -> "callable":
    """ρ(α) as a ball function of an integer order, for a catalog mechanism."""
    name = getattr(mech, "name", None)
    if name in ("gaussian", "gaussian_dp"):
        mu2 = mech.gdp_mu_squared()  # type: ignore[attr-defined]
        return lambda a: to_ball(mu2) * a / 2
    if name == "laplace":
        b = Fraction(mech.scale) / Fraction(mech.sensitivity)  # type: ignore[attr-defined]

        def laplace(a: int) -> arb:
            bb = to_ball(b)
            v = arb(a) / (2 * a - 1) * ((a - 1) / bb).exp() + arb(a - 1) / (2 * a - 1) * (-a / bb).exp()
            return v.log() / (a - 1)
        return laplace
    if name == "randomized_response":
        p = Fraction(mech.p)  # type: ignore[attr-defined]

        def rr(a: int) -> arb:
            pb, qb = to_ball(p), to_ball(1 - p)
            return (pb**a * qb ** (1 - a) + qb**a * pb ** (1 - a)).log() / (a - 1)
        return rr
    if name == "pure_dp":
        e = Fraction(mech.eps)  # type: ignore[attr-defined]
        return lambda a: min_ball(to_ball(e), to_ball(e) ** 2 * a / 2)
    if name == "subsample" and getattr(mech.mechanism, "name", None) == "gaussian":  # type: ignore[attr-defined]
        q = Fraction(mech.rate)  # type: ignore[attr-defined]
        inner = mech.mechanism  # type: ignore[attr-defined]
        s2 = (Fraction(inner.sigma) / Fraction(inner.sensitivity)) ** 2

        def sgm(a: int) -> arb:
            qb, rb, half = to_ball(q), to_ball(1 - q), 1 / (2 * to_ball(s2))
            total = arb(0)
            for k in range(a + 1):
                total += math.comb(a, k) * rb ** (a - k) * qb**k * (arb(k * k - k) * half).exp()
            return total.log() / (a - 1)
        return sgm
    raise InputError(f"the RDP accountant handles gaussian, gaussian_dp, laplace, randomized_response, pure_dp "
                     f"and subsample(gaussian(...)), not {getattr(mech, 'spec', lambda: mech)()}")


def min_ball(a: arb, b: arb) -> arb:
    """A ball containing min(a, b) (for upper bounds: the upper end is what matters)."""
    return a if a.upper() <= b.lower() else (b if b.upper() <= a.lower() else a.min(b))


def supports(mech: object) -> bool:
    try:
        _flatten(mech)
    except InputError:
        return False
    return True


def _flatten(mech: object) -> list[tuple[object, int]]:
    if getattr(mech, "name", None) == "compose":
        return [(m, k * int(mech.k)) for m, k in _flatten(mech.mechanism)]  # type: ignore[attr-defined]
    _curve(mech)
    return [(mech, 1)]


class RDPAccountant(Accountant):
    """Certified RDP accountant (immutable): Σ_i k_i ρ_i(α) per order, converted
    to (ε, δ) by the classic and the improved conversion; see the module doc."""

    def __init__(self, items: tuple[tuple[object, int], ...] = (), orders: tuple[int, ...] = ORDERS) -> None:
        self.items = items
        self.orders = orders

    def compose(self, mechanism: object, count: int = 1) -> "RDPAccountant":
        count = check_count(count)
        return RDPAccountant(self.items + tuple((m, k * count) for m, k in _flatten(mechanism)), self.orders)

    def rdp(self, order: int) -> arb:
        """A ball containing Σ k ρ(α) at an integer order α >= 2."""
        if not self.items:
            raise InputError("nothing composed yet")
        with working_precision(PREC):
            return sum((_curve(m)(order) * k for m, k in self.items), arb(0))

    def epsilon_bound(self, delta: object) -> RDPBound:
        """The smallest certified ε upper bound over orders and both conversions."""
        d = to_ball(check_delta(delta))
        best: tuple[arb, int, Conversion] | None = None
        with working_precision(PREC):
            for a in self.orders:
                r = self.rdp(a)
                classic = r - d.log() / (a - 1)
                improved = r + (arb(a - 1) / a).log() - (d.log() + arb(a).log()) / (a - 1)
                for value, conv in ((classic, "classic"), (improved, "improved")):
                    hi = upper_bound(value)
                    if best is None or hi < best[0]:
                        best = (hi, a, conv)  # type: ignore[assignment]
        assert best is not None
        hi = best[0] if best[0] > 0 else arb(0)
        return RDPBound(Enclosure(arb(0), hi), best[1], best[2])

    def delta_bound(self, eps: object) -> RDPBound:
        """The smallest certified δ upper bound at ε over orders and both conversions."""
        e = to_ball(check_eps(eps))
        best: tuple[arb, int, Conversion] | None = None
        with working_precision(PREC):
            for a in self.orders:
                r = self.rdp(a)
                classic = ((a - 1) * (r - e)).exp()
                improved = classic * (arb(a - 1) / a) ** (a - 1) / a
                for value, conv in ((classic, "classic"), (improved, "improved")):
                    hi = upper_bound(value)
                    if best is None or hi < best[0]:
                        best = (hi, a, conv)  # type: ignore[assignment]
        assert best is not None
        hi = best[0] if best[0] < 1 else arb(1)
        return RDPBound(Enclosure(arb(0), hi), best[1], best[2])

    def delta(self, eps: object) -> Enclosure:
        return self.delta_bound(eps).enclosure

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        return self.epsilon_bound(delta).enclosure
