"""The bottom-deficit guide (accountants.alignment) and the aligned refinement grid (dpsgd._aligned)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.alignment import bottom_deficit
from certdp.analyses.accountants.dpsgd import _aligned, dpsgd
from certdp.analyses.accountants.pld import SubsampledGaussian, lower_boundaries


def _deficit_mpmath(pair, h, steps=32, z=12.0):
    """D(h) of the same cuts, every mass and integral in mpmath at 30 digits (mpmath.quad)."""
    hf = float(h)
    lo_x, _ = pair.x_quantiles_f(z)
    bottom = pair.loss_range_f()[0]
    cuts = lower_boundaries(pair, h, z, stop_loss=bottom + steps * hf)
    with mpmath.workdps(30):
        s = mpmath.mpf(pair.sigma.numerator) / pair.sigma.denominator
        q = mpmath.mpf(pair.q.numerator) / pair.q.denominator

        def dens(comps, x):
            return mpmath.fsum(mpmath.mpf(w.numerator) / w.denominator * mpmath.npdf(x, c, s) for w, c in comps)

        def mass(comps, a, b):
            return mpmath.fsum(mpmath.mpf(w.numerator) / w.denominator
                               * (mpmath.ncdf(b, c, s) - mpmath.ncdf(a, c, s)) for w, c in comps)

        def ell(x):  # the remove relation's pointwise loss
            return mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s * s)))

        total = mpmath.mpf(0)
        for a, b in zip([lo_x] + cuts[:-1], cuts):
            a, b = mpmath.mpf(a), mpmath.mpf(b)
            pm, qm = mass(pair.p_comps, a, b), mass(pair.q_comps, a, b)
            k = mpmath.floor(mpmath.log(pm / qm) / hf + mpmath.mpf("1e-7"))
            integral = mpmath.quad(lambda x: dens(pair.p_comps, x) * ell(x), mpmath.linspace(a, b, 9))
            total += integral - pm * k * hf
        return float(total)


@pytest.mark.parametrize("sigma, q, h", [("0.5", "0.001", "1/1024"), ("0.5", "0.001", "7/8192"),
                                         ("0.5", "0.32768", "9/16384"), ("0.1", "0.01", "5/2048")])
def test_bottom_deficit_matches_mpmath_quadrature(sigma, q, h):
    pair = SubsampledGaussian(Fraction(sigma), Fraction(q)).pair("remove")
    got = bottom_deficit(pair, Fraction(h))
    want = _deficit_mpmath(pair, Fraction(h))
    assert got > 0
    assert math.isclose(got, want, rel_tol=1e-6), (got, want)


def test_bottom_deficit_ranks_neighbouring_grids_as_their_lower_ends():
    # σ 0.5, q 0.001: the lower end at T 100 was 3.7e-4 from the truth at h = 1/1024 and
    # 3.3e-6 at 7/8192 (measured, module doc); the guide ranks them the same way, 20-fold apart
    pair = SubsampledGaussian(Fraction(1, 2), Fraction(1, 1000)).pair("remove")
    assert bottom_deficit(pair, Fraction(1, 1024)) > 20 * bottom_deficit(pair, Fraction(7, 8192))


def test_aligned_refinement_takes_a_coarser_well_aligned_grid_at_small_sigma():
    s, q = Fraction(1, 10), Fraction(1, 100)
    # from 1/256 the halving would go to 1/1024; 5/2048 is as narrow (width 0.091 against 0.092)
    assert _aligned(Fraction(1, 1024), Fraction(1, 256), s, q, 10, 0.16) == Fraction(5, 2048)


@pytest.mark.parametrize("sigma, q, T", [("2", "0.01", 100), ("1.1", "0.32768", 100)])
def test_aligned_keeps_the_halving_where_alignment_cannot_matter(sigma, q, T):
    fine = Fraction(1, 2048)
    assert _aligned(fine, Fraction(1, 1024), Fraction(sigma), Fraction(q), T, 1e-4) == fine


def test_small_sigma_default_answer_meets_its_width_and_agrees_with_a_fine_grid():
    """σ 0.1 (issue 16's command): the default answer on the aligned grid is within the
    default width, and overlaps the enclosure of an independent grid 4x finer."""
    s, q, T, d = Fraction(1, 10), Fraction(1, 100), 10, Fraction(1, 10**5)
    r = dpsgd(s, q, T, delta=d)
    w = r.eps.hi_exact - r.eps.lo_exact
    assert w <= Fraction(r.settings["width_target"])
    fine = dpsgd(s, q, T, delta=d, h=Fraction(1, 1024)).eps
    assert r.eps.lo_exact <= fine.hi_exact and fine.lo_exact <= r.eps.hi_exact


@pytest.mark.parametrize("sigma, q, T", [("1/100", "1/100", 10), ("1/1000", "1/2", 10), ("100", "1/1000000", 10**9),
                                         ("1/10", "999/1000", 1)])
def test_aligned_is_a_guide_that_never_raises(sigma, q, T):
    fine, coarse = Fraction(1, 64), Fraction(1, 16)
    got = _aligned(fine, coarse, Fraction(sigma), Fraction(q), T, 1e-3)
    assert fine <= got < coarse


def _enc(lo: str, hi: str):
    from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

    return Enclosure.hull(Enclosure.exact(Fraction(lo)), Enclosure.exact(Fraction(hi)))


def test_refinement_past_a_misaligned_bottom_takes_the_coarsest_aligned_step():
    # σ 0.5, q 1e-4, T 10⁴: on 5/32768 the answer was [0.8116, 1.176] (target 0.0117), a
    # width the misalignment of log(1 − q) ≈ −1e-4 explains; the halvings' 5/262144 gave a
    # width of 4e-6 in 10.8 s, 3/32768 (D 7.8e-10, the first 4-bit step below 1e-4 whose
    # D is tiny; 13/131072 has D 4e-8) gives [1.17522, 1.17529]
    from certdp.analyses.accountants.dpsgd import _past_misalignment  # noqa: PLC0415

    s, q = Fraction(1, 2), Fraction(1, 10**4)
    got = _past_misalignment(Fraction(5, 262144), Fraction(5, 32768), _enc("0.8116", "1.176"), s, q, 10**4, 0.0117)
    assert got == Fraction(3, 32768)


def test_refinement_keeps_the_halving_where_the_width_is_not_misalignment():
    # σ 20, q 1e-4, T 100 on 9/8388608: D there is tiny, the width (1.3 % of ε) is the h² error
    from certdp.analyses.accountants.dpsgd import _past_misalignment  # noqa: PLC0415

    fine = Fraction(9, 16777216)
    got = _past_misalignment(fine, Fraction(9, 8388608), _enc("0.00002463", "0.00002497"), Fraction(20), Fraction(1, 10**4),
                             100, 2.47e-7)
    assert got == fine
