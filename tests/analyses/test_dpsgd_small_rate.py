"""Small sampling rates: the automatic PLD grid follows the one-step loss spread
q·√(e^{1/σ²} − 1), so the default two-sided answer meets the DP-SGD width target
(<= 1 % of ε) without options (issue 16).  At the old fixed grid 1/1024 the cell
σ = 9.4, q = 0.001 had no lower end at all ([0, 0.0045] at T = 100)."""

import math
from fractions import Fraction

import mpmath as mp
import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.analyses.accountants.pld import DEFAULT_H, PLDAccountant, SubsampledGaussian


def _clt_eps(sigma: str, q: str, steps: int, delta: str) -> mp.mpf:
    """Independent guide: the central limit theorem of Dong, Roth & Su (2022, Thm 6):
    T-fold Poisson-subsampled Gaussian steps tend to μ-GDP with μ = q·√(T(e^{1/σ²} − 1));
    ε solves δ_μ(ε) = δ (mpmath, 40 digits)."""
    with mp.workdps(40):
        mu = mp.mpf(q) * mp.sqrt(steps * mp.expm1(1 / mp.mpf(sigma) ** 2))
        d = lambda e: mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2) - mp.mpf(delta)
        return mp.findroot(d, (mu / 10, 20 * mu), solver="bisect")


@pytest.mark.parametrize("sigma, q, grid", [("9.4", "0.001", Fraction(3, 131072)),
                                            ("2", "0.001", Fraction(15, 131072)),
                                            ("1.1", "0.01", DEFAULT_H)])
def test_grid_follows_the_loss_spread(sigma, q, grid):
    # the largest 4-bit-mantissa step at most 0.22 spread (pld.SPREAD_STEP), spread =
    # q·√(e^{1/σ²} − 1); the default step where that is coarser
    acc = PLDAccountant().compose(SubsampledGaussian(Fraction(sigma), Fraction(q)), 100)
    assert acc.h == grid
    spread = float(q) * math.sqrt(math.expm1(1 / float(sigma) ** 2))
    if grid != DEFAULT_H:
        assert 0.19 < float(grid) / spread <= 0.22


def test_small_rate_cell_meets_the_default_width_and_the_clt():
    r = dpsgd("9.4", "0.001", 10_000, delta="1e-5")
    lo, hi = r.eps.lo_exact, r.eps.hi_exact
    assert lo > 0 and hi - lo <= hi / 100, (float(lo), float(hi))
    # the CLT limit (exact as q -> 0 with q√T fixed) lies within 1 % of the enclosure
    # (measured: 0.029252 against [0.029271, 0.029354])
    clt = _clt_eps("9.4", "0.001", 10_000, "1e-5")
    assert abs(clt - mp.mpf(float(lo + hi) / 2)) <= mp.mpf(float(hi)) / 100


def test_nested_grids_agree():
    # the enclosures at the automatic grid and at a 4x finer grid both contain the
    # truth: they must intersect, and the finer one must be narrower
    coarse = dpsgd("2", "0.001", 100, delta="1e-5").eps
    fine = dpsgd("2", "0.001", 100, delta="1e-5", h=Fraction(1, 32768)).eps
    assert fine.lo_exact <= coarse.hi_exact and coarse.lo_exact <= fine.hi_exact
    assert fine.hi_exact - fine.lo_exact < coarse.hi_exact - coarse.lo_exact
    assert coarse.hi_exact - coarse.lo_exact <= coarse.hi_exact / 100
