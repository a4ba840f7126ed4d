"""The strict μ (η = 0) of bounded-loss compositions (issue 34, defect 6) against
independent truth: the exact binomial profile of k-fold ε₀-DP / randomized response in
mpmath (tests/refs.py), its GDPT scanned densely and refined around the maximum."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import gdp_of
from certdp.analyses.strict_gdp import binomial_ball, exact_profile, pure_dp_bound, strict_measure
from certdp.certificates import check
from certdp.certificates.writer import gdp_certificate
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from refs import _to_mpf, in_enclosure, mp_binomial_delta, mp_digits, mp_mu_gdp, mp_sup_scan, mpq

_mpmath_precision = pytest.fixture(autouse=True)(mp_digits(30))

CASES = [
    # spec, k, reference keyword, T (δ = 0 from T on)
    ("compose(pure_dp(eps=1/5), k=50)", 50, {"eps0": "1/5"}, 10),
    ("compose(randomized_response(p=3/5), k=10)", 10, {"p": "3/5"}, 4),
    ("compose(pure_dp(eps=1/2), k=4)", 4, {"eps0": "1/2"}, 2),
]


def _mp(x) -> mpmath.mpf:
    return mpq(Fraction(x))


@pytest.mark.parametrize("spec,k,kw,T", CASES)
def test_strict_mu_contains_the_dense_scan_of_the_exact_profile(spec, k, kw, T):
    ans = gdp_of(parse_spec(spec))
    m = ans.measurement
    assert m is not None and ans.residual is None and m.tail.kind == "zero"  # strict: η = 0
    lo, hi = _mp(m.mu_lower), _mp(m.mu_upper)
    assert hi - lo <= mpmath.mpf("1e-6")  # narrow (the default width)
    delta = lambda e: mp_binomial_delta(k, e, **kw)  # noqa: E731
    scan, at = mp_sup_scan(delta, 0, T, 40, refine=36, bracket=(0, 10))
    # the scan is G at points: a lower bound of sup G, so it must be <= μ⁺; refined at the
    # maximiser it is within 1e-9 of sup G, so μ⁻ <= scan unless μ⁻ is wrong
    assert lo <= scan + mpmath.mpf("1e-12") and scan <= hi, (m.mu, scan, at)
    # the lower end's witness, recomputed independently
    w = m.witness_eps
    assert w is not None and lo <= mp_mu_gdp(_mp(w), delta(_mp(w))) + mpmath.mpf("1e-20")
    assert check(gdp_certificate(ans)).valid  # re-verified by the checker's own binomial profile


def test_the_relaxed_upper_end_is_not_a_strict_parameter():
    """Issue 34: the accountant's "μ-GDP except 1e-10" upper end 1.420079176 is below the
    strict μ: the exact δ exceeds its δ_μ at ε ≈ 0.2006578, and the new lower end says so."""
    m = strict_measure(parse_spec("compose(pure_dp(eps=1/5), k=50)"), width="1e-6")
    relaxed = mpmath.mpf("1.420079176")
    e = mpmath.mpf("0.2006578")
    with mpmath.workdps(40):
        from refs import mp_delta_mu

        assert mp_binomial_delta(50, e, eps0="1/5") > mp_delta_mu(relaxed, e)
    assert _mp(m.mu_lower) > relaxed


@pytest.mark.parametrize("spec,k,kw,T", CASES[1:])
def test_certificate_is_rechecked_and_a_smaller_mu_is_refused(spec, k, kw, T):
    ans = gdp_of(parse_spec(spec))
    doc = gdp_certificate(ans)
    assert doc["claim"]["kind"] == "gdp" and doc["evidence"]["tail"]["kind"] == "zero"
    assert "residual" not in doc["claim"]
    assert check(doc).valid
    # a μ below the strict one: some cell fails (the checker's own binomial profile)
    bad = json.loads(json.dumps(doc))
    bad["claim"]["mu"] = format(float(ans.measurement.mu_lower) - 1e-5, ".12f")
    del bad["claim"]["mu_lower"]
    assert not check(bad).valid
    # a lower end above the truth: the witness fails
    bad = json.loads(json.dumps(doc))
    bad["claim"]["mu_lower"] = format(float(ans.measurement.mu_upper) + 1e-5, ".12f")
    assert not check(bad).valid


@pytest.mark.parametrize("eps", ["0", "1/7", "0.2006578", "1", "3.9", "10", "11"])
def test_binomial_ball_matches_mpmath(eps):
    mech = parse_spec("pure_dp(eps=1/5)")
    with working_precision(128):
        y = binomial_ball(mech, 50, to_ball(Fraction(eps)))
        enc = Enclosure.from_ball(y)
    with mpmath.workdps(60):
        truth = mp_binomial_delta(50, Fraction(eps), eps0="1/5")
        assert in_enclosure(enc, truth)
        if truth == 0:
            assert y.is_zero()  # δ = 0 from kε₀ = 10 on, decided exactly
        else:
            assert _to_mpf(enc.hi) - _to_mpf(enc.lo) <= truth * mpmath.mpf("1e-25")


def test_subsampled_and_randomized_response_profiles_match_mpmath():
    fn = exact_profile(parse_spec("subsample(compose(randomized_response(p=3/5), k=10), rate=1/4)"))
    for eps in ["0", "1/3", "2"]:
        with working_precision(128):
            enc = Enclosure.from_ball(fn(to_ball(Fraction(eps))))
        with mpmath.workdps(60):
            e = _mp(eps)
            truth = mpmath.mpf(1) / 4 * mp_binomial_delta(10, mpmath.log(1 + (mpmath.exp(e) - 1) * 4), p="3/5")
            assert in_enclosure(enc, truth)
            assert _to_mpf(enc.hi) - _to_mpf(enc.lo) <= truth * mpmath.mpf("1e-25")


def test_randomized_response_vanishes_just_above_its_loss():
    m = parse_spec("randomized_response(p=3/5)")
    t = m.vanishes_from()
    ell = mpmath.log(mpmath.mpf(3) / 2)
    assert ell < _mp(t) <= ell + mpmath.mpf(2) ** -30
    assert parse_spec("randomized_response(p=1/2)").vanishes_from() == 0


def test_other_bounded_loss_compositions_state_a_proved_strict_bound():
    """compose(laplace, k) has no binomial profile: the accountant's residual report, with
    the strict bound of kε₀-DP (Liu et al. 2022 Thm 5.1), not "may be much larger"."""
    ans = gdp_of(parse_spec("compose(laplace(scale=1), k=3)"))
    assert ans.residual is not None and ans.measurement is None
    t, bound = ans.strict_mu_at_most
    with mpmath.workdps(40):
        truth = -2 * mpmath.sqrt(2) * mpmath.erfinv(2 / (1 + mpmath.exp(3)) - 1)
    assert t == 3 and bound.contains(truth) and float(bound.width) < 1e-12
    assert pure_dp_bound(parse_spec("gaussian(sigma=1)")) is None
    out = subprocess.run([sys.executable, "-m", "certdp", "measure", "compose(laplace(scale=1), k=3)"],
                         capture_output=True, text=True, check=False).stdout
    assert "may be much larger" not in out and "strict GDP parameter (η = 0) <= 3.34068" in out


def test_an_allowed_residual_keeps_the_accountant_report():
    """With a residual allowed (audit claims "μ-GDP except η"), the report is μ*(η), whose
    lower end refutes such claims; the strict route answers only strict questions."""
    ans = gdp_of(parse_spec("compose(pure_dp(eps=1/5), k=50)"), residual=Fraction(1, 10**10))
    assert ans.measurement is None and ans.residual is not None


def test_readme_output_is_what_measure_prints(capsys):
    """The README shows `certdp measure "compose(pure_dp(eps=1/5), k=50)"` and its μ line."""
    import pathlib

    from certdp.cli import main

    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    shown = readme.split('certdp measure "compose(pure_dp(eps=1/5), k=50)"')[1].splitlines()[1]
    assert main(["measure", "compose(pure_dp(eps=1/5), k=50)"]) == 0
    out = capsys.readouterr().out
    assert shown in out.splitlines() and "tail: zero" in out and "may be much larger" not in out


def test_large_k_keeps_the_accountant_report_with_the_strict_bound():
    """k above STRICT_MAX_K: the first-order cover would take minutes; the accountant answers,
    and the strict parameter gets the proved kε₀-DP bound (Liu et al. 2022 Thm 5.1)."""
    mech = parse_spec("compose(pure_dp(eps=1/100), k=1000)")
    assert strict_measure(mech, width="1e-6") is None and exact_profile(mech) is not None
    ans = gdp_of(mech)
    assert ans.measurement is None and ans.strict_mu_at_most[0] == 10


def test_audit_refutes_the_relaxed_end_as_a_strict_claim_with_a_checked_certificate():
    """A strict claim μ = 1.420079176 (the accountant's relaxed upper end) is REFUTED by the
    measurement's witness (before: INCONCLUSIVE), and its not_gdp certificate verifies; a
    claim allowing the residual 1e-10 still gets the accountant's μ*(η) answer."""
    from certdp.audit import audit_claim, parse_claims

    claims = parse_claims('''
[[claim]]
id = "strict"
kind = "gdp"
mechanism = "compose(pure_dp(eps=1/5), k=50)"
mu = "1.420079176"

[[claim]]
id = "except"
kind = "gdp"
mechanism = "compose(pure_dp(eps=1/5), k=50)"
mu = "1.4200792"
residual = "1e-10"
''')
    strict = audit_claim(claims[0], want_certificate=True)
    assert strict.verdict == "REFUTED" and strict.certificate["claim"]["kind"] == "not_gdp"
    assert check(strict.certificate).valid
    assert audit_claim(claims[1]).verdict == "CONFIRMED"
