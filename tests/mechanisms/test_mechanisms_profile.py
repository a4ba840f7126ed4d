"""``profile("<expression>")``: user profiles through the safe parser."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.cli import main
from certdp.errors import InputError
from certdp.mechanisms import Laplace, Profile, delta_enclosure, eps_enclosure, parse_spec
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure

LAP = "Max(1 - exp(eps/2 - 1), 0)"  # laplace(scale=1/2): Δ/(2b) = 1
GDP = "Phi(-eps + 1/2) - exp(eps)*Phi(-eps - 1/2)"  # μ = 1


def contains(enc: Enclosure, value) -> bool:
    with mpmath.workdps(80):
        lo = mpmath.ldexp(int(enc.lo.man_exp()[0]), int(enc.lo.man_exp()[1]))
        hi = mpmath.ldexp(int(enc.hi.man_exp()[0]), int(enc.hi.man_exp()[1]))
        s = abs(value) * mpmath.mpf(10) ** -40 + mpmath.mpf(10) ** -45
        return lo - s <= value <= hi + s


@pytest.fixture(scope="module")
def lap():
    return parse_spec(f'profile("{LAP}")')


@pytest.fixture(scope="module")
def gdp():
    return Profile(GDP)


def test_spec_round_trip_keeps_text(lap):
    assert lap.spec() == f'profile("{LAP}")'
    assert parse_spec(lap.spec()) == lap
    assert lap.validation.ok and lap.assumptions == ()


@settings(max_examples=30)
@given(eps=st.fractions(min_value=0, max_value=10, max_denominator=1000))
def test_user_profiles_contain_mpmath(lap, gdp, eps):
    with mpmath.workdps(50):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        lap_ref = max(1 - mpmath.exp(e / 2 - 1), 0)
        gdp_ref = mpmath.ncdf(-e + mpmath.mpf(1) / 2) - mpmath.exp(e) * mpmath.ncdf(-e - mpmath.mpf(1) / 2)
    assert contains(delta_enclosure(lap, eps), lap_ref)
    assert contains(delta_enclosure(gdp, eps, digits=12), gdp_ref)


def test_user_profile_agrees_with_catalog(lap):
    cat = Laplace(scale=Fraction(1, 2))
    for d in (Fraction(1, 1000), Fraction(1, 2)):
        a, b = eps_enclosure(lap, d, digits=12), eps_enclosure(cat, d)
        assert a.lo <= b.hi and b.lo <= a.hi  # overlapping enclosures of the same number
    with working_precision(53):
        y = lap.delta_ball(to_ball(0).union(to_ball(3)))  # range over [0, 3]
    assert y.contains(to_ball(0)) and y.contains(1 - to_ball(-1).exp())


@pytest.mark.parametrize(
    "text,word",
    [
        ('profile("exp(-eps**2)")', "δ(0)"),
        ('profile("eps/10")', "not a privacy profile"),
        ('profile("__import__(1)")', "__import__"),
        ('profile("x + 1")', "x"),
        ('profile("")', "empty"),
        ("profile(1/2)", "must be a string"),
    ],
)
def test_invalid_user_profiles_rejected(text, word):
    with pytest.raises(InputError, match=re.escape(word)):
        parse_spec(text)


def test_cli_user_profile_reports_assumptions(capsys):
    code = main(["profile", f'profile("{GDP}")', "--delta", "0.01", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    with mpmath.workdps(50):
        f = lambda e: mpmath.ncdf(-e + mpmath.mpf(1) / 2) - mpmath.exp(e) * mpmath.ncdf(-e - mpmath.mpf(1) / 2)  # noqa: E731
        truth = mpmath.findroot(lambda e: f(e) - mpmath.mpf("0.01"), 2.3)
    assert contains(Enclosure.from_json(data["eps"]), truth)
    assert data["assuming"]  # the GDP tail's monotonicity is not proved by the validator
