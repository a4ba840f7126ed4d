"""Regression: a composed PLD whose whole support lies above 0 (the negative losses
truncated away) must still be inverted on [0, y_0]; it once answered eps = 0 for a
mechanism that is not private at all (discrete_gaussian(sigma=1/1000), k = 3)."""

import mpmath

from certdp.analyses.dispatch import composition_accountant, eps_of
from certdp.mechanisms.spec import parse_spec


def test_nearly_deterministic_discrete_gaussian():
    # sigma = 1/1000: the output is (up to mass e^{-10^5}) the query itself; the loss is
    # 1/(2 sigma^2) = 5e5 per step, so delta(eps) = 1 - e^{eps - 1.5e6} for eps < 1.5e6 and
    # eps(1e-5) = 1.5e6 + log(1 - 1e-5)
    truth = mpmath.mpf(1500000) + mpmath.log(1 - mpmath.mpf("1e-5"))
    mech = parse_spec("discrete_gaussian(sigma=1/1000)")
    for refine in range(4):
        acc, _ = composition_accountant([(mech, 3)], refine=refine)
        enc = acc.epsilon("1e-5")
        assert mpmath.mpf(enc.lo_str(30)) <= truth <= mpmath.mpf(enc.hi_str(30)), (refine, enc)
    ans = eps_of(parse_spec("compose(discrete_gaussian(sigma=1/1000), k=3)"), "1e-5")
    assert mpmath.mpf(ans.enclosure.lo_str(30)) <= truth <= mpmath.mpf(ans.enclosure.hi_str(30))
    assert float(ans.enclosure.lo) > 1.4e6


def test_pure_dp_with_a_large_eps0():
    # pure_dp(50) twice: the atoms at 0 and -100 carry < 1e-21 and are truncated; on the
    # previous main this printed eps in [0].  Exact: delta(eps) = p^2 (1 - e^{eps - 100}) for
    # 0 < eps < 100 with p = e^50/(1 + e^50), so eps(1e-5) = 100 + log(1 - 1e-5/p^2)
    with mpmath.workdps(40):
        p = mpmath.exp(50) / (1 + mpmath.exp(50))
        truth = 100 + mpmath.log(1 - mpmath.mpf("1e-5") / p**2)
        ans = eps_of(parse_spec("compose(pure_dp(eps=50), k=2)"), "1e-5")
        assert mpmath.mpf(ans.enclosure.lo_str(35)) <= truth <= mpmath.mpf(ans.enclosure.hi_str(35)), ans
