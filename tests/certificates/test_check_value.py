"""Certificates of kind ``value`` (audit value claims): real ones are VALID,
every claim made false is INVALID, malformed ones are refused.  Truth: mpmath."""

from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from certdp.audit import audit_claim, parse_claims
from certdp.certificates import MalformedCertificate, check
from refs import mp_delta_mu, mp_digits, mp_mu_gdp, mpq

_mp = pytest.fixture(autouse=True)(mp_digits(40))

CLAIMS = '''
[[claim]]
id = "mu"
kind = "value"
quantity = "mu_gdp"
at = { eps = "1", delta = "1e-5" }
reported = "0.27"

[[claim]]
id = "delta"
mechanism = "gaussian(sigma=2)"
kind = "value"
quantity = "delta"
at = { eps = "1" }
reported = "0.006"
rounding = "up"

[[claim]]
id = "eps"
mechanism = "laplace(scale=1/2)"
kind = "value"
quantity = "eps"
at = { delta = "0.1" }
reported = "1.79"
'''


@pytest.fixture(scope="module")
def docs():
    out = {}
    for c in parse_claims(CLAIMS):
        v = audit_claim(c, want_certificate=True)
        assert v.certificate is not None, c.id
        out[c.id] = (v.verdict, v.certificate)
    return out


def _enc(doc):
    return Fraction(doc["claim"]["lo"]), Fraction(doc["claim"]["hi"])


def test_verdicts_and_enclosures_match_mpmath(docs):
    truth_mu = mp_mu_gdp(1, Fraction(1, 10**5))
    lo, hi = _enc(docs["mu"][1])
    assert mpq(lo) <= truth_mu <= mpq(hi) and docs["mu"][0] == "CONFIRMED"
    truth_delta = mp_delta_mu(Fraction(1, 2), 1)  # Gaussian σ = 2 is exactly 1/2-GDP
    lo, hi = _enc(docs["delta"][1])
    assert mpq(lo) <= truth_delta <= mpq(hi)
    assert docs["delta"][0] == "REFUTED"  # "0.006" rounded up stands for [0.005, 0.006]; δ ≈ 0.00684
    # Laplace b = 1/2: δ(ε) = 1 − e^{(ε−2)/2}; δ = 0.1 at ε = 2 + 2 log 0.9
    truth_eps = 2 + 2 * mpmath.log(mpmath.mpf("0.9"))
    lo, hi = _enc(docs["eps"][1])
    assert mpq(lo) <= truth_eps <= mpq(hi) and docs["eps"][0] == "CONFIRMED"
    for _, doc in docs.values():
        assert check(doc).valid


@pytest.mark.parametrize("which", ["mu", "delta", "eps"])
@pytest.mark.parametrize("tamper", ["hi_below", "lo_above", "flip", "reported"])
def test_false_claims_are_invalid(docs, which, tamper):
    doc = copy.deepcopy(docs[which][1])
    c = doc["claim"]
    lo, hi = _enc(doc)
    w = hi - lo + Fraction(1, 10**6)
    if tamper == "hi_below":
        c["hi"] = str(float(lo - w))  # the enclosure no longer contains the truth
        c["lo"] = str(float(lo - 2 * w))
    elif tamper == "lo_above":
        c["lo"] = str(float(hi + w))
        c["hi"] = str(float(hi + 2 * w))
    elif tamper == "flip":
        c["verdict"] = "REFUTED" if c["verdict"] == "CONFIRMED" else "CONFIRMED"
    else:
        c["reported"] = "0.5" if c["verdict"] == "CONFIRMED" else c["reported"][:-1] + "9"
        if c["verdict"] == "REFUTED":
            c["verdict"] = "CONFIRMED"
    assert not check(doc).valid


def test_malformed(docs):
    doc = copy.deepcopy(docs["mu"][1])
    doc["mechanism"] = "gaussian(sigma=1)"
    with pytest.raises(MalformedCertificate):
        check(doc)
    doc = copy.deepcopy(docs["eps"][1])
    doc["claim"]["quantity"] = "switch_eps"
    with pytest.raises(MalformedCertificate):
        check(doc)
    doc = copy.deepcopy(docs["eps"][1])
    doc["claim"]["at"] = {"eps": "1"}
    with pytest.raises(MalformedCertificate):
        check(doc)
