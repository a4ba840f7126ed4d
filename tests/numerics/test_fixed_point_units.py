"""Probability masses to integer units (``verifier.ball.fixed_point_units``, used by the
PLD engine and the checker): rounded outward, and a ball too wide to bound a probability
is refused (up) or dropped (down) without converting its ends to integers.  A mass ball
of radius 1e60, from ``gaussian_mixture(sigma=1, sensitivities="0, 1e30", ...)``, aborted
the whole process inside FLINT (arf_get_fmpz) before."""

from __future__ import annotations

import pytest
from flint import arb

from certdp.errors import PrecisionError
from certdp.verifier.ball import fixed_point_units, working_precision

SCALE = arb(2) ** 64


def test_rounded_outward():
    with working_precision(128):
        m = arb(1) / 3
        up, down = fixed_point_units(m, SCALE, True), fixed_point_units(m, SCALE, False)
    assert 3 * down < 2**64 < 3 * up and up - down == 1


@pytest.mark.parametrize("radius", [1e3, 1e60, 1e300])
def test_a_ball_that_bounds_no_probability(radius):
    wide = arb(0, radius)
    with pytest.raises(PrecisionError):
        fixed_point_units(wide, SCALE, True)
    assert fixed_point_units(wide, SCALE, False) == 0
    with pytest.raises(PrecisionError):  # a lower bound above 2 is no probability either
        fixed_point_units(arb(radius) * 4, SCALE, False)


def test_exact_ends():
    assert fixed_point_units(arb(0), SCALE, True) == 0
    assert fixed_point_units(arb(1), SCALE, True) == fixed_point_units(arb(1), SCALE, False) == 2**64
    assert fixed_point_units(arb(-1e-30), SCALE, True) == 0
