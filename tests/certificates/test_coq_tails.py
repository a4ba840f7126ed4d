"""Deep Gaussian tails under the Coq kernel (issue 40): δ_μ(ε) for gaussian_dp(mu=6) at
ε = 100 and 200 (≈ 2.4e-43 and 3.4e-203) is out of reach of Φ = 1/2 + ∫₀ˣ φ (the two
terms cancel); the script proves it from the library's Mills-ratio bounds
(``delta_mu_tail``, Gordon 1941) and one ``interval`` goal.

Truth: mpmath at 60 digits.  The translation tests run everywhere; those that run
coqc skip where it is missing (and fail under CERTDP_REQUIRE_COQ=1)."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main
from certdp.verifier.coq.terms import Unsupported
from certdp.verifier.coq.translate import translate
from tests.certificates.test_coq_kernel import require_coq


def _doc(kind: str, eps: str, delta: str) -> dict:
    """A dp / not_dp certificate on gaussian_dp(mu=6), as the seeds' audit writes it (the Coq
    kernel reads the claim only)."""
    return {"format": "certdp-certificate", "version": 1, "claim": {"kind": kind, "eps": eps, "delta": delta},
            "mechanism": "gaussian_dp(mu=6)", "evidence": {"delta_at_eps": {"lo": "0", "hi": "1"}},
            "precision": 128, "producer": "test"}


def _truth(eps: int) -> mpmath.mpf:
    with mpmath.workdps(60):
        a, b = mpmath.mpf(3) - mpmath.mpf(eps) / 6, -mpmath.mpf(3) - mpmath.mpf(eps) / 6
        return mpmath.ncdf(a) - mpmath.exp(eps) * mpmath.ncdf(b)


E43, E202 = "1/" + "1" + "0" * 43, "1/" + "1" + "0" * 202


def test_the_seed_values_sit_where_the_claims_say():
    """The claims below are decided by the truth (so the tests can fail): δ(100) ≈ 2.43e-43,
    δ(200) ≈ 3.44e-203; the two-term Mills bounds are within 2 % of them."""
    assert 1e-43 < _truth(100) < 1e-42 and _truth(200) < mpmath.mpf(10) ** -202
    assert abs(_truth(100) / mpmath.mpf("2.434423113573662e-43") - 1) < 1e-12


def test_a_deep_tail_becomes_the_mills_lemma_and_one_interval_goal():
    text = translate(_doc("not_dp", "100", E43)).text
    assert "delta_mu_tail (6) (100)" in text
    assert "RInt" not in text and "integral_intro" not in text  # no cancelling Φ integral
    code = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    assert not re.search(r"\d\.\d|\de-?\d", code)  # exact rationals only
    assert "Theorem certdp_claim : (1 / 1" + "0" * 43 + ") < prof (100)." in text


def test_a_true_claim_the_mills_bounds_cannot_decide_is_refused_with_the_reason():
    # δ(100) = 2.4344e-43 <= 2.44e-43 holds, but the Mills upper bound is 2.477e-43
    assert _truth(100) < mpmath.mpf("2.44e-43")
    with pytest.raises(Unsupported, match="Mills-ratio"):
        translate(_doc("dp", "100", "244/" + "1" + "0" * 45))


def test_outside_the_tail_a_claim_too_close_for_the_integrals_stays_refused():
    # ε/μ <= μ/2 (ε <= 18) is not the tail; a claim within 1e-85 of δ_6(18) needs > 240 bits
    with mpmath.workdps(120):
        a = mpmath.ncdf(0) - mpmath.exp(18) * mpmath.ncdf(-6)
        up = int(mpmath.ceil(a * mpmath.mpf(10) ** 85))
    with pytest.raises(Unsupported, match="not in the tail"):
        translate(_doc("dp", "18", f"{up}/1{'0' * 85}"))


@pytest.mark.slow
@pytest.mark.soundness
@pytest.mark.parametrize("kind, eps, delta, valid", [
    ("not_dp", "100", E43, True),                         # δ(100) = 2.43e-43 > 1e-43
    ("dp", "100", "1/" + "1" + "0" * 42, True),            # <= 1e-42
    ("dp", "200", E202, True),                             # 3.44e-203 <= 1e-202
    ("not_dp", "100", "3/" + "1" + "0" * 43, False),       # a changed digit: 3e-43 > δ
    ("dp", "100", "2/" + "1" + "0" * 43, False),           # 2e-43 < δ
    ("dp", "200", "3/" + "1" + "0" * 203, False),          # 3e-203 < 3.44e-203
])
def test_deep_tails_under_coqc(kind, eps, delta, valid, tmp_path, capsys):
    require_coq()
    truth = _truth(int(eps))
    d = mpmath.mpf(Fraction(delta).numerator) / Fraction(delta).denominator
    assert (truth <= d if kind == "dp" else truth > d) == valid  # the expectation is the truth's
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_doc(kind, eps, delta)))
    code = main(["verify", str(path), "--kernel", "coq"])
    out = capsys.readouterr().out
    assert code == (0 if valid else 1), out
    assert out.startswith("VALID" if valid else "INVALID")


@pytest.mark.slow
@pytest.mark.soundness
def test_no_false_deep_tail_claim_is_valid(tmp_path):
    """A tamper campaign on the Mills route: δ scaled by factors near and far from 1 around
    the truth δ_6(100) = 2.4344e-43 (mpmath); a false claim is never VALID (INVALID, or
    refused when the Mills bounds cannot decide), and the clear true claims are VALID."""
    from certdp.verifier.coq.run import verify as verify_with_coq

    truth = Fraction(mpmath.nstr(_truth(100), 30))
    counts = {"false": 0, "false_valid": 0, "true_valid": 0}
    for kind in ("dp", "not_dp"):
        for factor in (Fraction(1, 2), Fraction(99, 100), Fraction(101, 100), Fraction(2)):
            delta = truth * factor
            path = tmp_path / f"{kind}-{factor.numerator}.json"
            path.write_text(json.dumps(_doc(kind, "100", str(delta))))
            holds = delta >= truth if kind == "dp" else delta < truth
            try:
                valid = verify_with_coq(str(path)).valid
            except Unsupported:
                valid = False  # refused (exit 2): never a pass
            counts["false"] += not holds
            counts["false_valid"] += valid and not holds
            counts["true_valid"] += valid and holds
            assert not (valid and not holds), (kind, factor)
    assert counts["false"] == 4 and counts["false_valid"] == 0 and counts["true_valid"] >= 2, counts
