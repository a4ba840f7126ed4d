"""Certified Rényi-DP / zCDP accountant (upper bounds only).

A mechanism is (α, ρ(α))-RDP when D_α(M(D) ‖ M(D')) <= ρ(α) for all ordered
neighbours (Mironov 2017, "Rényi differential privacy", Def 4), where
D_α(P‖Q) = log E_Q[(dP/dQ)^α]/(α−1); RDP composes by adding ρ per order
(Prop 1).  Orders are exact rationals α > 1.  Curves used here, every value a ball:

* Gaussian, sensitivity Δ, noise σ (and gaussian_dp(μ), μ = Δ/σ):
  ρ(α) = α μ²/2, exact (Mironov 2017 Table II); this is μ²/2-zCDP
  (Bun & Steinke 2016, "Concentrated differential privacy: simplifications,
  extensions, and lower bounds", Prop 1.6).  For gaussian_dp, exact for the
  guarantee (every μ-GDP pair is a post-processing of the Gaussian pair).
* Laplace, scale b/Δ: ρ(α) = log(α/(2α−1) e^{(α−1)/b} + (α−1)/(2α−1) e^{−α/b})/(α−1),
  exact (Mironov 2017 Table II).
* Randomized response reporting the true bit with probability p:
  ρ(α) = log(p^α (1−p)^{1−α} + (1−p)^α p^{1−α})/(α−1), exact (Mironov 2017 Table II).
* k-ary randomized response under replace-one (truth w.p. p, each other value w.p.
  b = (1−p)/(k−1); a = max(p, b), c = min(p, b), r = (k−2)b):
  ρ(α) = log(a^α c^{1−α} + c^α a^{1−α} + r)/(α−1), exact (its finite pair).
* ρ-zCDP (``zcdp(rho)``): ρ(α) = αρ, the guarantee itself (Bun & Steinke 2016 Def 1.1).
* Discrete Gaussian N_Z(0, σ²), integer sensitivity Δ: ρ(α) <= αΔ²/(2σ²), an upper bound
  (Δ²/(2σ²)-zCDP, Canonne, Kamath & Steinke 2020 Thm 4; its exact PLD is the PLD engine's).
* Single-epoch tree aggregation (``tree_aggregation``): exactly Gaussian, ρ(α) = αμ²/2.
* Truncated Poisson sampling (``truncated_subsample``): a labelled mixture of sampled
  Gaussians (:mod:`certdp.analyses.accountants.rdp_truncated`).
* Pure ε-DP (the worst case of the guarantee): randomized response with
  p = e^ε/(1+e^ε), ρ(α) = log((e^{αε} + e^{(1−α)ε})/(1+e^ε))/(α−1).  Every ε-DP
  pair is a post-processing of this pair (Kairouz, Oh & Viswanath 2015, "The
  composition theorem for differential privacy"; Dong, Roth & Su 2022 f_{ε,0}),
  and Rényi divergence obeys data processing, so this is exact for the
  guarantee and never above the familiar bound min(ε, α ε²/2) (Bun & Steinke 2016 Prop 3.3).
* Poisson-subsampled Gaussian, rate q, noise multiplier s = σ/Δ: μ0 = N(0, s²),
  μ = (1−q) N(0, s²) + q N(1, s²) (Mironov, Talwar & Zhang 2019, "Rényi
  differential privacy of the sampled Gaussian mechanism", §3), and
  ρ(α) = max(log A_α, log B_α)/(α−1) with
  A_α = E_{z∼μ0}[(μ(z)/μ0(z))^α]  and  B_α = E_{z∼μ0}[(μ(z)/μ0(z))^{1−α}]
  (the two orders of the pair: D_α(μ‖μ0) and D_α(μ0‖μ)).
  - integer α: A_α = Σ_k C(α,k)(1−q)^{α−k} q^k e^{(k²−k)/(2s²)} exactly
    (Mironov, Talwar & Zhang 2019 §3.3);
  - fractional α, and B_α at every order: a certified integral, see
    :func:`sgm_moment` (rigorous quadrature of an analytic integrand by arb's
    acb_calc_integrate on a finite interval, plus explicit Gaussian tail bounds).
  B_α is computed rather than assumed <= A_α, so the curve does not rest on that
  comparison.  Where the quadrature is not used (α/s > :data:`QUAD_MAX_PEAK`) or
  fails to give a finite positive ball, A_α at a fractional order falls back to
  the convexity bound below, and B_α to D_∞(μ0‖μ) <= log(1/(1−q)) (μ >= (1−q) μ0
  pointwise); both are upper bounds.
  Convexity bound: log E[X^α] is convex in α (Hölder), so for n < α < n+1,
  log A_α <= (n+1−α) log A_n + (α−n) log A_{n+1}  (log A_1 = 0): an upper bound.

Conversions to (ε, δ)-DP, each a valid upper bound, minimised over the orders:

* ``classic`` (Mironov 2017 Prop 3): ε = ρ(α) + log(1/δ)/(α−1), and
  δ = e^{(α−1)(ρ(α)−ε)};
* ``improved`` (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for
  differential privacy", Prop 12; Balle, Barthe, Gaboardi, Hsu & Sato 2020,
  "Hypothesis testing interpretations and Rényi differential privacy", Thm 21):
  ε = ρ(α) + log((α−1)/α) − (log δ + log α)/(α−1), and
  δ = e^{(α−1)(ρ(α)−ε)} (1 − 1/α)^{α−1}/α.  Never larger than the classic one.

The orders searched are :data:`ORDERS` (like dp_accounting's default: fractional
orders near 1, all integers 2..64, then a geometric tail to 1024), then the best
order is refined on a grid of 1/8 of the way to each grid neighbour.  The search
runs on a float estimate of the curve (:mod:`certdp.analyses.accountants.rdp_guide`),
and only the :data:`CERTIFIED_ORDERS` best orders by that estimate are evaluated in
ball arithmetic; the answer is the smallest certified bound among them.  Every
order gives a valid upper bound, so the float search can only cost tightness,
never soundness (``search="exhaustive"`` evaluates every order in balls instead).

RDP answers are upper bounds of the mechanism's true ε (or δ), never lower
ones: the result is an enclosure [0, hi] (like
:func:`certdp.analyses.dispatch.upper_only`), and :class:`RDPBound` names the
order and the conversion.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Callable, Iterable, Literal

from flint import acb, arb

from certdp.analyses.accountants import rdp_guide
from certdp.analyses.accountants.base import Accountant, check_count, check_delta, check_eps
from certdp.errors import InputError
from certdp.numerics.ball import to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.numerics.normal import Phi_ball

class _Orders(tuple):
    """A tuple of checked RDP orders (exact α > 1; only :data:`ORDERS` and :class:`RDPAccountant` make one), with its sorted distinct orders and
    their set made once: Fraction comparisons are slow, and a full-batch Gaussian answer
    takes ~1 ms in all, so the accountants built by :meth:`RDPAccountant.compose` share one."""

    @functools.cached_property
    def grid(self) -> list[Fraction]:
        return sorted(self.members)

    @functools.cached_property
    def members(self) -> frozenset[Fraction]:
        return frozenset(self)


#: The default orders minimised over (then refined around the best one).
ORDERS: tuple[Fraction, ...] = _Orders(
    [Fraction(1) + Fraction(k, 8) for k in (1, 2, 4, 6)]
    + [Fraction(a) for a in range(2, 65)]
    + [Fraction(a) for a in (80, 96, 128, 160, 192, 256, 384, 512, 768, 1024)])
#: Working precision (bits) of the curves and conversions.
PREC = 256
#: Working precision (bits) of the certified quadrature: the moments' radii are ~1e-27
#: (1e-37 at 128 bits, at 1.5× the time; 64 bits gives 1e-18, too wide for a moment
#: A_α − 1 ~ 1e-12 of a tiny rate, whose log is ρ).
QUAD_PREC = 96
#: Fractional orders with α/s above this use the convexity bound (the integrand's
#: far peak at t = α/s makes the quadrature slow or inconclusive there).
QUAD_MAX_PEAK = 1024
#: The tails cut off the quadrature are below 2^-TAIL_BITS of the moment.
TAIL_BITS = 110
#: How many of the best orders by the float guide are evaluated in balls.
CERTIFIED_ORDERS = 3
Conversion = Literal["classic", "improved"]
CONVERSIONS: tuple[Conversion, Conversion] = ("improved", "classic")
_NAMES = {"improved": "improved conversion (Canonne, Kamath & Steinke 2020 Prop 12; Balle et al. 2020 Thm 21)",
          "classic": "classic conversion (Mironov 2017 Prop 3)"}


class RDPBound:
    """A certified upper bound from the RDP route (immutable).

    ``enclosure`` = [0, hi]: only the upper end is proved (the RDP route never
    gives a lower bound of the true ε or δ); ``upper`` is hi; ``order`` is the
    order α at which the bound was attained and ``conversion`` the named
    RDP-to-(ε, δ) conversion used there.  (A plain class with slots rather than a
    frozen dataclass: building a dataclass costs ~0.5 ms at import, a third of a
    full-batch answer.)"""

    __slots__ = ("enclosure", "order", "conversion")
    enclosure: Enclosure
    order: Fraction
    conversion: Conversion

    def __init__(self, enclosure: Enclosure, order: Fraction, conversion: Conversion) -> None:
        for k, v in (("enclosure", enclosure), ("order", order), ("conversion", conversion)):
            object.__setattr__(self, k, v)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"RDPBound is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RDPBound):
            return NotImplemented
        return (self.enclosure, self.order, self.conversion) == (other.enclosure, other.order, other.conversion)

    def __hash__(self) -> int:
        return hash((self.enclosure, self.order, self.conversion))

    def __repr__(self) -> str:
        return f"RDPBound(enclosure={self.enclosure!r}, order={self.order!r}, conversion={self.conversion!r})"

    @property
    def upper(self) -> arb:
        """The certified upper bound (an exact ball)."""
        return self.enclosure.hi

    @property
    def method(self) -> str:
        return f"RDP accountant, {_NAMES[self.conversion]} at order α = {self.order}; upper bound only"

    def __str__(self) -> str:
        return f"<= {self.enclosure.hi_str(8)}  ({self.method})"

    def to_json(self) -> dict:
        """Plain JSON types only: the bound [0, hi] as outward decimal strings, the order exactly."""
        return {"enclosure": self.enclosure.to_json(), "upper_only": True, "order": str(self.order),
                "conversion": self.conversion, "method": self.method}


def check_order(order: object) -> Fraction:
    """Validate an RDP order: an exact number α > 1."""
    a = exact(order, "order")
    if a <= 1:
        raise InputError(f"an RDP order must be > 1, got {order!r}")
    return a


# --- the curves ------------------------------------------------------------------

def _gaussian(mu2: Fraction) -> Callable[[Fraction], arb]:
    return lambda a: to_ball(mu2) * to_ball(a) / 2


def _laplace(b: Fraction) -> Callable[[Fraction], arb]:
    def curve(a: Fraction) -> arb:
        ab, bb = to_ball(a), to_ball(b)
        v = ab / (2 * ab - 1) * ((ab - 1) / bb).exp() + (ab - 1) / (2 * ab - 1) * (-ab / bb).exp()
        return v.log() / (ab - 1)
    return curve


def _rr(p: Fraction) -> Callable[[Fraction], arb]:
    def curve(a: Fraction) -> arb:
        ab, lp, lq = to_ball(a), to_ball(p).log(), to_ball(1 - p).log()
        return ((ab * lp + (1 - ab) * lq).exp() + (ab * lq + (1 - ab) * lp).exp()).log() / (ab - 1)
    return curve


def _rr_k(p: Fraction, k: int) -> Callable[[Fraction], arb]:
    """k-ary randomized response (replace-one pair (a, c, r) vs (c, a, r), symmetric):
    ρ(α) = log(a^α c^{1−α} + c^α a^{1−α} + r)/(α − 1), exact."""
    b = (1 - p) / (k - 1)
    a_, c_, r_ = max(p, b), min(p, b), 1 - p - b

    def curve(a: Fraction) -> arb:
        ab, la, lc = to_ball(a), to_ball(a_).log(), to_ball(c_).log()
        s = (ab * la + (1 - ab) * lc).exp() + (ab * lc + (1 - ab) * la).exp() + to_ball(r_)
        return s.log() / (ab - 1)
    return curve


def _pure(eps: Fraction) -> Callable[[Fraction], arb]:
    def curve(a: Fraction) -> arb:
        ab, e = to_ball(a), to_ball(eps)
        return (((ab * e).exp() + ((1 - ab) * e).exp()) / (1 + e.exp())).log() / (ab - 1)
    return curve


def _sgm(q: Fraction, s: Fraction) -> Callable[[Fraction], arb]:
    if q == 1:
        return _gaussian(1 / s**2)
    return lambda a: sgm_rdp(q, s, a)


def _curve(mech: object) -> Callable[[Fraction], arb]:
    """ρ(α) as a ball function of an exact order α > 1, for a catalog mechanism."""
    name = getattr(mech, "name", None)
    if name in ("gaussian", "gaussian_dp", "tree_aggregation"):
        return _gaussian(Fraction(mech.gdp_mu_squared()))  # type: ignore[attr-defined]
    if name == "laplace":
        return _laplace(Fraction(mech.scale) / Fraction(mech.sensitivity))  # type: ignore[attr-defined]
    if name == "randomized_response":
        return _rr(Fraction(mech.p))  # type: ignore[attr-defined]
    if name == "pure_dp":
        return _pure(Fraction(mech.eps))  # type: ignore[attr-defined]
    if name == "randomized_response_k":
        return _rr_k(Fraction(mech.p), int(mech.k))  # type: ignore[attr-defined]
    if name == "zcdp":  # the guarantee itself: ρ(α) = αρ for every α > 1
        rho = Fraction(mech.rho)  # type: ignore[attr-defined]
        return lambda a: to_ball(rho) * to_ball(a)
    if name == "discrete_gaussian":  # Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020 Thm 4): a bound
        rho = Fraction(mech.sensitivity) ** 2 / (2 * Fraction(mech.sigma) ** 2)  # type: ignore[attr-defined]
        return lambda a: to_ball(rho) * to_ball(a)
    if name == "subsample" and getattr(mech.mechanism, "name", None) == "gaussian":  # type: ignore[attr-defined]
        inner = mech.mechanism  # type: ignore[attr-defined]
        return _sgm(Fraction(mech.rate), Fraction(inner.sigma) / Fraction(inner.sensitivity))  # type: ignore[attr-defined]
    if name == "truncated_subsample":  # a labelled mixture of sampled Gaussians (its own module)
        from certdp.analyses.accountants.rdp_truncated import truncated_curve  # noqa: PLC0415

        return truncated_curve(mech, _sgm)
    spec = mech.spec() if hasattr(mech, "spec") else repr(mech)  # type: ignore[attr-defined]
    raise InputError(f"the RDP accountant handles gaussian, gaussian_dp, tree_aggregation, truncated_subsample, "
                     f"discrete_gaussian, laplace, "
                     f"randomized_response, randomized_response_k, pure_dp, zcdp and subsample(gaussian(...)), "
                     f"not {spec}")


def _guide(mech: object) -> Callable[[Fraction], float]:
    """A float estimate of ρ(α) that steers the choice of order (never reported)."""
    name = getattr(mech, "name", None)
    if name == "subsample" and getattr(mech.mechanism, "name", None) == "gaussian":  # type: ignore[attr-defined]
        inner = mech.mechanism  # type: ignore[attr-defined]
        q, s = Fraction(mech.rate), Fraction(inner.sigma) / Fraction(inner.sensitivity)  # type: ignore[attr-defined]
        if q != 1:
            return lambda a: rdp_guide.sgm_rdp_float(q, s, a, QUAD_MAX_PEAK)
        half_mu2 = float(1 / s**2) / 2
        return lambda a: half_mu2 * float(a)
    if name in ("gaussian", "gaussian_dp", "tree_aggregation"):
        half_mu2 = float(Fraction(mech.gdp_mu_squared())) / 2  # type: ignore[attr-defined]
        return lambda a: half_mu2 * float(a)
    if name == "truncated_subsample":
        from certdp.analyses.accountants.rdp_truncated import truncated_guide  # noqa: PLC0415

        return truncated_guide(mech, QUAD_MAX_PEAK)
    return rdp_guide.ball_midpoint(_curve(mech))


def _zcdp(mech: object) -> tuple[Fraction, bool] | None:
    """(ρ, exact) with the mechanism ρ-zCDP (Bun & Steinke 2016), or None."""
    name = getattr(mech, "name", None)
    if name in ("gaussian", "gaussian_dp", "tree_aggregation"):  # Prop 1.6: exactly μ²/2
        return Fraction(mech.gdp_mu_squared()) / 2, True  # type: ignore[attr-defined]
    if name == "zcdp":  # the guarantee itself
        return Fraction(mech.rho), False  # type: ignore[attr-defined]
    if name == "discrete_gaussian":  # CKS20 Thm 4: Δ²/(2σ²)-zCDP (a bound)
        return Fraction(mech.sensitivity) ** 2 / (2 * Fraction(mech.sigma) ** 2), False  # type: ignore[attr-defined]
    if name == "pure_dp":  # Prop 1.4: ε-DP => ε²/2-zCDP (a bound)
        return Fraction(mech.eps) ** 2 / 2, False  # type: ignore[attr-defined]
    if name == "subsample" and getattr(mech.mechanism, "name", None) == "gaussian" and mech.rate == 1:  # type: ignore[attr-defined]
        return _zcdp(mech.mechanism)  # type: ignore[attr-defined]
    return None


# --- the Poisson-subsampled Gaussian ----------------------------------------------

def _binomial_log_a(q: Fraction, s: Fraction, a: int) -> arb:
    """log A_α at an integer order (Mironov, Talwar & Zhang 2019 §3.3).

    The binomials C(α, k) are exact integers by the recurrence
    C(α, k+1) = C(α, k)(α−k)/(k+1) (exact division), and (1−q)^{α−k} q^k by
    multiplying (1−q)^α by the ball q/(1−q) k times: every step is ball
    arithmetic, so each term is enclosed (math.comb per term was O(α²) work)."""
    qb, rb, half = to_ball(q), to_ball(1 - q), 1 / (2 * to_ball(s) ** 2)
    ratio, power, comb = qb / rb, rb**a, 1
    total = arb(0)
    for k in range(a + 1):
        total += comb * power * (arb(k * k - k) * half).exp()
        comb = comb * (a - k) // (k + 1)
        power *= ratio
    return total.log()


def _margin(extra_log: float) -> arb:
    """M with Φ(−M) <= e^{−M²/2} <= 2^{−TAIL_BITS} e^{−extra_log}."""
    return arb(math.ceil(math.sqrt(2 * (TAIL_BITS * math.log(2) + max(extra_log, 0.0)))) + 2)


@functools.lru_cache(maxsize=4096)
def sgm_moment(q: Fraction, s: Fraction, a: Fraction, which: Literal["A", "B"]) -> arb:
    """A ball containing A_α (``which="A"``) or B_α (``"B"``) of the sampled Gaussian.

    With z = s t, t ∼ N(0, 1), u(t) = (2 s t − 1)/(2 s²) and b(t) = 1 − q + q e^{u(t)}
    (= μ/μ0 at z), the moment is ∫ φ(t) b(t)^β dt with β = α (A) or 1 − α (B).
    The integrand exp(−t²/2 + β log b(t)) is analytic near the real axis (log's
    branch cut is checked by arb), integrated over [−L, R] by acb.integral
    (rigorous error bounds); the cut tails are bounded explicitly, with
    Φ(−x) the standard normal tail:
      A, t < −L (u < 0, b <= 1):            <= Φ(−L);
      A, t > R  (b <= 2 max(1−q, q e^u)):
          <= 2^α [(1−q)^α Φ(−R) + q^α e^{(α²−α)/(2s²)} Φ(α/s − R)];
      B, t < −L (b >= 1−q, b^{1−α} <= (1−q)^{1−α}): <= (1−q)^{1−α} Φ(−L);
      B, t > R >= 1/(2s)  (b >= 1, b^{1−α} <= 1):  <= Φ(−R).
    Both moments are >= 1 (Rényi divergences are >= 0), and A_α >= q^α e^{(α²−α)/(2s²)}
    (b >= q e^u), so with R = α/s + M the tails are below 2^{−TAIL_BITS} of the moment.
    """
    with working_precision(QUAD_PREC):
        qb, sb, ab = to_ball(q), to_ball(s), to_ball(a)
        beta = ab if which == "A" else 1 - ab
        c = 1 / (2 * sb * sb)
        qa, ra = acb(qb), acb(1 - qb)
        sa, ca, betaa = acb(sb), acb(c), acb(beta)

        def f(t: acb, analytic: bool) -> acb:
            b = ra + qa * ((2 * sa * t - 1) * ca).exp()
            return (-t * t / 2 + betaa * b.log(analytic=analytic)).exp()

        log_1q = -math.log1p(-float(q))  # log 1/(1−q) >= 0
        if which == "A":
            m = _margin((float(a) + 1) * math.log(2))
            left, right = -m, ab / sb + m
            cuts = [left, arb(0), ab / sb, right]
            tail = Phi_ball(-m) + 2**ab * (((1 - qb).log() * ab).exp() * Phi_ball(-right)
                                           + (qb.log() * ab + (ab * ab - ab) * c).exp() * Phi_ball(ab / sb - right))
        else:
            ml = _margin((float(a) - 1) * log_1q)
            m = _margin(0.0)
            left, right = -ml, 1 / (2 * sb) + m  # b >= 1 right of 1/(2s)
            cuts = [left, arb(0), right]
            tail = ((1 - qb).log() * (1 - ab)).exp() * Phi_ball(-ml) + Phi_ball(-m)
        total = acb(0)
        for x, y in zip(cuts, cuts[1:]):
            total += acb.integral(f, acb(x), acb(y))
        value = total.real / (2 * arb.pi()).sqrt()
        t = upper_bound(tail)
        return value + arb(t / 2, t / 2)  # + [0, tail]


def _interpolated_log_a(q: Fraction, s: Fraction, a: Fraction) -> arb:
    """Convexity bound on log A_α between the neighbouring integer orders."""
    n = math.floor(a)
    lo = arb(0) if n == 1 else _binomial_log_a(q, s, n)
    hi = _binomial_log_a(q, s, n + 1)
    t = to_ball(a - n)
    return (1 - t) * lo + t * hi


def sgm_rdp(q: Fraction, s: Fraction, a: Fraction) -> arb:
    """A ball containing (an upper bound of) the RDP of the sampled Gaussian at
    order α: max(log A_α, log B_α)/(α−1); see the module doc."""
    if a.denominator == 1:
        log_a = _binomial_log_a(q, s, int(a))
    else:
        moment = sgm_moment(q, s, a, "A") if a / s <= QUAD_MAX_PEAK else arb("nan")
        log_a = moment.log() if moment.is_finite() and moment > 0 else _interpolated_log_a(q, s, a)
    moment_b = sgm_moment(q, s, a, "B")
    ab = to_ball(a)
    if moment_b.is_finite() and moment_b > 0:
        log_b = moment_b.log()
    else:
        log_b = -(1 - to_ball(q)).log() * (ab - 1)  # D_∞(μ0‖μ) <= log 1/(1−q)
    return _ball_max(log_a, log_b) / (ab - 1)


def _ball_max(x: arb, y: arb) -> arb:
    """A ball containing max(x, y) for all points of the balls."""
    if x.lower() >= y.upper():
        return x
    if y.lower() >= x.upper():
        return y
    return x.max(y)


# --- the accountant -----------------------------------------------------------------

def supports(mech: object) -> bool:
    """Can the RDP accountant hold this mechanism?"""
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
    to (ε, δ) by the named conversions; see the module doc.  Answers are upper
    bounds only ([0, hi])."""

    def __init__(self, items: tuple[tuple[object, int], ...] = (), orders: Iterable[object] = ORDERS,
                 refine: bool = True, search: Literal["guided", "exhaustive"] = "guided") -> None:
        self.items = items
        self.orders = orders if isinstance(orders, _Orders) else _Orders(check_order(a) for a in orders)
        if not self.orders:
            raise InputError("give at least one RDP order")
        if search not in ("guided", "exhaustive"):
            raise InputError(f"search must be 'guided' or 'exhaustive', got {search!r}")
        self.refine = refine
        self.search = search
        self._cache: dict[Fraction, arb] = {}
        self._guide_cache: dict[Fraction, float] = {}
        self._guides: list[tuple[Callable[[Fraction], float], int]] | None = None

    def compose(self, mechanism: object, count: int = 1) -> "RDPAccountant":
        count = check_count(count)
        return RDPAccountant(self.items + tuple((m, k * count) for m, k in _flatten(mechanism)),
                             self.orders, self.refine, self.search)

    def guide(self, a: Fraction) -> float:
        """Float estimate of Σ k ρ(α), for choosing orders only (never reported)."""
        hit = self._guide_cache.get(a)
        if hit is None:
            if self._guides is None:
                self._guides = [(_guide(m), k) for m, k in self.items]
            try:
                hit = math.fsum(g(a) * k for g, k in self._guides)
            except (ValueError, OverflowError, ZeroDivisionError):
                hit = math.inf
            if math.isnan(hit):
                hit = math.inf
            self._guide_cache[a] = hit
        return hit

    def rdp(self, order: object) -> arb:
        """A ball containing Σ k ρ(α) at an order α > 1 (an exact number)."""
        if not self.items:
            raise InputError("nothing composed yet")
        a = check_order(order)
        hit = self._cache.get(a)
        if hit is None:
            with working_precision(PREC):
                hit = self._cache[a] = sum((_curve(m)(a) * k for m, k in self.items), arb(0))
        return hit

    def rdp_enclosure(self, order: object) -> Enclosure:
        """[0, upper bound of ρ(α)] of the composition, reported as an upper bound."""
        with working_precision(PREC):
            return Enclosure(arb(0), upper_bound(self.rdp(order)))

    def zcdp(self) -> Enclosure:
        """ρ with the composition ρ-zCDP (Bun & Steinke 2016; composition adds ρ,
        Lemma 2.3): two-sided and exact when every part is Gaussian (Prop 1.6),
        else [0, bound] (pure ε-DP: ε²/2, Prop 1.4).  Raises InputError for
        parts without a zCDP guarantee here (Laplace, randomized response: give
        them as pure_dp; subsampled Gaussians: use the RDP curve)."""
        if not self.items:
            raise InputError("nothing composed yet")
        total, exact_all = Fraction(0), True
        for m, k in self.items:
            z = _zcdp(m)
            if z is None:
                spec = m.spec() if hasattr(m, "spec") else repr(m)  # type: ignore[attr-defined]
                raise InputError(f"no zCDP guarantee for {spec} here (gaussian, gaussian_dp and pure_dp only)")
            total += z[0] * k
            exact_all = exact_all and z[1]
        enc = Enclosure.exact(total)
        return enc if exact_all else Enclosure(arb(0), enc.hi)

    def _search(self, score: Callable[[Fraction, arb], dict[str, arb]],
                fscore: Callable[[Fraction, float], dict[str, float]],
                conversions: tuple[Conversion, ...]) -> tuple[arb, Fraction, Conversion]:
        """The smallest certified score over the orders: every order searched in
        balls (``search="exhaustive"``), or the orders ranked by the float guide
        and the :data:`CERTIFIED_ORDERS` best evaluated in balls (``"guided"``).
        Either way the returned value is a certified score at the returned order."""
        best: tuple[arb, Fraction, Conversion] | None = None

        def consider(orders: Iterable[Fraction]) -> None:
            nonlocal best
            for a in orders:
                values = score(a, self.rdp(a))
                for conv in conversions:
                    hi = upper_bound(values[conv])
                    if best is None or hi < best[0]:
                        best = (hi, a, conv)

        with working_precision(PREC):
            if self.search == "guided":
                ranked = self._ranked(fscore, conversions)
                if ranked:
                    consider(ranked[:CERTIFIED_ORDERS])
                    assert best is not None
                    return best
            consider(self.orders)
            assert best is not None
            if self.refine:
                consider(_refinement(self.orders, best[1]))
        assert best is not None
        return best

    def _ranked(self, fscore: Callable[[Fraction, float], dict[str, float]],
                conversions: tuple[Conversion, ...]) -> list[Fraction]:
        """Orders (the grid, then its refinement around the float-best) sorted by
        the float score; empty when the guide gives nothing finite."""
        scores: dict[Fraction, float] = {}

        def consider(orders: Iterable[Fraction]) -> None:
            for a in orders:
                if a in scores:
                    continue
                r = self.guide(a)
                if not math.isfinite(r):
                    continue
                try:
                    vals = fscore(a, r)
                except (ValueError, OverflowError, ZeroDivisionError):
                    continue
                v = min(vals[c] for c in conversions)
                if not math.isnan(v):
                    scores[a] = v

        slope = self._linear_slope()
        if slope is not None:
            linear = self._ranked_linear(float(slope), fscore, conversions)
            if linear is not None:
                return linear
        consider(self.orders)
        if not scores:
            return []
        if self.refine:
            consider(_refinement(self.orders, min(scores, key=scores.__getitem__)))
        return sorted(scores, key=scores.__getitem__)

    def _linear_slope(self) -> Fraction | None:
        """c with the composition's curve ρ(α) = cα exactly (every part a Gaussian, unsampled
        or at rate 1, tree aggregation, a discrete Gaussian or a zCDP part: their curves are
        c_i·α, :func:`_curve`), else None."""
        total = Fraction(0)
        for m, k in self.items:
            name = getattr(m, "name", None)
            if name in ("gaussian", "gaussian_dp", "tree_aggregation"):
                c = Fraction(m.gdp_mu_squared()) / 2  # type: ignore[attr-defined]
            elif name == "zcdp":
                c = Fraction(m.rho)  # type: ignore[attr-defined]
            elif name == "discrete_gaussian":
                c = Fraction(m.sensitivity) ** 2 / (2 * Fraction(m.sigma) ** 2)  # type: ignore[attr-defined]
            elif (name == "subsample" and getattr(m.mechanism, "name", None) == "gaussian"  # type: ignore[attr-defined]
                  and m.rate == 1):  # type: ignore[attr-defined]
                c = (Fraction(m.mechanism.sensitivity) / Fraction(m.mechanism.sigma)) ** 2 / 2  # type: ignore[attr-defined]
            else:
                return None
            total += c * k
        return total if self.items else None

    def _ranked_linear(self, slope: float, fscore: Callable[[Fraction, float], dict[str, float]],
                       conversions: tuple[Conversion, ...]) -> list[Fraction] | None:
        """The orders :meth:`_ranked` would rank first, for a linear curve ρ(α) = slope·α, from
        a handful of float scores (None when a score is not finite: then every order is scored).

        For ρ(α) = cα (c >= 0, L = −log δ > 0) every score is convex in α: ε, classic:
        c − L/(α−1)² and improved: c − (L − log α)/(α−1)² are increasing derivatives; log δ,
        classic: (α−1)(cα − ε) is a convex quadratic, and improved adds (α−1) log(1 − 1/α)
        − log α, whose second derivative 1/(α²(α−1)) + 1/α² is positive.  The improved score
        is never above the classic one, so their minimum is the improved one, convex too;
        a convex function is unimodal on the sorted grid, so the best grid order is found by
        bisection on the sign of the difference of neighbours, and the
        :data:`CERTIFIED_ORDERS` best of the grid and of its refinement around that order lie
        within two grid places of it (each side of the refinement has 7 orders, all better
        than the grid neighbour on that side).  A float rounding that broke the unimodality
        could only pick a worse order: the bound is certified at whatever order is chosen."""
        grid = self.orders.grid
        memo: dict[int, float] = {}

        def score(a: Fraction) -> float:
            try:
                vals = fscore(a, slope * float(a))
                v = min(vals[c] for c in conversions)
            except (ValueError, OverflowError, ZeroDivisionError):
                return math.nan
            return v

        def f(i: int) -> float:
            if i not in memo:
                memo[i] = score(grid[i])
            return memo[i]

        lo, hi = 0, len(grid) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            a, b = f(mid), f(mid + 1)
            if not (math.isfinite(a) and math.isfinite(b)):
                return None
            if a <= b:
                hi = mid
            else:
                lo = mid + 1
        if not math.isfinite(f(lo)):
            return None
        cands = grid[max(0, lo - 2):lo + 3] + (_refinement(self.orders, grid[lo]) if self.refine else [])
        scored = [(score(a), a) for a in cands]
        if not all(math.isfinite(v) for v, _ in scored):
            return None
        return [a for _, a in sorted(scored, key=lambda t: t[0])]

    def epsilon_bound(self, delta: object, conversion: Conversion | None = None) -> RDPBound:
        """The smallest certified ε upper bound over the orders and the
        conversions (both by default, or the one named)."""
        convs = _conversions(conversion)
        d = check_delta(delta)
        with working_precision(PREC):
            log_d = to_ball(d).log()

        def score(a: Fraction, r: arb) -> dict[str, arb]:
            ab = to_ball(a)
            return {"classic": r - log_d / (ab - 1),
                    "improved": r + ((ab - 1) / ab).log() - (log_d + ab.log()) / (ab - 1)}

        log_df = float(log_d.mid())
        hi, a, conv = self._search(score, lambda a, r: rdp_guide.epsilon_scores(a, r, log_df), convs)
        return RDPBound(Enclosure(arb(0), hi if hi > 0 else arb(0)), a, conv)

    def delta_bound(self, eps: object, conversion: Conversion | None = None) -> RDPBound:
        """The smallest certified δ upper bound at ε over the orders and the conversions."""
        convs = _conversions(conversion)
        e = check_eps(eps)

        def score(a: Fraction, r: arb) -> dict[str, arb]:
            ab = to_ball(a)
            classic = ((ab - 1) * (r - to_ball(e))).exp()
            return {"classic": classic, "improved": classic * ((ab - 1) / ab) ** (ab - 1) / ab}

        ef = float(e) if e < 10**300 else math.inf
        hi, a, conv = self._search(score, lambda a, r: rdp_guide.log_delta_scores(a, r, ef), convs)
        return RDPBound(Enclosure(arb(0), hi if hi < 1 else arb(1)), a, conv)

    def delta(self, eps: object) -> Enclosure:
        return self.delta_bound(eps).enclosure

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        return self.epsilon_bound(delta).enclosure


def _conversions(conversion: object) -> tuple[Conversion, ...]:
    if conversion is None:
        return CONVERSIONS
    if conversion not in CONVERSIONS:
        raise InputError(f"conversion must be one of {', '.join(CONVERSIONS)}, got {conversion!r}")
    return (conversion,)  # type: ignore[return-value]


def _refinement(orders: _Orders, best: Fraction) -> list[Fraction]:
    """Seven orders between the best order and each of its grid neighbours (steps of 1/8)."""
    members, grid = orders.members, orders.grid
    i = grid.index(best)
    lo = grid[i - 1] if i > 0 else (1 + best) / 2
    hi = grid[i + 1] if i + 1 < len(grid) else best * 2
    out = [best + (lo - best) * Fraction(j, 8) for j in range(1, 8)]
    out += [best + (hi - best) * Fraction(j, 8) for j in range(1, 8)]
    return [a for a in out if a > 1 and a not in members]
