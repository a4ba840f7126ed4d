"""Closed forms in a value claim's ``at`` table, for every quantity (issue 34,
defect 7b): docs/claims.md promises them, yet ``mu_gdp`` at ε = "log(2)" was
refused.  The answer at an irrational point is the hull over its rational bracket
(every quantity is monotone in ε and δ); truth: mpmath at the exact point.  A value
certificate takes rational ε, δ, so a closed-form claim gets "no certificate"
with the reason (never a malformed file)."""

from __future__ import annotations

import mpmath
import pytest

from certdp import InputError
from certdp.audit import audit_claim, parse_claims
from refs import mp_delta_mu, mp_digits

_mp = pytest.fixture(autouse=True)(mp_digits(40))


def _claim(body: str):
    return parse_claims('[[claim]]\nid = "c"\nkind = "value"\n' + body)[0]


def _mu_gdp(eps, delta):
    a, b = mpmath.mpf("1e-6"), mpmath.mpf(60)
    for _ in range(200):
        mid = (a + b) / 2
        a, b = (a, mid) if mp_delta_mu(mid, eps) > delta else (mid, b)
    return (a + b) / 2


def _inside(v, truth, width=1e-10):
    lo, hi = mpmath.mpf(v.enclosure.to_json()["lo"]), mpmath.mpf(v.enclosure.to_json()["hi"])
    assert lo <= truth <= hi and hi - lo < width, (lo, truth, hi)


@pytest.mark.parametrize("eps,delta,eps_mp,delta_mp,reported,verdict", [
    ("log(2)", "1e-5", lambda: mpmath.log(2), lambda: mpmath.mpf("1e-5"), "0.19", "CONFIRMED"),
    ("1", "exp(-10)", lambda: mpmath.mpf(1), lambda: mpmath.exp(-10), "0.30", "CONFIRMED"),
    ("log(3)", "exp(-5)", lambda: mpmath.log(3), lambda: mpmath.exp(-5), "0.7", "REFUTED"),
])
def test_mu_gdp_at_closed_forms(eps, delta, eps_mp, delta_mp, reported, verdict):
    c = _claim(f'quantity = "mu_gdp"\nat = {{ eps = "{eps}", delta = "{delta}" }}\nreported = "{reported}"\n')
    v = audit_claim(c, want_certificate=True)
    _inside(v, _mu_gdp(eps_mp(), delta_mp()))
    assert v.verdict == verdict
    assert v.certificate is None and "closed form" in v.no_certificate


def test_delta_and_eps_at_closed_forms():
    # Laplace, scale 1: δ(ε) = 1 − e^{(ε−1)/2}; ε(δ) = 1 + 2 log(1 − δ)
    v = audit_claim(_claim('mechanism = "laplace(scale=1)"\nquantity = "delta"\nat = { eps = "log(2)/2" }\n'
                           'reported = "0.28"\n'))
    _inside(v, 1 - mpmath.exp((mpmath.log(2) / 2 - 1) / 2))
    assert v.verdict == "CONFIRMED"
    v = audit_claim(_claim('mechanism = "laplace(scale=1)"\nquantity = "eps"\nat = { delta = "exp(-1)" }\n'
                           'reported = "0.083"\n'))
    _inside(v, 1 + 2 * mpmath.log(1 - mpmath.exp(-1)))
    assert v.verdict == "CONFIRMED"


@pytest.mark.parametrize("at,needle", [
    ('eps = "-log(2)", delta = "1e-5"', "at.eps"),
    ('eps = "1", delta = "exp(1)"', "at.delta"),
    ('eps = "1", delta = "x"', "at.delta"),
    ('eps = "log(0)", delta = "0.1"', "at.eps"),
])
def test_closed_forms_out_of_range_are_refused(at, needle):
    with pytest.raises(InputError) as err:
        _claim(f'quantity = "mu_gdp"\nat = {{ {at} }}\nreported = "0.2"\n')
    assert "'c'" in str(err.value) and needle in str(err.value)
