"""``value`` certificates of an accountant's ε or δ (issue 36): the audit of a value claim on
DP-SGD writes evidence ``upper`` (a ``dp`` PLD evidence at the claimed upper end) and, when
the verdict needs it, ``lower`` (a ``not_dp`` dominated-PLD evidence at the lower end).

Independent truth: dp_accounting's PLD accountant (a float estimate, pessimistic) must
fall inside or above the certified lower end and near the enclosure; tampered ends,
verdicts and evidence are never VALID."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from certdp.audit import audit_claim, parse_claims
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate

SPEC = "dpsgd(noise=2, rate=1/100, steps=10)"


def _valid(doc) -> bool:
    try:
        return check(doc).valid
    except MalformedCertificate:  # e.g. lo > hi: not VALID either
        return False


def _cert(quantity: str, at: str, reported: str, rounding: str = "nearest"):
    toml = (f'[[claim]]\nid = "c"\nmechanism = "{SPEC}"\nkind = "value"\nquantity = "{quantity}"\n'
            f'at = {{ {at} }}\nreported = "{reported}"\nrounding = "{rounding}"\n')
    v = audit_claim(parse_claims(toml)[0], want_certificate=True)
    assert v.certificate is not None, v.no_certificate
    return v, v.certificate


@pytest.fixture(scope="module")
def eps_confirmed():
    return _cert("eps", 'delta = "1e-5"', "0.066", "up")  # ε ∈ (0.065, 0.066]: both ends needed


@pytest.fixture(scope="module")
def delta_refuted():
    return _cert("delta", 'eps = "0.1"', "1e-9")  # δ(0.1) ≈ 1.86e-7 > 1.5e-9: the lower end refutes


def test_confirmed_eps_is_valid_with_both_ends(eps_confirmed):
    v, doc = eps_confirmed
    assert v.verdict == "CONFIRMED" and check(doc).valid
    assert set(doc["evidence"]) == {"upper", "lower"}
    lo, hi = Fraction(doc["claim"]["lo"]), Fraction(doc["claim"]["hi"])
    assert Fraction("0.065") <= lo <= hi <= Fraction("0.066") and hi - lo < Fraction(1, 1000)


def test_against_dp_accounting(eps_confirmed):
    dpa = pytest.importorskip("dp_accounting")
    acc = dpa.pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(2.0)), 10)
    est = acc.get_epsilon(1e-5)
    _, doc = eps_confirmed
    assert float(doc["claim"]["lo"]) <= est <= float(doc["claim"]["hi"]) + 2e-3


def test_refuted_delta_is_valid(delta_refuted):
    v, doc = delta_refuted
    assert v.verdict == "REFUTED" and check(doc).valid and "lower" in doc["evidence"]
    assert Fraction(doc["claim"]["lo"]) > Fraction("1.5e-9")


@pytest.mark.parametrize("field,value", [("hi", "0.0654"), ("hi", "0.065"), ("lo", "0.0657"), ("verdict", "REFUTED"),
                                         ("at", {"delta": "1e-6"})])
def test_false_eps_claims_are_invalid(eps_confirmed, field, value):
    doc = copy.deepcopy(eps_confirmed[1])
    doc["claim"][field] = value
    assert not _valid(doc)


@pytest.mark.parametrize("field,value", [("hi", "1e-7"), ("lo", "1.9e-7"), ("verdict", "CONFIRMED")])
def test_false_delta_claims_are_invalid(delta_refuted, field, value):
    doc = copy.deepcopy(delta_refuted[1])
    doc["claim"][field] = value
    assert not _valid(doc)


def test_evidence_shape(eps_confirmed):
    doc = copy.deepcopy(eps_confirmed[1])
    del doc["evidence"]["lower"]
    with pytest.raises(MalformedCertificate):
        check(doc)
    doc = copy.deepcopy(eps_confirmed[1])
    doc["evidence"]["upper"], doc["evidence"]["lower"] = doc["evidence"]["lower"], doc["evidence"]["upper"]
    with pytest.raises(MalformedCertificate):  # a lower PLD proves no upper end
        check(doc)
    doc = copy.deepcopy(eps_confirmed[1])
    doc["mechanism"] = "dpsgd(noise=1.5, rate=1/100, steps=10)"  # less noise: larger ε
    assert not check(doc).valid


def test_mpmath_kernel_agrees(eps_confirmed, delta_refuted):
    """The second kernel re-derives both ends (the upper PLD and the dominated lower PLD in
    mpmath intervals) and rejects the same false ends."""
    from certdp.verifier.check_iv import check as check_iv

    for doc in (eps_confirmed[1], delta_refuted[1]):
        assert check_iv(doc) == (True, None)
    bad = copy.deepcopy(eps_confirmed[1])
    bad["claim"]["lo"] = "0.06563"
    bad["claim"]["hi"] = "0.066"
    assert not check_iv(bad)[0] and not _valid(bad)
    bad = copy.deepcopy(eps_confirmed[1])
    bad["claim"]["lo"], bad["claim"]["hi"] = "0.065", "0.0654"
    assert not check_iv(bad)[0] and not _valid(bad)
