"""compose_all(M1, ..., Mn): heterogeneous compositions named in the spec language, so
that profile, measure, tradeoff, audit and certificates reach them (issue 16), through
the router's one accountant route (dispatch.composition_items)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import composition_items, delta_of, eps_of, tradeoff_of
from certdp.verifier.checker import check
from certdp.cli import main
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from refs import subsampled_gaussian_delta, with_laplace_delta

MIX = "compose_all(compose(subsample(gaussian(sigma=1), rate=1/10), k=10), laplace(scale=1))"


def test_round_trip_and_items():
    m = parse_spec(MIX)
    assert parse_spec(m.spec()) == m and m.spec().startswith("compose_all(compose(subsample(")
    items = composition_items(m)
    assert [k for _, k in items] == [10, 1]
    nested = parse_spec("subsample(compose_all(laplace(scale=1), laplace(scale=2)), rate=1/2)")
    assert parse_spec(nested.spec()) == nested


@pytest.mark.parametrize("text, message", [
    ("compose_all(laplace(scale=1))", "two or more"),
    ("compose_all(laplace(scale=1), 3)", "must be a mechanism"),
    ("compose_all(laplace(scale=1), mechanisms=2)", "positional"),
    ('compose_all(laplace(scale=1), "x")', "mechanism"),
    ("compose_all()", "two or more"),
])
def test_bad_compositions_are_refused(text, message):
    with pytest.raises(InputError, match=message):
        parse_spec(text)


def test_gaussian_parts_compose_in_closed_form():
    # mu^2 = 1/1 + 1/4 (+ 1/4 from gaussian_dp(1/2)): the exact Gaussian profile
    m = parse_spec("compose_all(gaussian(sigma=1), gaussian(sigma=2), gaussian_dp(mu=1/2))")
    assert m.has_closed_form and m.gdp_mu_squared() == Fraction(3, 2)
    with mpmath.workdps(40):
        mu, e = mpmath.sqrt(mpmath.mpf(3) / 2), mpmath.mpf(1)
        truth = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
    enc = delta_of(m, 1).enclosure
    assert enc.lo <= truth <= enc.hi and enc.hi - enc.lo < mpmath.mpf(10) ** -12


def _pure_dp_mix_delta(eps_list, e):
    """δ(e) of the composition of pure-DP worst pairs (losses ±ε_i), by enumerating
    all 2^n loss patterns (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for signs in itertools.product((1, -1), repeat=len(eps_list)):
            p = q = mpmath.mpf(1)
            for s, ei in zip(signs, eps_list):
                ei = mpmath.mpf(ei.numerator) / ei.denominator
                hi, lo = mpmath.exp(ei) / (1 + mpmath.exp(ei)), 1 / (1 + mpmath.exp(ei))
                p *= hi if s > 0 else lo
                q *= lo if s > 0 else hi
            total += max(p - mpmath.exp(e) * q, 0)
        return total


def test_pure_dp_mix_contains_the_enumerated_truth():
    m = parse_spec("compose_all(pure_dp(eps=1/2), compose(pure_dp(eps=1/3), k=3), pure_dp(eps=1/5))")
    truth = _pure_dp_mix_delta([Fraction(1, 2)] + [Fraction(1, 3)] * 3 + [Fraction(1, 5)], mpmath.mpf(1) / 2)
    enc = delta_of(m, Fraction(1, 2)).enclosure
    lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (enc.lo_exact, enc.hi_exact))
    assert lo <= truth <= hi and hi - lo <= truth * mpmath.mpf(10) ** -6


#: a mixed composition whose profile has an independent closed form plus one quadrature
#: (tests/refs.py: subsampled Gaussian pair conditioned on the Laplace loss)
MIX1 = "compose_all(subsample(gaussian(sigma=1), rate=1/10), laplace(scale=1))"


def _mix1_delta(eps) -> mpmath.mpf:
    """δ(ε) of MIX1: the worse of the remove and add relations (Laplace is symmetric)."""
    return max(with_laplace_delta(lambda s: subsampled_gaussian_delta(s, "1/10", 1, rel), eps)
               for rel in ("remove", "add"))


def test_profile_measure_and_tradeoff_reach_a_mixed_composition():
    m = parse_spec(MIX1)
    d = delta_of(m, 1).enclosure
    e = eps_of(m, Fraction(1, 10**5)).enclosure
    with mpmath.workdps(30):
        truth_d = _mix1_delta(1)  # 0.0205096527773717...
        # ε(1e-5): the add relation's loss is at most −log(9/10) + 1 < 2, so above 2 only remove counts
        truth_e = mpmath.findroot(lambda x: _mix1_delta(x) - mpmath.mpf(10) ** -5, 2.5)  # 2.5511075816890...
        assert _mix1_delta(2) > mpmath.mpf(10) ** -5
        lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (d.lo_exact, d.hi_exact))
        assert lo <= truth_d <= hi and hi - lo <= truth_d * mpmath.mpf(10) ** -4
        lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (e.lo_exact, e.hi_exact))
        assert lo <= truth_e <= hi and hi - lo <= mpmath.mpf(10) ** -4
    # MIX adds nine more subsampled Gaussian steps: composing more can only raise δ
    # (the marginal of a product is a post-processing), so MIX's δ(1) is at least MIX1's
    assert parse_spec(MIX) and delta_of(parse_spec(MIX), 1).enclosure.hi_exact >= Fraction(mpmath.nstr(truth_d, 20))
    f = tradeoff_of(m, Fraction(1, 10)).enclosure
    # an (ε, δ)-DP mechanism has f(α) >= 1 − δ(ε) − e^ε α for every ε (Dong, Roth & Su 2022,
    # Prop. 2.4, the f-DP form of (ε, δ)-DP): the trade-off route must respect the profile route
    import math  # noqa: PLC0415

    for x in (Fraction(1, 2), Fraction(1)):
        dx = delta_of(m, x).enclosure.hi_exact
        assert f.hi_exact >= 1 - dx - Fraction(math.exp(x)) / 10 * Fraction(1000001, 1000000)
    assert 0 < f.lo_exact <= f.hi_exact <= Fraction(9, 10)


def test_certificate_of_a_mixed_composition_is_valid_and_a_lowered_claim_is_not(tmp_path, capsys):
    path = tmp_path / "mix.json"
    assert main(["profile", MIX, "--eps", "1", "--certificate", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert doc["mechanism"].startswith("compose_all(") and "pld_items" in doc["evidence"]
    assert check(doc).valid
    # a claim below the certified lower end 0.0816257 is false: never VALID
    doc["claim"]["delta"] = "0.0816"
    assert not check(doc).valid


def test_equal_parts_are_one_item():
    # 2000 equal arguments took minutes as 2000 items; they are one item of count 2000
    m = parse_spec("compose_all(" + ", ".join(["laplace(scale=1)"] * 3) + ", compose(laplace(scale=1), k=4), pure_dp(eps=1))")
    assert [(x.spec(), k) for x, k in composition_items(m)] == [
        ("laplace(scale=1, sensitivity=1)", 7), ("pure_dp(eps=1)", 1)]
    same = delta_of(parse_spec("compose_all(laplace(scale=1), laplace(scale=1))"), 1).enclosure
    assert same == delta_of(parse_spec("compose(laplace(scale=1), k=2)"), 1).enclosure
