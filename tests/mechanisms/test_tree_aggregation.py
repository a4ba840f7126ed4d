"""tree_aggregation (single-epoch DP-FTRL, Kairouz et al. 2021 App. D): exactly μ-GDP with
μ² = Δ²·⌈log₂(T + 1)⌉/σ².  Independent truth: the depth from dp_accounting's own float
formula, δ_μ and ε(δ) by mpmath at 60+ digits (tests/refs.py), the RDP of dp_accounting's
RdpAccountant (α·depth/(2σ²), an upper-bound conversion that must lie above the exact ε)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.analyses.dispatch import composition_accountant, eps_of
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.mechanisms.tree import tree_depth
from tests.refs import mp_delta_mu


def test_depth_is_dp_accountings_and_the_spec_round_trips():
    for t in list(range(1, 300)) + [2**20 - 1, 2**20, 14063, 10**9]:
        assert tree_depth(t) == math.ceil(math.log2(t + 1)), t
    m = parse_spec("tree_aggregation(noise=1.1, steps=100)")
    assert m.spec() == "tree_aggregation(noise=1.1, steps=100, sensitivity=1)"
    assert parse_spec(m.spec()) == m
    assert m.gdp_mu_squared() == Fraction(7) / Fraction(11, 10) ** 2  # depth 7
    assert parse_spec("tree_aggregation(noise=2, steps=8, sensitivity=2)").gdp_mu_squared() == 4  # 4·4/4


@pytest.mark.parametrize("bad", ["tree_aggregation(noise=0, steps=3)", "tree_aggregation(noise=1, steps=0)",
                                 "tree_aggregation(noise=1, steps=1/2)", "tree_aggregation(noise=1, steps=3, sensitivity=-1)",
                                 "tree_aggregation(noise=1)"])
def test_bad_parameters_are_one_line_errors(bad):
    with pytest.raises(InputError):
        parse_spec(bad)


@pytest.mark.parametrize("spec, mu2", [("tree_aggregation(noise=1, steps=100)", Fraction(7)),
                                       ("tree_aggregation(noise=3, steps=1000, sensitivity=2)", Fraction(40, 9))])
def test_profile_and_epsilon_against_mpmath(spec, mu2):
    m = parse_spec(spec)
    assert m.gdp_mu_squared() == mu2
    from certdp.mechanisms.profile_values import delta_enclosure  # noqa: PLC0415

    with mpmath.workdps(80):
        mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        for eps in (Fraction(0), Fraction(1, 2), Fraction(3)):
            enc = delta_enclosure(m, eps)
            truth = mp_delta_mu(mu, eps)
            assert enc.lower_float() <= truth <= enc.upper_float(), (eps, enc, truth)
            assert enc.width <= 1e-14 * float(truth)
        ans = eps_of(m, Fraction(1, 10**5))
        e_truth = mpmath.findroot(lambda e: mp_delta_mu(mu, e) - mpmath.mpf(1) / 10**5, 3)
        assert ans.enclosure.lower_float() <= e_truth <= ans.enclosure.upper_float(), (ans.enclosure, e_truth)
        assert ans.enclosure.width <= 1e-12


def test_composition_is_the_closed_form_gaussian():
    items = [(parse_spec("tree_aggregation(noise=1, steps=100)"), 10), (parse_spec("gaussian(sigma=2)"), 3)]
    acc, method = composition_accountant(items)
    assert "closed form" in method and acc.two_sided
    mu2 = Fraction(70) + Fraction(3, 4)  # 10·7 + 3/4
    enc = acc.delta(Fraction(20))
    assert mu2 == Fraction(283, 4)
    with mpmath.workdps(80):
        truth = mp_delta_mu(mpmath.sqrt(mpmath.mpf(283) / 4), 20)
    assert enc.lower_float() <= truth <= enc.upper_float() and enc.width <= 1e-14 * float(truth)


def test_rdp_curve_is_exact_and_above_the_closed_form():
    from certdp.analyses.accountants.rdp import RDPAccountant  # noqa: PLC0415

    m = parse_spec("tree_aggregation(noise=2, steps=1000)")  # depth 10: μ² = 10/4
    acc = RDPAccountant().compose(m, 3)
    r = acc.rdp(Fraction(5))
    assert r.contains(arb(75) / 4) and r.rad() < 1e-60  # 5·3·(10/4)/2
    exact = eps_of(parse_spec("compose(tree_aggregation(noise=2, steps=1000), k=3)"), Fraction(1, 10**5)).enclosure
    assert acc.epsilon(Fraction(1, 10**5)).upper_float() > exact.upper_float()


@pytest.mark.parametrize("spec", ["tree_aggregation(noise=-1, steps=3)", "tree_aggregation(noise=1, steps=2.5)",
                                  'gaussian_mixture(sigma=1, sensitivities="1, x", probs="1/2, 1/2")',
                                  "truncated_subsample(noise=1, rate=2, batch=3, size=10)"])
def test_cli_bad_input_is_one_line_exit_2(spec, capsys):
    from certdp.cli import main  # noqa: PLC0415

    assert main(["account", "--mechanism", spec, "--delta", "1e-5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("certdp: error:") and len(err.splitlines()) == 1, err
