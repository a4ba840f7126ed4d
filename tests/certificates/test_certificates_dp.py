"""Certificates of kind dp / not_dp: the checker decides the claim itself."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest

from certdp.audit import audit_claim, parse_claims
from certdp.certificates import check
from certdp.verifier.schema import MalformedCertificate
from certdp.cli import main
from refs import delta_mu_ref, mpf


def laplace_delta(scale: Fraction, eps: Fraction) -> mpmath.mpf:
    """Independent closed form: max(1 - exp(ε/2 - 1/(2b)), 0) (Δ = 1)."""
    with mpmath.workdps(50):
        return max(mpf(0), 1 - mpmath.exp(mpf(eps) / 2 - 1 / (2 * mpf(scale))))


def cert_for(spec: str, kind: str, eps: str, delta: str) -> dict:
    text = f'[[claim]]\nid = "c"\nkind = "{kind}"\nmechanism = "{spec}"\neps = "{eps}"\ndelta = "{delta}"\n'
    v = audit_claim(parse_claims(text)[0], want_certificate=True)
    assert v.certificate is not None, v
    return v.certificate


def test_confirmed_and_refuted_claims_certify_what_is_true():
    # Laplace b = 1/2: δ(1/2) = 1 - e^{-3/4} ≈ 0.5276 (independent closed form)
    assert laplace_delta(Fraction(1, 2), Fraction(1, 2)) < mpf("0.53")
    c = cert_for("laplace(scale=1/2)", "dp", "0.5", "0.53")
    assert c["claim"]["kind"] == "dp" and check(c).valid
    r = cert_for("laplace(scale=1/2)", "dp", "0.5", "0.52")  # refuted: the certificate says not_dp
    assert r["claim"]["kind"] == "not_dp" and check(r).valid


def test_mutations_never_yield_an_accepted_false_claim():
    base = cert_for("gaussian_dp(mu=1)", "dp", "1", "0.127")  # δ_1(1) ≈ 0.12694 < 0.127
    assert check(base).valid
    for field, value in [("eps", "0.9"), ("delta", "0.1269"), ("eps", "0"), ("delta", "0.12")]:
        doc = copy.deepcopy(base)
        doc["claim"][field] = value
        e, d = Fraction(doc["claim"]["eps"]), Fraction(doc["claim"]["delta"])
        truth = delta_mu_ref(1, e) <= mpf(d)
        assert check(doc).valid == truth, (field, value)
    doc = copy.deepcopy(base)
    doc["mechanism"] = "gaussian_dp(mu=1.1)"  # less private: δ_1.1(1) > 0.127
    assert delta_mu_ref(Fraction(11, 10), 1) > mpf("0.127")
    assert not check(doc).valid
    doc = copy.deepcopy(base)
    doc["evidence"]["delta_at_eps"] = {"lo": "0", "hi": "0"}  # evidence is never trusted
    assert check(doc).valid


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["claim"].update(extra="1"),
        lambda d: d["claim"].update(eps=1),
        lambda d: d["claim"].update(delta="2"),
        lambda d: d.update(mechanism="compose(laplace(scale=1), k=3)"),  # no closed form (pure_dp now has one)
        lambda d: d.update(mechanism="nonsense("),
        lambda d: d.update(precision=8),
    ],
)
def test_malformed_dp_certificates(mutate):
    doc = cert_for("laplace(scale=1/2)", "dp", "0.5", "0.53")
    mutate(doc)
    with pytest.raises(MalformedCertificate):
        check(doc)


def test_audit_writes_certificates_that_verify(tmp_path, capsys):
    claims = tmp_path / "c.toml"
    claims.write_text('[[claim]]\nid = "lap"\nkind = "dp"\nmechanism = "laplace(scale=1/2)"\neps = "0.5"\ndelta = "0.53"\n')
    out = tmp_path / "certs"
    assert main(["audit", str(claims), "--certificates", str(out)]) == 0
    capsys.readouterr()
    (path,) = out.glob("lap-*.json")  # <safe id>-<hash of the id>.json
    assert json.loads(path.read_text())["claim"]["kind"] == "dp"
    assert main(["verify", str(path)]) == 0
