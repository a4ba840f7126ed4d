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


# -- issue 34 #3: "optimal" and "none exists" only where monotonicity is proved ----

import json  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

from refs import rr_delta_ref  # noqa: E402

RR = ["calibrate", "randomized_response(p=x)", "--param", "x", "--eps", "0.5", "--delta", "1e-9",
      "--resolution", "0.01", "--start", "0.9"]


def _run(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_rr_searched_the_wrong_way_finds_nothing_and_says_what_it_assumes(capsys):
    """Towards larger p from 0.9 no value meets the target, yet every p in [0.38, 0.62]
    does (p = 1/2: δ ≡ 0): never "no valid grid value", the assumption is stated."""
    for p in ("0.38", "0.5", "0.62"):
        assert rr_delta_ref(p, "0.5") <= mpmath.mpf("1e-9")  # the truth the old answer denied
    rc, out, err = _run(RR + ["--more-private", "larger"], capsys)
    assert rc == 1 and "no valid grid value" not in out + err and "proved" not in out.splitlines()[0]
    assert "no value found on the scanned grid" in out
    assert "assumes δ(ε) is monotone in x" in out and "not proved" in out
    assert "a smaller x is proved more private on [1/2, ∞)" in out
    rc, out, _ = _run(RR + ["--more-private", "larger", "--json"], capsys)
    data = json.loads(out)
    assert rc == 1 and data["found"] is False and data["none_exists"] is False and data["optimal"] is False
    assert data["monotone"]["proved"] is False and data["assumptions"]
    assert "not proved" in data["assumptions"][0]
    assert data["missed"]["value"] == "99/100" and data["missed"]["meets_target"] is False


def test_rr_towards_one_half_is_proved_optimal_against_the_definition(capsys):
    """From 0.9 the catalog's rule (smaller p more private on [1/2, ∞)) gives the direction
    and proves the largest meeting value; checked against the hockey-stick definition."""
    c = calibrate("randomized_response(p=x)", "x", eps="0.5", delta="1e-9", resolution="0.01", start="0.9")
    assert c.direction == "smaller" and c.optimal and c.monotone and c.assumptions == ()
    assert c.value == Fraction(62, 100) and c.neighbour.value == Fraction(63, 100)
    assert rr_delta_ref(c.value, "0.5") <= mpmath.mpf("1e-9") < rr_delta_ref(c.neighbour.value, "0.5")
    rc, out, _ = _run(RR, capsys)
    assert rc == 0 and "the largest value" in out and "optimal at this resolution" in out
    assert "assumption" not in out and "monotone (proved): randomized_response p" in out


def test_gaussian_sigma_is_proved_optimal_without_assumption(capsys):
    argv = ["calibrate", "gaussian(sigma=x)", "--param", "x", "--eps", "1", "--delta", "1e-5", "--resolution", "1/100"]
    rc, out, _ = _run(argv, capsys)
    assert rc == 0 and "the smallest value" in out and "assumption" not in out
    assert "monotone (proved): gaussian sigma: a larger value is more private" in out
    rc, out, _ = _run(argv + ["--json"], capsys)
    data = json.loads(out)
    assert data["optimal"] is True and data["assumptions"] == [] and data["monotone"]["proved"] is True
    assert data["monotone"]["proved_on"] == "(-∞, ∞)"


def test_a_parameter_without_a_rule_carries_the_assumption(capsys):
    """discrete_gaussian's σ has no proved rule (its name used to imply 'larger', and the
    answer was called optimal): both facts are certified, optimality is not claimed."""
    argv = ["calibrate", "discrete_gaussian(sigma=x)", "--param", "x", "--eps", "1", "--delta", "1e-5",
            "--resolution", "0.1", "--start", "4"]
    rc, _, err = _run(argv, capsys)
    assert rc == 2 and "no rule proves which way x is more private" in err
    rc, out, _ = _run(argv + ["--more-private", "larger"], capsys)
    assert rc == 1 and "smallest" not in out and "optimal at this resolution" not in out
    assert "optimality NOT proved" in out and "> 1e-5" in out and "<= 1e-5" in out
    assert "assumption: assumes δ(ε) is monotone in x on (-∞, 37/10]" in out
    rc, out, _ = _run(argv + ["--more-private", "larger", "--json"], capsys)
    data = json.loads(out)
    assert data["optimal"] is False and data["neighbour"]["meets_target"] is False
    assert data["monotone"]["proved"] is False and "discrete_gaussian sigma" in data["assumptions"][0]


@pytest.mark.parametrize("spec", ['tradeoff(sigma_formula="sqrt(2*log(5/(4*delta)))/eps", sigma=x)',
                                  "clip_reify(gaussian(sigma=x), eps_h=5, lo=0, hi=1)",
                                  "gaussian(sigma=x, sensitivity=x)"])
def test_formula_and_unproved_nesting_carry_the_assumption(spec):
    """A user formula's σ, a rule inside a transform not known to keep the privacy order,
    and uses with opposite rules: no direction is implied and the answer assumes it."""
    with pytest.raises(InputError, match="no rule proves"):
        calibrate(spec, "x", eps=1, delta="1e-5", resolution="1/10", start=4)
    c = calibrate(spec, "x", eps=1, delta="1e-5", resolution="1/10", start=4, more_private="larger")
    assert not c.optimal and not c.monotone and c.assumptions[0].startswith("assumes δ(ε) is monotone in x")
    assert c.to_json()["assumptions"] == list(c.assumptions)


def test_nesting_in_order_keeping_transforms_is_proved():
    c = calibrate("dpsgd(noise=2, rate=x, steps=10)", "x", eps=1, delta="1e-5", resolution="1/100", start="1/10")
    assert c.direction == "smaller" and c.monotone and c.optimal and c.assumptions == ()
    c = calibrate("compose_all(gaussian(sigma=x), laplace(scale=x))", "x", eps=1, delta="1e-5",
                  resolution="1/10", start=5)
    assert c.direction == "larger" and c.monotone


def test_a_direction_against_a_proof_is_refused(capsys):
    rc, _, err = _run(["calibrate", "gaussian(sigma=x)", "--param", "x", "--eps", "1", "--delta", "1e-5",
                       "--more-private", "smaller"], capsys)
    assert rc == 2 and "contradicts what is proved" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="contradicts"):
        calibrate("compose(laplace(scale=1), k=x)", "x", eps=1, delta="1e-5", resolution=1, more_private="larger")


def test_an_integer_parameter_needs_a_whole_resolution():
    """k = 5/2 is not a valid count, so a half-step grid is not an interval: refused
    (a fractional gap used to end the walk as 'no valid grid value')."""
    with pytest.raises(InputError, match="integer parameter"):
        calibrate("compose(laplace(scale=1), k=x)", "x", eps=1, delta="1e-5", resolution="1/2", start=3)


def test_proved_absence_is_said_as_such(capsys):
    """approx_dp(eps=1, delta=x) has δ(ε) >= x: no positive grid value reaches 1e-9, and
    the rule (smaller delta more private) proves it."""
    c = calibrate("approx_dp(eps=1, delta=x)", "x", eps=1, delta="1e-9", resolution="1/100", start="1/2")
    assert not c.found and c.none_exists and c.assumptions == () and c.missed.value == Fraction(1, 100)
    rc, out, _ = _run(["calibrate", "approx_dp(eps=1, delta=x)", "--param", "x", "--eps", "1", "--delta", "1e-9",
                       "--resolution", "1/100", "--start", "1/2"], capsys)
    assert rc == 1 and "no positive grid value of x" in out and ": proved" in out


@settings(max_examples=40, deadline=None, derandomize=True)
@given(eps=st.fractions(0, 3, max_denominator=20), tdelta=st.sampled_from(["1e-9", "1/100", "1/10", "3/10"]),
       start=st.integers(1, 99), direction=st.sampled_from([None, "larger", "smaller"]))
def test_rr_answers_against_the_definition(eps, tdelta, start, direction):
    """Whatever the start and the stated direction: a reported value truly meets the target,
    "optimal" is truly optimal and "none exists" truly holds (hockey-stick definition)."""
    target = mpmath.mpf(Fraction(tdelta).numerator) / Fraction(tdelta).denominator
    try:
        c = calibrate("randomized_response(p=x)", "x", eps=eps, delta=tdelta, resolution="1/100",
                      start=Fraction(start, 100), more_private=direction)
    except InputError as err:
        assert "no rule proves" in str(err) and start == 50 and direction is None
        return
    grid = [Fraction(k, 100) for k in range(1, 100)]
    meets = {p: rr_delta_ref(p, eps) <= target for p in grid}
    if c.found:
        assert meets[c.value]
    if c.optimal:
        side = [p for p in grid if (p < c.value if c.direction == "larger" else p > c.value)]
        assert not any(meets[p] for p in side)
    if c.none_exists:
        assert not any(meets.values())
    assert c.monotone == (c.assumptions == ())


def test_coarse_looks_change_no_answer(monkeypatch):
    """The coarse PLD looks (SCREEN_COARSEN) and the float guide only save work: the same
    optimum, the same reported enclosure of it as with the default answer at every grid
    value; the neighbour is decided the same way (its enclosure, from the coarsest look
    that decides it, meets the default one: both are certified); and they do decide most
    of the walk (fewer default answers)."""
    import certdp.analyses.calibrate as cal

    calls = []
    real = cal.delta_of
    monkeypatch.setattr(cal, "delta_of", lambda *a, **k: calls.append(1) or real(*a, **k))
    spec = "compose(subsample(gaussian(sigma=x), rate=1/100), k=100)"
    fast = cal.calibrate(spec, "x", eps=1, delta="1e-5", resolution="1/100")
    n_fast = len(calls)
    monkeypatch.setattr(cal, "SCREEN_COARSEN", ())
    calls.clear()
    slow = cal.calibrate(spec, "x", eps=1, delta="1e-5", resolution="1/100")
    assert fast.value == slow.value and fast.optimal and slow.optimal
    assert fast.best.to_json() == slow.best.to_json()
    assert fast.neighbour.value == slow.neighbour.value and fast.neighbour.meets is slow.neighbour.meets is False
    a, b = fast.neighbour.answer.enclosure, slow.neighbour.answer.enclosure
    assert a.lo_exact <= b.hi_exact and b.lo_exact <= a.hi_exact
    assert n_fast < len(calls) / 2


def test_the_guided_search_evaluates_few_values_and_stays_optimal(monkeypatch):
    """The float guide (log δ interpolated between evaluated values) takes the search to
    the optimum in few grid values; the answer is the one the exact definition gives:
    the Gaussian's σ for (ε, δ), optimal on 1/1000·Z (Balle & Wang 2018's closed form,
    evaluated by mpmath)."""
    import certdp.analyses.calibrate as cal

    seen = []
    real = cal.screen_delta
    monkeypatch.setattr(cal, "screen_delta", lambda m, *a: seen.append(m.spec()) or real(m, *a))
    c = cal.calibrate("compose(subsample(gaussian(sigma=x), rate=1/100), k=1000)", "x", eps=1, delta="1e-5")
    assert c.value == Fraction(283, 200) and c.optimal and c.neighbour.value == Fraction(1414, 1000)
    assert len(set(seen)) <= 7  # 13 grid values with doubling and plain bisection
    g = cal.calibrate("gaussian(sigma=x)", "x", eps=1, delta="1e-5", resolution="1/1000")
    assert g.optimal and g.value == Fraction(3731, 1000)

    def gauss_delta(v):
        s = mpmath.mpf(v.numerator) / v.denominator  # δ at ε = 1, sensitivity 1
        return mpmath.ncdf(1 / (2 * s) - s) - mpmath.e * mpmath.ncdf(-1 / (2 * s) - s)

    with mpmath.workdps(30):
        assert gauss_delta(g.value) <= mpmath.mpf("1e-5") < gauss_delta(g.value - Fraction(1, 1000))


def test_the_default_answer_reuses_the_looks_it_passes_through():
    """delta_of(..., known=) takes the looks screen_delta recorded on the grids h/2^j instead of
    recomputing them: the same enclosure and method as without them."""
    from certdp.analyses.dispatch import delta_of, screen_delta
    from certdp.mechanisms.spec import parse_spec

    mech = parse_spec("dpsgd(noise=0.969, rate=256/60000, steps=500)")  # narrowed to h/2
    known: dict = {}
    for c in (0, -1):
        screen_delta(mech, Fraction(1), c, known)
    assert set(known) == {0, 1}
    plain, reused = delta_of(mech, Fraction(1)), delta_of(mech, Fraction(1), known=known)
    assert plain.to_json() == reused.to_json()
    assert reused.enclosure.to_json() == known[1].to_json()  # the look on h/2 is the answer
