"""Certificates of the DP-SGD GDP report (kind ``gdp_except``, issue #15):
δ(ε) <= δ_μ(ε) + η for all ε >= 0, re-derived from the PLD evidence.

Truth for one step (T = 1) is the closed form of the subsampled Gaussian's
hockey-stick divergence in mpmath (both relations), independent of certdp."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.verifier.checker import check
from certdp.certificates.writer import gdp_except_certificate
from certdp.verifier.schema import MalformedCertificate
from tests.refs import mp_delta_mu, mpq
from required import required
from timing import timed, within


def mp_delta_one_step(sigma, q, eps) -> mpmath.mpf:
    """max over add/remove of the hockey-stick divergence of one Poisson-subsampled
    Gaussian step (sensitivity 1): closed forms from the loss threshold x*."""
    s, q, e = mpq(sigma), mpq(q), mpq(eps)
    sf = lambda x: mpmath.ncdf(-x)  # noqa: E731  (upper tail)
    # remove: P = (1-q)N(0,s^2) + qN(1,s^2), Q = N(0,s^2); L > eps iff x > x*
    x = s**2 * mpmath.log((mpmath.exp(e) - 1 + q) / q) + mpmath.mpf(1) / 2
    rem = (1 - q) * sf(x / s) + q * sf((x - 1) / s) - mpmath.exp(e) * sf(x / s)
    # add: P = N(0,s^2), Q = (1-q)N(0,s^2) + qN(-1,s^2)
    if mpmath.exp(-e) <= 1 - q:
        add = mpmath.mpf(0)
    else:
        x = -(s**2 * mpmath.log((mpmath.exp(-e) - 1 + q) / q) + mpmath.mpf(1) / 2)
        add = sf(x / s) - mpmath.exp(e) * ((1 - q) * sf(x / s) + q * sf((x + 1) / s))
    return max(rem, add)


@pytest.fixture(scope="module")
def one_step():
    res = dpsgd(1, "1/2", 1, delta="1e-5", mu=True, regret=False)
    return res, gdp_except_certificate(res)


@pytest.fixture(scope="module")
def paper():
    """Gomez et al. 2025 §5: σ = 9.4, q = 0.32768, T = 2000."""
    res = dpsgd("9.4", "0.32768", 2000, delta="1e-5", mu=True, regret=False)
    return res, gdp_except_certificate(res)


GRID = [Fraction(k, 8) for k in range(0, 120)]


def _false_somewhere(mu: Fraction, eta: Fraction) -> bool:
    """mpmath finds an ε on the grid with δ(ε) > δ_μ(ε) + η (by a margin of 1e-20)."""
    with mpmath.workdps(40):
        return any(mp_delta_one_step(1, Fraction(1, 2), e) > mp_delta_mu(mu, e) + mpq(eta)
                   + mpmath.mpf("1e-20") for e in GRID)


def _holds_on_grid(mu: Fraction, eta: Fraction) -> bool:
    with mpmath.workdps(40):
        return all(mp_delta_one_step(1, Fraction(1, 2), e) <= mp_delta_mu(mu, e) + mpq(eta)
                   for e in GRID)


def test_one_step_report_is_valid_and_true(one_step):
    res, doc = one_step
    assert doc["claim"]["kind"] == "gdp_except"
    assert check(doc).valid and check(doc).unconditional
    mu, eta = Fraction(doc["claim"]["mu"]), Fraction(doc["claim"]["residual"])
    assert _holds_on_grid(mu, eta)
    # the claimed mu is the report's upper end rounded up (12 digits), not weaker
    assert mu - Fraction(str(res.mu.hi_str(12))) <= Fraction(1, 10**10)


@pytest.mark.parametrize("mu_scale,eta", [(Fraction(95, 100), None), (Fraction(9, 10), None), (Fraction(1, 2), None),
                                          (Fraction(1), Fraction(0)), (Fraction(97, 100), Fraction(1, 10**12)),
                                          (Fraction(3, 4), Fraction(1, 10**3))])
def test_false_mutants_of_the_one_step_report_are_invalid(one_step, mu_scale, eta):
    _, doc = one_step
    bad = copy.deepcopy(doc)
    mu = Fraction(doc["claim"]["mu"]) * mu_scale
    bad["claim"]["mu"] = f"{mu.numerator}/{mu.denominator}"
    if eta is not None:
        bad["claim"]["residual"] = f"{eta.numerator}/{eta.denominator}"
    e = Fraction(bad["claim"]["residual"])
    r = check(bad)
    if _false_somewhere(mu, e):
        assert not r.valid, bad["claim"]
    elif r.valid:  # a VALID mutant must be true (on the grid, by mpmath)
        assert _holds_on_grid(mu, e)


@timed(30)
def test_paper_example_valid_fast_and_small(paper, tmp_path, time_limit):
    res, doc = paper
    path = tmp_path / "mu.json"
    path.write_text(json.dumps(doc))
    assert path.stat().st_size < 1000
    with within(time_limit):  # about 3 s on a quiet machine
        out = subprocess.run([sys.executable, "-m", "certdp", "verify", str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("VALID"), out.stdout + out.stderr
    # the claim is what dpsgd --mu printed: mu.hi and the residual, rounded up
    assert Fraction(doc["claim"]["mu"]) >= Fraction(res.mu.hi_str(12)) - Fraction(1, 10**11)
    assert Fraction(doc["claim"]["mu"]) < Fraction(1602, 1000)


@pytest.mark.parametrize("field,new", [
    ("mu", "1.5"),            # below the report's certified lower end 1.567: false
    ("mu", "1.56"),
    ("residual", "0"),        # strict: the tail forces mu >= sqrt(T)/sigma = 4.757 (Liu et al. 2022 Thm 4.4)
    ("residual", "1e-12"),
    ("mechanism", "compose(subsample(gaussian(sigma=9), rate=0.32768), k=2000)"),
    ("mechanism", "compose(subsample(gaussian(sigma=9.4), rate=0.34), k=2000)"),
    ("mechanism", "compose(subsample(gaussian(sigma=9.4), rate=0.32768), k=2200)"),
])
def test_paper_example_tampered_is_invalid(paper, field, new):
    _, doc = paper
    bad = copy.deepcopy(doc)
    if field == "mechanism":
        bad["mechanism"] = new
    else:
        bad["claim"][field] = new
    assert not check(bad).valid


def test_noise_9_is_really_worse(paper):
    # the tampered noise-9 claim is false: certdp's certified lower end for sigma = 9 exceeds it
    _, doc = paper
    res9 = dpsgd("9", "0.32768", 2000, delta="1e-5", mu=True, regret=False)
    assert res9.mu.certainly_greater_than(Fraction(doc["claim"]["mu"]))


@pytest.mark.parametrize("mutate", [
    lambda d: d["claim"].update(mu="-1"),
    lambda d: d["claim"].update(residual="1"),
    lambda d: d["claim"].update(extra="1"),
    lambda d: d["evidence"].update(cells=[]),
    lambda d: d["evidence"]["pld"].update(bits=4),
    lambda d: d.update(mechanism="compose(laplace(scale=1), k=3)"),
    lambda d: d.update(mechanism="tradeoff(sigma=1)"),
])
def test_malformed(one_step, mutate):
    _, doc = one_step
    bad = copy.deepcopy(doc)
    mutate(bad)
    with pytest.raises(MalformedCertificate):
        check(bad)


def test_mpmath_kernel_agrees(one_step):
    """The second kernel (certdp.verifier.check_fdp_iv: the upper PLD in intervals, the
    segment inequalities through Φ at a rational t instead of Φ⁻¹) accepts the
    certificate and rejects a smaller μ and a smaller residual, as flint does."""
    from certdp.verifier.check_iv import check as check_iv

    assert check_iv(one_step[1]) == (True, None)
    mu = Fraction(one_step[1]["claim"]["mu"])
    for field, value in (("mu", str(mu * Fraction(99, 100))), ("residual", "1e-30")):
        bad = copy.deepcopy(one_step[1])
        bad["claim"][field] = value
        assert not check(bad).valid and not check_iv(bad)[0], field


def test_schema(one_step, paper):
    jsonschema = required("jsonschema")
    import pathlib

    schema = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())
    for doc in (one_step[1], paper[1]):
        jsonschema.validate(doc, schema)
    bad = copy.deepcopy(paper[1])
    bad["claim"]["mu"] = 1.6  # a JSON float
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_cli_dpsgd_mu_certificate(tmp_path):
    f = tmp_path / "c.json"
    run = [sys.executable, "-m", "certdp"]
    out = subprocess.run(run + ["dpsgd", "--noise", "1", "--sample-rate", "1/2", "--steps", "3", "--delta", "1e-5",
                                "--mu", "--no-regret", "--certificate", str(f), "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(f.read_text())
    assert doc["claim"]["kind"] == "gdp_except"
    out = subprocess.run(run + ["verify", str(f)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("VALID")
    # full batch: exactly sqrt(T)/sigma-GDP, strict (kind gdp_exact)
    out = subprocess.run(run + ["dpsgd", "--noise", "2", "--sample-rate", "1", "--steps", "16", "--delta", "1e-5",
                                "--mu", "--certificate", str(f), "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(f.read_text())
    assert doc["claim"]["kind"] == "gdp_exact" and Fraction(doc["claim"]["mu"]) == 2
    assert subprocess.run(run + ["verify", str(f)], capture_output=True, text=True).returncode == 0
