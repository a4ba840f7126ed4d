"""The mpmath kernel (issue #15 part 4): second-order GDP cells and adp_not_prdp
certificates are re-checked with mpmath intervals, never python-flint; the
binomial profile of pure-DP compositions too; PLD kinds say they need flint."""

from __future__ import annotations

import copy
import json
import sys
from fractions import Fraction

import pytest

from certdp.analyses.gdpt import measure
from certdp.analyses.prdp.constructions import theorem_3_2, theorem_3_3
from certdp.verifier.check_iv import check as check_iv
from certdp.verifier.checker import check
from certdp.certificates.prdp_writer import counterexample_certificate
from certdp.certificates.writer import envelope, measurement_certificate
from certdp.mechanisms.spec import parse_spec

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from test_prdp_certificate import _mutations, claim_true_diagonal  # noqa: E402


def _needs_second_order(doc: dict) -> bool:
    """Does the flint checker need the second-order test on some cell?  (first order alone fails)"""
    from certdp.verifier import check_gdp

    saved = check_gdp._functions_for_spec
    check_gdp._functions_for_spec = lambda spec: None  # first order only
    try:
        return not check(doc).valid
    finally:
        check_gdp._functions_for_spec = saved


@pytest.fixture(scope="module")
def laplace_doc():
    # Laplace: the optimal mu is attained at eps = 0, which needs the second-order test
    return measurement_certificate(measure(parse_spec("laplace(scale=1/2)")))


def test_second_order_cells_valid_under_mpmath(laplace_doc):
    assert _needs_second_order(laplace_doc)
    assert check(laplace_doc).valid
    assert check_iv(laplace_doc) == (True, None)


@pytest.mark.parametrize("scale", [Fraction(999999, 1000000), Fraction(99, 100), Fraction(1, 2)])
def test_second_order_false_mutants_invalid(laplace_doc, scale):
    # the Laplace(1/2) mechanism's optimal mu is ~1.8009061 (the claim's upper end, width 1e-6):
    # any mu below the certified lower end mu_lower is false
    bad = copy.deepcopy(laplace_doc)
    mu = Fraction(laplace_doc["claim"]["mu_lower"]) * scale
    bad["claim"]["mu"] = f"{mu.numerator}/{mu.denominator}"
    bad["claim"].pop("mu_lower")
    bad["evidence"].pop("witness")
    ok, step = check_iv(bad)
    assert not ok and step
    assert not check(bad).valid


def test_cells_moved_are_invalid_under_mpmath(laplace_doc):
    bad = copy.deepcopy(laplace_doc)
    cells = bad["evidence"]["cells"]
    bad["evidence"]["cells"] = [cells[0], cells[-1]]  # one huge cell: neither test proves it
    assert check_iv(bad)[0] is False


@pytest.fixture(scope="module")
def prdp_docs():
    return {
        "wide": counterexample_certificate(theorem_3_2("0.5", "0.01", "1")),
        "seed": counterexample_certificate(theorem_3_2("0.5", "0.01", "1", choice="seed")),
        "thm33": counterexample_certificate(theorem_3_3("0.5", "0.25", "0.7", "x**2")),
        "thm33_irrational": counterexample_certificate(theorem_3_3("0.5", "0.25", "0.3", "sqrt(x)/10")),
    }


@pytest.mark.parametrize("name", ["wide", "seed", "thm33", "thm33_irrational"])
def test_prdp_valid_under_mpmath(prdp_docs, name):
    assert check_iv(json.loads(json.dumps(prdp_docs[name]))) == (True, None)


@pytest.mark.parametrize("name", ["wide", "seed"])
def test_prdp_mutants_agree_and_none_false_is_valid(prdp_docs, name):
    import mpmath

    base = prdp_docs[name]
    n_invalid = 0
    with mpmath.workdps(80):
        for label, path, value in _mutations(base):
            doc = copy.deepcopy(base)
            if path is None:
                doc["mechanism"]["p"], doc["mechanism"]["q"] = value
            else:
                doc[path[0]][path[1]] = value
            ok, step = check_iv(doc)
            if ok:
                assert claim_true_diagonal(doc), f"{label}: the mpmath kernel accepted a false claim"
            n_invalid += not ok
            assert ok == check(doc).valid, label  # both kernels decide these the same way
    assert n_invalid >= 8


def test_prdp_mpmath_kernel_uses_no_flint(prdp_docs, monkeypatch):
    import certdp.verifier.check_prdp as cp

    def boom(*a, **k):
        raise AssertionError("flint used under the mpmath kernel")

    monkeypatch.setattr(cp, "to_ball", boom)
    assert check_iv(prdp_docs["thm33_irrational"]) == (True, None)


def test_binomial_composition_under_mpmath():
    doc = envelope({"kind": "dp", "eps": "2.12", "delta": "0.0995"}, "compose(pure_dp(eps=0.2), k=50)", {}, 128)
    assert check_iv(doc) == (True, None)
    doc["claim"]["delta"] = "0.0994"  # delta(2.12) = 0.0994856... (Kairouz et al.; mpmath in test_refutation_certificates)
    assert check_iv(doc)[0] is False
    doc["claim"]["kind"] = "not_dp"
    assert check_iv(doc) == (True, None)
