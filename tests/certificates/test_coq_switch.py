"""Switch points of sgd/icea refined profiles (Liu et al. 2022 App. B) under the Coq kernel
(issue 40): the seeds' certificates become a Coq theorem that every maximiser of
q(x) = (1 − min(1, δ̂(x)))/(1 + eˣ) on (0, ∞) lies in [lo, hi]; a changed digit or a moved
bracket makes coqc fail.  A noise refinement whose formula is outside the checker's grammar is
refused with the reason.

Truth: mpmath (50 digits) finds the root of S = δ̂'(1 + eˣ) + (1 − δ̂)eˣ.  The tests that run
coqc skip where it is missing (and fail under CERTDP_REQUIRE_COQ=1)."""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main
from certdp.verifier.coq.terms import Unsupported
from certdp.verifier.coq.translate import translate
from tests.certificates.test_coq_kernel import require_coq

BRACKET = ["24092437928538870778414575386623/20282409603651670423947251286016",
           "24092437928538870778415649128449/20282409603651670423947251286016"]
# the seeds' audit (seed000, Liu et al. 2022 App. B): sgd(A=2, B=1, sigma=2), δ̂ = e^{-x²}
SGD = {"format": "certdp-certificate", "version": 1,
       "claim": {"kind": "value", "quantity": "switch_eps", "at": {}, "lo": "1.187848899580513258330909",
                 "hi": "1.187848899580513258330963", "reported": "1.187", "rounding": "nearest",
                 "verdict": "REFUTED"},
       "mechanism": "sgd(A=2, B=1, sigma=2)", "evidence": {"bracket": BRACKET, "tail": "60"},
       "precision": 128, "producer": "certdp 0.1.0"}
# icea(m=20, n=4), δ̂ = 4e^{-2}/x
ICEA = {"format": "certdp-certificate", "version": 1,
        "claim": {"kind": "value", "quantity": "switch_delta", "at": {}, "lo": "0.4680424002222541857352523",
                  "hi": "0.4680424002222541857352738", "reported": "0.468", "rounding": "nearest",
                  "verdict": "CONFIRMED"},
        "mechanism": "icea(m=20, n=4)",
        "evidence": {"bracket": ["23458777641749886795609704235007/20282409603651670423947251286016",
                                 "23458777641749886795610777976833/20282409603651670423947251286016"],
                     "tail": "60"},
        "precision": 128, "producer": "certdp 0.1.0"}
REFINED = {"format": "certdp-certificate", "version": 1,
           "claim": {"kind": "value", "quantity": "refined_sigma", "at": {"eps": "1/5", "delta": "exp(-2)"},
                     "lo": "8.085717854354465238688163", "hi": "8.085717854354465238689809",
                     "formula": "-log(delta)/eps", "reported": "8.086", "rounding": "nearest", "verdict": "CONFIRMED"},
           "mechanism": None,
           "evidence": {"bracket": ["54177129801965762020311312390773/162259276829213363391578010288128",
                                    "54177129801965762020316820873181/162259276829213363391578010288128"]},
           "precision": 128, "producer": "certdp 0.1.0"}


def _root(naive, dnaive) -> mpmath.mpf:
    with mpmath.workdps(50):
        s = lambda x: dnaive(x) * (1 + mpmath.exp(x)) + (1 - naive(x)) * mpmath.exp(x)  # noqa: E731
        return mpmath.findroot(s, 1.2)


def test_the_seed_claims_hold_by_mpmath():
    """The claims below are true (so the coqc tests can tell VALID from INVALID)."""
    with mpmath.workdps(50):
        x = Fraction(mpmath.nstr(_root(lambda t: mpmath.exp(-t * t), lambda t: -2 * t * mpmath.exp(-t * t)), 45))
        k = 4 * mpmath.exp(-2)
        y = _root(lambda t: k / t, lambda t: -k / (t * t))
        dy = Fraction(mpmath.nstr(k / y, 45))
    assert Fraction(SGD["claim"]["lo"]) <= x <= Fraction(SGD["claim"]["hi"])
    assert Fraction(SGD["claim"]["hi"]) - Fraction(SGD["claim"]["lo"]) < Fraction(1, 10 ** 22)  # tight
    assert not Fraction("1.1865") <= x <= Fraction("1.1875")  # REFUTED: 1.187 is not it
    assert Fraction(ICEA["claim"]["lo"]) <= dy <= Fraction(ICEA["claim"]["hi"])


def test_a_switch_point_becomes_one_coq_theorem_over_cells():
    text = translate(SGD).text
    assert "switch_bracket" in text and "Definition dn : R -> R := (sgd_naive (1) (1))." in text
    assert text.count("switch_left_S") >= 10 and text.count("switch_right_S") >= 10
    assert ("Theorem certdp_claim : (exists x, 0 < x /\\ forall y, 0 < y -> switch_q dn y <= switch_q dn x) /\\ "
            "(forall x, 0 < x -> (forall y, 0 < y -> switch_q dn y <= switch_q dn x) -> "
            "x < (2373 / 2000) \\/ (19 / 16) < x).") in text  # REFUTED against [1.1865, 1.1875]
    code = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    assert not re.search(r"\d\.\d|\de-?\d", code)  # exact rationals only
    assert "icea_naive" in translate(ICEA).text


def test_a_refinement_outside_the_formula_grammar_is_refused_with_the_reason(tmp_path, capsys):
    # noise refinements are Coq theorems now (tests/certificates/test_coq_refine.py); a formula
    # only the safe parser reads (if, Piecewise, ...) is not printed to Coq
    doc = copy.deepcopy(REFINED)
    doc["claim"]["formula"] = "if(eps < 1, 1, 1)*-log(delta)/eps"
    doc["claim"]["assumptions"] = [
        "σ = if(eps < 1, 1, 1)*-log(delta)/eps is non-increasing in ε and in δ (bounds the cell at ε0_max; "
        "the monotonicity calculus could not prove it)"]
    with pytest.raises(Unsupported, match="grammar"):
        translate(doc)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    assert main(["verify", str(path), "--kernel", "coq"]) == 2
    err = capsys.readouterr().err
    assert "grammar" in err and err.count("\n") == 1


def _tampered(doc: dict, **claim) -> dict:
    out = copy.deepcopy(doc)
    out["claim"].update(claim)
    return out


def _moved(doc: dict, shift: Fraction) -> dict:
    out = copy.deepcopy(doc)
    out["evidence"]["bracket"] = [str(Fraction(b) + shift) for b in doc["evidence"]["bracket"]]
    for k in ("verdict", "reported", "rounding"):
        out["claim"].pop(k)
    out["claim"].update(lo="1.18784", hi="1.18786")  # wide enough: only the bracket is wrong
    return out


@pytest.mark.slow
@pytest.mark.soundness
@pytest.mark.parametrize("name, doc, valid", [
    ("sgd switch_eps", SGD, True),
    ("icea switch_delta", ICEA, True),
    ("lo: a changed digit puts it above the switch point", _tampered(SGD, lo="1.187848899580513258330919"), False),
    ("the verdict flipped", _tampered(SGD, verdict="CONFIRMED"), False),
    ("the bracket moved right by 1e-6", _moved(SGD, Fraction(1, 10 ** 6)), False),
    ("the bracket moved left by 1e-6", _moved(SGD, Fraction(-1, 10 ** 6)), False),
])
def test_switch_points_under_coqc(name, doc, valid, tmp_path, capsys):
    require_coq()
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    code = main(["verify", str(path), "--kernel", "coq"])
    out = capsys.readouterr().out
    assert code == (0 if valid else 1), (name, out)
    assert out.startswith("VALID" if valid else "INVALID"), name
