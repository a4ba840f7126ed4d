"""The mpmath kernel's fixed-point Φ (:mod:`certdp.verifier.phi_fixed`) encloses Φ: checked
against mpmath's ncdf at 600 bits (independent truth) on random points and intervals,
with widths of a few units of 2^-P (tightness), and its Taylor remainder bound against
the true remainder."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest

from certdp.verifier.phi_fixed import PhiTable, remainder_units, terms_for

from refs import mp_digits  # noqa: E402

_mp = pytest.fixture(autouse=True, scope="module")(mp_digits(180))


@pytest.mark.parametrize("p", [96, 160, 288])
def test_encloses_phi(p):
    t = PhiTable(p)
    rng = random.Random(p)
    for _ in range(60):
        x = rng.uniform(-45, 45) if rng.random() < 0.2 else rng.uniform(-12, 12)
        w = rng.choice([0, 1, 1 << 20])
        z = (int(mpmath.floor(mpmath.mpf(x) * 2**p)), 0)
        z = (z[0], z[0] + w)
        lo, hi = t.phi_cdf(z)
        a = mpmath.ncdf(mpmath.mpf(z[0]) / 2**p) * 2**p
        b = mpmath.ncdf(mpmath.mpf(z[1]) / 2**p) * 2**p
        assert lo <= a and b <= hi, (p, x, w)
        assert hi - lo <= 16 + 1.6 * (b - a), (p, x, hi - lo)  # a few units wider than the range


def test_remainder_bound_is_an_upper_bound():
    # the true remainder of Φ's Taylor polynomial at x0 = 1/2 with d = 1/4 after K terms
    p = 100
    k, r = terms_for(Fraction(1, 4), p)
    assert r <= 1 and remainder_units(k - 1, Fraction(1, 4), p) > 1
    x0, d = mpmath.mpf(1) / 2, mpmath.mpf(1) / 4
    taylor = mpmath.ncdf(x0) + sum(mpmath.diff(mpmath.npdf, x0, n) * d ** (n + 1) / mpmath.factorial(n + 1)
                                   for n in range(k))
    assert abs(mpmath.ncdf(x0 + d) - taylor) * 2**p <= r
