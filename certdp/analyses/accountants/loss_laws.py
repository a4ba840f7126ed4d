"""Privacy-loss laws of dominating pairs: the input of the certified PLD engine.

A dominating pair (P, Q) for one neighbouring relation (Zhu, Dong & Wang 2022
Def 7 = Zhu, Dong & Wang 2022) is described here by the law of its privacy loss
L = log(p/q)(X):

* under P, L lives on (−∞, +∞]; ``p_inf`` = P(L = +∞) (outputs Q cannot produce);
* under Q, dQ = e^{−ℓ} dP on finite ℓ, plus ``q_minf`` = Q(L = −∞).

A law is split into finitely many **atoms** (ℓ, P{L = ℓ}, Q{L = ℓ}) — ℓ an
exact :class:`~fractions.Fraction` when it is known exactly, else a ball — and a
**continuous part** (no atoms) given by certified tails
``cont_tail(w, "P") = P(L > w, L finite, L not an atom)`` and likewise for Q.
That is all the engine (:mod:`certdp.analyses.accountants.engine`) needs: the
masses of loss intervals for connect-the-dots and for the lower discretisation.

Laws here:

* :class:`GaussianLaw` — L ~ N(η, 2η) under P, N(−η, 2η) under Q
  (Zhu, Dong & Wang 2022 Lemma 34; η = 1/(2σ²) = μ²/2);
* :class:`LaplaceLaw` — P = Lap(0, λ), Q = Lap(1, λ) (Zhu, Dong & Wang 2022 Lemma 33): atoms
  ±a (a = 1/λ) and a continuous part on (−a, a);
* :class:`AtomLaw` — finitely many atoms (randomized response, pure and
  approximate DP — Zhu, Dong & Wang 2022 Lemma 32, Liu et al. 2022 Thm 3.1 — finite pairs, and
  the pair built from a privacy profile, :func:`profile_law`);
* :class:`SubsampledLaw` — Poisson subsampling at rate γ of a *symmetric* pair
  (Zhu, Dong & Wang 2022 Thm 11(1)): remove ((1−γ)Q + γP, Q) with loss g(L) = log(1 − γ + γe^L),
  add (P, (1−γ)P + γQ) with loss −g(−L).

Every law here is for a symmetric base pair ((P, Q) and (Q, P) have the same
loss law), so the add and remove laws of a base mechanism coincide; only
subsampling separates them.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Union

from flint import arb

from certdp.errors import InputError
from certdp.numerics.ball import to_ball, upper_bound
from certdp.verifier.check_law_pld import clip01
from certdp.numerics.normal import Phi_upper_ball

Relation = Literal["add", "remove"]
Side = Literal["P", "Q"]
Loss = Union[Fraction, arb]


def as_ball(x: Loss) -> arb:
    """A ball for an exact or ball loss value."""
    return x if isinstance(x, arb) else to_ball(x)


def compare(x: Loss, w: Loss) -> int | None:
    """Sign of x − w (−1, 0, 1), exact for Fractions, None when the balls overlap."""
    if isinstance(x, Fraction) and isinstance(w, Fraction):
        return (x > w) - (x < w)
    d = as_ball(x) - as_ball(w)
    if d > 0:
        return 1
    if d < 0:
        return -1
    if d == 0:  # both exact and equal
        return 0
    return None


@dataclass(frozen=True)
class Atom:
    """An atom of the loss law: loss ℓ (finite), P{L = ℓ}, Q{L = ℓ} (balls)."""

    loss: Loss
    p: arb
    q: arb


class LossLaw(ABC):
    """The privacy-loss law of one dominating pair (see module doc)."""

    #: exact spacing h0 with every atom loss in h0·Z (a grid of step h0/m puts
    #: the atoms on grid points; with no continuous part the discretisation is then exact)
    anchor: Fraction | None = None

    @abstractmethod
    def atoms(self) -> tuple[Atom, ...]:
        """The atoms at finite losses."""

    def p_inf(self) -> arb:
        """P(L = +∞)."""
        return arb(0)

    def q_minf(self) -> arb:
        """Q(L = −∞)."""
        return arb(0)

    def has_continuous(self) -> bool:
        return False

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        """Mass of the continuous part with L > w under ``side`` (w = None: −∞, the total)."""
        return arb(0)

    @abstractmethod
    def range_f(self, tail: float) -> tuple[float, float]:
        """Float guide (search only): losses outside [lo, hi] carry P- and
        Q-mass below ``tail`` each (atoms included)."""


def _gauss_z(tail: float) -> float:
    """Float z with Φ̄(z) <= tail (search only)."""
    z = 1.0
    while math.erfc(z / math.sqrt(2)) / 2 > max(tail, 1e-300):
        z += 0.25
    return z


@dataclass(frozen=True)
class GaussianLaw(LossLaw):
    """L ~ N(η, 2η) under P and N(−η, 2η) under Q (Gaussian pair, Zhu, Dong & Wang 2022 Lemma 34)."""

    eta: Fraction

    def atoms(self) -> tuple[Atom, ...]:
        return ()

    def has_continuous(self) -> bool:
        return True

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        if w is None:
            return arb(1)
        eta = to_ball(self.eta)
        s = (2 * eta).sqrt()
        centre = eta if side == "P" else -eta
        return Phi_upper_ball((as_ball(w) - centre) / s)

    def range_f(self, tail: float) -> tuple[float, float]:
        eta = float(self.eta)
        s = math.sqrt(2 * eta)
        z = _gauss_z(tail)
        return -eta - z * s, eta + z * s


@dataclass(frozen=True)
class LaplaceLaw(LossLaw):
    """P = Lap(0, λ), Q = Lap(1, λ), a = 1/λ (Zhu, Dong & Wang 2022 Lemma 33).

    L(x) = (|x − 1| − |x|)/λ: atom +a for x <= 0 (P-mass 1/2, Q-mass e^{−a}/2),
    atom −a for x >= 1 (P-mass e^{−a}/2, Q-mass 1/2), and L = (1 − 2x)/λ on
    (0, 1): L > w ⟺ x < x_w = (1 − λw)/2, so the continuous tails are
    P(0 < X < x_w) = (1 − e^{−x_w/λ})/2 and Q(0 < X < x_w) = (e^{(x_w−1)/λ} − e^{−a})/2.
    """

    a: Fraction

    @property
    def anchor(self) -> Fraction:  # type: ignore[override]
        return self.a

    def atoms(self) -> tuple[Atom, ...]:
        a = to_ball(self.a)
        half = arb(1) / 2
        ema = (-a).exp() / 2
        return (Atom(self.a, half, ema), Atom(-self.a, ema, half))

    def has_continuous(self) -> bool:
        return True

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        a = to_ball(self.a)
        if w is None:
            x = arb(1)
        else:
            x = clip01((1 - as_ball(w) / a) / 2)
        if side == "P":
            return (1 - (-x * a).exp()) / 2
        return (((x - 1) * a).exp() - (-a).exp()) / 2

    def range_f(self, tail: float) -> tuple[float, float]:
        a = float(self.a)
        return -a, a


@dataclass(frozen=True)
class AtomLaw(LossLaw):
    """A law with finitely many atoms (and optional masses at ±∞)."""

    atom_list: tuple[Atom, ...]
    inf_p: arb = field(default_factory=lambda: arb(0))
    minf_q: arb = field(default_factory=lambda: arb(0))
    anchor: Fraction | None = None

    def atoms(self) -> tuple[Atom, ...]:
        return self.atom_list

    def p_inf(self) -> arb:
        return self.inf_p

    def q_minf(self) -> arb:
        return self.minf_q

    def range_f(self, tail: float) -> tuple[float, float]:
        xs = [float(as_ball(t.loss).mid()) for t in self.atom_list
              if float(upper_bound(t.p).mid()) > tail or float(upper_bound(t.q).mid()) > tail]
        if not xs:
            xs = [float(as_ball(t.loss).mid()) for t in self.atom_list] or [0.0]
        return min(xs), max(xs)


def rr_law(eps0: Fraction, delta0: Fraction = Fraction(0)) -> AtomLaw:
    """The tight pair of one (ε0, δ0)-DP guarantee (Liu et al. 2022 Thm 3.1; Zhu, Dong & Wang 2022 Lemma 32 for
    δ0 = 0): atoms ±ε0 with P-masses (1−δ0)e^{ε0}/(1+e^{ε0}), (1−δ0)/(1+e^{ε0}),
    P(L = +∞) = Q(L = −∞) = δ0.  ε0 = 0: one atom at 0."""
    e = to_ball(eps0).exp()
    w = 1 - to_ball(delta0)
    hi, lo = w * e / (1 + e), w / (1 + e)
    d = to_ball(delta0)
    if eps0 == 0:
        return AtomLaw((Atom(Fraction(0), w, w),), d, d, None)
    return AtomLaw((Atom(eps0, hi, lo), Atom(-eps0, lo, hi)), d, d, eps0)


def rr_p_law(p: Fraction) -> AtomLaw:
    """Binary randomized response with truth probability p (Zhu, Dong & Wang 2022 Lemma 32):
    atoms ±log(p/(1−p)) with P-masses p, 1−p (Q-masses swapped)."""
    hi, lo = max(p, 1 - p), min(p, 1 - p)
    if hi == lo:
        return AtomLaw((Atom(Fraction(0), arb(1), arb(1)),))
    ell = to_ball(hi / lo).log()
    return AtomLaw((Atom(ell, to_ball(hi), to_ball(lo)), Atom(-ell, to_ball(lo), to_ball(hi))))


def rr_k_law(p: Fraction, k: int) -> AtomLaw:
    """k-ary randomized response under replace-one (truth w.p. p, each other value w.p.
    b = (1 − p)/(k − 1)): atoms ±log(a/c) with P-masses a, c (Q-masses swapped), a = max(p, b),
    c = min(p, b), and a zero-loss atom of mass (k − 2)b under both (absent for k = 2)."""
    b = (1 - p) / (k - 1)
    hi, lo, rest = max(p, b), min(p, b), 1 - p - b
    if hi == lo:
        return AtomLaw((Atom(Fraction(0), arb(1), arb(1)),))
    ell = to_ball(hi / lo).log()
    middle = (Atom(Fraction(0), to_ball(rest), to_ball(rest)),) if rest else ()
    return AtomLaw((Atom(ell, to_ball(hi), to_ball(lo)), *middle, Atom(-ell, to_ball(lo), to_ball(hi))))

def _g_inv(w: arb, gamma: arb) -> arb | None:
    """g⁻¹(w) = log((e^w − (1−γ))/γ) for g(ℓ) = log(1 − γ + γe^ℓ); None when e^w <= 1−γ
    is not excluded (w at or below the bottom of g's range)."""
    t = w.exp() - (1 - gamma)
    if not t > 0:
        return None
    return (t / gamma).log()


@dataclass(frozen=True)
class SubsampledLaw(LossLaw):
    """Poisson subsampling at rate γ of a symmetric pair with law ``base`` (Zhu, Dong & Wang 2022 Thm 11(1)).

    remove: X ~ γP + (1−γ)Q, L' = g(L), g(ℓ) = log(1 − γ + γe^ℓ) (g(−∞) = log(1−γ));
      P'(L' ∈ ·) = γP(L ∈ g⁻¹·) + (1−γ)Q(L ∈ g⁻¹·), Q' = Q∘g⁻¹, P'(+∞) = γP(+∞).
    add: X ~ P, L' = h(L) = −g(−L) = −log(1 − γ + γe^{−L}) (h(+∞) = −log(1−γ), h(−∞) = −∞);
      P' = P∘h⁻¹, Q'(L' ∈ ·) = (1−γ)P(L ∈ h⁻¹·) + γQ(L ∈ h⁻¹·), Q'(−∞) = γQ(−∞).
    Requires 0 < γ < 1 (γ = 1 is the base pair itself).
    """

    base: LossLaw
    gamma: Fraction
    relation: Relation

    def __post_init__(self) -> None:
        if not 0 < self.gamma < 1:
            raise InputError(f"subsampling rate must lie in (0, 1) here, got {self.gamma}")

    def _g(self) -> tuple[arb, arb]:
        return to_ball(self.gamma), to_ball(1 - self.gamma)

    def atoms(self) -> tuple[Atom, ...]:
        g, c = self._g()
        out: list[Atom] = []
        for t in self.base.atoms():
            ell = as_ball(t.loss)
            if self.relation == "remove":
                new = (c + g * ell.exp()).log()
                out.append(Atom(Fraction(0) if t.loss == 0 else new, g * t.p + c * t.q, t.q))
            else:
                new = -(c + g * (-ell).exp()).log()
                out.append(Atom(Fraction(0) if t.loss == 0 else new, t.p, c * t.p + g * t.q))
        if self.relation == "remove":
            mq = self.base.q_minf()
            if mq != 0:
                out.append(Atom(c.log(), c * mq, mq))
        else:
            pi = self.base.p_inf()
            if pi != 0:
                out.append(Atom(-c.log(), pi, c * pi))
        return tuple(out)

    def p_inf(self) -> arb:
        return to_ball(self.gamma) * self.base.p_inf() if self.relation == "remove" else arb(0)

    def q_minf(self) -> arb:
        return arb(0) if self.relation == "remove" else to_ball(self.gamma) * self.base.q_minf()

    def has_continuous(self) -> bool:
        return self.base.has_continuous()

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        if not self.base.has_continuous():
            return arb(0)
        g, c = self._g()
        base = self.base
        if w is None:
            bp, bq = base.cont_tail(None, "P"), base.cont_tail(None, "Q")
        elif self.relation == "remove":
            v = _g_inv(as_ball(w), g)
            if v is None:
                if as_ball(w) < c.log():
                    bp, bq = base.cont_tail(None, "P"), base.cont_tail(None, "Q")
                else:  # undecided near the bottom of the range: the whole [0, total]
                    tp, tq = base.cont_tail(None, "P"), base.cont_tail(None, "Q")
                    bp, bq = arb(0).union(tp), arb(0).union(tq)
            else:
                bp, bq = base.cont_tail(v, "P"), base.cont_tail(v, "Q")
        else:
            v = _g_inv(-as_ball(w), g)  # L' > w ⟺ L > −g⁻¹(−w)
            if v is None:
                if as_ball(w) > -c.log():
                    bp, bq = arb(0), arb(0)
                else:
                    tp, tq = base.cont_tail(None, "P"), base.cont_tail(None, "Q")
                    bp, bq = arb(0).union(tp), arb(0).union(tq)
            else:
                bp, bq = base.cont_tail(-v, "P"), base.cont_tail(-v, "Q")
        if self.relation == "remove":
            return g * bp + c * bq if side == "P" else bq
        return bp if side == "P" else c * bp + g * bq

    def range_f(self, tail: float) -> tuple[float, float]:
        lo, hi = self.base.range_f(tail)
        g = float(self.gamma)

        def gf(x: float) -> float:  # log(1 − γ + γe^x), overflow-safe
            if x > 700:
                return math.log(g) + x
            return math.log1p(-g + g * math.exp(x)) if x > -745 else math.log1p(-g)

        if self.relation == "remove":
            return gf(lo), gf(hi)
        return -gf(-lo), -gf(-hi)
