"""Certificates of heterogeneous compositions (issue 15: `certdp account` with several
mechanisms): kind ``dp`` for ``compose_all(M1, ..., Mn)`` with evidence ``pld_items``.

Truth: compositions of Gaussians are exactly μ-GDP with μ² = Σ k_j/σ_j² (Dong, Roth &
Su 2022, Cor. 2), δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) evaluated by mpmath at 40
digits — independent of certdp's arithmetic."""

from __future__ import annotations

import copy
import json
import pathlib
from fractions import Fraction

import mpmath
import pytest

from certdp.verifier.check_iv import check as check_iv
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate
from certdp.certificates.writer import composition_certificate
from certdp.cli import main
from certdp.mechanisms.spec import parse_spec

from refs import mp_digits  # noqa: E402
from required import required

#: 40 digits for this module's mpmath references, restored at the end of the
#: module (a module-level assignment leaked into every later test module).
_mpmath_precision = pytest.fixture(autouse=True, scope="module")(mp_digits(40))


def _delta_gauss(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _mp(text: str) -> mpmath.mpf:
    q = Fraction(text)
    return mpmath.mpf(q.numerator) / q.denominator


@pytest.fixture(scope="module")
def gaussian_doc() -> dict:
    # gaussian(sigma=2) x 3 and gaussian_dp(mu=1/2) x 2: together exactly sqrt(3/4 + 2/4)-GDP
    from certdp.numerics.enclosure import Enclosure
    from certdp.numerics.exact import parse_decimal

    items = [(parse_spec("gaussian(sigma=2)"), 3), (parse_spec("gaussian_dp(mu=1/2)"), 2)]
    # the answer's upper end: the true δ (30 digits) -- the certificate claims what its evidence proves
    truth = _delta_gauss(mpmath.sqrt(mpmath.mpf(5) / 4), mpmath.mpf(1))
    return composition_certificate(items, eps="1", delta_hi=Enclosure.exact(parse_decimal(mpmath.nstr(truth, 30))))


def test_gaussian_composition_certificate_is_valid_and_true(gaussian_doc):
    doc = gaussian_doc
    assert doc["mechanism"].startswith("compose_all(") and set(doc["evidence"]) == {"pld_items"}
    knots = doc["evidence"]["pld_items"]["knots"]
    # gaussian(sigma=2) and gaussian_dp(mu=1/2) both take the Gaussian-mixture path (knots
    # null): the checker reads gaussian_dp(μ) as the Gaussian pair with σ/Δ = 1/μ (the
    # profile-pair path is exercised by the mixed compositions with Laplace and pure DP)
    assert knots[0] is None and knots[1] is None
    assert check(doc).unconditional
    truth = _delta_gauss(mpmath.sqrt(mpmath.mpf(5) / 4), _mp(doc["claim"]["eps"]))
    claimed = _mp(doc["claim"]["delta"])
    assert truth <= claimed <= truth * (1 + mpmath.mpf(10) ** -4)  # true, and tight


@pytest.mark.parametrize("factor", ["0.5", "0.99", "0.9999", "1.0001", "1.01", "2"])
def test_no_false_composition_claim_is_valid(gaussian_doc, factor):
    m = copy.deepcopy(gaussian_doc)
    m["claim"]["delta"] = str(Fraction(m["claim"]["delta"]) * Fraction(factor))
    truth = _delta_gauss(mpmath.sqrt(mpmath.mpf(5) / 4), _mp(m["claim"]["eps"]))
    res = check(m)
    if Fraction(factor) < 1:
        # the certified claim lies within 1e-4 above the truth (test above), so every
        # factor below 1 here (at most 0.9999) makes it false: never VALID
        assert _mp(m["claim"]["delta"]) < truth and not res.valid
    else:
        assert _mp(m["claim"]["delta"]) >= truth and res.valid  # weaker than a VALID claim: still proved


@pytest.mark.parametrize("spec, mu2", [
    ("compose_all(compose(gaussian(sigma=3/2, sensitivity=1), k=3), compose(gaussian_dp(mu=0.5), k=2))",
     Fraction(3) * Fraction(4, 9) + Fraction(2, 4)),
    ("compose_all(compose(gaussian(sigma=2, sensitivity=1), k=4), compose(gaussian_dp(mu=0.5), k=2))",
     Fraction(4, 4) + Fraction(2, 4)),
    ("compose_all(compose(gaussian(sigma=2, sensitivity=1), k=3), compose(gaussian_dp(mu=0.6), k=2))",
     Fraction(3, 4) + 2 * Fraction(36, 100)),
])
def test_a_stronger_mechanism_makes_the_claim_false_and_invalid(gaussian_doc, spec, mu2):
    m = copy.deepcopy(gaussian_doc)
    m["mechanism"] = spec
    truth = _delta_gauss(mpmath.sqrt(_mp(str(mu2))), _mp(m["claim"]["eps"]))
    assert truth > _mp(m["claim"]["delta"])  # the claim is false for this mechanism
    assert not check(m).valid


def test_the_issue_example_through_the_cli(tmp_path, capsys):
    path = tmp_path / "h.json"
    assert main(["account", "--mechanism", "subsample(gaussian(sigma=1), rate=1/10)", "--times", "10",
                 "--mechanism", "laplace(scale=1)", "--eps", "1", "--certificate", str(path), "--json",
                 "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    doc = json.loads(path.read_text())
    assert out["certificate"]["weaker_than_answer"] is False
    assert Fraction(doc["claim"]["delta"]) >= Fraction(out["delta"]["lo"])
    assert main(["verify", str(path)]) == 0
    assert check_iv(doc) == (True, None)  # pld_items re-derived in intervals too (check_profile_pld_iv)
    jsonschema = required("jsonschema")
    schema = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(doc))


@pytest.mark.parametrize("mutate", [
    lambda d: d["evidence"]["pld_items"].__setitem__("knots", [None]),           # one entry per item
    lambda d: d["evidence"]["pld_items"].__setitem__("knots", [None, [1, 2]]),   # knots start at 0
    lambda d: d["evidence"]["pld_items"].__setitem__("z", "1e5"),
    lambda d: d["evidence"]["pld_items"].__setitem__("bits", 4),
    lambda d: d.__setitem__("mechanism", "compose_all(laplace(scale=1))"),      # one item
    lambda d: d.__setitem__("mechanism", "compose_all(laplace(scale=1), k=2)"),
    lambda d: d["claim"].__setitem__("kind", "not_dp"),
])
def test_malformed_composition_certificates(gaussian_doc, mutate):
    m = copy.deepcopy(gaussian_doc)
    mutate(m)
    with pytest.raises(MalformedCertificate):
        check(m)


def _pure_dp_truth(eps0s: list[Fraction], eps: Fraction) -> mpmath.mpf:
    """δ(ε) of the composition of the (ε0_i, 0)-DP worst-case pairs (randomized response,
    Kairouz, Oh & Viswanath 2015): E_P[(1 − e^{ε−L})⁺] over the 2^n sign patterns."""
    import itertools

    total = mpmath.mpf(0)
    for signs in itertools.product((1, -1), repeat=len(eps0s)):
        p, loss = mpmath.mpf(1), mpmath.mpf(0)
        for s, e0 in zip(signs, eps0s):
            e = _mp(str(e0))
            p *= (mpmath.exp(e) if s > 0 else 1) / (1 + mpmath.exp(e))
            loss += s * e
        total += p * max(0, 1 - mpmath.exp(_mp(str(eps)) - loss))
    return total


def test_pure_dp_items_are_exact_atoms_against_enumeration():
    from certdp.numerics.enclosure import Enclosure

    items = [(parse_spec("pure_dp(eps=1/2)"), 3), (parse_spec("pure_dp(eps=1)"), 2), (parse_spec("laplace(scale=4)"), 1)]
    truth_pure = _pure_dp_truth([Fraction(1, 2)] * 3 + [Fraction(1)] * 2, Fraction(1))
    doc = composition_certificate(items[:2], eps="1", delta_hi=Enclosure.exact(Fraction(mpmath.nstr(truth_pure, 30))))
    assert doc["evidence"]["pld_items"]["knots"] == ["atoms", "atoms"]
    assert check(doc).unconditional
    claimed = _mp(doc["claim"]["delta"])
    assert truth_pure <= claimed <= truth_pure * (1 + mpmath.mpf(10) ** -9)  # exact grid: masses rounding only
    bad = copy.deepcopy(doc)
    bad["claim"]["delta"] = mpmath.nstr(truth_pure * (1 - mpmath.mpf(10) ** -6), 20)  # false
    assert not check(bad).valid
    # with a Laplace item too (a profile pair): still a valid certificate, above the pure part alone
    doc3 = composition_certificate(items, eps="1", delta_hi=Enclosure.exact(Fraction(1, 2)))
    assert check(doc3).valid and _mp(doc3["claim"]["delta"]) > truth_pure


@pytest.mark.slow  # about 4 minutes: the composition at τ ~ 1e-30 on the engine's grid
def test_a_tiny_delta_is_certified_with_the_truncation_it_needs():
    # δ far below the default truncation τ = 1e-14 (Abadi et al. 2016's printed δ at ε 2 and 4:
    # 1e-46 and below): the evidence takes the engine's smaller τ (its bits follow, and a
    # profile-pair item is sampled that far down), else no claim near the truth is provable.
    # Truth: the composition is exactly μ-GDP, μ² = 3/4 + 2/4.
    from certdp.numerics.enclosure import Enclosure
    from certdp.numerics.exact import parse_decimal

    items = [(parse_spec("gaussian(sigma=2)"), 3), (parse_spec("gaussian_dp(mu=1/2)"), 2)]
    truth = _delta_gauss(mpmath.sqrt(mpmath.mpf(5) / 4), mpmath.mpf(12))
    assert truth < mpmath.mpf(10) ** -16
    doc = composition_certificate(items, eps="12", delta_hi=Enclosure.exact(parse_decimal(mpmath.nstr(truth, 30))))
    assert Fraction(doc["evidence"]["pld_items"]["tau"]) < Fraction(1, 10**16)
    claimed = _mp(doc["claim"]["delta"])
    assert truth <= claimed <= truth * (1 + mpmath.mpf(10) ** -3)  # true, and tight
    assert check(doc).unconditional
    false = copy.deepcopy(doc)
    false["claim"]["delta"] = mpmath.nstr(claimed * mpmath.mpf("0.9"), 12)
    assert not check(false).valid
