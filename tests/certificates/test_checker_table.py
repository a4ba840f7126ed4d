"""The checker's own mechanism table (certdp.verifier.mechs) against the
catalog (what it replaces in the checker) and against mpmath closed forms."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb

from certdp.verifier import mechs
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import to_ball, working_precision
from tests.refs import delta_mu_ref, mpf

SPECS = [
    "laplace(scale=1/2)",
    "laplace(scale=3, sensitivity=2)",
    "gaussian(sigma=1)",
    "gaussian(sigma=2, sensitivity=3)",
    "gaussian_dp(mu=0.7)",
    "randomized_response(p=0.25)",
    "randomized_response(p=0.9)",
    "pure_dp(eps=1)",
    "approx_dp(eps=1, delta=0.01)",
    "subsample(laplace(scale=1), rate=0.1)",
    "subsample(gaussian(sigma=1), rate=1)",
    "subsample(subsample(randomized_response(p=0.8), rate=1/2), rate=1/3)",
    "compose(gaussian(sigma=2), k=9)",
    "compose(compose(gaussian_dp(mu=1/2), k=2), k=3)",
    "compose(laplace(scale=1), k=1)",
    "compose(subsample(gaussian(sigma=9.4), rate=0.32768), k=2000)",
    "dpsgd(noise=2, rate=0.01, steps=100)",
    "clip_reify(gaussian(sigma=1), eps_h=2, lo=0, hi=1)",
    "clip_reify(subsample(laplace(scale=1/2), rate=0.3), eps_h=1, lo=-1, hi=1)",
    'profile("Max(1 - exp(eps/2 - 1), 0)")',
    'profile("if((eps - 3/100)**2 < 1/1000000, 1/2, 0)")',  # unproved hypotheses: assumptions
    'clip_reify(profile("if((eps - 3/100)**2 < 1/1000000, 1/2, 0)"), eps_h=1, lo=0, hi=1)',
    'subsample(profile("Max(1/2 - eps, 0)"), rate=1/2)',
]


@pytest.mark.parametrize("spec", SPECS)
def test_same_facts_as_the_catalog(spec):
    ours, cat = mechs.parse(spec), parse_spec(spec)
    if "if(" in spec:
        assert ours.assumptions  # the case that matters: hypotheses the validator could not prove
    assert ours.assumptions == cat.assumptions
    assert ours.profile_kind.value == cat.profile_kind.value
    assert ours.gdp_mu_squared() == cat.gdp_mu_squared()
    assert getattr(ours, "has_closed_form", True) == getattr(cat, "has_closed_form", True)
    if getattr(cat, "has_closed_form", True):
        assert sympy.simplify(ours.profile() - cat.profile()) == 0 or ours.profile() == cat.profile()


@pytest.mark.parametrize("spec", [s for s in SPECS if getattr(parse_spec(s), "has_closed_form", True)])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 7), Fraction(1), Fraction(5, 2), Fraction(40)])
def test_balls_overlap_the_catalog(spec, eps):
    ours, cat = mechs.parse(spec), parse_spec(spec)
    with working_precision(128):
        for x in (to_ball(eps), to_ball(eps).union(to_ball(eps + Fraction(1, 64)))):  # a point, an interval
            a, b = ours.delta_ball(x), cat.delta_ball(x)
            assert a.is_finite() and b.is_finite()
            assert a.overlaps(b), (spec, eps, a, b)
            if x.is_exact():  # the same kernels: as tight as the catalog's
                assert a.rad() <= 2 * b.rad() + arb(2) ** -100


def _mp_closed_form(spec: str, e: mpmath.mpf) -> mpmath.mpf:
    """Independent closed forms (mpmath only)."""
    if spec == "laplace(scale=1/2)":
        return max(1 - mpmath.exp(e / 2 - 1), 0)
    if spec == "randomized_response(p=0.25)":
        return max(mpf("0.75") - mpf("0.25") * mpmath.exp(e), 0)
    if spec == "approx_dp(eps=1, delta=0.01)":
        return mpf("0.01") + mpf("0.99") * max(mpmath.e - mpmath.exp(e), 0) / (1 + mpmath.e)
    if spec == "subsample(laplace(scale=1), rate=0.1)":
        inner = mpmath.log(1 + (mpmath.exp(e) - 1) / mpf("0.1"))
        return mpf("0.1") * max(1 - mpmath.exp(inner / 2 - mpf(1) / 2), 0)
    raise KeyError(spec)


@pytest.mark.parametrize("spec", ["laplace(scale=1/2)", "randomized_response(p=0.25)",
                                  "approx_dp(eps=1, delta=0.01)", "subsample(laplace(scale=1), rate=0.1)"])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(3, 4), Fraction(1)])
def test_against_mpmath_closed_forms(spec, eps):
    with mpmath.workdps(60):
        truth = _mp_closed_form(spec, mpf(eps))
    with working_precision(128):
        y = mechs.parse(spec).delta_ball(to_ball(eps))
    with working_precision(256):
        ref = arb(mpmath.nstr(truth, 55))  # truth to 50+ digits: its radius is ~1e-55
        assert y.lower() <= ref + arb(10) ** -45 and ref - arb(10) ** -45 <= y.upper()
        assert y.rad() < arb(10) ** -30


@pytest.mark.parametrize("mu,eps", [("9/4", "0"), ("3", "256"), ("1/3", "2")])
def test_compose_gaussian_is_delta_mu(mu, eps):
    # 4-fold composition of mu-GDP is exactly 2 mu-GDP (Dong, Roth & Su 2022): delta_{2 mu} by mpmath
    m = mechs.parse(f"compose(gaussian_dp(mu={mu}), k=4)")
    with working_precision(256):
        y = m.delta_ball(to_ball(Fraction(eps)))
    ref = delta_mu_ref(2 * Fraction(mu), Fraction(eps))
    with working_precision(256):
        r = arb(mpmath.nstr(ref, 65))
        assert abs(y - r) <= abs(r) * arb(10) ** -50


@pytest.mark.parametrize("spec,message", [
    ("tradeoff(sigma=1)", "not accepted here"),
    ("sgd(sigma=1)", "not accepted here"),
    ("icea(sigma=1)", "not accepted here"),
    ("foo(x=1)", "unknown mechanism"),
    ("laplace(scale=0)", "must be > 0"),
    ("laplace(scale=1, bogus=2)", "unknown parameter"),
    ("laplace()", "missing parameter"),
    ('laplace(scale="1")', "must be a number"),
    ("compose(laplace(scale=1), k=1/2)", "must be an integer"),
    ("compose(laplace(scale=1), k=0)", "k must be"),
    ("subsample(laplace(scale=1), rate=2)", "rate must"),
    ("laplace(1, 2, 3)", "at most"),
    ('profile("")', "empty expression"),
    ('profile("__import__(1)")', "__import__"),
])
def test_refusals(spec, message):
    with pytest.raises(InputError, match=message):
        mechs.parse(spec, exclude=("tradeoff", "sgd", "icea"))


def test_accountant_compositions_have_no_closed_form():
    m = mechs.parse("compose(laplace(scale=1), k=3)")
    assert not m.has_closed_form
    with pytest.raises(InputError):
        m.delta_ball(to_ball(1))
