"""Basic mechanisms with closed-form privacy profiles.

Every profile δ(ε), ε >= 0, is the exact (tight) privacy profile of the
mechanism, is non-increasing, and is evaluated in ball arithmetic at the two
endpoints of an interval (monotonicity gives the range).  Each class also has
a closed-form inverse ε(δ) where one exists.

Sources: Laplace — Liu et al. 2022 §3 (Balle et al. 2020, Thm 3); Gaussian/GDP —
Liu et al. 2022 Thm 3.2; randomized response — Zhu, Dong & Wang 2022 Table 2 / Lemma 32; pure DP —
Liu et al. 2022 §5.1; approximate DP — Liu et al. 2022 Thm 3.1 / Cor 3.2.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import EPS, ProfileKind
from certdp.mechanisms.params import (
    PARAMETER_RANGE,
    CatalogMechanism,
    DeltaUnattainable,
    MorePrivate,
    Param,
    positive_part,
)
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.gdp import delta_mu_ball


def _q(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def _log_pos(x: arb) -> arb:
    """Ball containing max(log y, 0) for y in x, given x > 0 may straddle 1."""
    if x <= 1:
        return arb(0)
    if x >= 1:
        return x.log()
    return arb(0).union(x.upper().log().upper())


# ---------------------------------------------------------------------------
# proved monotonicity rules shared by several parameters (calibration reads them)

_SMALLER_SENSITIVITY = MorePrivate("smaller", "the profile at sensitivity Δ and noise s is the one at 1 and s/Δ, "
                                   "so a smaller Δ acts as larger noise")
_SMALLER_GUARANTEE = MorePrivate("smaller", "a weaker guarantee admits every mechanism of the stronger one, "
                                 "so its worst case is no more private")
_RR_FLIP = ("δ(ε) = (q − (1−q)e^ε)⁺ with q = max(p, 1−p); RR(p') is RR(p) with the answer flipped w.p. "
            "(p − p')/(2p − 1) when p' lies between 1/2 and p: a post-processing")


class Laplace(CatalogMechanism):
    """Laplace mechanism Lap(b) on a query of sensitivity Δ.

    δ(ε) = max(1 − exp(ε/2 − Δ/(2b)), 0)   (Liu et al. 2022 §3; Balle et al. 2020 Thm 3).
    It is (Δ/b)-DP: δ(ε) = 0 for ε >= Δ/b.
    """

    name = "laplace"
    description = "Laplace noise of scale b on a query of sensitivity Δ: δ(ε) = max(1 − e^{ε/2 − Δ/(2b)}, 0)"
    PARAMS = (
        Param("scale", "number", "noise scale b > 0", more_private=(MorePrivate(
            "larger", "Lap(b') = Lap(b) + Z with Z = 0 w.p. (b/b')², else Lap(b'): a post-processing"),)),
        Param("sensitivity", "number", "query sensitivity Δ > 0", 1, more_private=(_SMALLER_SENSITIVITY,)),
    )

    def check(self) -> None:
        if self.scale <= 0:
            raise InputError(f"laplace: scale must be > 0, got {self.scale}")
        if self.sensitivity <= 0:
            raise InputError(f"laplace: sensitivity must be > 0, got {self.sensitivity}")

    @property
    def theta(self) -> Fraction:
        """Δ/b, the pure-DP level of the mechanism."""
        return self.sensitivity / self.scale

    def vanishes_from(self) -> Fraction:
        return self.theta  # (Δ/b)-DP

    def profile(self) -> sympy.Expr:
        return sympy.Max(1 - sympy.exp(EPS / 2 - _q(self.theta) / 2), 0)

    def delta_point_ball(self, eps: arb) -> arb:
        return positive_part(-((eps - to_ball(self.theta)) / 2).expm1())

    def _eps_ball(self, delta: Fraction) -> arb:
        # 1 − e^{(ε−θ)/2} = D  ⇔  ε = θ + 2 log(1 − D)
        if delta >= 1:
            return arb(0)
        if delta == 0:
            return to_ball(self.theta)
        e = to_ball(self.theta) + 2 * (-to_ball(delta)).log1p()
        return _clip_at_zero(e)


def _clip_at_zero(e: arb) -> arb:
    if e >= 0:
        return e
    if e <= 0:
        return arb(0)
    return arb(0).union(e.upper())


class GaussianDP(CatalogMechanism):
    """μ-GDP: δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)  (Liu et al. 2022 Thm 3.2)."""

    name = "gaussian_dp"
    description = "worst case of the μ-GDP guarantee (exact for the guarantee): δ_μ(ε) = Φ(−ε/μ+μ/2) − e^ε Φ(−ε/μ−μ/2)"
    PARAMS = (Param("mu", "number", "GDP parameter μ > 0", more_private=(MorePrivate(
        "smaller", "N(μ', 1) = (μ'/μ)·N(μ, 1) + N(0, 1 − (μ'/μ)²) for μ' < μ: a post-processing"),)),)
    #: the tight profile of the μ-GDP guarantee (its worst case is the Gaussian)
    own_kind = ProfileKind.GUARANTEE

    def check(self) -> None:
        if self.mu <= 0:
            raise InputError(f"gaussian_dp: mu must be > 0, got {self.mu}")

    def gdp_mu_squared(self) -> Fraction:
        """μ²: the μ-GDP guarantee's trade-off curve is G_μ exactly."""
        return Fraction(self.mu) ** 2

    def mu_expr(self) -> sympy.Expr:
        """μ as an exact sympy number."""
        return _q(self.mu)

    def mu_ball(self) -> arb:
        """Ball containing μ at the current precision."""
        return to_ball(self.mu)

    def profile(self) -> sympy.Expr:
        return gdp_profile(self.mu_expr())

    def delta_point_ball(self, eps: arb) -> arb:
        return delta_mu_ball(self.mu_ball(), eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        if delta == 0:
            raise DeltaUnattainable(f"{self.name}: δ_μ(ε) > 0 for every ε, so no ε reaches δ = 0")
        return None  # generic certified bisection (δ_μ is strictly decreasing)


def gdp_profile(mu: sympy.Expr) -> sympy.Expr:
    """δ_μ(ε) as a sympy expression, Φ(x) written as erfc(−x/√2)/2."""

    def Phi(x: sympy.Expr) -> sympy.Expr:
        return sympy.erfc(-x / sympy.sqrt(2)) / 2

    return Phi(-EPS / mu + mu / 2) - sympy.exp(EPS) * Phi(-EPS / mu - mu / 2)


class Gaussian(GaussianDP):
    """Gaussian mechanism N(0, σ²) on a query of sensitivity Δ: μ = Δ/σ GDP."""

    name = "gaussian"
    description = "Gaussian noise N(0, σ²) on a query of sensitivity Δ: exactly μ-GDP with μ = Δ/σ"
    PARAMS = (
        Param("sigma", "number", "noise standard deviation σ > 0", more_private=(MorePrivate(
            "larger", "adding independent N(0, σ'² − σ²) noise: a post-processing"),)),
        Param("sensitivity", "number", "query sensitivity Δ > 0", 1, more_private=(_SMALLER_SENSITIVITY,)),
    )
    own_kind = ProfileKind.EXACT

    def check(self) -> None:
        if self.sigma <= 0:
            raise InputError(f"gaussian: sigma must be > 0, got {self.sigma}")
        if self.sensitivity <= 0:
            raise InputError(f"gaussian: sensitivity must be > 0, got {self.sensitivity}")

    @property
    def mu(self) -> Fraction:  # type: ignore[override]
        return self.sensitivity / self.sigma


class RandomizedResponse(CatalogMechanism):
    """Binary randomized response: report the true bit with probability p.

    Dominating pair P = (p, 1−p), Q = (1−p, p) (Zhu, Dong & Wang 2022 Table 2, Lemma 32), so
    δ(ε) = (q − (1−q) e^ε)⁺ with q = max(p, 1−p).  Allowed: 0 < p < 1; p and
    1 − p give the same profile (relabelled output), p = 1/2 gives δ ≡ 0.
    Equals pure_dp(eps=log(q/(1−q))).
    """

    name = "randomized_response"
    description = "binary randomized response, truth with probability p: δ(ε) = (q − (1−q)e^ε)⁺, q = max(p, 1−p)"
    PARAMS = (Param("p", "number", "probability 0 < p < 1 of reporting the true bit", more_private=(
        MorePrivate("smaller", _RR_FLIP, lo=Fraction(1, 2)), MorePrivate("larger", _RR_FLIP, hi=Fraction(1, 2)))),)

    def check(self) -> None:
        if not 0 < self.p < 1:
            raise InputError(f"randomized_response: p must satisfy 0 < p < 1, got {self.p}")

    @property
    def q(self) -> Fraction:
        return max(self.p, 1 - self.p)

    def vanishes_from(self) -> Fraction:
        """A dyadic T > log(q/(1 − q)) = ℓ, the largest loss: δ(ε) = 0 for ε >= ℓ.  T is the
        upper end of a 128-bit ball of ℓ, rounded up to 2^-32 and raised by 2^-32, so that
        T − ℓ >= 2^-32 is decided at any working precision (0 for p = 1/2: δ ≡ 0)."""
        q = self.q
        if q == Fraction(1, 2):
            return Fraction(0)
        with working_precision(128):
            hi = dyadic_to_fraction(upper_bound((to_ball(q) / to_ball(1 - q)).log()))
        return Fraction(-((-hi.numerator * 2**32) // hi.denominator) + 1, 2**32)

    def profile(self) -> sympy.Expr:
        q = _q(self.q)
        return sympy.Max(q - (1 - q) * sympy.exp(EPS), 0)

    def delta_point_ball(self, eps: arb) -> arb:
        q = self.q
        return positive_part(to_ball(q) - to_ball(1 - q) * eps.exp())

    def _eps_ball(self, delta: Fraction) -> arb:
        q = self.q
        if delta >= q - (1 - q):  # δ(0) = 2q − 1 <= D
            return arb(0)
        # q − (1−q)e^ε = D  ⇔  ε = log((q − D)/(1 − q))
        return _log_pos((to_ball(q - delta)) / to_ball(1 - q))



class RandomizedResponseK(CatalogMechanism):
    """k-ary randomized response: report the true value w.p. p, each of the other k − 1 values
    w.p. b = (1 − p)/(k − 1).

    Under replace-one every pair of neighbours x ≠ x' gives the same pair: P = (p, b, b, …),
    Q = (b, p, b, …) on (x, x', the k − 2 others).  The others carry mass b under both
    (loss 0, total (k − 2)b).  With a = max(p, b), c = min(p, b):
    δ(ε) = (a − e^ε c)⁺ + (c − e^ε a)⁺ = (a − e^ε c)⁺ for ε >= 0 (the zero-loss outcomes
    contribute nothing; Zhu, Dong & Wang 2022 Def 35 for finite pairs).  k = 2 is
    ``randomized_response(p)``; p = 1/k gives δ ≡ 0.  dp_accounting's
    ``RandomizedResponseDpEvent(noise_parameter=ν, num_buckets=k)`` is p = 1 − ν + ν/k.
    """

    name = "randomized_response_k"
    description = ("k-ary randomized response (replace-one), truth w.p. p, each other value w.p. (1−p)/(k−1): "
                   "δ(ε) = (a − c e^ε)⁺, a = max(p, (1−p)/(k−1)), c = min(p, (1−p)/(k−1))")
    PARAMS = (
        Param("p", "number", "probability 0 < p < 1 of reporting the true value"),
        Param("k", "integer", "number of values k >= 2"),
    )

    def check(self) -> None:
        if not 0 < self.p < 1:
            raise InputError(f"randomized_response_k: p must satisfy 0 < p < 1, got {self.p}")
        if not 2 <= self.k <= PARAMETER_RANGE[1]:
            raise InputError(f"randomized_response_k: k must be an integer >= 2, got {self.k}")

    @property
    def other(self) -> Fraction:
        """b = (1 − p)/(k − 1), the probability of each value other than the true one."""
        return (1 - Fraction(self.p)) / (int(self.k) - 1)

    @property
    def a(self) -> Fraction:
        return max(Fraction(self.p), self.other)

    @property
    def c(self) -> Fraction:
        return min(Fraction(self.p), self.other)

    def pmf_pair(self) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        """The replace-one pair (P, Q) on (x, x', the others lumped): exact masses."""
        p, b = Fraction(self.p), self.other
        rest = 1 - p - b
        return (p, b, rest), (b, p, rest)

    def vanishes_from(self) -> Fraction:
        """A dyadic T > log(a/c), the largest loss (as for randomized_response; 0 when a = c)."""
        a, c = self.a, self.c
        if a == c:
            return Fraction(0)
        with working_precision(128):
            hi = dyadic_to_fraction(upper_bound((to_ball(a) / to_ball(c)).log()))
        return Fraction(-((-hi.numerator * 2**32) // hi.denominator) + 1, 2**32)

    def profile(self) -> sympy.Expr:
        return sympy.Max(_q(self.a) - _q(self.c) * sympy.exp(EPS), 0)

    def delta_point_ball(self, eps: arb) -> arb:
        return positive_part(to_ball(self.a) - to_ball(self.c) * eps.exp())

    def _eps_ball(self, delta: Fraction) -> arb:
        a, c = self.a, self.c
        if delta >= a - c:  # δ(0) = a − c <= D
            return arb(0)
        # a − c e^ε = D  ⇔  ε = log((a − D)/c)
        return _log_pos(to_ball(a - delta) / to_ball(c))

#: the largest integer sensitivity discrete_laplace expands into atoms
MAX_DISCRETE_SENSITIVITY = 1000


class DiscreteLaplace(CatalogMechanism):
    """Discrete Laplace noise P(x) ∝ e^{−|x|/t} on the integers, integer sensitivity Δ.

    Pair P = DL(0), Q = DL(Δ) (symmetric).  With r = e^{−1/t} and c = (1−r)/(1+r) the loss
    ℓ(x) = (|x − Δ| − |x|)/t takes Δ + 1 values: Δ/t for x <= 0 (P-mass 1/(1+r)),
    −Δ/t for x >= Δ (P-mass r^Δ/(1+r)) and (Δ − 2x)/t for 0 < x < Δ (P-mass c r^x);
    Q-mass = P-mass·e^{−ℓ}.  Hence δ(ε) = Σ_x (P(x) − e^ε Q(x))⁺, zero for ε >= Δ/t
    (it is (Δ/t)-DP; Δ = 1 is randomized response with ε0 = 1/t).  Canonne, Kamath &
    Steinke 2020 ("The discrete Gaussian for differential privacy") §2 for the pmf.
    """

    name = "discrete_laplace"
    description = "discrete Laplace noise ∝ e^{−|x|/t} on an integer query of sensitivity Δ: δ(ε) = Σ_x (P(x) − e^ε Q(x))⁺"
    PARAMS = (
        Param("scale", "number", "noise scale t > 0"),
        Param("sensitivity", "integer", "integer query sensitivity Δ >= 1", 1),
    )

    def check(self) -> None:
        if self.scale <= 0:
            raise InputError(f"discrete_laplace: scale must be > 0, got {self.scale}")
        if not 1 <= self.sensitivity <= MAX_DISCRETE_SENSITIVITY:
            raise InputError(f"discrete_laplace: sensitivity must be an integer in [1, {MAX_DISCRETE_SENSITIVITY}], "
                             f"got {self.sensitivity}")

    def vanishes_from(self) -> Fraction | None:
        return Fraction(self.sensitivity) / self.scale

    def atoms(self) -> list[tuple[Fraction, sympy.Expr, sympy.Expr]]:
        """(loss, P-mass, Q-mass) of the Δ + 1 loss values, exact sympy masses."""
        d, t = int(self.sensitivity), _q(Fraction(self.scale))
        r = sympy.exp(-1 / t)
        c = (1 - r) / (1 + r)
        out = [(Fraction(d) / self.scale, 1 / (1 + r), r**d / (1 + r)),
               (-Fraction(d) / self.scale, r**d / (1 + r), 1 / (1 + r))]
        out += [(Fraction(d - 2 * x) / self.scale, c * r**x, c * r**(d - x)) for x in range(1, d)]
        return out

    def profile(self) -> sympy.Expr:
        return sympy.Add(*[sympy.Max(p - sympy.exp(EPS) * q, 0) for ell, p, q in self.atoms() if ell > 0])

    def delta_point_ball(self, eps: arb) -> arb:
        d, inv_t = int(self.sensitivity), 1 / to_ball(self.scale)
        r = (-inv_t).exp()
        c = (1 - r) / (1 + r)
        e = eps.exp()
        total = positive_part(1 / (1 + r) - e * r**d / (1 + r))
        for x in range(1, d):
            if 2 * x < d:
                total += positive_part(c * r**x - e * c * r**(d - x))
        return total


#: the most integer points the discrete Gaussian expands into atoms
MAX_DISCRETE_GAUSSIAN_ATOMS = 200_000
#: its tails beyond the atoms carry at most 2^-TAIL_BITS of mass
DISCRETE_GAUSSIAN_TAIL_BITS = 400


class DiscreteGaussian(CatalogMechanism):
    """Discrete Gaussian noise P(x) = e^{−x²/(2σ²)}/Z on the integers (Canonne, Kamath &
    Steinke 2020, "The discrete Gaussian for differential privacy", Def 1), integer
    sensitivity Δ.  Pair P = N_Z(0, σ²), Q = N_Z(Δ, σ²) (symmetric, CKS20 Thm 7): the loss
    ℓ(x) = (Δ² − 2Δx)/(2σ²) takes values in the lattice (Δ/σ²)·Z + Δ²/(2σ²), and
    δ(ε) = Σ_x (P(x) − e^ε Q(x))⁺ (CKS20 Thm 7, eq. for the privacy profile).

    Certified evaluation: the atoms |x| <= N (and up to N + Δ) are kept with ball
    masses; Z and the two tails are bounded by geometric series (the ratio of
    consecutive terms beyond N is <= e^{−(2N+1)/(2σ²)}), with N chosen so that each
    tail holds at most 2^−400 — enclosed as a ball [0, bound], never dropped
    silently (:func:`discrete_gaussian_parts`)."""

    name = "discrete_gaussian"
    profile_route = "privacy profile as a certified sum over the integers (tails bounded)"
    description = ("discrete Gaussian noise ∝ e^{−x²/(2σ²)} on an integer query of sensitivity Δ: "
                   "δ(ε) = Σ_x (P(x) − e^ε Q(x))⁺ (Canonne, Kamath & Steinke 2020)")
    PARAMS = (
        Param("sigma", "number", "noise parameter σ > 0 (the variance is slightly below σ²)"),
        Param("sensitivity", "integer", "integer query sensitivity Δ >= 1", 1),
    )

    def check(self) -> None:
        if self.sigma <= 0:
            raise InputError(f"discrete_gaussian: sigma must be > 0, got {self.sigma}")
        if not 1 <= self.sensitivity <= MAX_DISCRETE_SENSITIVITY:
            raise InputError(f"discrete_gaussian: sensitivity must be an integer in "
                             f"[1, {MAX_DISCRETE_SENSITIVITY}], got {self.sensitivity}")
        if 2 * _discrete_gaussian_cut(Fraction(self.sigma)) + self.sensitivity > MAX_DISCRETE_GAUSSIAN_ATOMS:
            raise InputError(f"discrete_gaussian: sigma = {self.sigma} needs more than "
                             f"{MAX_DISCRETE_GAUSSIAN_ATOMS} atoms; for such a wide noise use gaussian(...) "
                             "only if its continuous analysis applies to your release")

    def profile(self) -> sympy.Expr:
        raise InputError("discrete_gaussian has no closed-form profile (an infinite sum); its profile is "
                         "evaluated in ball arithmetic and its compositions by the PLD engine")

    def delta_point_ball(self, eps: arb) -> arb:
        atoms, tail = discrete_gaussian_parts(Fraction(self.sigma), int(self.sensitivity))
        e = eps.exp()
        total = arb(0)
        for ell, p, q in atoms:
            if ell > 0:
                total += positive_part(p - e * q)
        return total + tail  # the tail x < −N (largest losses): at most its P-mass


def _discrete_gaussian_cut(sigma: Fraction) -> int:
    """N with e^{−N²/(2σ²)} <= 2^−TAIL_BITS (floats choose N; the tail bound is certified)."""
    import math  # noqa: PLC0415

    return int(math.ceil(float(sigma) * math.sqrt(2 * DISCRETE_GAUSSIAN_TAIL_BITS * math.log(2)))) + 1


def discrete_gaussian_parts(sigma: Fraction, d: int) -> tuple[list[tuple[Fraction, arb, arb]], arb]:
    """(atoms (loss, P-mass, Q-mass) for x = −N..N+Δ, ball [0, B]) where B bounds the P-mass
    of x < −N and the Q-mass of x > N + Δ (also each of the two other tails).
    Z = Σ_{|x|<=N} e^{−x²/(2σ²)} + 2T with T ∈ [0, e^{−(N+1)²/(2σ²)}/(1 − e^{−(2N+3)/(2σ²)})]."""
    n = _discrete_gaussian_cut(sigma)
    s2 = to_ball(2 * sigma * sigma)
    w = {x: (-(to_ball(x * x)) / s2).exp() for x in range(-n - d, n + d + 1)}
    geo = (-(to_ball((n + 1) ** 2)) / s2).exp() / (1 - (-(to_ball(2 * n + 3)) / s2).exp())
    core = sum((w[x] for x in range(-n, n + 1)), arb(0))
    z = core + 2 * arb(0).union(geo)
    tail = arb(0).union(upper_bound(geo / lower_bound(z)))
    atoms = [(Fraction(d * d - 2 * d * x) / (2 * sigma * sigma), w[x] / z, w[x - d] / z)
             for x in range(-n, n + d + 1)]
    return atoms, tail


class PureDP(CatalogMechanism):
    """Worst case of an ε₀-DP mechanism: δ(ε) = (e^{ε₀} − e^ε)⁺/(1 + e^{ε₀})
    (Liu et al. 2022 §5.1 via Thm 3.1 with δ₀ = 0; attained by randomized response)."""

    name = "pure_dp"
    description = "worst case of the ε₀-DP guarantee (exact for the guarantee): δ(ε) = (e^{ε₀} − e^ε)⁺ / (1 + e^{ε₀})"
    PARAMS = (Param("eps", "number", "pure DP level ε₀ >= 0", more_private=(_SMALLER_GUARANTEE,)),)
    #: the worst case over all ε₀-DP mechanisms (tight by Liu et al. 2022 Thm 3.1)
    own_kind = ProfileKind.GUARANTEE

    def check(self) -> None:
        if self.eps < 0:
            raise InputError(f"pure_dp: eps must be >= 0, got {self.eps}")

    @property
    def eps0(self) -> Fraction:
        return self.eps

    @property
    def delta0(self) -> Fraction:
        return Fraction(0)

    def vanishes_from(self) -> Fraction | None:
        return self.eps0 if self.delta0 == 0 else None

    def profile(self) -> sympy.Expr:
        return _approx_profile(self.eps0, self.delta0)

    def delta_point_ball(self, eps: arb) -> arb:
        return _approx_ball(self.eps0, self.delta0, eps)

    def _eps_ball(self, delta: Fraction) -> arb:
        return _approx_inverse(self.name, self.eps0, self.delta0, delta)


class ApproxDP(PureDP):
    """The tight profile implied by one (ε₀, δ₀)-DP guarantee (Liu et al. 2022 Thm 3.1,
    Cor 3.2): δ(ε) = δ₀ + (1 − δ₀)(e^{ε₀} − e^ε)⁺/(1 + e^{ε₀}).

    Attained by a specific (ε₀, δ₀)-DP mechanism (Liu et al. 2022 remark after Cor 3.2).
    Note δ(ε) → δ₀ as ε → ∞: no ε reaches δ < δ₀.
    """

    name = "approx_dp"
    description = "worst case of one (ε₀, δ₀)-DP guarantee (exact for the guarantee): δ(ε) = δ₀ + (1−δ₀)(e^{ε₀} − e^ε)⁺/(1 + e^{ε₀})"
    PARAMS = (
        Param("eps", "number", "ε₀ >= 0", more_private=(_SMALLER_GUARANTEE,)),
        Param("delta", "number", "δ₀ with 0 <= δ₀ < 1", more_private=(_SMALLER_GUARANTEE,)),
    )

    def check(self) -> None:
        if self.eps < 0:
            raise InputError(f"approx_dp: eps must be >= 0, got {self.eps}")
        if not 0 <= self.delta < 1:
            raise InputError(f"approx_dp: delta must satisfy 0 <= delta < 1, got {self.delta}")

    @property
    def delta0(self) -> Fraction:
        return self.delta


def _approx_profile(eps0: Fraction, delta0: Fraction) -> sympy.Expr:
    e0 = sympy.exp(_q(eps0))
    d0 = _q(delta0)
    return d0 + (1 - d0) * sympy.Max(e0 - sympy.exp(EPS), 0) / (1 + e0)


def _approx_ball(eps0: Fraction, delta0: Fraction, eps: arb) -> arb:
    e0 = to_ball(eps0)
    # e^{ε0} − e^{ε} = e^{ε}(e^{ε0−ε} − 1): sign decided by ε0 − ε, no cancellation
    diff = positive_part(eps.exp() * (e0 - eps).expm1())
    term = diff / (1 + e0.exp())
    if delta0 == 0:
        return term
    d0 = to_ball(delta0)
    return d0 + (1 - d0) * term


def _approx_inverse(name: str, eps0: Fraction, delta0: Fraction, delta: Fraction) -> arb:
    """Smallest ε >= 0 with δ₀ + (1−δ₀)(e^{ε₀} − e^ε)⁺/(1+e^{ε₀}) <= D."""
    if delta < delta0:
        raise DeltaUnattainable(
            f"{name}: δ(ε) >= δ0 = {delta0} for every ε, so no ε reaches δ = {delta}"
        )
    if delta >= 1:
        return arb(0)
    e0 = to_ball(eps0).exp()
    if delta == delta0:
        return to_ball(eps0)
    # e^ε = e^{ε0} − (D − δ0)(1 + e^{ε0})/(1 − δ0)
    t = to_ball(delta - delta0) / to_ball(1 - delta0)
    arg = e0 - t * (1 + e0)
    if arg <= 1:
        return arb(0)
    if arg > 0:
        return _log_pos(arg)
    return arb(0).union(arg.upper().log().upper())  # very wide ball: ε in [0, log(upper)]
