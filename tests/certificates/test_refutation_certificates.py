"""Certificates for every decided audit claim (issue #15 part 3): the checker's exact
binomial profile of k-fold pure-DP / randomized-response compositions (Kairouz, Oh &
Viswanath 2015 Thm 3.3), DP-SGD refutations from dominated PLDs (not_dp,
not_gdp_except) and from the all-sampled tail bound, and the audit's summary."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.certificates import writer
from certdp.verifier import mechs
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import to_ball, working_precision
from tests.refs import mpq
from required import required


def mp_binomial(k: int, q, ell, eps) -> mpmath.mpf:
    """δ(ε) = Σ_i C(k,i) q^{k-i}(1-q)^i (1 - e^{ε - (k-2i)ℓ})⁺ (loss (k-2i)ℓ under P)."""
    q, ell, e = mpq(q), mpq(ell) if not isinstance(ell, mpmath.mpf) else ell, mpq(eps)
    return mpmath.fsum(mpmath.binomial(k, i) * q ** (k - i) * (1 - q) ** i * max(0, 1 - mpmath.exp(e - (k - 2 * i) * ell))
                       for i in range(k + 1))


@pytest.mark.parametrize("spec,k,truth", [
    ("compose(pure_dp(eps=0.2), k=50)", 50, "pure:0.2"),
    ("compose(pure_dp(eps=1), k=7)", 7, "pure:1"),
    ("compose(randomized_response(p=0.75), k=12)", 12, "rr:0.75"),
    ("compose(randomized_response(p=0.1), k=5)", 5, "rr:0.9"),
    ("compose(compose(pure_dp(eps=1/3), k=4), k=5)", 20, "pure:1/3"),
])
@pytest.mark.parametrize("eps", ["0", "0.3", "1", "2.12", "4.5"])
def test_binomial_profile_against_mpmath(spec, k, truth, eps):
    m = mechs.parse(spec)
    assert m.has_closed_form
    with mpmath.workdps(60):
        how, v = truth.split(":")
        if how == "pure":
            e0 = mpq(v)
            q, ell = mpmath.exp(e0) / (1 + mpmath.exp(e0)), e0
        else:
            q = mpq(v)
            ell = mpmath.log(q / (1 - q))
        ref = mp_binomial(k, q, ell, eps)
    with working_precision(200):
        y = m.delta_ball(to_ball(Fraction(eps)))
        r = arb(mpmath.nstr(ref, 55))
        assert abs(y - r) <= arb(10) ** -45 + abs(r) * arb(10) ** -40, (y, ref)


def test_binomial_kind_and_limits():
    assert mechs.parse("compose(pure_dp(eps=1), k=3)").profile_kind.value == "exact for the stated guarantee"
    assert mechs.parse("compose(randomized_response(p=0.3), k=3)").profile_kind.value == "exact"
    assert not mechs.parse("compose(pure_dp(eps=1), k=10001)").has_closed_form
    assert not mechs.parse("compose(approx_dp(eps=1, delta=0.1), k=3)").has_closed_form
    with working_precision(64):
        assert mechs.parse("compose(randomized_response(p=1/2), k=9)").delta_ball(to_ball(0)) == 0


def _dp_doc(kind: str, spec: str, eps: str, delta: str) -> dict:
    return writer.envelope({"kind": kind, "eps": eps, "delta": delta}, spec, {}, 128)


@pytest.mark.parametrize("eps,delta", [("1", "0.28"), ("1", "0.29"), ("2.12", "0.0994"), ("2.12", "0.0995"),
                                       ("9.89", "1e-14"), ("9.89", "1.1e-14"), ("10", "0")])
def test_pure_dp_composition_dp_and_not_dp_by_mpmath(eps, delta):
    spec = "compose(pure_dp(eps=0.2), k=50)"
    with mpmath.workdps(60):
        e0 = mpq("0.2")
        truth = mp_binomial(50, mpmath.exp(e0) / (1 + mpmath.exp(e0)), e0, eps)
        holds = truth <= mpq(delta)
    assert check(_dp_doc("dp", spec, eps, delta)).valid == holds
    assert check(_dp_doc("not_dp", spec, eps, delta)).valid == (not holds)


@pytest.fixture(scope="module")
def table2():
    """Gomez et al. 2025 Table 2, CIFAR-10, eps = 1: mu = 0.21 except 1e-6 is refuted."""
    mech = parse_spec("dpsgd(noise=40, rate=16384/50000, steps=906)")
    return mech, writer.not_gdp_except_certificate(mech, "0.21", "1e-6")


def test_table2_refutation_is_valid(table2):
    _, doc = table2
    assert doc["claim"] == {"kind": "not_gdp_except", "mu": "0.21", "residual": "1e-6"}
    assert "pld_lower" in doc["evidence"] and check(doc).valid


def test_table2_refutation_mutants(table2):
    mech, doc = table2
    # the GDP report of the same mechanism, certified: no claim it covers can be refuted
    from certdp.analyses.accountants.dpsgd import dpsgd

    rep = writer.gdp_except_certificate(dpsgd(40, "16384/50000", 906, delta="1e-5", mu=True, regret=False))
    assert check(rep).valid
    mu_hi, eta_hi = Fraction(rep["claim"]["mu"]), Fraction(rep["claim"]["residual"])
    for mu, eta in [(mu_hi, eta_hi), (mu_hi * 2, eta_hi), (mu_hi, Fraction(1, 100)), (Fraction(21, 100), Fraction(1, 2))]:
        bad = copy.deepcopy(doc)
        bad["claim"]["mu"], bad["claim"]["residual"] = writer.number(mu), writer.number(eta)
        if mu >= mu_hi and eta >= eta_hi:  # false refutation (the report proves the claim)
            assert not check(bad).valid
        elif eta == Fraction(1, 2):  # delta_M <= delta_M(0) < 0.57 < delta_mu + 1/2 wherever delta_M > 1/2: false
            assert not check(bad).valid
    bad = copy.deepcopy(doc)
    bad["evidence"]["witness"]["eps"] = "40"  # a true claim, but no lower bound there proves it
    assert not check(bad).valid
    bad = copy.deepcopy(doc)
    bad["evidence"]["pld_lower"]["remove"] = bad["evidence"]["pld_lower"]["remove"][::-1]
    with pytest.raises(MalformedCertificate):
        check(bad)


def test_strict_refutation_by_the_tail():
    # seed 003 §5: mu = 1.57 claimed for sigma 9.4, q 2^14/50000, T 2000; the tail needs sqrt(T)/sigma = 4.757
    mech = parse_spec("compose(subsample(gaussian(sigma=9.4), rate=16384/50000), k=2000)")
    doc = writer.not_gdp_except_certificate(mech, "1.57", 0)
    assert doc["evidence"]["bound"] == "all_sampled" and check(doc).valid
    assert len(json.dumps(doc)) < 1000
    for mu in ("4.8", "5"):  # above the tail parameter the bound never beats delta_mu
        bad = copy.deepcopy(doc)
        bad["claim"]["mu"] = mu
        for j in (4, 11, 16):
            bad["evidence"]["witness"]["eps"] = str(2**j)
            assert not check(bad).valid


def test_all_sampled_bound_is_below_the_truth_for_one_step():
    # T = 1: q * delta_{1/s}(eps + log(1/q)) <= the exact one-step delta (mpmath closed form)
    from certdp.verifier.check_refute import all_sampled_lower
    from tests.certificates.test_gdp_except import mp_delta_one_step

    for eps in ("0", "0.5", "2", "6"):
        with working_precision(128):
            low = all_sampled_lower(Fraction(1), Fraction(1, 2), 1, Fraction(eps))
        with mpmath.workdps(50):
            truth = mp_delta_one_step(1, Fraction(1, 2), Fraction(eps))
        with working_precision(200):
            assert low.lower() <= arb(mpmath.nstr(truth, 45)) and low.is_finite()


def test_not_dp_from_the_lower_pld():
    mech = parse_spec("dpsgd(noise=9.4, rate=0.32768, steps=2000)")
    # certified delta(4) in [0.014923, 0.014937] (certdp dpsgd --eps 4)
    doc = writer.lower_dp_certificate(mech, "4", "0.0149")
    assert check(doc).valid
    bad = copy.deepcopy(doc)
    bad["claim"]["delta"] = "0.015"  # false: the upper PLD proves delta(4) <= 0.014937
    assert not check(bad).valid
    bad["claim"]["kind"] = "dp"
    with pytest.raises(MalformedCertificate):
        check(bad)


CLAIMS = '''
[[claim]]
id = "basic"
mechanism = "compose(pure_dp(eps=0.2), k=50)"
kind = "dp"
eps = "9.89"
delta = "0.1"

[[claim]]
id = "optimal"
mechanism = "compose(pure_dp(eps=0.2), k=50)"
kind = "value"
quantity = "eps"
at = { delta = "0.1" }
reported = "2.12"

[[claim]]
id = "wrong-dp"
mechanism = "dpsgd(noise=9.4, rate=0.32768, steps=2000)"
kind = "dp"
eps = "4"
delta = "0.0149"

[[claim]]
id = "table2"
mechanism = "dpsgd(noise=40, rate=16384/50000, steps=906)"
kind = "gdp"
mu = "0.21"
residual = "1e-6"

[[claim]]
id = "report"
mechanism = "dpsgd(noise=40, rate=16384/50000, steps=906)"
kind = "gdp"
mu = "0.3"
residual = "1e-6"

[[claim]]
id = "switch"
mechanism = "sgd(A=2, B=1, sigma=2)"
kind = "value"
quantity = "switch_delta"
at = {}
reported = "0.244"
'''


def test_audit_certifies_every_decided_claim_it_can(tmp_path):
    f = tmp_path / "claims.toml"
    f.write_text(CLAIMS)
    d = tmp_path / "certs"
    out = subprocess.run([sys.executable, "-m", "certdp", "audit", str(f), "--certificates", str(d), "--quiet",
                          "--claim-budget", "900", "--budget", "1800"],
                         capture_output=True, text=True)
    assert out.returncode == 1, out.stderr  # 3 REFUTED: a negative verdict exits 1 (README's rule)
    assert "certificates: 6 of 6 decided claims" in out.stdout
    files = sorted(p.name for p in d.iterdir())
    assert len(files) == 6
    kinds = {}
    for p in d.iterdir():
        doc = json.loads(p.read_text())
        kinds[p.name.split("-")[0]] = doc["claim"]["kind"]
        r = subprocess.run([sys.executable, "-m", "certdp", "verify", str(p)], capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout.startswith("VALID"), (p.name, r.stdout)
    assert kinds == {"basic": "dp", "optimal": "value", "wrong": "not_dp", "table2": "not_gdp_except",
                     "report": "gdp_except", "switch": "value"}


def test_schema(table2):
    jsonschema = required("jsonschema")
    import pathlib

    schema = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())
    mech = parse_spec("compose(subsample(gaussian(sigma=9.4), rate=16384/50000), k=2000)")
    docs = [table2[1], writer.not_gdp_except_certificate(mech, "1.57", 0),
            writer.lower_dp_certificate(parse_spec("dpsgd(noise=9.4, rate=0.32768, steps=2000)"), "4", "0.0149"),
            _dp_doc("dp", "compose(pure_dp(eps=0.2), k=50)", "2.12", "0.0995")]
    for doc in docs:
        jsonschema.validate(doc, schema)
    bad = copy.deepcopy(docs[1])
    bad["evidence"]["pld_lower"] = table2[1]["evidence"]["pld_lower"]  # both kinds of evidence
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
