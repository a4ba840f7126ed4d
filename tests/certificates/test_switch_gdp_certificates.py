"""GDP certificates of the refined profiles of sgd(...) and icea(...) (issue 36):
``certdp measure "sgd(A=2, B=1, sigma=2)" --certificate`` writes a ``gdp_head``
certificate whose evidence brackets the switch point; the checker re-proves the
bracket (:mod:`certdp.verifier.switch`) and bounds the refined profile from it.

Truth is independent of certdp: mpmath at 40 digits finds the switch point ε* of
q(x) = (1 − e^{−x²})/(1 + eˣ) (Liu et al. 2022 App. B, seed 000: ε* ≈ 1.18785), so the
refined profile at 0 is δ(0) = 1 − 2q(ε*) and the GDPT there is
G(0) = 2Φ⁻¹((1 + δ(0))/2) (δ_μ(0) = 2Φ(μ/2) − 1)."""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.gdpt import measure
from certdp.certificates.writer import measurement_certificate, not_gdp_document
from certdp.mechanisms.spec import parse_spec
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate

from refs import mp_digits  # noqa: E402

_mpmath_precision = pytest.fixture(autouse=True, scope="module")(mp_digits(40))


@pytest.fixture(scope="module")
def sgd_doc():
    return measurement_certificate(measure(parse_spec("sgd(A=2, B=1, sigma=2)")))


def _mu_at_zero() -> mpmath.mpf:
    def q(x):
        return (1 - mpmath.exp(-x * x)) / (1 + mpmath.exp(x))

    star = mpmath.findroot(lambda x: mpmath.diff(q, x), 1.19)
    d0 = 1 - 2 * q(star)
    return 2 * mpmath.sqrt(2) * mpmath.erfinv(d0)  # 2Φ⁻¹((1 + d0)/2)


def test_sgd_measure_certificate_is_valid_and_tight(sgd_doc):
    assert check(sgd_doc).valid, check(sgd_doc)
    assert sgd_doc["claim"]["kind"] == "gdp_head" and "switch" in sgd_doc["evidence"]
    lo, hi = mpmath.mpf(sgd_doc["claim"]["mu_lower"]), mpmath.mpf(sgd_doc["claim"]["mu"])
    truth = _mu_at_zero()  # a lower bound of sup G; the measurement's witness is ε = 0
    assert lo <= truth <= hi
    assert hi - lo < 1e-5


@pytest.mark.parametrize("field,value", [("mu", "1.85635"), ("mu_lower", "1.85637"),
                                         ("residual", "9.8e-31"), ("eps_max", "8")])
def test_false_claims_are_invalid(sgd_doc, field, value):
    doc = copy.deepcopy(sgd_doc)
    doc["claim"][field] = value
    assert not check(doc).valid


@pytest.mark.parametrize("bracket", [["1.1", "1.18"], ["1.19", "1.3"], ["0", "0.5"], ["1", "1.5"]])
def test_a_wrong_bracket_is_invalid(sgd_doc, bracket):
    # false brackets fail the switch proof; the true but wide [1, 1.5] leaves the cells unproved
    doc = copy.deepcopy(sgd_doc)
    doc["evidence"]["switch"]["bracket"] = bracket
    r = check(doc)
    assert not r.valid and ("switch point" in r.failed_step) == (bracket != ["1", "1.5"])


def test_switch_evidence_must_match_the_mechanism(sgd_doc):
    doc = copy.deepcopy(sgd_doc)
    del doc["evidence"]["switch"]
    with pytest.raises(MalformedCertificate):
        check(doc)
    doc = copy.deepcopy(sgd_doc)
    doc["mechanism"] = "compose(sgd(A=2, B=1, sigma=2), k=2)"
    with pytest.raises(MalformedCertificate):
        check(doc)
    doc = copy.deepcopy(sgd_doc)
    doc["evidence"]["switch"]["tail"] = "1"  # tail below the bracket
    with pytest.raises(MalformedCertificate):
        check(doc)


def test_another_mechanism_is_invalid(sgd_doc):
    doc = copy.deepcopy(sgd_doc)
    doc["mechanism"] = "sgd(A=2, B=1, sigma=1.9)"  # less noise: larger μ
    assert not check(doc).valid


def test_icea_measure_certificate_is_valid():
    doc = measurement_certificate(measure(parse_spec("icea(m=20, n=4)")))
    assert check(doc).valid
    bad = copy.deepcopy(doc)
    bad["claim"]["mu"] = "13.638"
    assert not check(bad).valid


def test_not_gdp_of_sgd(sgd_doc):
    doc = not_gdp_document("sgd(A=2, B=1, sigma=2)", Fraction("1.8563"), Fraction(0))
    assert check(doc).valid
    doc["claim"]["mu"] = "1.8564"
    assert not check(doc).valid


def test_cli_measure_then_verify(tmp_path):
    out = tmp_path / "c.json"
    run = [sys.executable, "-c", "import sys; from certdp.cli import main; sys.exit(main())"]
    r = subprocess.run([*run, "measure", "sgd(A=2, B=1, sigma=2)", "--certificate", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*run, "verify", str(out)], capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr


def test_mpmath_kernel_agrees(sgd_doc):
    """The second kernel re-proves the switch point and the cells in mpmath intervals
    (:class:`certdp.verifier.switch_iv.RefinedIV`) and rejects the same false claims."""
    from certdp.verifier.check_iv import check as check_iv

    assert check_iv(sgd_doc) == (True, None)
    for field, value in (("mu", "1.85635"), ("mu_lower", "1.85637"), ("residual", "9.8e-31")):
        doc = copy.deepcopy(sgd_doc)
        doc["claim"][field] = value
        assert not check_iv(doc)[0], field
    doc = copy.deepcopy(sgd_doc)
    doc["evidence"]["switch"]["bracket"] = ["1.1", "1.18"]
    ok, step = check_iv(doc)
    assert not ok and "switch point" in step
