"""Certificates of generic-engine answers: evidence ``pld_profile`` (the checker's
profile pair, certdp.verifier.check_profile_pld), checked against closed forms
and mpmath integrals, and against tampering."""

import copy
import json
import pathlib
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.certificates import writer
from certdp.verifier.check_profile_pld import delta_upper
from certdp.verifier.checker import check
from certdp.verifier.mechs import parse
from certdp.verifier.schema import MalformedCertificate
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.enclosure import Enclosure
from required import required

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _laplace_g(t, b):
    """E_P[(1 − e^{t−L})⁺] of one Laplace(b) pair (sensitivity 1) for any real t:
    δ(t) = max(1 − e^{(t − 1/b)/2}, 0) for t >= 0, and 1 − e^t + e^t δ(−t) below 0."""
    def d(u):
        return max(1 - mpmath.exp((u - 1 / b) / 2), 0)
    return d(t) if t >= 0 else 1 - mpmath.exp(t) + mpmath.exp(t) * d(-t)


def _laplace_two_fold(eps, b):
    """δ(ε) of compose(laplace(b), k=2) by conditioning on the first loss:
    P = Lap(0, b), Q = Lap(1, b), L(x) = (|x − 1| − |x|)/b: atoms 1/b (mass 1/2) and
    −1/b (mass e^{−1/b}/2), density on (0, 1) with L = (1 − 2x)/b."""
    b = mpmath.mpf(b)
    atoms = _laplace_g(eps - 1 / b, b) / 2 + mpmath.exp(-1 / b) / 2 * _laplace_g(eps + 1 / b, b)
    mid = mpmath.quad(lambda x: mpmath.exp(-x / b) / (2 * b) * _laplace_g(eps - (1 - 2 * x) / b, b),
                      [0, (1 - b * eps) / 2 if 0 < (1 - b * eps) / 2 < 1 else 0.5, 1])
    return atoms + mid


def _bound(spec, eps, h):
    ev = writer.profile_pld_evidence(spec, h)
    return ev, delta_upper(spec, parse(spec), Fraction(eps), ev, 128)


def test_laplace_two_fold_against_mpmath():
    spec = "compose(laplace(scale=1, sensitivity=1), k=2)"
    with mpmath.workdps(30):
        for eps in ("0", "1/2", "1", "3/2"):
            truth = _laplace_two_fold(mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator, 1)
            _, b = _bound(spec, eps, Fraction(1, 1024))
            hi = mpmath.mpf(Enclosure.from_ball(b).hi_str(30))
            assert truth <= hi <= truth + 1e-6, (eps, truth, hi)


def test_one_laplace_is_exact_at_the_knots():
    # k = 1: F interpolates the table's closed form at the knots, so at a grid point the
    # re-derived bound is the profile itself up to the fixed-point rounding (2^-96 units)
    spec = "laplace(scale=2, sensitivity=1)"
    with mpmath.workdps(40):
        for eps in ("0", "1/8", "1/4", "3/8"):
            e = Fraction(eps)
            truth = 1 - mpmath.exp((mpmath.mpf(e.numerator) / e.denominator - mpmath.mpf(1) / 2) / 2)
            _, b = _bound(spec, eps, Fraction(1, 64))
            hi = mpmath.mpf(Enclosure.from_ball(b).hi_str(35))
            assert truth <= hi <= truth + mpmath.mpf("1e-25"), (eps, truth, hi)


@pytest.fixture(scope="module")
def laplace50():
    mech = parse_spec("compose(laplace(scale=5), k=50)")
    # certdp profile "compose(laplace(scale=5), k=50)" --delta 1e-4: eps in [5.37929, 5.37942]
    return writer.upper_dp_certificate(mech, delta="1e-4", eps_hi=Enclosure.exact(Fraction("5.37942")))


def test_laplace_certificate_valid_and_schema(laplace50):
    assert "pld_profile" in laplace50["evidence"]
    assert check(laplace50).valid
    jsonschema = required("jsonschema")
    schema = json.loads((ROOT / "docs" / "certificate.schema.json").read_text())
    jsonschema.validate(laplace50, schema)


def test_false_or_tampered_claims_are_not_valid(laplace50):
    bad = copy.deepcopy(laplace50)
    bad["claim"]["eps"] = "5.3792"  # below the engine's certified lower end 5.37929: false
    assert not check(bad).valid
    bad = copy.deepcopy(laplace50)
    bad["mechanism"] = "compose(laplace(scale=4), k=50)"  # a more revealing mechanism
    assert not check(bad).valid
    bad = copy.deepcopy(laplace50)
    bad["evidence"]["pld_profile"]["knots"] = [0, laplace50["evidence"]["pld_profile"]["knots"][-1]]
    assert not check(bad).valid  # a chord over the whole range: proved, but too loose for the claim
    for knots in ([], [1, 2], [0, 5, 5], "0", [0, 2**40]):
        bad = copy.deepcopy(laplace50)
        bad["evidence"]["pld_profile"]["knots"] = knots
        with pytest.raises(MalformedCertificate):
            check(bad)
    bad = copy.deepcopy(laplace50)
    bad["claim"]["kind"] = "not_dp"
    with pytest.raises(MalformedCertificate):
        check(bad)


def test_unproved_convexity_is_refused():
    # pure_dp(eps=1)'s profile is linear in e^eps on [0, 1]: knots 0, 1, 2 (h = 1/8) are
    # collinear, the slope change at knot 1 is 0 in exact arithmetic and not provably >= 0
    # in balls: the checker must refuse rather than guess
    doc = writer.envelope({"kind": "dp", "eps": "2", "delta": "0.5"}, "compose(pure_dp(eps=1), k=3)",
                          {"pld_profile": {"h": "1/8", "bits": 64, "tau": "0", "knots": [0, 1, 2, 8]}}, 128)
    res = check(doc)
    assert not res.valid and "convex" in (res.failed_step or ""), res


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "certdp", *args], capture_output=True, text=True)


def test_account_certificate_round_trip(tmp_path):
    f = tmp_path / "a.json"
    out = _cli("account", "--mechanism", "laplace(scale=1)", "--times", "20", "--delta", "1e-6",
               "--certificate", str(f))
    assert out.returncode == 0, out.stderr
    r = _cli("verify", str(f))
    assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout
    het = _cli("account", "--mechanism", "laplace(scale=1)", "--mechanism", "pure_dp(eps=1)", "--eps", "1",
               "--certificate", str(tmp_path / "b.json"))  # heterogeneous: compose_all with pld_items
    assert het.returncode == 0, het.stderr
    assert _cli("verify", str(tmp_path / "b.json")).stdout.startswith("VALID")
    sub = _cli("profile", "compose(subsample(subsample(laplace(scale=1), rate=1/2), rate=1/5), k=10)", "--delta",
               "1e-5", "--certificate", str(tmp_path / "c.json"))
    # the engine's answer is narrower than the profile pair proves (nested subsampling has
    # no per-relation evidence): a weaker certificate, said so
    assert sub.returncode == 0 and "weaker than the answer's upper end" in sub.stdout, sub.stderr
    assert _cli("verify", str(tmp_path / "c.json")).stdout.startswith("VALID")
    # a profile with mass at +∞ (q·δ0 = 1e-8 > the sampling tail 1e-18) stops sampling where
    # it is flat, not at the grid cap (2^21 knots, ten minutes before)
    from certdp.certificates.writer import profile_pld_evidence  # noqa: PLC0415

    ev = profile_pld_evidence("compose(subsample(approx_dp(eps=1, delta=1/10000000), rate=1/10), k=10)",
                              Fraction(1, 1024))
    assert ev is not None and len(ev["knots"]) < 4096
