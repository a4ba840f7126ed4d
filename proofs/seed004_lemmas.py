"""Seed 004, Lemma 2.3 (ADP ⇒ PrDP with a penalty) and Lemma 3.1 (the
counterexample mechanism), checked symbolically.

Lemma 2.3.  For an event S with P(M(a') ∈ S) <= e^{-ε̂} P(M(a) ∈ S) and
(ε, δ)-ADP, s = P(M(a) ∈ S) satisfies s <= e^{ε-ε̂} s + δ.  With
e^{ε-ε̂} <= 1 - δ/g (the hypothesis ε̂ >= ε - ln(1 - δ/g)), s (δ/g) <= δ, so
s <= g.  The hypothesis only makes sense when g(δ) > δ (the logarithm needs
1 - δ/g > 0); the seed states it for any continuous g with g(0) = 0.

Lemma 3.1.  The mechanism on [n] that outputs its input with probability p
and every other value with probability q: for neighbours a ≠ b and x = e^ε,
the hockey-stick sum is (p - xq)⁺ + (q - xp)⁺ + (n-2)(q - xq)⁺ = (p - xq)⁺,
because q - xp <= 0 and q - xq <= 0 when x >= 1 and p > q (which follows from
e^{ε̂} q < p).  Condition (3) p <= xq + δ gives (ε, δ)-ADP.  The privacy loss of
output a is ln(p/q) > ε̂, so P_{c∼M(a)}[loss(c) > ε̂] >= p > δ̂ (condition 4):
not (ε̂, δ̂)-PrDP.  Non-positivity is shown by non-positive polynomial
coefficients after x = 1 + u, p = q + w with u >= 0, w, q > 0.
"""

from __future__ import annotations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed004-lemmas2.3-3.1"
STATEMENT = "ADP ⇒ PrDP penalty (Lemma 2.3) and the Lemma 3.1 counterexample mechanism"
SOURCE = "004_9b32b7fecdd2b779.txt, Lemma 2.3 (proof in §4) and Lemma 3.1"

s, d, g = sp.symbols("s delta g", positive=True)
u, w, q = sp.symbols("u w q", positive=True)


def _nonpositive(expr: sp.Expr) -> bool:
    poly = sp.Poly(sp.expand(expr), u, w, q)
    return all(c <= 0 for c in poly.coeffs())


def check() -> ProofResult:
    steps: list[Step] = []
    # Lemma 2.3: worst case e^{ε-ε̂} = 1 - δ/g; s <= (1 - δ/g) s + δ  ⇔  s δ/g <= δ  ⇔  s <= g
    lhs = s - ((1 - d / g) * s + d)
    steps.append(Step("s - ((1-δ/g)s + δ) = (δ/g)(s - g)", "symbolic", sp.simplify(lhs - (d / g) * (s - g)) == 0))
    # Lemma 3.1
    x = 1 + u
    p = q + w
    steps.append(Step("q - e^ε p <= 0 (x = 1+u, p = q+w)", "symbolic", _nonpositive(q - x * p)))
    steps.append(Step("q - e^ε q <= 0", "symbolic", _nonpositive(q - x * q)))
    pp, qq = sp.symbols("p q", positive=True)
    loss = sp.log(pp / qq)
    # ln(p/q) > ε̂  ⇔  p/q > e^{ε̂}  ⇔  e^{ε̂} q < p  (q > 0, exp increasing)
    steps.append(Step("exp(ln(p/q)) = p/q, so ln(p/q) > ε̂ ⇔ e^{ε̂} q < p", "symbolic",
                      sp.simplify(sp.exp(loss) - pp / qq) == 0))
    return conclude(NAME, STATEMENT, SOURCE, steps,
                    ["Lemma 2.3 needs g(δ) > δ for its hypothesis to be defined (1 - δ/g(δ) > 0)"])
