"""The privacy-loss law of N(0, σ²) against a mixture Σ p_i N(c_i, σ²), c_i >= 0
(``gaussian_mixture``), for the PLD engine, in either order.

r(x) = Σ p_i e^{(c_i x − c_i²/2)/σ²} is increasing in x, and L(x) = log r(x) runs from
log p₀ (p₀ = Σ_{c_i = 0} p_i; −∞ when p₀ = 0) to +∞.  "remove" (P = mixture, Q = N(0)):
L > w ⟺ x > x*(w), so P(L > w) = Σ p_i Φ̄((x* − c_i)/σ) and Q(L > w) = Φ̄(x*/σ).  "add"
(P = N(0), Q = mixture): the loss is −L, −L > w ⟺ x < x*(−w), so P = Φ(x*/σ) and
Q = Σ p_i Φ((x* − c_i)/σ).  x* is bracketed in ball arithmetic: a float guess, then
[a, b] with L(a) < w < L(b) certified; the tails are monotone in x*, so their values at
a and b enclose the true one.  When L(a) < w cannot be certified (w at or below the
bottom log p₀), the tail is the whole [0, total] (sound; a finer bracket is not needed
there in practice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.analyses.accountants.loss_laws import Atom, Loss, LossLaw, Relation, Side, as_ball
from certdp.numerics.ball import to_ball
from certdp.numerics.normal import Phi_upper_ball


@dataclass(frozen=True, eq=False)
class MoGLaw(LossLaw):
    sigma: Fraction
    cs: tuple[Fraction, ...]
    ps: tuple[Fraction, ...]
    relation: Relation

    def atoms(self) -> tuple[Atom, ...]:
        return ()

    def has_continuous(self) -> bool:
        return True

    # -- floats (the search only) --------------------------------------------
    def _lf(self, x: float) -> float:
        s2 = float(self.sigma) ** 2
        terms = [math.log(float(p)) + (float(c) * x - float(c) ** 2 / 2) / s2 for c, p in zip(self.cs, self.ps)]
        top = max(terms)
        return top + math.log(math.fsum(math.exp(t - top) for t in terms))

    def __post_init__(self) -> None:
        object.__setattr__(self, "_brackets", {})  # w (exact) -> bracket of x*(w): P and Q share it

    def _x_guess(self, w: float) -> float:
        """A float x with L(x) ≈ w: safeguarded Newton (L is increasing and convex-ish), then
        bisection if Newton stalls (a guess only: the bracket is certified in balls)."""
        s2 = float(self.sigma) ** 2
        cs = [float(c) for c in self.cs]
        lps = [math.log(float(p)) for p in self.ps]
        x = 0.0
        for _ in range(60):
            terms = [lp + (c * x - c * c / 2) / s2 for c, lp in zip(cs, lps)]
            top = max(terms)
            ws = [math.exp(t - top) for t in terms]
            tot = math.fsum(ws)
            f = top + math.log(tot) - w
            d = math.fsum(wi * c for wi, c in zip(ws, cs)) / (tot * s2)
            if d <= 0:
                break
            nxt = x - f / d
            if abs(nxt - x) <= 1e-15 * (1 + abs(x)):
                return nxt
            x = nxt
        lo, hi = -1.0, 1.0
        while self._lf(lo) > w and lo > -1e12:
            lo *= 2
        while self._lf(hi) < w and hi < 1e12:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            lo, hi = (mid, hi) if self._lf(mid) < w else (lo, mid)
        return (lo + hi) / 2

    # -- balls ---------------------------------------------------------------
    def _l(self, x: arb) -> arb:
        s2 = to_ball(self.sigma) ** 2
        return sum((to_ball(p) * ((to_ball(c) * x - to_ball(c) ** 2 / 2) / s2).exp()
                    for c, p in zip(self.cs, self.ps)), arb(0)).log()

    def _bracket(self, w: arb, key: object = None) -> tuple[arb, arb] | None:
        """Exact-dyadic a < b with L(a) < w < L(b) certified, or None (w near the bottom);
        cached by the exact ``key`` of w (the P- and Q-tails at one grid point share it)."""
        cache = self._brackets  # type: ignore[attr-defined]
        if key is not None and key in cache:
            return cache[key]
        out = self._bracket_new(w)
        if key is not None:
            cache[key] = out
        return out

    def _bracket_new(self, w: arb) -> tuple[arb, arb] | None:
        try:
            g = self._x_guess(float(w.mid()))
        except (OverflowError, ValueError):
            return None
        if not math.isfinite(g):
            return None
        step = 1e-13 * (1 + abs(g))
        for _ in range(12):
            a, b = arb(g - step), arb(g + step)
            if self._l(a) < w and self._l(b) > w:
                return a, b
            step *= 64
        return None

    def _mix_tail(self, x: arb, upper: bool) -> arb:
        """Σ p_i Φ̄((x − c_i)/σ) (upper) or Σ p_i Φ((x − c_i)/σ)."""
        s = to_ball(self.sigma)
        sign = 1 if upper else -1
        return sum((to_ball(p) * Phi_upper_ball(sign * (x - to_ball(c)) / s) for c, p in zip(self.cs, self.ps)), arb(0))

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        if w is None:
            return arb(1)
        wb = as_ball(w)
        s = to_ball(self.sigma)
        p0 = sum((p for c, p in zip(self.cs, self.ps) if c == 0), Fraction(0))
        bottom = to_ball(p0).log() if p0 else None  # L > log p₀ everywhere
        if self.relation == "remove" and bottom is not None and wb < bottom:
            return arb(1)  # every x has L > w: the totals
        if self.relation == "add" and bottom is not None and -wb < bottom:
            return arb(0)  # −L > w needs L < −w < log p₀: nowhere
        key = w if isinstance(w, Fraction) else None
        if self.relation == "remove":
            br = self._bracket(wb, key)
            if br is None:
                return arb(0).union(arb(1))
            a, b = br
            if side == "P":
                return self._mix_tail(b, True).union(self._mix_tail(a, True))
            return Phi_upper_ball(b / s).union(Phi_upper_ball(a / s))
        br = self._bracket(-wb, key)
        if br is None:
            return arb(0).union(arb(1))
        a, b = br
        if side == "P":
            return Phi_upper_ball(-a / s).union(Phi_upper_ball(-b / s))
        return self._mix_tail(a, False).union(self._mix_tail(b, False))

    def range_f(self, tail: float) -> tuple[float, float]:
        s = float(self.sigma)
        z = 1.0
        while math.erfc(z / math.sqrt(2)) / 2 > max(tail, 1e-300):
            z += 0.25
        lo_x, hi_x = -z * s, z * s + max(float(c) for c in self.cs)
        lo, hi = self._lf(lo_x), self._lf(hi_x)
        return (lo, hi) if self.relation == "remove" else (-hi, -lo)


def mog_source(mech: object, discretise: object) -> object:
    """The engine's source for ``gaussian_mixture``: the law of each order, two-sided."""
    from certdp.analyses.accountants.mixture_law import MixtureSource  # noqa: PLC0415

    cs, ps = mech.components()  # type: ignore[attr-defined]
    sigma = Fraction(mech.sigma)  # type: ignore[attr-defined]
    src = MixtureSource(lambda rel: MoGLaw(sigma, cs, ps, rel), mech.spec(), discretise,  # type: ignore[attr-defined]
                        two_sided=True, path="mixture of Gaussians, loss law")
    return src
