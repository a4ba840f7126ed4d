"""The lower discretisation of a loss law with atoms and a continuous part (subsampled
Laplace) against an independent truth: δ of the one- and two-fold composition by mpmath
quadrature in x-space, the pair written out by hand from seed 002 Thm 11(1) (not from
certdp's loss laws).  The engine's one-step measures are composed here by exact
integer convolution and evaluated in mpmath, so only the discretisation is under test.

The atoms of a subsampled Laplace step (68 % of its mass at rate 1/10) are merged with
continuous mass beside them so that the merged loss lands just above a grid point
(discretise._atom_region); before, each atom moved down by up to h per step and the
2000-fold composition's ε enclosure was 0.31 wide at h = 1/2048.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from certdp.analyses.accountants.discretise import law_source, one_step
from certdp.analyses.accountants.pld import PLDAccountant
from certdp.mechanisms import parse_spec
from laplace_truth import delta1 as _delta1, delta2 as _delta2, pair as _pair
from refs import mpf

BITS = 90


def _measure(spec, relation, kind, h):
    src = law_source(parse_spec(spec))
    coeffs, offset, inf = one_step(src.law(relation, h, 1e-30), h, BITS, kind, 1e-30, 1 << 22)
    return [int(c) for c in coeffs], offset, int(inf)


def _square(m):
    c, off, inf = m
    out = [0] * (2 * len(c) - 1)
    for i, a in enumerate(c):
        if a:
            for j, b in enumerate(c):
                out[i + j] += a * b
    tot = sum(c)
    return out, 2 * off, inf * (tot + inf) + tot * inf  # masses in units 2^(-2 BITS)


def _F(m, h, eps, unit_bits):
    c, off, inf = m
    s = mpmath.fsum(a * (1 - mpmath.exp(mpf(eps) - mpf((off + k) * h))) for k, a in enumerate(c) if (off + k) * h > eps)
    return (s + inf) / mpf(2) ** unit_bits


@pytest.mark.parametrize("spec,b,g", [
    ("subsample(laplace(scale=1), rate=1/10)", 1, Fraction(1, 10)),
    ("subsample(laplace(scale=1/2), rate=1/4)", Fraction(1, 2), Fraction(1, 4)),
])
@pytest.mark.parametrize("relation", ["remove", "add"])
def test_one_and_two_fold_lower_and_upper_contain_the_quadrature(spec, b, g, relation):
    h = Fraction(1, 100)
    with mpmath.workdps(34):
        f, q, lh = _pair(mpf(b), mpf(g), relation)
        lo1, up1 = _measure(spec, relation, "lower", h), _measure(spec, relation, "upper", h)
        lo2, up2 = _square(lo1), _square(up1)
        for eps in (Fraction(0), Fraction(1, 7)):
            t1 = _delta1(f, q, lh, mpf(eps))
            assert _F(lo1, h, eps, BITS) <= t1 <= _F(up1, h, eps, BITS)
        for eps in (Fraction(1, 40),):
            t2 = _delta2(f, q, lh, mpf(eps))
            lo, hi = _F(lo2, h, eps, 2 * BITS), _F(up2, h, eps, 2 * BITS)
            assert lo <= t2 <= hi
            # the lower end is tight: within a few h of the truth's slope (the atoms moved
            # down alone lose up to h per step and step)
            assert t2 - lo <= 4 * mpf(h) * t2


@settings(max_examples=12, deadline=None)
@given(b=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2)]),
       g=st.sampled_from([Fraction(1, 20), Fraction(1, 5), Fraction(1, 2)]),
       n=st.integers(50, 700), relation=st.sampled_from(["remove", "add"]),
       eps=st.fractions(Fraction(0), Fraction(1, 2)))
def test_lower_one_step_never_exceeds_the_quadrature(b, g, n, relation, eps):
    """Random grids (h = 1/n, not dyadic) and rates: the merged atoms stay below the truth."""
    h = Fraction(1, n)
    spec = f"subsample(laplace(scale={b}), rate={g})"
    with mpmath.workdps(34):
        f, q, lh = _pair(mpf(b), mpf(g), relation)
        lo1, up1 = _measure(spec, relation, "lower", h), _measure(spec, relation, "upper", h)
        t1 = _delta1(f, q, lh, mpf(eps))
        assert _F(lo1, h, eps, BITS) <= t1 <= _F(up1, h, eps, BITS)


def test_long_composition_is_narrow_on_the_first_grid():
    """The 2000-fold subsampled Laplace at h = 1/2048: 0.31 wide before the atoms were
    merged; its lower end stays below the upper end of a 4x finer grid (certified by the
    other, connect-the-dots construction)."""
    spec = parse_spec("subsample(laplace(scale=1), rate=1/10)")
    e = PLDAccountant(h=Fraction(1, 2048)).compose(spec, 2000).epsilon(Fraction(1, 10**5))
    fine = PLDAccountant(h=Fraction(1, 8192), lower=False).compose(spec, 2000).epsilon(Fraction(1, 10**5))
    assert e.lo_exact <= fine.hi_exact
    assert e.hi_exact - e.lo_exact < Fraction(3, 100)


@pytest.mark.parametrize("scale", ["1e-300", "1e-30"])
def test_extreme_scale_is_a_clear_error(scale):
    """Losses of 1e30–1e300: the engine reports what it could not bound (PrecisionError,
    the CLI's 'undecided'), never a traceback from deep inside."""
    from certdp.errors import PrecisionError

    with pytest.raises(PrecisionError):
        PLDAccountant().compose(parse_spec(f"subsample(laplace(scale={scale}), rate=1/10)"), 3).epsilon(Fraction(1, 10**5))


def test_grid_bracket_and_fixed_point_units():
    from flint import arb

    from certdp.errors import PrecisionError
    from certdp.numerics.ball import fixed_point_units
    from certdp.verifier.check_law_pld import grid_bracket

    h = Fraction(1, 256)
    assert grid_bracket(Fraction(5, 256), h) == (5, 5) and grid_bracket(Fraction(1, 3), h) == (85, 86)
    assert grid_bracket(-arb(1) / 3, h) == (-86, -85)
    big = arb(10) ** 400 / 3
    with pytest.raises(PrecisionError):
        grid_bracket(big, h)  # a radius far above h: undecided at 53 bits
    for bad in (arb("nan"), arb(0).union(arb("inf"))):
        with pytest.raises(PrecisionError):
            grid_bracket(bad, h)
    scale = arb(2) ** 10
    assert fixed_point_units(arb(1) / 3, scale, True) == 342 and fixed_point_units(arb(1) / 3, scale, False) == 341
    assert fixed_point_units(arb("nan"), scale, False) == 0  # a lower mass may be dropped
    with pytest.raises(PrecisionError):
        fixed_point_units(arb("nan"), scale, True)
