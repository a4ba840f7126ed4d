"""Seed 000, Theorem 3.1 (necessity): the four-output mechanism of Proof A.1
has privacy profile exactly δ(ε) = δ0 + (1-δ0)(e^{ε0} - e^ε)⁺/(1 + e^{ε0}).

Write x = e^ε >= 1, y = e^{ε0} >= 1, d = δ0 ∈ [0, 1], α0 = y/(1+y).  For every
event E ⊆ {1,2,3,4} and direction s ∈ {0,1} (16 × 2 × 2 = 64 combinations
counting both sides of the switch x = y), the hockey-stick value
v_E = P_s(E) - x P_{1-s}(E) is linear in x and in d, and so is the claimed
profile on each side of x = y.  Hence "v_E <= profile" on [1, y] needs checking
only at x ∈ {1, y}, and on [y, ∞) only at x = y (v_E has slope -P_{1-s}(E) <= 0);
and in d only at d ∈ {0, 1}.  Each check is a rational function of y; after
y = 1 + u it is a polynomial in u >= 0 with non-negative coefficients, which
proves it non-negative.  Attainment: E = {1,3}, s = 0 equals the profile for
x <= y, and E = {1}, s = 0 equals δ0 for x >= y.  All exact (sympy).
"""

from __future__ import annotations

from itertools import chain, combinations

import sympy as sp

from proofs.core import ProofResult, Step, conclude

NAME = "seed000-thm3.1-tightness"
STATEMENT = "the four-output mechanism of Proof A.1 has profile δ0 + (1-δ0)(e^ε0 - e^ε)⁺/(1+e^ε0)"
SOURCE = "000_51e7fe2ae605e010.txt, Theorem 3.1, Proof A.1 (necessity)"

x, y, d, u = sp.symbols("x y d u", nonnegative=True)


def tables() -> tuple[list[sp.Expr], list[sp.Expr]]:
    a0 = y / (1 + y)
    p0 = [d, sp.Integer(0), (1 - d) * a0, (1 - d) * (1 - a0)]
    p1 = [sp.Integer(0), d, (1 - d) * (1 - a0), (1 - d) * a0]
    return p0, p1


def _nonneg_for_u(expr: sp.Expr) -> bool:
    """expr(y = 1 + u) >= 0 for all u >= 0, by non-negative polynomial coefficients."""
    num, den = sp.fraction(sp.together(sp.expand(expr.subs(y, 1 + u))))
    for part in (num, den):
        poly = sp.Poly(sp.expand(part), u)
        if any(c < 0 for c in poly.coeffs()):
            # a denominator may be negative-definite: accept num, den both <= 0
            break
    else:
        return True
    pn, pd = sp.Poly(sp.expand(-num), u), sp.Poly(sp.expand(-den), u)
    pn2, pd2 = sp.Poly(sp.expand(num), u), sp.Poly(sp.expand(den), u)
    both_nonpos = all(c >= 0 for c in pn.coeffs()) and all(c >= 0 for c in pd.coeffs())
    both_nonneg = all(c >= 0 for c in pn2.coeffs()) and all(c >= 0 for c in pd2.coeffs())
    return both_nonpos or both_nonneg


def violations(profile_lo: sp.Expr, profile_hi: sp.Expr) -> tuple[int, list[str]]:
    """Cases (E, s) where P_s(E) - x P_(1-s)(E) <= profile is NOT proved.

    ``profile_lo`` is the claimed profile on x ∈ [1, y], ``profile_hi`` on
    x >= y (both linear in x and d).  Returns (number of cases, failures).
    """
    p0, p1 = tables()
    events = list(chain.from_iterable(combinations(range(4), k) for k in range(5)))
    bad: list[str] = []
    count = 0
    for s, (ps, pt) in enumerate([(p0, p1), (p1, p0)]):
        for ev in events:
            A = sum((ps[i] for i in ev), sp.Integer(0))
            B = sum((pt[i] for i in ev), sp.Integer(0))
            v = A - x * B
            checks = [
                profile_lo.subs(x, 1) - v.subs(x, 1),
                profile_lo.subs(x, y) - v.subs(x, y),
                profile_hi - v.subs(x, y),
            ]
            count += 2
            for c in checks:
                for dv in (0, 1):
                    if not _nonneg_for_u(c.subs(d, dv)):
                        bad.append(f"E={sorted(i + 1 for i in ev)}, s={s}")
    return count, sorted(set(bad))


def check() -> ProofResult:
    p0, p1 = tables()
    profile_lo = d + (1 - d) * (y - x) / (1 + y)  # x in [1, y]
    profile_hi = d  # x >= y
    count, bad = violations(profile_lo, profile_hi)
    steps = [
        Step(f"every (E, s) satisfies P_s(E) - e^ε P_(1-s)(E) <= profile ({count} event-direction-side cases)",
             "symbolic", not bad, "; ".join(bad)[:500]),
    ]
    a = p0[0] + p0[2] - x * (p1[0] + p1[2])
    steps.append(Step("E = {1,3}, s = 0 attains the profile for ε <= ε0", "symbolic",
                      sp.simplify(a - profile_lo) == 0))
    b = p0[0] - x * p1[0]
    steps.append(Step("E = {1}, s = 0 attains δ0 for ε >= ε0", "symbolic", sp.simplify(b - profile_hi) == 0))
    steps.append(Step("rows are probability vectors", "symbolic",
                      all(sp.simplify(sum(p) - 1) == 0 for p in tables())))
    return conclude(NAME, STATEMENT, SOURCE, steps, [])
