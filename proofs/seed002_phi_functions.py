"""Seed 002, Lemmas 32–34: φ-functions of randomized response, the Laplace and
the Gaussian mechanism, re-derived by symbolic integration (sympy).

φ(α) = E_{o∼P}[exp(iα L(o))], L = log(p/q) for the dominating pair (P, Q):
* RR(p):      P = (p, 1-p), Q = (1-p, p):  φ = p e^{iα log(p/(1-p))} + (1-p) e^{iα log((1-p)/p)}
* Laplace(λ): P = Lap(0, λ), Q = Lap(1, λ):
              φ = ½(e^{iα/λ} + e^{(-iα-1)/λ} + (e^{iα/λ} - e^{(-iα-1)/λ})/(2iα+1))
* Gaussian(σ): P = N(1, σ²), Q = N(0, σ²):  φ = exp(-(α² - iα)/(2σ²))

Note (seed 002, proof of Lemma 33): the third integral is printed with density
factor 1/λ instead of 1/(2λ); the stated result is right (checked here).
"""

from __future__ import annotations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed002-lemmas32-34-phi"
STATEMENT = "φ-functions of randomized response, Laplace and Gaussian (seed 002 Lemmas 32–34)"
SOURCE = "002_7911bfc63fdf1f34.txt, Appendix D.1, Lemmas 32, 33, 34"

a = sp.symbols("alpha", real=True)
lam, sig = sp.symbols("lambda sigma", positive=True)
o = sp.symbols("o", real=True)
p = sp.symbols("p", positive=True)


def _zero(expr: sp.Expr) -> bool:
    e = sp.simplify(sp.expand_complex(sp.simplify(expr)))
    return e == 0


def check() -> ProofResult:
    steps: list[Step] = []
    rr = p * sp.exp(sp.I * a * sp.log(p / (1 - p))) + (1 - p) * sp.exp(sp.I * a * sp.log((1 - p) / p))
    direct = sum(pr * sp.exp(sp.I * a * sp.log(pr / qr)) for pr, qr in [(p, 1 - p), (1 - p, p)])
    steps.append(Step("Lemma 32 (RR) equals E_P[e^{iαL}]", "symbolic", _zero(rr - direct)))

    dens = sp.exp(-sp.Abs(o) / lam) / (2 * lam)
    pieces = [
        sp.integrate(sp.exp(sp.I * a / lam) * sp.exp(o / lam) / (2 * lam), (o, -sp.oo, 0)),
        sp.integrate(sp.exp(sp.I * a * (1 - 2 * o) / lam) * sp.exp(-o / lam) / (2 * lam), (o, 0, 1)),
        sp.integrate(sp.exp(-sp.I * a / lam) * sp.exp(-o / lam) / (2 * lam), (o, 1, sp.oo)),
    ]
    lap = sum(pieces)
    claimed = (sp.exp(sp.I * a / lam) + sp.exp((-sp.I * a - 1) / lam)
               + (sp.exp(sp.I * a / lam) - sp.exp((-sp.I * a - 1) / lam)) / (2 * a * sp.I + 1)) / 2
    steps.append(Step("Lemma 33 (Laplace) equals the integral of e^{iαL} against Lap(0, λ)", "symbolic",
                      _zero(lap - claimed)))
    # the privacy loss of the pair is the stated piecewise function
    loss = sp.log(dens / dens.subs(o, o - 1))
    ok_loss = all(sp.simplify(loss.subs(o, v) - val) == 0 for v, val in
                  [(-2, 1 / lam), (sp.Rational(1, 3), (1 - sp.Rational(2, 3)) / lam), (3, -1 / lam)])
    steps.append(Step("Laplace privacy loss is 1/λ, (1-2o)/λ, -1/λ on the three pieces (spot values)", "symbolic", ok_loss))

    gauss_p = sp.exp(-(o - 1) ** 2 / (2 * sig**2)) / sp.sqrt(2 * sp.pi * sig**2)
    g = sp.integrate(gauss_p * sp.exp(sp.I * a * (2 * o - 1) / (2 * sig**2)), (o, -sp.oo, sp.oo))
    steps.append(Step("Lemma 34 (Gaussian): E_P[e^{iαL}] = exp(-(α² - iα)/(2σ²))", "symbolic",
                      _zero(g - sp.exp(-(a**2 - sp.I * a) / (2 * sig**2)))))
    return conclude(NAME, STATEMENT, SOURCE, steps, [])
