"""Widths you can ask for (issue 16): ε enclosures narrowed on request, still containing the truth."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from certdp.analyses.dispatch import narrowed_epsilon
from certdp.cli import main
from certdp.errors import InputError
from certdp.mechanisms import parse_spec
from refs import mpf


def rr_eps_truth(p, k, delta):
    """ε(δ) of k-fold randomized response by bisection on the exact binomial δ(ε) (mpmath, 60 digits)."""
    with mpmath.workdps(60):
        p = mpf(p)
        ell = mpmath.log(p / (1 - p))

        def d(e):
            return mpmath.fsum(mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i
                               * max(0, 1 - mpmath.exp(e - (k - 2 * i) * ell)) for i in range(k + 1))
        return mpmath.findroot(lambda e: d(e) - mpf(delta), (mpf(0), (k) * ell), solver="bisect", tol=mpf(10) ** -50)


def test_phi_route_narrows_to_the_requested_width():
    mech = parse_spec("randomized_response(p=3/4)")
    enc, method = narrowed_epsilon([(mech, 12)], Fraction(1, 1000), Fraction(1, 10**13))
    truth = rr_eps_truth(Fraction(3, 4), 12, Fraction(1, 1000))
    assert "phi" in method
    assert mpf(enc.lo_exact) <= truth <= mpf(enc.hi_exact)
    assert enc.hi_exact - enc.lo_exact <= Fraction(1, 10**13)


def test_pld_route_narrows_by_refining_the_grid():
    mech = parse_spec("subsample(laplace(scale=1), rate=1/10)")
    wide, _ = narrowed_epsilon([(mech, 10)], Fraction(1, 10**5))
    narrow, method = narrowed_epsilon([(mech, 10)], Fraction(1, 10**5), Fraction(1, 10**4))
    assert narrow.hi_exact - narrow.lo_exact <= Fraction(1, 10**4) < wide.hi_exact - wide.lo_exact
    assert narrow.lo_exact <= wide.hi_exact and wide.lo_exact <= narrow.hi_exact
    assert "PLD" in method


def test_cli_width_and_bad_widths(capsys):
    assert main(["account", "--mechanism", "randomized_response(p=3/4)", "--times", "12", "--delta", "1/1000",
                 "--width", "1e-12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["eps"]["hi"]) - Fraction(out["eps"]["lo"]) <= Fraction(1, 10**12)
    for bad in ("0", "-1", "x"):
        assert main(["account", "--mechanism", "laplace(scale=1)", "--times", "3", "--delta", "1e-5",
                     "--width", bad]) == 2
    assert main(["account", "--mechanism", "laplace(scale=1)", "--eps", "1", "--width", "1e-3"]) == 2
    with pytest.raises(InputError):
        narrowed_epsilon([(parse_spec("laplace(scale=1)"), 2)], Fraction(1, 10), -1)


def test_dpsgd_width_request_is_met_and_contains_the_default_answer():
    # a requested width below the default target: the grid is refined until it is met;
    # the narrower enclosure must intersect the default one (both contain the truth)
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    default = dpsgd("9.4", "0.01", 100, delta="1e-5").eps
    narrow = dpsgd("9.4", "0.01", 100, delta="1e-5", width="1e-5")
    enc = narrow.eps
    assert enc.hi_exact - enc.lo_exact <= Fraction(1, 10**5) < default.hi_exact - default.lo_exact
    assert enc.lo_exact <= default.hi_exact and default.lo_exact <= enc.hi_exact
    assert narrow.settings["width_target"] == "1/100000"


@pytest.mark.parametrize("argv, message", [
    (["--width", "0"], "width must be > 0"),
    (["--width", "abc"], "width"),
    (["--width", "1e-3", "--grid", "1/1024"], "automatic grid"),
    (["--width", "1e-3", "--upper-only", "--grid", "1/1024"], "automatic grid"),
])
def test_dpsgd_cli_rejects_bad_width_requests(capsys, argv, message):
    code = main(["dpsgd", "--noise", "1", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5", *argv])
    assert code == 2 and message in capsys.readouterr().err


def test_dpsgd_cli_says_when_a_width_target_is_missed(capsys):
    code = main(["dpsgd", "--noise", "9.4", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5",
                 "--width", "1e-12"])
    out = capsys.readouterr().out
    assert code == 0 and "width target 1e-12 missed" in out


def test_dpsgd_wide_request_starts_on_a_coarser_grid():
    # sigma 2, q 0.001, T 10^4: the default (<= 1 % of eps) needs h = 1/8192; a request of
    # 0.05 (dp_accounting's own discretisation error here, |eps(1e-3) - eps(1e-4)|) is met
    # on a coarser grid, and both enclosures contain the truth (they intersect)
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    default = dpsgd("2", "0.001", 10_000, delta="1e-5")
    wide = dpsgd("2", "0.001", 10_000, delta="1e-5", width="0.05")
    assert Fraction(wide.settings["h"]) > Fraction(default.settings["h"])
    assert wide.eps.hi_exact - wide.eps.lo_exact <= Fraction(5, 100)
    assert wide.eps.lo_exact <= default.eps.hi_exact and default.eps.lo_exact <= wide.eps.hi_exact


@pytest.mark.parametrize("sigma, q, steps", [("1/2", "32768/100000", 100), ("1/10", "1/2", 10**5),
                                             ("1/1000", "1/100", 10), ("100", "1/1000000", 1), ("2", "1/1000", 10**9)])
def test_width_guide_never_raises(sigma, q, steps):
    # the float guide (CLT eps) overflowed for a large mu (e^eps beyond 709): it must
    # give a number or nan, never an exception
    from certdp.analyses.accountants.dpsgd import _clt_eps_f  # noqa: PLC0415

    v = _clt_eps_f(Fraction(sigma), Fraction(q), steps, 1e-5)
    assert v != v or v >= 0


def test_dpsgd_width_request_with_a_large_eps():
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    r = dpsgd("0.5", "0.32768", 100, delta="1e-5", width="0.001")
    assert r.eps.hi_exact - r.eps.lo_exact <= Fraction(1, 1000) and r.eps.lo_exact > 90


@pytest.mark.parametrize("width", ["1e400", "1e-400"])
def test_dpsgd_extreme_width_requests_answer(capsys, width):
    # 1e400 is met at once; 1e-400 is refined to the cap and said to be missed (both
    # overflowed a float guide before: exit 2 with an OverflowError)
    code = main(["dpsgd", "--noise", "9.4", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5",
                 "--width", width])
    out = capsys.readouterr().out
    assert code == 0 and "ε ∈ [0.00" in out
    assert ("missed" in out) == (width == "1e-400")


@pytest.mark.parametrize("sigma, q, steps, width", [("2", "0.001", 10_000, "0.005"), ("9.4", "0.01", 10_000, "0.01")])
def test_dpsgd_upper_only_width_picks_a_coarser_grid_near_the_truth(sigma, q, steps, width):
    # the upper bound alone asked to be within W of the truth: a grid coarser than the
    # default's, an upper end above the certified two-sided enclosure's lower end (it is
    # an upper bound) and, as the width model predicts, within W of that enclosure's top
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    ref = dpsgd(sigma, q, steps, delta="1e-5")
    up = dpsgd(sigma, q, steps, delta="1e-5", two_sided=False, width=width)
    assert Fraction(up.settings["h"]) > Fraction(ref.settings["h"])
    assert up.eps.lo_exact == 0 and up.eps.hi_exact >= ref.eps.lo_exact
    assert up.eps.hi_exact - ref.eps.hi_exact <= Fraction(width)
    assert up.settings["upper_accuracy_guide"] == str(Fraction(width))


def test_dpsgd_upper_only_width_needs_an_eps_answer(capsys):
    code = main(["dpsgd", "--noise", "1", "--sample-rate", "0.01", "--steps", "10", "--eps", "1",
                 "--upper-only", "--width", "1e-3"])
    assert code == 2 and "eps answers" in capsys.readouterr().err
    assert main(["dpsgd", "--noise", "2", "--sample-rate", "0.001", "--steps", "10000", "--delta", "1e-5",
                 "--upper-only", "--width", "0.005"]) == 0
    assert "upper end only" in capsys.readouterr().out


@pytest.mark.parametrize("width, says", [("1e-400", "on the finest grid allowed"), ("1e400", "predicted to put it within"),
                                         ("1/100", "predicted to put it within")])
def test_dpsgd_upper_only_width_says_whether_the_prediction_meets_it(capsys, width, says):
    # an unreachable request ends on the finest grid and says so (with the predicted
    # distance); 1e400 is an exact number, compared exactly (it overflowed a float)
    code = main(["dpsgd", "--noise", "9.4", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5",
                 "--upper-only", "--width", width])
    out = capsys.readouterr().out
    assert code == 0 and says in out


@given(st.floats(min_value=1e-12, max_value=1e3, allow_nan=False))
def test_grid_at_most_is_the_largest_four_bit_step_below(x):
    from certdp.analyses.accountants.dpsgd import grid_at_most  # noqa: PLC0415

    g = grid_at_most(x)
    m, e = g, 0
    while m.denominator != 1 or m >= 16:  # g = m·2^e with 8 <= m <= 15
        m, e = (m * 2, e - 1) if m.denominator != 1 else (m / 2, e + 1)
    while m < 8:
        m, e = m * 2, e - 1
    assert 8 <= m <= 15 and m.denominator == 1
    # at most x, and the next larger such step is above x
    assert g <= Fraction(x) < g * (m + 1) / m


@pytest.mark.parametrize("width", ["1/1000", "1/10", "1"])
def test_refined_grid_is_finer_and_within_the_budget(width):
    from certdp.analyses.accountants.dpsgd import _refined_grid  # noqa: PLC0415
    from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

    h, finest = Fraction(1, 1024), Fraction(1, 16384)
    enc = Enclosure.hull(Enclosure.exact(2), Enclosure.exact(2 + Fraction(width)))
    g = _refined_grid(h, enc, Fraction(1, 1000), finest)
    assert finest <= g <= h * Fraction(7, 8)
    # the width model (~h^2.2, aiming at 0.8 of the target): a width at the target
    # needs only the next step down (7/8 h); 1000x the target is refined to the budget's end
    if width == "1/1000":
        assert g == h * Fraction(7, 8)
    if width == "1":
        assert g == finest
    # no lower end: one halving
    assert _refined_grid(h, Enclosure.hull(Enclosure.exact(0), Enclosure.exact(3)), Fraction(1, 1000), finest) == h / 2
    # the default width (no request) refines by whole halvings: k with 2^(2.2 k) >= width/target
    k = {"1/1000": 1, "1/10": 4, "1": 5}[width]  # the least k with 2^(2.2k) >= 1, 100, 1000
    assert _refined_grid(h, enc, Fraction(1, 1000), finest, fine_steps=False) == max(finest, h / 2**k)


def test_a_width_between_two_halvings_gets_a_grid_between_them():
    # the width 0.0068 at sigma 2, q 0.01, T 1e4 lies between the default grid's width
    # (0.0099 at h = 1/1024, measured) and a halving's (0.004 at 1/2048): a grid strictly
    # in between meets it, and its enclosure is consistent with the finer grid's (both
    # contain the truth, so they must intersect)
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    r = dpsgd("2", "0.01", 10_000, delta="1e-5", width="0.0068")
    h = Fraction(r.settings["h"])
    assert Fraction(1, 2048) < h < Fraction(1, 1024)
    assert r.eps.hi_exact - r.eps.lo_exact <= Fraction(68, 10000)
    half = dpsgd("2", "0.01", 10_000, delta="1e-5", h="1/2048")
    assert r.eps.lo_exact <= half.eps.hi_exact and half.eps.lo_exact <= r.eps.hi_exact


def test_clt_guide_beyond_the_float_range_solves_the_gdp_profile():
    # mu = 0.32768·sqrt(1e4·(e^{1/1.21} − 1)) ≈ 34.8: e^eps overflows floats at the root
    # (the float guide answered nan); the guide must solve delta_mu(eps) = 1e-5, checked
    # in mpmath at 50 digits
    from certdp.analyses.accountants.dpsgd import _clt_eps_f  # noqa: PLC0415

    v = _clt_eps_f(Fraction(11, 10), Fraction(32768, 100000), 10_000, 1e-5)
    assert v == v and v > 700
    with mpmath.workdps(50):
        mu = mpf("0.32768") * mpmath.sqrt(10_000 * mpmath.expm1(1 / mpf("1.21")))
        e = mpf(v)
        d = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
        assert abs(d / mpf("1e-5") - 1) < 1e-6


def test_a_request_s_first_grid_is_at_most_four_times_finer_than_the_automatic_one():
    # σ 0.5, q 0.001, T 100: the CLT guide (ε 0.24 against the true 2.11) asked for h/8;
    # h/4 already meets W = 1.8e-5 (width 4.8e-6), and a finer need is refined from a measurement
    from certdp.analyses.accountants.dpsgd import FIRST_GRID_MAX_SHRINK, _grid_for_width  # noqa: PLC0415

    h = Fraction(1, 1024)
    assert _grid_for_width(h, Fraction(1, 2), Fraction(1, 1000), 100, 1e-5, 1.8e-5) == h / FIRST_GRID_MAX_SHRINK
    # a modest request is unaffected (σ 9.4, q 0.32768: a step between h/2 and h)
    g = _grid_for_width(h, Fraction(47, 5), Fraction(32768, 100000), 100, 1e-5, 9.7e-5)
    assert h / 2 <= g < h
