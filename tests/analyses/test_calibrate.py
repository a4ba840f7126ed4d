"""Calibration (issue 17): the optimal grid value with both certified facts,
checked against independent closed forms (mpmath)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.calibrate import calibrate
from certdp.cli import main
from certdp.errors import InputError


def _gauss_delta(mu, eps):
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def test_gaussian_noise_is_the_ceiling_of_the_exact_calibration():
    """σ* solves δ_{1/σ}(ε) = δ (Balle & Wang 2018's analytic Gaussian); the
    answer on the grid 1/1000·Z must be ⌈1000 σ*⌉/1000."""
    with mpmath.workdps(40):
        sigma_star = mpmath.findroot(lambda s: _gauss_delta(1 / s, 1) - mpmath.mpf("1e-5"), 3.7)
        expected = Fraction(math.ceil(float(sigma_star * 1000)), 1000)
    c = calibrate("gaussian(sigma=x)", "x", eps=1, delta="1e-5", resolution="1/1000")
    assert c.value == expected and c.optimal
    assert c.best.meets is True and c.neighbour.meets is False
    assert c.neighbour.value == expected - Fraction(1, 1000)


def test_rates_are_calibrated_downwards():
    c = calibrate("compose(subsample(gaussian(sigma=2), rate=x), k=10)", "x", eps=1, delta="1e-5",
                  resolution="1/100", start="1/10")
    assert c.direction == "smaller" and c.optimal
    assert c.neighbour.value == c.value + Fraction(1, 100)
    assert c.best.answer.enclosure.hi_exact <= Fraction(1, 10**5) < c.neighbour.answer.enclosure.lo_exact


@pytest.mark.parametrize("spec,param,match", [("gaussian(sigma=2)", "x", "does not use"),
                                              ("gaussian(x=2)", "x", "keyword"),
                                              ("gaussian(sigma=x)", "y", "does not use")])
def test_bad_templates_are_refused(spec, param, match):
    with pytest.raises(InputError, match=match):
        calibrate(spec, param, eps=1, delta="1e-5")


def test_cli_prints_both_facts(capsys):
    rc = main(["calibrate", "gaussian(sigma=x)", "--param", "x", "--eps", "1", "--delta", "1e-5",
               "--resolution", "1/100"])
    out = capsys.readouterr().out
    assert rc == 0 and "optimal at this resolution" in out and "<= 1e-5" in out and "> 1e-5" in out
