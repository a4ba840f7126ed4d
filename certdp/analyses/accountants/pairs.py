"""Dominating pairs of distributions and their φ-functions (Zhu, Dong & Wang 2022 §4, App D).

For a dominating pair (P, Q) (Zhu, Dong & Wang 2022 Def 7) the privacy loss
L = log(p/q)(X), X ~ P, describes the "remove" direction and
L' = log(q/p)(X), X ~ Q, the "add" direction.  δ(ε) of the pair is
H_{e^ε}(P‖Q) = E_P[(1 − e^{ε−L})⁺] (Gomez et al. 2025 Thm A.7; atoms L = +∞ count 1,
Zhu, Dong & Wang 2022 Lemma 36), and the mechanism's δ is the max over both directions.

Each pair exposes
* ``phi_expr(t, relation)``: φ(t) = E[e^{itL}] as a sympy expression
  (Zhu, Dong & Wang 2022 Table 2; Lemma 32–34; Def 35 for finite pairs; the finite part
  only — the mass at +∞ is ``inf_mass``, Lemma 36 / Prop 37);
* ``mgf_acb(s, relation)``: M(s) = E[e^{sL}; L finite] = φ(−is) in complex
  ball arithmetic (entire in s for the pairs here, Laplace has a removable
  singularity at s = −1/2);
* ``mgf_real_upper(c, relation)``: a ball containing M(c) for real c > 0
  (|M(c+iy)| <= M(c) by the triangle inequality);
* finite pairs: ``atoms(relation)`` = list of (loss, probability) balls of the
  finite part and ``inf_mass(relation)``.

Parameters are exact (Fractions); sensitivity is 1 as in Zhu, Dong & Wang 2022.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import sympy
from flint import acb, arb

from certdp.errors import InputError
from certdp.numerics.ball import to_ball
from certdp.numerics.exact import exact

Relation = Literal["add", "remove"]


def _pos(x: object, name: str) -> Fraction:
    v = exact(x, name)
    if v <= 0:
        raise InputError(f"{name} must be > 0, got {x!r}")
    return v


@dataclass(frozen=True)
class GaussianPair:
    """P = N(1, σ²), Q = N(0, σ²) (Zhu, Dong & Wang 2022 Lemma 34).

    L ~ N(η, 2η) with η = 1/(2σ²) in both directions, φ(t) = exp(−(t² − it)/(2σ²)),
    M(s) = exp(η s(s+1)).  A composition of Gaussians is the Gaussian with
    μ² = Σ 1/σ_j² (μ-GDP, δ = δ_μ).
    """

    sigma: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _pos(self.sigma, "sigma"))

    symmetric = True

    @property
    def eta(self) -> Fraction:
        return 1 / (2 * self.sigma**2)

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        s2 = sympy.Rational(self.sigma.numerator, self.sigma.denominator) ** 2
        return sympy.exp(-(t**2 - sympy.I * t) / (2 * s2))

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        return (to_ball(self.eta) * s * (s + 1)).exp()

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return (to_ball(self.eta) * c * (c + 1)).exp()


@dataclass(frozen=True)
class LaplacePair:
    """P = Lap(0, λ), Q = Lap(1, λ) (Zhu, Dong & Wang 2022 Lemma 33), symmetric.

    With a = 1/λ the loss has atoms +a (mass 1/2), −a (mass e^{−a}/2) and a
    density on (−a, a); φ(t) = ½(e^{ita} + e^{−(it+1)a} + (e^{ita} − e^{−(it+1)a})/(2it+1)),
    M(s) = φ(−is) = ½(e^{sa} + e^{−(s+1)a} + (e^{sa} − e^{−(s+1)a})/(2s+1)).
    """

    scale: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", _pos(self.scale, "scale"))

    symmetric = True

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        lam = sympy.Rational(self.scale.numerator, self.scale.denominator)
        e1 = sympy.exp(sympy.I * t / lam)
        e2 = sympy.exp((-sympy.I * t - 1) / lam)
        return sympy.Rational(1, 2) * (e1 + e2 + (e1 - e2) / (2 * sympy.I * t + 1))

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        a = 1 / to_ball(self.scale)
        e1 = (s * a).exp()
        e2 = (-(s + 1) * a).exp()
        return (e1 + e2 + (e1 - e2) / (2 * s + 1)) / 2

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return self.mgf_acb(acb(c)).real


@dataclass(frozen=True)
class FinitePair:
    """A dominating pair on a finite output set, given by two exact pmf vectors
    (Zhu, Dong & Wang 2022 Def 35).  Outputs with q = 0 < p carry loss +∞ in the remove
    direction (Lemma 36); with p = 0 < q, loss +∞ in the add direction."""

    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        p = tuple(exact(x, "p") for x in self.p)
        q = tuple(exact(x, "q") for x in self.q)
        if len(p) != len(q) or not p:
            raise InputError("p and q must be non-empty pmf vectors of equal length")
        for name, v in (("p", p), ("q", q)):
            if any(x < 0 for x in v):
                raise InputError(f"{name} has a negative entry: {v}")
            if sum(v) != 1:
                raise InputError(f"{name} must sum to 1, sums to {sum(v)}")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)

    @property
    def symmetric(self) -> bool:
        return sorted(zip(self.p, self.q)) == sorted(zip(self.q, self.p))

    def _pq(self, relation: Relation) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        return (self.p, self.q) if relation == "remove" else (self.q, self.p)

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        a, b = self._pq(relation)
        return sympy.Add(*[
            sympy.Rational(x.numerator, x.denominator)
            * sympy.exp(sympy.I * t * sympy.log(sympy.Rational((x / y).numerator, (x / y).denominator)))
            for x, y in zip(a, b) if x > 0 and y > 0
        ])

    def atoms(self, relation: Relation = "remove") -> list[tuple[arb, arb]]:
        a, b = self._pq(relation)
        return [(to_ball(x / y).log(), to_ball(x)) for x, y in zip(a, b) if x > 0 and y > 0]

    def inf_mass(self, relation: Relation = "remove") -> arb:
        a, b = self._pq(relation)
        return to_ball(sum((x for x, y in zip(a, b) if x > 0 and y == 0), Fraction(0)))

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        # log-sum-exp form of Def 35: Σ exp(log p + s·ℓ)
        total = acb(0)
        for loss, prob in self.atoms(relation):
            total += (prob.log() + s * loss).exp()
        return total

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return self.mgf_acb(acb(c), relation).real


@dataclass(frozen=True)
class RRPair:
    """Randomized response: P = (p, 1−p), Q = (1−p, p) on {0, 1} (Zhu, Dong & Wang 2022
    Lemma 32), φ(t) = p e^{it log(p/(1−p))} + (1−p) e^{it log((1−p)/p)}.

    Give ``p`` (exact, in (0,1)) or ``eps0`` (then p = e^{ε0}/(1+e^{ε0}): the
    dominating pair of every ε0-DP mechanism, whose k-fold composition is the
    optimal composition of Kairouz et al.)."""

    p: Fraction | None = None
    eps0: Fraction | None = None

    def __post_init__(self) -> None:
        if (self.p is None) == (self.eps0 is None):
            raise InputError("randomized response needs exactly one of p or eps0")
        if self.p is not None:
            p = exact(self.p, "p")
            if not 0 < p < 1:
                raise InputError(f"p must lie in (0, 1), got {self.p!r}")
            object.__setattr__(self, "p", p)
        else:
            e = exact(self.eps0, "eps0")
            if e < 0:
                raise InputError(f"eps0 must be >= 0, got {self.eps0!r}")
            object.__setattr__(self, "eps0", e)

    symmetric = True

    def _p_ball(self) -> arb:
        if self.p is not None:
            return to_ball(self.p)
        e = to_ball(self.eps0).exp()
        return e / (1 + e)

    def _loss_ball(self) -> arb:
        if self.p is not None:
            return to_ball(self.p / (1 - self.p)).log()
        return to_ball(self.eps0)

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        if self.p is not None:
            p = sympy.Rational(self.p.numerator, self.p.denominator)
            ell = sympy.log(p / (1 - p))
        else:
            e0 = sympy.Rational(self.eps0.numerator, self.eps0.denominator)
            p, ell = sympy.exp(e0) / (1 + sympy.exp(e0)), e0
        return p * sympy.exp(sympy.I * t * ell) + (1 - p) * sympy.exp(-sympy.I * t * ell)

    def atoms(self, relation: Relation = "remove") -> list[tuple[arb, arb]]:
        p, ell = self._p_ball(), self._loss_ball()
        return [(ell, p), (-ell, 1 - p)]

    def inf_mass(self, relation: Relation = "remove") -> arb:
        return arb(0)

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        p, ell = self._p_ball(), self._loss_ball()
        return p * (s * ell).exp() + (1 - p) * (-s * ell).exp()

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return self.mgf_acb(acb(c)).real


@dataclass(frozen=True)
class ApproxDPPair:
    """The tight dominating pair of one (ε0, δ0)-DP guarantee (Liu et al. 2022 Thm 3.1):
    loss +∞ with mass δ0, ±ε0 with masses (1−δ0)e^{ε0}/(1+e^{ε0}) and
    (1−δ0)/(1+e^{ε0}); symmetric.  δ0 = 0 is randomized response with eps0."""

    eps0: Fraction
    delta0: Fraction

    def __post_init__(self) -> None:
        e = exact(self.eps0, "eps0")
        d = exact(self.delta0, "delta0")
        if e < 0:
            raise InputError(f"eps0 must be >= 0, got {self.eps0!r}")
        if not 0 <= d < 1:
            raise InputError(f"delta0 must lie in [0, 1), got {self.delta0!r}")
        object.__setattr__(self, "eps0", e)
        object.__setattr__(self, "delta0", d)

    symmetric = True

    def _rr(self) -> RRPair:
        return RRPair(eps0=self.eps0)

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        d = sympy.Rational(self.delta0.numerator, self.delta0.denominator)
        return (1 - d) * self._rr().phi_expr(t, relation)

    def atoms(self, relation: Relation = "remove") -> list[tuple[arb, arb]]:
        w = 1 - to_ball(self.delta0)
        return [(loss, w * prob) for loss, prob in self._rr().atoms(relation)]

    def inf_mass(self, relation: Relation = "remove") -> arb:
        return to_ball(self.delta0)

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        return (1 - to_ball(self.delta0)) * self._rr().mgf_acb(s, relation)

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return self.mgf_acb(acb(c)).real


@dataclass(frozen=True)
class SubsampledFinitePair:
    """Poisson subsampling at rate γ (0 < γ < 1) of a symmetric finite pair: again a
    finite pair, one per relation (Zhu, Dong & Wang 2022 Thm 11(1)): remove ((1−γ)Q + γP, Q),
    add (P, (1−γ)P + γQ).  The atoms are those of
    :class:`certdp.analyses.accountants.loss_laws.SubsampledLaw` (one owner of the
    transform); no symbolic φ."""

    base: "FinitePair | RRPair | ApproxDPPair"
    rate: Fraction

    def __post_init__(self) -> None:
        r = exact(self.rate, "rate")
        if not 0 < r < 1:
            raise InputError(f"subsampling rate must lie in (0, 1), got {self.rate!r}")
        if not isinstance(self.base, (FinitePair, RRPair, ApproxDPPair)) or not self.base.symmetric:
            raise InputError("only a symmetric finite pair can be subsampled here")
        object.__setattr__(self, "rate", r)

    symmetric = False

    def _law(self, relation: Relation):  # -> SubsampledLaw
        from certdp.analyses.accountants.loss_laws import Atom, AtomLaw, SubsampledLaw  # noqa: PLC0415

        inf = self.base.inf_mass("remove")
        base = AtomLaw(tuple(Atom(loss, p, p * (-loss).exp()) for loss, p in self.base.atoms("remove")), inf, inf)
        return SubsampledLaw(base, self.rate, relation)

    def phi_expr(self, t: sympy.Symbol, relation: Relation = "remove") -> sympy.Expr:
        raise InputError("a subsampled pair has no symbolic φ here (its atoms are balls)")

    def atoms(self, relation: Relation = "remove") -> list[tuple[arb, arb]]:
        return [(to_ball(a.loss) if not isinstance(a.loss, arb) else a.loss, a.p) for a in self._law(relation).atoms()]

    def inf_mass(self, relation: Relation = "remove") -> arb:
        return self._law(relation).p_inf()

    def mgf_acb(self, s: acb, relation: Relation = "remove") -> acb:
        total = acb(0)
        for loss, prob in self.atoms(relation):
            total += (prob.log() + s * loss).exp()
        return total

    def mgf_real_upper(self, c: arb, relation: Relation = "remove") -> arb:
        return self.mgf_acb(acb(c), relation).real


Pair = GaussianPair | LaplacePair | FinitePair | RRPair | ApproxDPPair | SubsampledFinitePair
FINITE_TYPES = (FinitePair, RRPair, ApproxDPPair, SubsampledFinitePair)
