"""Seed 000, Lemma A.1: the tail asymptotics of δ_μ(ε).

With a = -ε/μ + μ/2 and t = -a (so t → ∞ as ε → ∞), the identity
e^ε φ(b) = φ(a) (b = a - μ) gives δ_μ(ε) = φ(a)(R(t) - R(t + μ)), R the
Mills ratio.  Gordon's inequalities x/(x²+1) < R(x) < 1/x (x > 0) are proved
here symbolically: h(x) = Φ(-x) - φ(x)x/(x²+1) has h' = -2φ(x)/(x²+1)² < 0 and
k(x) = φ(x)/x - Φ(-x) has k' = -φ(x)/x² < 0, both tending to 0 at ∞, so both
are positive.  Squeezing R(t) - R(t+μ) between them gives

    δ_μ(ε) / [μ φ(a) / a²]  →  1      (ε → ∞).

Correction: the seed prints δ̃_μ(ε) = μ e^{-a²/2}/√(2π a²) = μ φ(a)/|a|;
with that normaliser the ratio tends to 0 (shown below with the same bounds).
The correct normaliser is μ e^{-a²/2}/(√(2π) a²).  The seed's later use of
the lemma (log δ_μ(ε) ~ -a²/2 in Thm 4.3/4.4) is unaffected, since the two
differ by a factor |a| = O(ε).
"""

from __future__ import annotations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed000-lemmaA.1-asymptotics"
STATEMENT = "δ_μ(ε) ~ μ φ(a)/a² as ε → ∞, a = -ε/μ + μ/2 (seed 000 Lemma A.1, corrected normaliser)"
SOURCE = "000_51e7fe2ae605e010.txt, Lemma A.1 and Proof A.2"

x, t = sp.symbols("x t", positive=True)
mu = sp.symbols("mu", positive=True)


def phi(v: sp.Expr) -> sp.Expr:
    return sp.exp(-v**2 / 2) / sp.sqrt(2 * sp.pi)


def upper_tail(v: sp.Expr) -> sp.Expr:  # Φ(-v)
    return sp.erfc(v / sp.sqrt(2)) / 2


def check() -> ProofResult:
    steps: list[Step] = []
    h = upper_tail(x) - phi(x) * x / (x**2 + 1)
    k = phi(x) / x - upper_tail(x)
    steps.append(Step("h'(x) = -2φ(x)/(x²+1)² for h = Φ(-x) - φ(x)x/(x²+1)", "symbolic",
                      sp.simplify(sp.diff(h, x) + 2 * phi(x) / (x**2 + 1) ** 2) == 0))
    steps.append(Step("k'(x) = -φ(x)/x² for k = φ(x)/x - Φ(-x)", "symbolic",
                      sp.simplify(sp.diff(k, x) + phi(x) / x**2) == 0))
    steps.append(Step("h(x), k(x) → 0 as x → ∞ (so h, k > 0: Gordon's bounds)", "symbolic",
                      sp.limit(h, x, sp.oo) == 0 and sp.limit(k, x, sp.oo) == 0))
    lower = lambda v: v / (v**2 + 1)  # noqa: E731
    upper = lambda v: 1 / v  # noqa: E731
    # R(t) - R(t+μ) ∈ [L(t) - U(t+μ), U(t) - L(t+μ)]
    lo = lower(t) - upper(t + mu)
    hi = upper(t) - lower(t + mu)
    corrected = t**2 / mu  # δ / (μφ(a)/a²) = (R(t) - R(t+μ)) t²/μ
    lim_lo = sp.limit(sp.simplify(lo * corrected), t, sp.oo)
    lim_hi = sp.limit(sp.simplify(hi * corrected), t, sp.oo)
    steps.append(Step("corrected ratio squeezed to 1", "symbolic", lim_lo == 1 and lim_hi == 1,
                      f"bounds' limits {lim_lo}, {lim_hi}"))
    printed = t / mu  # δ / (μφ(a)/|a|)
    lim_p = sp.limit(sp.simplify(hi * printed), t, sp.oo)
    steps.append(Step("with the printed normaliser μφ(a)/|a| the ratio tends to 0", "symbolic", lim_p == 0,
                      f"upper bound's limit {lim_p}"))
    corrections = ["Lemma A.1: δ̃_μ(ε) must be μ e^{-a²/2}/(√(2π) a²); as printed (√(2π a²)) δ_μ/δ̃_μ → 0"]
    return conclude(NAME, STATEMENT, SOURCE, steps, corrections)
