"""The second verification kernel (issue 15): ``certdp verify --kernel mpmath``
re-checks closed-form certificates with mpmath.iv and certdp's own rigorous
erfc — agreeing with the flint kernel on true claims and refusing false ones."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import iv

from certdp.verifier import check_iv
from certdp.certificates.value_writer import value_certificate
from certdp.certificates.writer import dp_certificate, exact_gdp_certificate, not_gdp_document
from certdp.cli import main
from certdp.numerics import iv as kernel
from certdp.numerics.gdp import delta_mu, mu_from_eps_delta


def _ends(x):
    return mpmath.mpf(x.a._mpi_[0]), mpmath.mpf(x.b._mpi_[1])


@settings(max_examples=200, deadline=None)
@given(t=st.one_of(st.decimals(min_value=-40, max_value=40, places=6), st.sampled_from(["3", "-3", "0", "1e-30", "500"])))
def test_rigorous_erfc_contains_mpmath_at_high_precision(t):
    old = iv.prec
    iv.prec = 100  # mpmath.iv has no workprec: set and restore by hand
    try:
        with mpmath.workdps(60):
            lo, hi = _ends(kernel.erfc_point(mpmath.mpf(str(t))))
    finally:
        iv.prec = old
    with mpmath.workdps(60):
        truth = mpmath.erfc(mpmath.mpf(str(t)))
        assert lo <= truth <= hi
        assert hi - lo <= abs(truth) * mpmath.mpf(10) ** -20 + mpmath.mpf(10) ** -60


DOCS = {
    "dp": dp_certificate("dp", "gaussian(sigma=2, sensitivity=1)", "1", "0.0069", delta_mu("1/2", "1")),
    "not_dp": dp_certificate("not_dp", "laplace(scale=1/2, sensitivity=1)", "1", "0.39", delta_mu("1/2", "1")),
    "gdp_exact": exact_gdp_certificate("compose(gaussian(sigma=2, sensitivity=1), k=4)", "1", "1"),
    "not_gdp": not_gdp_document("laplace(scale=1/2, sensitivity=1)", Fraction(1), Fraction(1)),
    "value": value_certificate("mu_gdp", None, {"eps": "1", "delta": "1e-5"}, mu_from_eps_delta("1", "1e-5")),
    "value_delta": value_certificate("delta", "gaussian(sigma=2, sensitivity=1)", {"eps": "1"}, delta_mu("1/2", "1")),
}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_true_claims_are_valid_under_both_kernels(name, tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(DOCS[name]))
    assert main(["verify", str(path)]) == 0
    assert main(["verify", str(path), "--kernel", "mpmath"]) == 0
    assert capsys.readouterr().out.count("VALID") == 2


@pytest.mark.parametrize("name,field,value", [
    ("dp", "delta", "0.0068"), ("not_dp", "delta", "0.4"), ("gdp_exact", "mu", "0.99"),
    ("not_gdp", "mu", "2"), ("value", "lo", "0.2681"), ("value_delta", "lo", "0.00683"),
])
def test_false_claims_are_invalid_under_the_mpmath_kernel(name, field, value):
    """Each mutant is false by a closed form: δ_{1/2}(1) = 0.0068296, Laplace(1/2) δ(1) = 0.3935,
    √(4/4) = 1 > 0.99, Laplace(1/2) is 2-GDP (μ* ≈ 1.8009), μ_GDP(1, 1e-5) = 0.26805."""
    doc = copy.deepcopy(DOCS[name])
    doc["claim"][field] = value
    if name.startswith("value"):  # keep lo <= hi: the interval moves past the truth
        doc["claim"]["hi"] = "0.27" if name == "value" else "0.007"
    ok, step = check_iv.check(doc)
    assert not ok and step


def test_heterogeneous_compositions_are_rederived_in_intervals():
    """Evidence pld_items (compose_all) is re-derived by the mpmath kernel too
    (verifier/check_profile_pld_iv.py), no longer refused: the true claim VALID, a false one INVALID."""
    import copy

    from certdp.certificates.writer import composition_certificate
    from certdp.mechanisms.spec import parse_spec
    from certdp.numerics.enclosure import Enclosure

    # (DP-SGD's pld evidence is re-derived in intervals: tests/certificates/test_pld_mpmath_kernel.py)
    doc = composition_certificate([(parse_spec("laplace(scale=1)"), 1), (parse_spec("pure_dp(eps=1)"), 1)],
                                  eps="1", delta_hi=Enclosure.exact(Fraction(2876492, 10**7)))
    assert "pld_items" in doc["evidence"]
    assert check_iv.check(doc) == (True, None)
    bad = copy.deepcopy(doc)
    bad["claim"]["delta"] = "0.2"  # below the composition's δ(1) >= 0.2876...
    ok, step = check_iv.check(bad)
    assert not ok and "does not prove" in step
