"""Loss laws of the replace-one sampling mechanisms (:mod:`certdp.mechanisms.sampling`) for the PLD engine.

* :class:`GaussianReplaceLaw` — P = (1−q)N(0, s²) + qN(1, s²), Q = (1−q)N(0, s²) + qN(−1, s²) (units
  of Δ, s = σ/Δ): L(x) is increasing, L > w ⟺ X > x_w with x_w in closed form
  (:func:`certdp.mechanisms.sampling.gaussian_replace_x`); no atoms.
* :class:`LaplaceReplaceLaw` — the same with Lap(·, b) (units of b, a = Δ/b): atoms ±ℓ_max for
  |X| >= a and a continuous part on (−a, a).
* :class:`RevealedGaussianMixtureLaw` — sampling with replacement: k ~ Binomial(b, 1/N) revealed,
  then a Gaussian pair of μ_k = 2k/s: an atom at 0 (k = 0), Gaussian continuous parts, and the
  binomial tail beyond K as masses at ±∞ (a completely distinguishable pair dominates whatever
  happens there), so this law is an **upper** bound only (:func:`sampling_source`).

Each law is symmetric ((P, Q) and (Q, P) have the same loss law), so the engine's add and remove
relations coincide; :func:`sampling_source` gives the engine's law for these mechanisms
(None for every other mechanism).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.analyses.accountants.loss_laws import Atom, GaussianLaw, Loss, LossLaw, Side, as_ball
from certdp.numerics.ball import to_ball


def _phi_bar_f(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


@dataclass(frozen=True)
class GaussianReplaceLaw(LossLaw):
    """Loss law of (1−q)N(0, s²) + qN(1, s²) against (1−q)N(0, s²) + qN(−1, s²), 0 < q <= 1."""

    s: Fraction
    q: Fraction

    def atoms(self) -> tuple[Atom, ...]:
        return ()

    def has_continuous(self) -> bool:
        return True

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        from certdp.mechanisms.sampling import gaussian_replace_tails, gaussian_replace_x  # noqa: PLC0415

        if w is None:
            return arb(1)
        p, q = gaussian_replace_tails(gaussian_replace_x(as_ball(w), self.s, self.q), self.s, self.q)
        return p if side == "P" else q

    def _loss_f(self, x: float) -> float:
        s2, q = float(self.s) ** 2, float(self.q)

        def part(t: float) -> float:
            return math.log(q) + t + math.log1p((1 - q) / q * math.exp(-t)) if t > 700 else math.log(1 - q + q * math.exp(t))

        return part((2 * x - 1) / (2 * s2)) - part((-2 * x - 1) / (2 * s2))

    def range_f(self, tail: float) -> tuple[float, float]:
        s = float(self.s)
        z = 1.0
        while _phi_bar_f(z) > max(tail, 1e-300):
            z += 0.25
        hi = self._loss_f(1 + z * s)
        return -hi, hi


@dataclass(frozen=True)
class LaplaceReplaceLaw(LossLaw):
    """Loss law of (1−q)Lap(0, 1) + qLap(a, 1) against (1−q)Lap(0, 1) + qLap(−a, 1) (units of b)."""

    a: Fraction
    q: Fraction

    def atoms(self) -> tuple[Atom, ...]:
        from certdp.mechanisms.sampling import laplace_replace_atoms  # noqa: PLC0415

        return tuple(Atom(ell, p, q) for ell, p, q in laplace_replace_atoms(self.a, self.q))

    def has_continuous(self) -> bool:
        return True

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        """Mass of (y_w, a) with y_w the x where L = w: x_w for w >= 0, −x_{−w} for w < 0 (L is odd)."""
        from certdp.mechanisms.sampling import laplace_replace_consts, laplace_replace_tails, laplace_replace_x  # noqa: PLC0415

        a = to_ball(self.a)
        if w is None:
            y = -a
        else:
            wb = as_ball(w)
            ell = laplace_replace_consts(self.a, self.q)[2]
            if wb >= ell:
                return arb(0)
            if wb <= -ell:
                y = -a
            elif wb >= 0:
                y = laplace_replace_x(wb, self.a, self.q)
            elif wb < 0:
                y = -laplace_replace_x(-wb, self.a, self.q)
            else:  # undecided sign: the hull of both ends (both formulas agree at w = 0)
                y = laplace_replace_x(abs(wb).union(arb(0)), self.a, self.q).union(
                    -laplace_replace_x(abs(wb).union(arb(0)), self.a, self.q))
        p, q = laplace_replace_tails(y, self.a, self.q)
        return p if side == "P" else q

    def range_f(self, tail: float) -> tuple[float, float]:
        a, q = float(self.a), float(self.q)
        ell = math.log((1 - q + q * math.exp(a)) / (1 - q + q * math.exp(-a)))
        return -ell, ell


@dataclass(frozen=True)
class RevealedGaussianMixtureLaw(LossLaw):
    """k ~ (π_0, ..., π_K) revealed, then the Gaussian pair of μ_k = mus[k]; the rest ``rest`` at ±∞."""

    probs: tuple[Fraction, ...]
    mus: tuple[Fraction, ...]
    rest: Fraction

    def atoms(self) -> tuple[Atom, ...]:
        p0 = to_ball(self.probs[0])
        return (Atom(Fraction(0), p0, p0),) if self.probs[0] else ()

    def p_inf(self) -> arb:
        return to_ball(self.rest)

    def q_minf(self) -> arb:
        return to_ball(self.rest)

    def has_continuous(self) -> bool:
        return len(self.probs) > 1

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        out = arb(0)
        for pk, mu in zip(self.probs[1:], self.mus[1:]):
            out += to_ball(pk) * GaussianLaw(mu * mu / 2).cont_tail(w, side)
        return out

    def range_f(self, tail: float) -> tuple[float, float]:
        """The components heavier than ``tail`` (a lighter one's mass beyond the range is at most
        its weight; a float guide: the engine puts mass beyond its grid at ±∞ soundly)."""
        lo, hi = 0.0, 0.0
        for pk, mu in zip(self.probs[1:], self.mus[1:]):
            if float(pk) <= tail:
                continue
            a, b = GaussianLaw(mu * mu / 2).range_f(tail)
            lo, hi = min(lo, a), max(hi, b)
        return lo, hi


def sampling_source(mech: object) -> tuple[LossLaw, bool] | None:
    """(loss law, upper only) of a ``subsample_replace`` / ``sample_wr`` mechanism, None for any
    other (``subset_replace`` takes the generic route, the pair of its privacy profile); the
    engine (:func:`certdp.analyses.accountants.discretise.law_source`) wraps it."""
    from certdp.mechanisms.sampling import SampleWR, SubsampleReplace  # noqa: PLC0415

    if isinstance(mech, SubsampleReplace) and mech.noise[0] != "generic":  # generic: the pair of its profile
        kind, r = mech.noise
        law: LossLaw = (GaussianReplaceLaw(r, Fraction(mech.rate)) if kind == "gaussian"
                        else LaplaceReplaceLaw(r, Fraction(mech.rate)))
        return law, False
    if isinstance(mech, SampleWR):
        probs, rest = mech.copies()
        return RevealedGaussianMixtureLaw(tuple(probs), tuple(mech.mus()), rest), True
    return None


__all__ = ["GaussianReplaceLaw", "LaplaceReplaceLaw", "RevealedGaussianMixtureLaw", "sampling_source"]
