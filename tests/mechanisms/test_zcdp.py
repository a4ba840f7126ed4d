"""``zcdp(rho)``: the ρ-zCDP guarantee as an upper-bound profile, against independent truth.

* mpmath: the conversion of Canonne, Kamath & Steinke 2020 (Prop 12)
  δ_α(ε) = exp((α − 1)(αρ − ε))/α · (1 − 1/α)^(α − 1), minimised over α by mpmath's own
  root finder on the derivative (2α − 1)ρ − ε + log(1 − 1/α) (nothing from certdp);
* the closed form ε <= ρ + 2·sqrt(ρ log(1/δ)) (Bun & Steinke 2016 Prop 1.3), which certdp
  must not exceed;
* a lower sanity bound: the Gaussian with μ = sqrt(2ρ) is ρ-zCDP (Bun & Steinke 2016 Prop
  1.6), so no valid bound on the guarantee is below its δ_μ(ε) (mpmath).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import delta_of, eps_of
from certdp.errors import InputError
from certdp.mechanisms import parse_spec
from certdp.mechanisms.base import ProfileKind
from refs import mp_delta_mu, mpq


def mp_cks_delta(rho, eps) -> mpmath.mpf:
    """inf over α > 1 of δ_α(ε), α from mpmath's root of the derivative (40 digits)."""
    with mpmath.workdps(40):
        r, e = mpq(rho), mpq(eps)
        f = lambda a: (2 * a - 1) * r - e + mpmath.log(1 - 1 / a)  # noqa: E731  (increasing in α)
        lo, hi = mpmath.mpf(1) + mpmath.mpf(10) ** -30, (e + 1) / (2 * r) + 2
        for _ in range(400):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        a = (lo + hi) / 2
        return min(mpmath.mpf(1), mpmath.exp((a - 1) * (a * r - e)) / a * (1 - 1 / a) ** (a - 1))


def mp_eps_gaussian(mu, delta) -> mpmath.mpf:
    """ε with δ_μ(ε) = δ (mpmath bisection; δ_μ decreases in ε)."""
    with mpmath.workdps(40):
        a, b = mpmath.mpf(0), mpmath.mpf(200)
        for _ in range(200):
            mid = (a + b) / 2
            a, b = (mid, b) if mp_delta_mu(mu, mid) > mpq(delta) else (a, mid)
        return b


RHOS = [Fraction(1, 2), Fraction(1, 100), Fraction(2), Fraction(1, 10**4), Fraction(30)]


@pytest.mark.parametrize("rho", RHOS)
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(1), Fraction(5)])
def test_delta_is_the_optimal_conversion(rho, eps):
    ans = delta_of(parse_spec(f"zcdp(rho={rho})"), eps)
    assert ans.kind is ProfileKind.UPPER and ans.enclosure.lower_float() == 0.0
    hi = mpq(ans.enclosure.hi_exact)  # exact: δ may be 1e-27148, below every float
    cks = mp_cks_delta(rho, eps)
    with mpmath.workdps(40):
        gauss = mp_delta_mu(mpmath.sqrt(2 * mpq(rho)), eps)
    assert hi >= cks * (1 - mpmath.mpf(10) ** -9), (hi, cks)  # α is searched in floats: at best the optimum
    assert hi <= cks * (1 + mpmath.mpf(10) ** -6) or (cks >= 1 and hi == 1), (hi, cks)  # and near it
    assert hi >= gauss, (hi, gauss)  # a valid upper bound on a ρ-zCDP Gaussian


@pytest.mark.parametrize("rho", RHOS)
@pytest.mark.parametrize("delta", [Fraction(1, 10**5), Fraction(1, 10**10)])
def test_epsilon_is_below_bun_steinke_and_above_the_gaussian(rho, delta):
    ans = eps_of(parse_spec(f"zcdp(rho={rho})"), delta)
    assert ans.kind is ProfileKind.UPPER and ans.enclosure.lower_float() == 0.0
    hi = ans.enclosure.upper_float()
    with mpmath.workdps(40):
        r = mpq(rho)
        bun_steinke = r + 2 * mpmath.sqrt(r * mpmath.log(1 / mpq(delta)))
        gauss = mp_eps_gaussian(mpmath.sqrt(2 * r), delta)
    assert gauss <= hi <= bun_steinke, (gauss, hi, bun_steinke)
    # the certified ε meets δ by the optimal conversion (mpmath), and is not far above its root
    assert mp_cks_delta(rho, Fraction(hi)) <= mpq(delta) * (1 + mpmath.mpf(10) ** -9)
    assert mp_cks_delta(rho, Fraction(hi) * (1 - Fraction(1, 10**4))) > mpq(delta)


def test_compositions_of_zcdp_add_up():
    one = eps_of(parse_spec("zcdp(rho=1/2)"), Fraction(1, 10**5)).enclosure
    for spec in ("compose(zcdp(rho=1/6), k=3)", "compose_all(zcdp(rho=1/4), compose(zcdp(rho=1/8), k=2))"):
        assert str(eps_of(parse_spec(spec), Fraction(1, 10**5)).enclosure) == str(one)
    # with a Gaussian (σ 2: exactly 1/8-zCDP, μ = 1/2): above the GDP composition of a μ = 1/2
    # Gaussian with a second one (a 1/8-zCDP mechanism), below the 1/4-zCDP conversion
    mixed = eps_of(parse_spec("compose_all(zcdp(rho=1/8), gaussian(sigma=2))"), Fraction(1, 10**5))
    assert mixed.kind is ProfileKind.UPPER
    hi = mixed.enclosure.upper_float()
    z = eps_of(parse_spec("zcdp(rho=1/4)"), Fraction(1, 10**5)).enclosure.upper_float()
    assert mp_eps_gaussian(mpmath.sqrt(mpmath.mpf(1) / 2), Fraction(1, 10**5)) <= hi <= z * (1 + 1e-3), (hi, z)


@pytest.mark.parametrize("bad", ["zcdp(rho=0)", "zcdp(rho=-1)", "zcdp()"])
def test_parameters_are_checked(bad):
    with pytest.raises(InputError):
        parse_spec(bad)


def test_the_rdp_accountant_holds_zcdp_as_its_curve():
    """ρ(α) = αρ: the RDP route's ε is the same conversion on an order grid, so it is at or
    above the directly searched order's, and close (1e-3)."""
    from certdp.analyses.accountants.rdp import RDPAccountant

    acc = RDPAccountant().compose(parse_spec("zcdp(rho=1/2)"), 2)
    assert float(acc.rdp(Fraction(3)).mid()) == 3.0
    rdp_hi = acc.epsilon_bound(Fraction(1, 10**5)).enclosure.upper_float()
    direct = eps_of(parse_spec("zcdp(rho=1)"), Fraction(1, 10**5)).enclosure.upper_float()
    assert direct <= rdp_hi <= direct * (1 + 1e-3), (direct, rdp_hi)
    assert acc.zcdp().upper_float() == 1.0 and acc.zcdp().lower_float() == 0.0
