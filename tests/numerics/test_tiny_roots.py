"""Tiny results keep relative accuracy (issue 18): μ_GDP(0, 1e-300) ≈ 2.5e-300
was reported as [0, 4.5e-13]."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.numerics.gdp import mu_from_eps_delta
from refs import mpq


@pytest.mark.parametrize("delta", ["1e-300", "1e-100", "1e-20"])
def test_tiny_mu_gdp_has_relative_accuracy(delta):
    enc = mu_from_eps_delta(0, delta)
    with mpmath.workdps(60):
        truth = 2 * mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(delta))  # δ_μ(0) = 2Φ(μ/2) − 1
        lo, hi = mpq(enc.lo_exact), mpq(enc.hi_exact)
        assert lo <= truth <= hi
        assert (hi - lo) / truth < mpmath.mpf(2) ** -30


def test_width_is_still_absolute_at_ordinary_sizes():
    enc = mu_from_eps_delta(1, "1e-5", width="1e-12")
    assert enc.hi_exact - enc.lo_exact <= Fraction(1, 10**12)
