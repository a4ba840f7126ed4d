"""Sampling under the replace-one (substitution) relation, and sampling with replacement.

The catalog's ``subsample`` (Poisson) and ``subset`` (without replacement) state their
guarantees for add-or-remove neighbours of the full dataset.  The mechanisms here state
them for **replace-one** neighbours (datasets of the same size differing in one record),
the relation dp_accounting calls ``REPLACE_ONE``; each spec names its relation (a
separate name, as ``subset`` is a separate name for sampling without replacement):

* ``subsample_replace(M, rate=q)`` — Poisson sampling at rate q, one record replaced.
  M is ``gaussian``/``gaussian_dp``/``laplace`` whose sensitivity Δ bounds the norm of
  one record's contribution (the add-or-remove sensitivity; two records differ by up to
  2Δ).  The other records' contributions are independent of whether the replaced record
  is sampled, so the output laws are the pair
  P = (1−q)N(0, σ²) + qN(Δ, σ²),  Q = (1−q)N(0, σ²) + qN(−Δ, σ²)
  convolved with one common law: a post-processing of (P, Q) (proved).  That contributions
  ±Δ (a record replaced by its opposite) are the worst case of one substitution is the
  model of dp_accounting's REPLACE adjacency (privacy_loss_mechanism, "REPLACE adjacency
  type"; Lebeda, Regehr, Kamath & Steinke 2024 use the same pair); it is **not proved
  here** (neither for contributions in [−Δ, Δ] nor in a d-dimensional ball) and travels
  as an assumption (:meth:`SubsampleReplace.own_assumptions`).  (P, Q) and (Q, P) have the
  same loss law (reflect x → −x), so one PLD serves both directions, and the answer,
  which takes the worse of the two, is that PLD.  Laplace: the same pair with Lap(·, b).
  At q = 1 this is the mechanism with sensitivity 2Δ (dp_accounting's convention).
  ``discrete_laplace`` / ``discrete_gaussian`` inside: a proved **upper bound**, the larger of
  the Poisson profiles at sensitivity Δ and 2Δ (advanced joint convexity, Balle, Barthe &
  Gaboardi 2018 Thm 2; :meth:`SubsampleReplace._generic_forms`), no assumption.
* ``subset_replace(M, batch=b, n=N)`` — a batch of b of the N records drawn without
  replacement, one record replaced; M stated for replace-one neighbours of the batch.
  Balle, Barthe & Gaboardi 2018 Thm 9: with γ = b/N,
  δ'(log(1 + γ(e^ε − 1))) <= γ δ_M(ε), i.e. δ'(ε') <= γ δ_M(log(1 + (e^{ε'} − 1)/γ)).
  Zhu, Dong & Wang 2022 (Zhu, Dong & Wang 2022, the "not-so-clean" dominating pair of subset
  sampling under replace-one) build a dominating pair from that profile; certdp's PLD
  engine does the same (the pair of a privacy profile), so compositions are answered,
  as upper bounds: the profile is :attr:`ProfileKind.UPPER` (no lower end).
* ``sample_wr(M, batch=b, n=N)`` — b draws with replacement (dp_accounting's
  ``SampledWithReplacementDpEvent``), one record replaced; M = ``gaussian`` /
  ``gaussian_dp`` with sensitivity Δ per record (norm of one contribution).  The replaced
  record is drawn k ~ Binomial(b, 1/N) times.  Revealing k (which can only help the
  adversary), the rest of the batch is a post-processing given k, and the pair given k is
  N(kx, σ²) vs N(kx', σ²) with ‖kx − kx'‖ <= 2kΔ: a Gaussian pair of shift <= 2kΔ,
  dominated by shift exactly 2kΔ (a Gaussian pair of smaller shift is a post-processing
  of a larger one).  Hence δ(ε) <= Σ_k π_k δ_{μ_k}(ε) with μ_k = 2kΔ/σ — proved, and an
  **upper bound** (revealing k loses something).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import EPS, Mechanism, ProfileKind
from certdp.mechanisms.basic import DiscreteGaussian, DiscreteLaplace, Gaussian, GaussianDP, Laplace, _q, gdp_profile
from certdp.mechanisms.params import CatalogMechanism, MorePrivate, Param, positive_part
from certdp.numerics.ball import to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu_ball
from certdp.numerics.normal import Phi_upper_ball

_SMALLER_RATE = MorePrivate("smaller", "the rate-q' pair is the rate-q pair post-processed by keeping the output "
                            "w.p. q'/q, else replacing it by a fresh draw from the component both laws share")

#: the assumption :class:`SubsampleReplace` rests on (see the module docstring)
REPLACE_WORST_CASE = ("subsample_replace: a record replaced by its opposite (contributions +Δ and −Δ) is the worst "
                      "case of one substitution (the pair of dp_accounting's REPLACE adjacency; not proved here, for "
                      "contributions in [−Δ, Δ] or in a d-dimensional ball of radius Δ)")


def noise_ratio(mech: Mechanism) -> tuple[str, Fraction]:
    """("gaussian", σ/Δ) or ("laplace", Δ/b) of a catalog noise mechanism; InputError otherwise."""
    if isinstance(mech, Gaussian):
        return "gaussian", Fraction(mech.sigma) / Fraction(mech.sensitivity)
    if type(mech) is GaussianDP:
        return "gaussian", 1 / Fraction(mech.mu)
    if type(mech) is Laplace:
        return "laplace", Fraction(mech.sensitivity) / Fraction(mech.scale)
    if isinstance(mech, (DiscreteLaplace, DiscreteGaussian)):
        return "generic", Fraction(0)
    raise InputError(f"{mech.spec()}: Poisson sampling under replace-one is defined here for gaussian, gaussian_dp, "
                     "laplace, discrete_laplace and discrete_gaussian (the output law when the record is absent is "
                     "the noise alone); for a mechanism stated for replace-one neighbours of the batch use "
                     "subset_replace(M, batch=b, n=N)")


# ---------------------------------------------------------------------------
# the Gaussian pair (1−q)N(0,s²) + qN(1,s²) vs (1−q)N(0,s²) + qN(−1,s²), s = σ/Δ
# ---------------------------------------------------------------------------


def gaussian_replace_x(w: arb, s: Fraction, q: Fraction) -> arb:
    """The x with L(x) = w, L(x) = log(1−q + q a u) − log(1−q + q a/u), a = e^{−1/(2s²)}, u = e^{x/s²}:
    the positive root u of q a u² + (1−q)(1 − e^w) u − q a e^w = 0 (written without cancellation
    on each side of w = 0), x = s² log u."""
    s2 = to_ball(s) ** 2
    qb, a = to_ball(q), (-1 / (2 * s2)).exp()
    ew = w.exp()
    B = -(1 - qb) * w.expm1()
    D = (B * B + 4 * qb * qb * a * a * ew).sqrt()
    if w >= 0:
        u = (D - B) / (2 * qb * a)
    elif w < 0:
        u = 2 * ew * qb * a / (B + D)
    else:
        u = ((D - B) / (2 * qb * a)).union(2 * ew * qb * a / (B + D))
    return s2 * u.log()


def gaussian_replace_tails(x: arb, s: Fraction, q: Fraction) -> tuple[arb, arb]:
    """(P(X > x), Q(X > x)) for the Gaussian replace pair in units of Δ."""
    sb, qb = to_ball(s), to_ball(q)
    mid = (1 - qb) * Phi_upper_ball(x / sb) if q != 1 else arb(0)
    return mid + qb * Phi_upper_ball((x - 1) / sb), mid + qb * Phi_upper_ball((x + 1) / sb)


def gaussian_replace_delta(eps: arb, s: Fraction, q: Fraction) -> arb:
    """δ(ε) = P(L > ε) − e^ε Q(L > ε) of the Gaussian replace pair."""
    x = gaussian_replace_x(eps, s, q)
    p, qq = gaussian_replace_tails(x, s, q)
    return positive_part(p - eps.exp() * qq)


# ---------------------------------------------------------------------------
# the Laplace pair (1−q)Lap(0,b) + qLap(Δ,b) vs (1−q)Lap(0,b) + qLap(−Δ,b), a = Δ/b, x in units of b
# ---------------------------------------------------------------------------


def laplace_replace_consts(a: Fraction, q: Fraction) -> tuple[arb, arb, arb]:
    """(c, C, ℓ_max): c = 1−q + qe^{−a}, C = 1−q + qe^{a}; L = ±ℓ_max = ±log(C/c) beyond ±a (atoms)."""
    ab, qb = to_ball(a), to_ball(q)
    c, C = (1 - qb) + qb * (-ab).exp(), (1 - qb) + qb * ab.exp()
    return c, C, (C / c).log()


def laplace_replace_atoms(a: Fraction, q: Fraction) -> tuple[tuple[arb, arb, arb], tuple[arb, arb, arb]]:
    """((ℓ_max, P, Q), (−ℓ_max, P, Q)): the masses of x >= a and x <= −a."""
    c, C, ell = laplace_replace_consts(a, q)
    h = (-to_ball(a)).exp() / 2
    return (ell, C * h, c * h), (-ell, c * h, C * h)


def laplace_replace_x(w: arb, a: Fraction, q: Fraction) -> arb:
    """For 0 <= w < ℓ_max: the x in [0, a) with L(x) = w, L(x) = log(1−q + qe^{2x−a}) − log c."""
    c, _, _ = laplace_replace_consts(a, q)
    qb = to_ball(q)
    return (((c * w.exp() - (1 - qb)) / qb).log() + to_ball(a)) / 2


def laplace_replace_tails(y: arb, a: Fraction, q: Fraction) -> tuple[arb, arb]:
    """(P(y < X < a), Q(y < X < a)) for −a <= y <= a (the continuous part above y)."""
    ab, qb = to_ball(a), to_ball(q)
    ema = (-ab).exp()
    if y >= 0:
        f0 = ((-y).exp() - ema) / 2
    elif y <= 0:
        f0 = (1 - y.exp()) / 2 + (1 - ema) / 2
    else:
        f0 = (((-y).exp() - ema) / 2).union((1 - y.exp()) / 2 + (1 - ema) / 2)
    gp = -(y - ab).expm1() / 2
    gm = ((-(y + ab)).exp() - ema * ema) / 2
    return (1 - qb) * f0 + qb * gp, (1 - qb) * f0 + qb * gm


def laplace_replace_delta(eps: arb, a: Fraction, q: Fraction) -> arb:
    """δ(ε) of the Laplace replace pair (0 from ε = ℓ_max on)."""
    (ell, pa, qa), _ = laplace_replace_atoms(a, q)
    if eps >= ell:
        return arb(0)
    ee = eps.exp()
    x = laplace_replace_x(eps, a, q)
    p, qq = laplace_replace_tails(x, a, q)
    val = pa - ee * qa + p - ee * qq
    if eps < ell:
        return positive_part(val)
    return arb(0).union(positive_part(val))


class SubsampleReplace(CatalogMechanism):
    """Poisson sampling at rate q under replace-one neighbours, for gaussian / gaussian_dp / laplace
    (module docstring): the pair (1−q)N(0, σ²) + qN(Δ, σ²) vs (1−q)N(0, σ²) + qN(−Δ, σ²) (Laplace
    alike).  Its reflection is the reverse pair, so both directions have one loss law and the answer
    (the worse of the two) is that law's."""

    name = "subsample_replace"
    replace_one = True  # stated for replace-one neighbours (``subsample`` refuses to wrap it)
    description = ("Poisson sampling at rate q, replace-one neighbours: (1−q)N(0,σ²)+qN(Δ,σ²) vs "
                   "(1−q)N(0,σ²)+qN(−Δ,σ²) (gaussian, gaussian_dp; laplace alike; discrete_laplace, "
                   "discrete_gaussian: an upper bound)")
    PARAMS = (
        Param("mechanism", "mechanism", "gaussian, gaussian_dp, laplace, discrete_laplace or discrete_gaussian; "
                                        "Δ bounds one record's contribution"),
        Param("rate", "number", "Poisson sampling probability q, 0 < q <= 1", more_private=(_SMALLER_RATE,)),
    )

    def check(self) -> None:
        if not 0 < self.rate <= 1:
            raise InputError(f"subsample_replace: rate must satisfy 0 < rate <= 1, got {self.rate}")
        if noise_ratio(self.mechanism)[0] == "generic":
            self._generic_forms  # noqa: B018 (validates the doubled sensitivity now, not at the first evaluation)

    @property
    def noise(self) -> tuple[str, Fraction]:
        """("gaussian", σ/Δ) or ("laplace", Δ/b)."""
        return noise_ratio(self.mechanism)

    def own_assumptions(self) -> tuple[str, ...]:
        return () if self.noise[0] == "generic" else (REPLACE_WORST_CASE,)

    @property
    def own_kind(self) -> ProfileKind:
        return ProfileKind.UPPER if self.noise[0] == "generic" else ProfileKind.EXACT

    @property
    def _generic_forms(self) -> tuple[Mechanism, Mechanism]:
        """The discrete noises: Poisson sampling of M (add/remove, sensitivity Δ) and of M with
        sensitivity 2Δ (a replaced record).  With R the output without the record, P and P' with
        x and x', Balle, Barthe & Gaboardi 2018 Thm 2 (advanced joint convexity) and joint convexity
        give H_{e^{ε'}}((1−q)R + qP ‖ (1−q)R + qP') <= q max(H_{e^ε}(P‖R), H_{e^ε}(P‖P')) with
        e^ε = 1 + (e^{ε'} − 1)/q (for every R: the other records' outputs mix in by joint
        convexity): the larger of the two Poisson profiles bounds the profile (proved, an upper bound)."""
        from certdp.mechanisms.transforms import Subsample  # noqa: PLC0415

        m = self.mechanism
        doubled = type(m)(**{**m.params, "sensitivity": 2 * m.sensitivity})
        return Subsample(m, rate=self.rate), Subsample(doubled, rate=self.rate)

    def gdp_mu_squared(self) -> Fraction | None:
        """Rate 1: N(Δ, σ²) vs N(−Δ, σ²), exactly (2Δ/σ)-GDP."""
        kind, r = self.noise
        return 4 / (r * r) if kind == "gaussian" and self.rate == 1 else None

    def vanishes_from(self) -> Fraction | None:
        """Laplace: δ = 0 from ℓ_max = log(C/c) <= 2Δ/b on (Laplace at rate 1 with sensitivity 2Δ)."""
        kind, r = self.noise
        if kind == "generic":
            ends = [f.vanishes_from() for f in self._generic_forms]
            return None if any(t is None for t in ends) else max(ends)  # type: ignore[type-var]
        return 2 * r if kind == "laplace" else None

    def profile(self) -> sympy.Expr:
        kind, r = self.noise
        q, e = _q(self.rate), sympy.exp(EPS)
        if kind == "generic":
            a, b = self._generic_forms
            return sympy.Max(a.profile(), b.profile())
        if kind == "gaussian":
            if self.rate == 1:
                return gdp_profile(2 / _q(r))
            s = _q(r)

            def bar(z: sympy.Expr) -> sympy.Expr:
                return sympy.erfc(z / sympy.sqrt(2)) / 2

            a = sympy.exp(-1 / (2 * s**2))
            B = (1 - q) * (1 - e)
            x = s**2 * sympy.log((-B + sympy.sqrt(B**2 + 4 * q**2 * a**2 * e)) / (2 * q * a))
            return (1 - q) * (1 - e) * bar(x / s) + q * bar((x - 1) / s) - q * e * bar((x + 1) / s)
        a = _q(r)
        c, C = (1 - q) + q * sympy.exp(-a), (1 - q) + q * sympy.exp(a)
        t = (c * e - (1 - q)) / q  # e^{2x − a} at the threshold x
        x = (sympy.log(t) + a) / 2
        inner = ((C - e * c) * sympy.exp(-a) / 2
                 + ((1 - q) - e * c) * (sympy.exp(-x) - sympy.exp(-a)) / 2 + q * (1 - sympy.exp(x - a)) / 2)
        return sympy.Piecewise((inner, EPS < sympy.log(C / c)), (0, True))

    def delta_point_ball(self, eps: arb) -> arb:
        kind, r = self.noise
        if kind == "generic":
            a, b = self._generic_forms
            return a.delta_ball(eps).max(b.delta_ball(eps))
        if kind == "gaussian":
            if self.rate == 1:
                return delta_mu_ball(2 / to_ball(r), eps)
            return gaussian_replace_delta(eps, r, Fraction(self.rate))
        return laplace_replace_delta(eps, r, Fraction(self.rate))


class _Batched(CatalogMechanism):
    """A batch of ``batch`` of the ``n`` records (the two integer parameters)."""

    replace_one = True  # stated for replace-one neighbours (``subsample`` refuses to wrap it)

    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism run on the batch"),
        Param("batch", "integer", "batch size b >= 1"),
        Param("n", "integer", "dataset size N >= b"),
    )

    def check(self) -> None:
        if not 1 <= self.batch <= self.n:
            raise InputError(f"{self.name}: need 1 <= batch <= n, got batch = {self.batch}, n = {self.n}")

    @property
    def own_kind(self) -> ProfileKind:
        return ProfileKind.UPPER


class SubsetReplace(_Batched):
    """Sampling without replacement (batch b of N) under replace-one neighbours, Balle, Barthe &
    Gaboardi 2018 Thm 9: δ'(ε') <= γ δ_M(log(1 + (e^{ε'} − 1)/γ)), γ = b/N, with M stated for
    replace-one neighbours of the batch.  Attained for an exactly Gaussian M (:attr:`own_kind`);
    an upper bound otherwise.  Compositions: the pair of the profile (Zhu, Dong & Wang 2022), an
    upper bound."""

    @property
    def own_kind(self) -> ProfileKind:
        """EXACT when M is exactly Gaussian (replace-one sensitivity Δ): with records ±Δ/2, the
        replaced one +Δ/2 → −Δ/2 and every other −Δ/2, one step is exactly the remove pair of the
        Poisson-sampled Gaussian at γ, whose profile is the bound (Thm 9 is attained); UPPER
        otherwise.  A composition is still answered from above only (the pair of the profile);
        the same datasets in every step give a lower bound, the lower end of
        ``compose(subset(M, rate=γ), k=T)`` (docs/interop.md)."""
        if self.mechanism.gdp_mu_squared() is not None:
            return ProfileKind.EXACT
        return ProfileKind.UPPER

    name = "subset_replace"
    description = ("sampling without replacement (batch b of N), replace-one neighbours, M stated for replace-one: "
                   "δ'(ε) <= γ δ_M(log(1 + (e^ε − 1)/γ)), γ = b/N (Balle et al. 2018 Thm 9; attained for a Gaussian M)")
    PARAMS = (
        Param("mechanism", "mechanism", "the mechanism run on the batch, stated for replace-one neighbours"),
        *_Batched.PARAMS[1:],
    )

    def check(self) -> None:
        super().check()
        if getattr(self.mechanism, "replace_one", False):
            raise InputError(f"subset_replace: sampling inside {self.mechanism.spec()} is not supported here "
                             "(state the mechanism run on the batch directly)")

    @property
    def _poisson_form(self) -> Mechanism:
        from certdp.mechanisms.transforms import Subsample  # noqa: PLC0415

        # the same formula as Poisson subsampling's (the construction differs, the profile does not)
        return Subsample(self.mechanism, rate=Fraction(self.batch, self.n))

    def vanishes_from(self) -> Fraction | None:
        return self.mechanism.vanishes_from()

    def profile(self) -> sympy.Expr:
        return self._poisson_form.profile()

    def delta_point_ball(self, eps: arb) -> arb:
        """The bound γ δ_M(log(1 + (e^ε − 1)/γ)) (the profile kind, UPPER, says it is a bound)."""
        return self._poisson_form.delta_ball(eps)

    def delta_upper_at(self, eps: arb) -> arb:
        return self._poisson_form.delta_upper_at(eps)

    def delta_lower_at(self, eps: arb) -> arb:
        return self._poisson_form.delta_lower_at(eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        return self._poisson_form.eps_for_delta(delta, bits)


#: binomial tail mass below which sample_wr's remaining copies are bounded by δ <= 1
WR_TAIL = Fraction(1, 2**80)


def binomial_head(b: int, p: Fraction, tail: Fraction = WR_TAIL) -> tuple[list[Fraction], Fraction]:
    """([π_0, ..., π_K], π_{>K}) of Binomial(b, p), exact, K the first index with π_{>K} <= tail."""
    probs: list[Fraction] = []
    pk = (1 - p) ** b
    total = Fraction(0)
    for k in range(b + 1):
        probs.append(pk)
        total += pk
        if 1 - total <= tail or k == b:
            break
        pk = pk * Fraction(b - k, k + 1) * p / (1 - p)
    return probs, 1 - total


#: the exact Binomial(b, 1/N) head of sample_wr is refused beyond this many bits (a hang, not an answer)
WR_MAX_BITS = 200_000


class SampleWR(_Batched):
    """Sampling with replacement (b draws from N records), replace-one neighbours, for gaussian /
    gaussian_dp (module docstring): δ(ε) <= Σ_k π_k δ_{2kΔ/σ}(ε), k ~ Binomial(b, 1/N) the copies of
    the replaced record (revealed: an upper bound, proved)."""

    name = "sample_wr"
    description = ("sampling with replacement (b draws of N), replace-one neighbours: δ(ε) <= Σ_k π_k δ_{2kΔ/σ}(ε), "
                   "k ~ Binomial(b, 1/N) copies (gaussian, gaussian_dp), an upper bound")
    PARAMS = (
        Param("mechanism", "mechanism", "gaussian or gaussian_dp; Δ bounds one record's contribution"),
        *_Batched.PARAMS[1:],
    )

    def check(self) -> None:
        super().check()
        kind, _ = noise_ratio(self.mechanism)
        if kind != "gaussian":
            raise InputError(f"sample_wr: defined here for gaussian and gaussian_dp, got {self.mechanism.spec()}")
        # the copy law is summed exactly: (1 - 1/N)^b has about b·log2(N) bits
        if int(self.batch) * max(1, int(self.n).bit_length()) > WR_MAX_BITS:
            raise InputError(f"sample_wr: batch = {self.batch} of n = {self.n} is too large for the exact copy law "
                             f"(batch·log2(n) must stay below {WR_MAX_BITS:,} bits)")

    def copies(self) -> tuple[list[Fraction], Fraction]:
        """([π_0, ..., π_K], π_{>K}) of the copies k ~ Binomial(b, 1/N)."""
        return binomial_head(int(self.batch), Fraction(1, int(self.n)))

    def mus(self) -> list[Fraction]:
        """μ_k = 2k/s for k = 0..K (s = σ/Δ)."""
        _, s = noise_ratio(self.mechanism)
        return [2 * k / s for k in range(len(self.copies()[0]))]

    def profile(self) -> sympy.Expr:
        probs, rest = self.copies()
        out: sympy.Expr = _q(rest)
        for k, (pk, mu) in enumerate(zip(probs, self.mus())):
            if k:
                out += _q(pk) * gdp_profile(_q(mu))
        return out

    def delta_point_ball(self, eps: arb) -> arb:
        probs, rest = self.copies()
        out = to_ball(rest)
        for k, (pk, mu) in enumerate(zip(probs, self.mus())):
            if k:
                out += to_ball(pk) * delta_mu_ball(to_ball(mu), eps)
        return out


__all__ = ["SubsampleReplace", "SubsetReplace", "SampleWR", "noise_ratio", "binomial_head", "REPLACE_WORST_CASE",
           "gaussian_replace_x", "gaussian_replace_tails", "gaussian_replace_delta", "laplace_replace_atoms",
           "laplace_replace_x", "laplace_replace_tails", "laplace_replace_delta", "laplace_replace_consts"]
