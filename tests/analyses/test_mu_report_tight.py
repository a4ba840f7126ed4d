"""The μ report uses the residual inside every segment (fdp module doc): tight
where the truth is, checked against independent values."""

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.analyses.accountants.pld import PLDAccountant
from certdp.analyses.fdp import gdp_report
from certdp.audit.claims import parse_claims
from certdp.audit.verdicts import audit_claim
from certdp.certificates import writer
from certdp.verifier.checker import check
from certdp.mechanisms.spec import parse_spec


def _mp_delta_mu(mu, eps):
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _mp_mu_star(mu0, eta):
    """sup over ε of μ_GDP(ε, δ_{μ0}(ε) − η) on a fine ε grid (a lower bound of μ*(η)),
    each μ_GDP solved by bisection in mpmath (δ_m(ε) increases with m)."""
    best = mpmath.mpf(0)
    with mpmath.workdps(30):
        for i in range(1, 400):
            e = mpmath.mpf(i) / 40
            d = _mp_delta_mu(mu0, e) - eta
            if d <= 0:
                break
            lo, hi = mpmath.mpf(0), mpmath.mpf(mu0)
            for _ in range(80):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if _mp_delta_mu(mid, e) < d else (lo, mid)
            best = max(best, lo)
    return best


def test_gaussian_composition_mu_star_against_mpmath():
    # compose(gaussian(2), 4) on the PLD route: δ = δ_1 exactly; μ*(η) from mpmath
    acc = PLDAccountant().compose(parse_spec("gaussian(sigma=2)"), 4)
    rep = gdp_report(acc, residual=Fraction(1, 10**6), regret=False)
    truth = _mp_mu_star(mpmath.mpf(1), mpmath.mpf("1e-6"))
    assert 0.9999 < truth < 1
    assert float(rep.mu.lo) <= truth + 1e-12  # μ.lo is proved from below
    assert float(rep.mu.hi) >= truth - 1e-12
    assert float(rep.mu.hi) - truth <= 1e-5  # and the report is tight
    assert rep.residual_exact == Fraction(1, 10**6)


@pytest.fixture(scope="module")
def example():
    return dpsgd(Fraction(47, 5), Fraction(32768, 100000), 2000, delta=Fraction(1, 10**5), mu=True,
                 regret=False)


def test_dpsgd_example_mu_within_0_002(example):
    width = example.mu.hi_exact - example.mu.lo_exact
    assert width <= Fraction(2, 1000), float(width)
    assert 1.565 < float(example.mu.lo) and float(example.mu.hi) < 1.57
    assert example.settings["residual"] == "1/10000000000"


def test_audit_decides_1_57_gdp_except_1e_10():
    claims = parse_claims('''
[[claim]]
id = "yes"
mechanism = "dpsgd(noise=9.4, rate=0.32768, steps=2000)"
kind = "gdp"
mu = "1.57"
residual = "1e-10"

[[claim]]
id = "no"
mechanism = "dpsgd(noise=9.4, rate=0.32768, steps=2000)"
kind = "gdp"
mu = "1.565"
residual = "1e-10"
''')
    verdicts = {c.id: audit_claim(c).verdict for c in claims}
    assert verdicts == {"yes": "CONFIRMED", "no": "REFUTED"}


def test_gdp_except_certificate_of_the_report(example):
    doc = writer.gdp_except_certificate(example)
    assert doc["claim"]["residual"] == "1e-10"
    assert check(doc).valid
    for mu in ("1.567", "1.5"):  # below the certified lower end 1.5672...: false claims
        bad = {**doc, "claim": {**doc["claim"], "mu": mu}}
        assert not check(bad).valid
