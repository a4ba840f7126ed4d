"""Compositions without closed-form profiles are answered by accountants,
through the API and every CLI entry point (profile, account, measure, audit)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main
from certdp.mechanisms import parse_spec
from certdp.analyses.dispatch import accountant_for, delta_of, eps_of, gdp_of, is_subsampled_gaussian
from refs import delta_mu_ref, mpf


def test_dpsgd_alias_names_the_composition():
    a = parse_spec("dpsgd(noise=9.4, rate=16384/50000, steps=2000)")
    b = parse_spec("compose(subsample(gaussian(sigma=9.4), rate=0.32768), k=2000)")
    assert a == b and a.spec() == b.spec() and is_subsampled_gaussian(a.mechanism) and not a.has_closed_form


def test_rate_one_dpsgd_is_the_gaussian_composition():
    """dpsgd(noise=2, rate=1, steps=4) is the 4-fold Gaussian with σ = 2, i.e.
    exactly 1-GDP: δ(1) = δ_1(1) (closed form, computed with mpmath)."""
    m = parse_spec("dpsgd(noise=2, rate=1, steps=4)")
    ans = delta_of(m, 1)
    assert "closed-form" in ans.method  # the exact Gaussian route, not an accountant
    truth = delta_mu_ref(1, 1)
    lo, hi = mpf(Fraction(ans.enclosure.lo_str(40))), mpf(Fraction(ans.enclosure.hi_str(40)))
    assert lo <= truth <= hi and hi - lo < mpf("1e-15") * truth


def test_exact_route_for_pure_dp_composition_matches_kairouz_binomial():
    """compose(pure_dp(eps=0.2), k=50) at ε = 0.2·(50 - 2·10) = 6 (the PLD engine on
    the lattice 0.2·Z/m, exact up to fixed-point rounding): exact binomial
    sum δ = Σ_{i} C(50,i) p^(50-i) (1-p)^i (1 - e^{6 - 0.2(50-2i)})⁺, p = e^0.2/(1+e^0.2)."""
    m = parse_spec("compose(pure_dp(eps=0.2), k=50)")
    ans = delta_of(m, 6)
    with mpmath.workdps(60):
        e = mpmath.mpf("0.2")
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        truth = mpmath.fsum(
            mpmath.binomial(50, i) * p ** (50 - i) * (1 - p) ** i * max(0, 1 - mpmath.exp(6 - e * (50 - 2 * i)))
            for i in range(51)
        )
    assert "PLD" in ans.method
    lo, hi = mpf(Fraction(ans.enclosure.lo_str(40))), mpf(Fraction(ans.enclosure.hi_str(40)))
    assert lo <= truth <= hi and hi - lo < mpf("1e-12") * truth
    back = eps_of(m, "1e-4")
    assert back.enclosure.certainly_greater_than("5.5") and back.enclosure.certainly_less_than("5.6")
    assert back.enclosure.width < 1e-12


def test_gdp_of_dpsgd_reports_residual_and_strict_tail():
    """Seed 000 Thm 4.4 / §5.3: the strict GDP parameter of T-fold subsampled
    Gaussian is at least √T/σ = √100/2 = 5, far above the head μ*."""
    g = gdp_of(parse_spec("dpsgd(noise=2, rate=0.01, steps=100)"))
    assert g.strict_mu_at_least.contains(5)
    assert g.residual is not None and g.residual.certainly_less_than("1e-9")
    assert g.mu.certainly_less_than(1)


def test_closed_form_mechanisms_are_not_routed():
    assert accountant_for(parse_spec("compose(gaussian(sigma=2), k=4)")) is None
    assert accountant_for(parse_spec("laplace(scale=1)")) is None


def test_cli_account_and_measure_route_dpsgd(capsys):
    assert main(["account", "--mechanism", "dpsgd(noise=2, rate=1, steps=4)", "--eps", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["delta"]
    assert mpf(Fraction(d["lo"])) <= delta_mu_ref(1, 1) <= mpf(Fraction(d["hi"]))
    # the accountant's μ report is far wider than the default 1e-6 target: said first, exit 1
    assert main(["measure", "dpsgd(noise=2, rate=0.01, steps=100)", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"].startswith("verdict: the width target 1e-6 was missed")
    assert set(out) >= {"mu", "residual", "tail", "strict_mu_at_least"}
    assert Fraction(out["strict_mu_at_least"]["lo"]) <= 5 <= Fraction(out["strict_mu_at_least"]["hi"])
    assert main(["measure", "dpsgd(noise=2, rate=0.01, steps=100)", "--certificate", "/tmp/x.json"]) == 2
    capsys.readouterr()


@pytest.mark.parametrize("spec", ["compose(laplace(scale=1), k=3)", "compose(pure_dp(eps=1), k=2)"])
def test_profile_method_is_named(capsys, spec):
    assert main(["profile", spec, "--eps", "1", "--json"]) == 0
    assert "accountant" in json.loads(capsys.readouterr().out)["method"]


@pytest.mark.parametrize(
    "spec,L",
    [
        ("dpsgd(noise=9.4, rate=16384/50000, steps=2000)", Fraction(2000) / Fraction(94, 10) ** 2),
        ("dpsgd(noise=2, rate=1/100, steps=100)", Fraction(25)),
        ("compose(subsample(gaussian(sigma=3, sensitivity=2), rate=1/2), k=9)", Fraction(9 * 4, 9)),
    ],
)
def test_identify_dpsgd_tail_is_T_over_sigma_squared(spec, L):
    """Seed 000 §5.3: the tail of T-fold subsampled Gaussian is √T Δ/σ whatever q
    (L computed by hand above)."""
    from certdp.analyses.limits import identify

    res = identify(parse_spec(spec))
    assert res.verdict == "gdp" and res.L == L
    lo, hi = Fraction(res.tail_mu.lo_str(30)), Fraction(res.tail_mu.hi_str(30))
    assert lo * lo <= L <= hi * hi and hi - lo < Fraction(1, 10**20)


def test_delta_at_the_maximal_loss_is_exactly_zero_and_not_negative():
    """50-fold 0.2-DP: the privacy loss never exceeds 10, so δ(10) = 0 exactly;
    the enclosure must contain 0 and never dip below it."""
    enc = delta_of(parse_spec("compose(pure_dp(eps=0.2), k=50)"), 10).enclosure
    assert enc.lo == 0 and enc.contains(0) and enc.certainly_less_than("1e-1000")
