"""Algorithm 3 of Liu et al. 2022 (App. D), corrected, with certified comparisons.

The reference version of the cell argument that :func:`certdp.analyses.gdpt.measure`
runs adaptively: uniform cells, a shuffled visiting order and Algorithm 1's
bisection for μ.  Kept to reproduce (and correct) the paper's algorithm; see
:func:`algorithm3` for the corrections and ``proofs/seed000_algorithm3_corrections.py``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.analyses.gdpt import _Counter, _frac, delta_mu_cert_ball, profile_ball
from certdp.errors import InputError, PrecisionError
from certdp.numerics.ball import lower_bound, upper_bound
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.numerics.gdp import certified_sign, delta_mu_adaptive

SQRT_2PI = math.sqrt(2 * math.pi)




@dataclass(frozen=True)
class Algorithm3Result:
    mu: Enclosure
    cells: int
    evaluations: int
    bisections: int


def algorithm3_cells(eps_h: object, c: object) -> int:
    """Number of uniform cells n = ⌈2√(2π) c ε_h⌉ the corrected Algorithm 3 needs
    for margin 1/c (staircase gap √(2π) D <= 1/(2c); bisection error 1/(4c) each side)."""
    e, cc = exact(eps_h, "eps_h"), exact(c, "c")
    return max(1, math.ceil(2 * SQRT_2PI * float(cc) * float(e)))


def _bisect_mu(eps: Fraction, delta: Fraction, mu_max: Fraction, tol: Fraction) -> tuple[Fraction, Fraction]:
    """Liu et al. 2022 Algorithm 1 with certified signs: lo <= μ_GDP(eps, delta) <= hi, hi - lo <= tol."""
    lo, hi = Fraction(0), mu_max
    while hi - lo > tol:
        mid = (lo + hi) / 2
        s = certified_sign(lambda bits: delta_mu_adaptive(mid, eps, bits), delta, "algorithm3")
        if s > 0:
            hi = mid
        else:
            lo = mid
    return lo, hi


def algorithm3(
    mechanism: Mechanism, eps_h: object, c: object, *, mu_max: object = 10, seed: int = 0
) -> Algorithm3Result:
    """Liu et al. 2022 App. D Algorithm 3, corrected, with certified comparisons.

    Corrections to the printed algorithm (each is needed for the claimed bounds):

    1. Lipschitz constant: ∂μ_GDP/∂ε = R(t) (Mills ratio, t = μ/2 + ε/μ) <= R(0)
       = √(2π)/2 ≈ 1.2533, not "√2π/2" (Thm 4.5); the staircase gap of Thm 4.6 is
       √(2π)·D (two grid steps at slope √(2π)/2), not √2·π·D.  (Proof A.5 also
       writes √(2π)e^{-t²/2}Φ(-t); the correct value is √(2π)e^{+t²/2}Φ(-t) = R(t),
       checked against finite differences in tests/test_gdpt.py.)
    2. Grid: x_i = iD with D = ε_h/n, i = 0..n covers [0, ε_h]; the printed
       x_i = iD + ε_h covers [ε_h, 3ε_h] and D = ε_h/(n-1) with i <= n+1 overruns.
       After shuffling the cell index i, the cell is [iD, (i+1)D], not
       [S[i]D, S[i+1]D] (two unrelated shuffled points).
    3. Grid size: margin 1/c needs √(2π) D <= 1/(2c), i.e. n = ⌈2√(2π) c ε_h⌉
       (linear in c ε_h); the printed n = ⌈√(8cπε_h)⌉ + 1 is far too small.
       Bisections (Algorithm 1) run to 1/(4c) so the total width is <= 1/c.
    4. Staircases: the upper bound on a cell [x⁻, x⁺] is μ_GDP(x⁺, δ_A(x⁻)) and the
       lower one μ_GDP(x⁻, δ_A(x⁺)) (Thm 4.6 has them right; Algorithm 2 swaps
       them).  So μ⁺ must be raised when δ_μ⁺(x⁺) < δ_A(x⁻).
    5. Initialisation: printed μ⁺ ← μ_max makes the test δ_μ⁺(·) < δ_A(·) never
       fire, so μ⁺ never updates; we start from μ⁺ = μ⁻ = 0 (μ_h is undefined).
    """
    e = exact(eps_h, "eps_h")
    cc = exact(c, "c")
    mmax = exact(mu_max, "mu_max")
    if e <= 0 or cc <= 0 or mmax <= 0:
        raise InputError("eps_h, c and mu_max must be positive")
    n = algorithm3_cells(e, cc)
    D = e / n
    tol = 1 / (4 * cc)
    counter = _Counter()
    cache: dict[int, arb] = {}

    def prof(i: int) -> arb:
        if i not in cache:
            cache[i] = profile_ball(mechanism, i * D, counter=counter)
        return cache[i]

    order = list(range(n))
    random.Random(seed).shuffle(order)
    mu_hi, mu_lo = Fraction(0), Fraction(0)
    bis = 0
    for i in order:
        xm, xp = i * D, (i + 1) * D
        U = upper_bound(prof(i))
        if U > 0:
            ok = mu_hi > 0 and U <= lower_bound(delta_mu_cert_ball(mu_hi, xp))
            if not ok:
                d = _frac(U)
                if d >= 1:
                    raise PrecisionError("profile reaches 1")
                _lo, hi = _bisect_mu(xp, d, mmax, tol)
                bis += 1
                if hi >= mmax:
                    raise InputError(f"mu exceeds mu_max = {mmax}")
                mu_hi = max(mu_hi, hi)
        Lp = lower_bound(prof(i + 1))
        if Lp > 0:
            fires = mu_lo == 0 or upper_bound(delta_mu_cert_ball(mu_lo, xm)) < Lp
            if fires:
                d = _frac(Lp)
                lo, _hi = _bisect_mu(xm, d, mmax, tol)
                bis += 1
                mu_lo = max(mu_lo, lo)
    return Algorithm3Result(
        Enclosure.hull(Enclosure.exact(mu_lo), Enclosure.exact(mu_hi)), n, counter.profile, bis
    )
