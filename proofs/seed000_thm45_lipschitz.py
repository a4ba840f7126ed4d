"""Seed 000, Theorem 4.5: 0 <= ∂μ_GDP(ε, δ)/∂ε <= √(2π)/2.

Proof checked here (symbolically, sympy):

1. ∂δ_μ/∂ε = -e^ε Φ(b) and ∂δ_μ/∂μ = φ(a), a = -ε/μ + μ/2, b = a - μ.
2. By the implicit function theorem (μ_GDP(ε, δ_μ(ε)) = μ),
   ∂μ_GDP/∂ε = -(∂δ/∂ε)/(∂δ/∂μ) = e^ε Φ(b)/φ(a) = R(t),  t = -b = ε/μ + μ/2,
   R(t) = Φ(-t)/φ(t) the Mills ratio (uses e^ε φ(b) = φ(a)).
3. R'(t) = t R(t) - 1, and t R(t) < 1 for t > 0 because
   Φ(-t) = ∫_t^∞ φ(s) ds < ∫_t^∞ (s/t) φ(s) ds = φ(t)/t.  So R is decreasing
   on [0, ∞), and since t >= μ/2 > 0:  0 < ∂μ_GDP/∂ε = R(t) < R(0) = √(2π)/2.

Corrections to the seed as printed (Thm 4.5 and Proof A.5):
* the statement's constant is printed "√2 π/2"; the bound proved is √(2π)/2;
* Proof A.5 prints ∂F/∂x = √(2π) e^{-(μ²+2ε)²/(8μ²)} Φ(·) and
  ∂F/∂y = √(2π) e^{-(μ²-2ε)²/(8μ²)}: both exponents have the wrong sign
  (the correct factors are e^{+…}); the printed ∂F/∂x is not the derivative
  (checked at μ = 1, ε = 1 below), though the final bound survives.
"""

from __future__ import annotations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed000-thm4.5-lipschitz"
STATEMENT = "0 <= ∂μ_GDP(ε,δ)/∂ε <= √(2π)/2 (seed 000 Thm 4.5, corrected constant)"
SOURCE = "000_51e7fe2ae605e010.txt, Theorem 4.5 and Proof A.5"

eps, t, s = sp.symbols("epsilon t s", nonnegative=True)
mu = sp.symbols("mu", positive=True)


def Phi(x: sp.Expr) -> sp.Expr:
    return sp.erfc(-x / sp.sqrt(2)) / 2


def phi(x: sp.Expr) -> sp.Expr:
    return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)


def _zero(expr: sp.Expr) -> bool:
    return sp.simplify(sp.expand(sp.powsimp(sp.expand(expr), force=True))) == 0


def check() -> ProofResult:
    steps: list[Step] = []
    a = -eps / mu + mu / 2
    b = a - mu
    delta = Phi(a) - sp.exp(eps) * Phi(b)

    d_eps = sp.diff(delta, eps)
    d_mu = sp.diff(delta, mu)
    steps.append(Step("∂δ_μ/∂ε = -e^ε Φ(-ε/μ - μ/2)", "symbolic", _zero(d_eps + sp.exp(eps) * Phi(b))))
    steps.append(Step("∂δ_μ/∂μ = φ(-ε/μ + μ/2)", "symbolic", _zero(d_mu - phi(a))))

    identity = sp.exp(eps) * phi(b) - phi(a)
    steps.append(Step("e^ε φ(b) = φ(a)", "symbolic", _zero(identity)))

    tt = eps / mu + mu / 2
    mills = Phi(-t) / phi(t)
    dF_dx = -d_eps / d_mu
    steps.append(
        Step("∂μ_GDP/∂ε = R(ε/μ + μ/2) (Mills ratio)", "symbolic",
             _zero(sp.simplify(dF_dx / mills.subs(t, tt)) - 1))
    )
    steps.append(Step("R'(t) = t R(t) - 1", "symbolic", _zero(sp.diff(mills, t) - (t * mills - 1))))
    # Φ(-t) = ∫_t^∞ φ(s) ds and ∫_t^∞ s φ(s) ds = φ(t): the integrand gap (s/t - 1)φ(s) > 0 for s > t
    tp = sp.Symbol("t", positive=True)
    int_s_phi = sp.integrate(s * phi(s), (s, tp, sp.oo))
    steps.append(Step("∫_t^∞ s φ(s) ds = φ(t), hence t R(t) < 1 for t > 0", "symbolic", _zero(int_s_phi - phi(tp))))
    r0 = sp.simplify(mills.subs(t, 0))
    steps.append(Step("R(0) = √(2π)/2", "symbolic", _zero(r0 - sp.sqrt(2 * sp.pi) / 2)))

    corrections = []
    printed = sp.sqrt(2 * sp.pi) * sp.exp(-(mu**2 + 2 * eps) ** 2 / (8 * mu**2)) * Phi(-(mu**2 + 2 * eps) / (2 * mu))
    at = {mu: 1, eps: 1}
    true_val = sp.N(dF_dx.subs(at), 30)
    printed_val = sp.N(printed.subs(at), 30)
    wrong = abs(true_val - printed_val) > sp.Rational(1, 10)
    steps.append(Step("the printed ∂F/∂x differs from the derivative (μ=1, ε=1: "
                      f"{sp.N(printed_val, 6)} vs {sp.N(true_val, 6)})", "symbolic", bool(wrong)))
    if wrong:
        corrections.append("Proof A.5: exponents of ∂F/∂x and ∂F/∂y have the wrong sign; "
                           "∂F/∂x = R(ε/μ + μ/2), the Mills ratio")
    corrections.append("Theorem 4.5: the constant is √(2π)/2 ≈ 1.2533 (printed as √2π/2 ≈ 2.2214)")
    return conclude(NAME, STATEMENT, SOURCE, steps, corrections)
