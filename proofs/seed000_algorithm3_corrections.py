"""Seed 000, App. D, Algorithms 2–3 (uniform-grid GDPT bracket): the printed
grid size, grid points and initialisation are wrong; certdp.analyses.algorithm3.algorithm3
implements the corrected version.  Each error is demonstrated with certified
numbers on the seed's Laplace example δ_A(ε) = max(1 - e^{ε/2 - 1}, 0)
(Δ/b = 2; its GDPT is maximal at ε = 0, so sup G = G(0) = μ_GDP(0, 1 - e^{-1})).

1. Grid size.  The printed n = ⌈√(8cπε_h)⌉ + 1 is meant to give margin 1/c.
   The upper staircase on the first cell [0, D] is μ_GDP(D, δ_A(0)), and every
   sound lower bound is <= sup G = G(0).  For c = 100, ε_h = 2 the printed n
   gives μ_GDP(D, δ_A(0)) - G(0) > 1/c (certified): the bracket cannot reach the
   claimed margin.  The corrected n = ⌈2√(2π) c ε_h⌉ makes the staircase gap
   √(2π)·D <= 1/(2c) (Thm 4.5 with the corrected Lipschitz constant √(2π)/2).
2. Grid points.  Printed x_i = iD + ε_h starts at ε_h: the head [0, ε_h) is
   never visited (here it contains the maximiser ε = 0).  Corrected: x_i = iD.
3. Initialisation.  Printed μ⁺ ← μ_max with the update test δ_μ⁺(x⁺) < δ_A(x⁻):
   δ_μ_max(ε_h) > δ_A(0) (certified for μ_max = 10), and both sides are monotone,
   so the test never fires and μ⁺ stays μ_max.  Corrected: start from 0.
"""

from __future__ import annotations

import math
from fractions import Fraction

from proofs.core import ProofResult, Step, conclude

NAME = "seed000-algorithm3-corrections"
STATEMENT = "corrected grid size, grid points and initialisation of seed 000 Algorithms 2–3"
SOURCE = "000_51e7fe2ae605e010.txt, Appendix D, Algorithms 2 and 3 (with Thm 4.5, 4.6)"


def check() -> ProofResult:
    from flint import arb

    from certdp.numerics.ball import to_ball, working_precision
    from certdp.numerics.enclosure import Enclosure
    from certdp.numerics.gdp import delta_mu, mu_from_eps_delta

    steps: list[Step] = []
    c, eps_h = 100, Fraction(2)
    n_printed = math.ceil(math.sqrt(8 * c * math.pi * float(eps_h))) + 1
    D = eps_h / n_printed
    with working_precision(200):
        delta0 = Enclosure.from_ball(1 - (-to_ball(1)).exp())  # δ_A(0) = 1 - e^{-1}
    # G(0) <= its upper end; upper staircase on [0, D] >= μ_GDP(D, δ_A(0).lo)
    g0 = mu_from_eps_delta(0, Fraction(delta0.hi_str(40)))
    u0 = mu_from_eps_delta(D, Fraction(delta0.lo_str(40)))
    gap = Fraction(u0.lo_str(30)) - Fraction(g0.hi_str(30))
    steps.append(Step(f"printed n = {n_printed} for c = {c}, ε_h = 2: upper staircase on the first cell exceeds "
                      f"sup G by {float(gap):.4f} > 1/c = {1 / c}", "certified", gap > Fraction(1, c)))
    n_fixed = math.ceil(2 * math.sqrt(2 * math.pi) * c * float(eps_h))
    with working_precision(128):
        lhs = (2 * arb.pi()).sqrt() * to_ball(eps_h / n_fixed)
        ok = bool(lhs < to_ball(Fraction(1, 2 * c)) or lhs <= to_ball(Fraction(1, 2 * c)))
    steps.append(Step(f"corrected n = ⌈2√(2π)cε_h⌉ = {n_fixed}: staircase gap √(2π)·ε_h/n <= 1/(2c)", "certified", ok))
    # on the printed grid [ε_h, 3ε_h] = [2, 6]: ε/2 - 1 >= 0, so δ_A = max(1 - e^{ε/2-1}, 0) = 0 there and
    # the printed algorithm would report μ = 0, while G(0) > 1.8
    steps.append(Step("printed grid x_i = iD + ε_h covers [ε_h, 3ε_h] where δ_A = 0: it would report μ = 0, "
                      "but G(0) > 1.8", "certified",
                      eps_h / 2 - 1 >= 0 and g0.certainly_greater_than(Fraction(18, 10))))
    d10 = delta_mu(10, eps_h)
    steps.append(Step("δ_10(ε_h) > δ_A(0): with μ⁺ = μ_max = 10 the update test never fires", "certified",
                      d10.certainly_greater_than(Fraction(delta0.hi_str(40)))))
    corrections = [
        "Algorithm 3 grid size: n = ⌈2√(2π)·c·ε_h⌉, not ⌈√(8cπε_h)⌉ + 1",
        "grid points x_i = iD (i = 0..n, D = ε_h/n), not iD + ε_h; the cell of shuffled index i is [iD, (i+1)D]",
        "Algorithm 2: the upper staircase is μ_GDP(x⁺, δ_A(x⁻)), the lower μ_GDP(x⁻, δ_A(x⁺)) (swapped as printed)",
        "Algorithm 3: initialise μ⁺ = μ⁻ = 0 (μ⁺ = μ_max never updates)",
    ]
    return conclude(NAME, STATEMENT, SOURCE, steps, corrections)
