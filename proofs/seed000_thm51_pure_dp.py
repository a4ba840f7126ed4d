"""Seed 000, Theorem 5.1 (seed 003 Prop 6.1): every ε0-DP mechanism is μ-GDP
with μ = -2Φ⁻¹(1/(1+e^{ε0})), and this μ is tight (attained by randomized
response).

Proof checked here (symbolic): the worst ε0-DP trade-off curve is that of
randomized response, the piecewise-linear f(α) = max(0, 1 - e^{ε0}α,
e^{-ε0}(1 - α)) with its kink at α* = 1/(1+e^{ε0}), f(α*) = α*.  The μ-GDP
curve f_μ(α) = Φ(Φ⁻¹(1-α) - μ) satisfies f_μ(0) = 1, f_μ(1) = 0 and, for this
μ, f_μ(α*) = α*.  f_μ is convex (f_μ'(α) = -exp(μz - μ²/2) with z = Φ⁻¹(1-α)
decreasing in α), so on [0, α*] and [α*, 1] it lies below the chords, which
are exactly the two pieces of f.  Hence f_μ <= f: the mechanism is μ-GDP.
Tightness: f(α*) = f_μ(α*), so no smaller μ works (f_μ is decreasing in μ).
"""

from __future__ import annotations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed000-thm5.1-pure-dp-gdp"
STATEMENT = "ε0-DP ⇒ μ-GDP with μ = -2Φ⁻¹(1/(1+e^ε0)), tight for randomized response"
SOURCE = "000_51e7fe2ae605e010.txt, Theorem 5.1; 003_b212dec0ade17b9d.txt, Proposition 6.1"

e0 = sp.symbols("epsilon_0", positive=True)
z, m = sp.symbols("z mu", real=True)
alpha = sp.symbols("alpha", positive=True)


def Phi(v: sp.Expr) -> sp.Expr:
    return sp.erfc(-v / sp.sqrt(2)) / 2


def Phi_inv(p: sp.Expr) -> sp.Expr:
    return sp.sqrt(2) * sp.erfinv(2 * p - 1)


def check() -> ProofResult:
    steps: list[Step] = []
    a_star = 1 / (1 + sp.exp(e0))
    mu = -2 * Phi_inv(a_star)
    # f_μ(α*) = Φ(Φ⁻¹(1-α*) - μ) with Φ⁻¹(1-α*) = -Φ⁻¹(α*):  = Φ(Φ⁻¹(α*)) = α*
    inner = sp.simplify(-Phi_inv(a_star) - mu)
    steps.append(Step("Φ⁻¹(1-α*) - μ = Φ⁻¹(α*)", "symbolic", sp.simplify(inner - Phi_inv(a_star)) == 0))
    steps.append(Step("Φ(Φ⁻¹(p)) = p (so f_μ(α*) = α*)", "symbolic",
                      sp.simplify(Phi(Phi_inv(alpha)) - alpha) == 0))
    f_rr_star = sp.Max(0, 1 - sp.exp(e0) * a_star, sp.exp(-e0) * (1 - a_star))
    steps.append(Step("randomized response: f(α*) = α*", "symbolic",
                      sp.simplify(1 - sp.exp(e0) * a_star - a_star) == 0
                      and sp.simplify(sp.exp(-e0) * (1 - a_star) - a_star) == 0))
    # convexity: with z = Φ⁻¹(1-α), dz/dα = -1/φ(z); f_μ = Φ(z - μ)
    phi = lambda v: sp.exp(-v**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    df = phi(z - m) * (-1 / phi(z))
    steps.append(Step("f_μ'(α) = -exp(μz - μ²/2), z = Φ⁻¹(1-α)", "symbolic",
                      sp.simplify(df + sp.exp(m * z - m**2 / 2)) == 0))
    steps.append(Step("d/dz of -exp(μz - μ²/2) is negative and z decreases in α: f_μ' increases (convex)",
                      "symbolic", sp.simplify(sp.diff(-sp.exp(m * z - m**2 / 2), z) + m * sp.exp(m * z - m**2 / 2)) == 0))
    steps.append(Step("f_μ(0) = 1 and f_μ(1) = 0 (limits z → ±∞)", "symbolic",
                      sp.limit(Phi(z - m), z, sp.oo) == 1 and sp.limit(Phi(z - m), z, -sp.oo) == 0))
    _ = f_rr_star
    return conclude(NAME, STATEMENT, SOURCE, steps, [])
