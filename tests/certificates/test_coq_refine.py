"""Noise refinements of a σ-formula (Liu et al. 2022 App. C, §5.2) under the Coq kernel (issues 40
and 36): the seeds' three certificates become one Coq theorem each, that F(x) = f(x, δ0(x)) has a
minimiser on {x >= ε, δ0(x) > 0} and every minimiser lies in [r0, r1], the quantity there in [lo, hi];
a changed digit makes coqc fail.

Default run (no coqc): the Coq printer of the checker's formula tree and the derivative term
of its forward-mode rules, checked against mpmath (50 digits) and against the balls the checker
uses; constructs the printer does not write are refused.  Slow (coqc, about 40 s of CPU each):
the seeds' certificates VALID, tampered ones INVALID."""

from __future__ import annotations

import copy
import json
import re

import mpmath
import pytest
from flint import arb

from certdp.cli import main
from certdp.verifier import formula as fm
from certdp.verifier.coq.refine import coq, derivative
from certdp.verifier.coq.terms import Unsupported
from certdp.verifier.coq.translate import translate
from tests.certificates.test_coq_kernel import require_coq
from tests.certificates.test_coq_switch import REFINED

FORMULAS = ["-log(delta)/eps", "2/eps*sqrt(log(1/delta))", "sqrt(2*log(1.25/delta))/eps", "-log(delta)/eps**2",
            "(1 - delta)**3/eps + pi*exp(-eps) - E", "eps**-2*delta^2"]


def _mp_eval(text: str, x: mpmath.mpf) -> mpmath.mpf:
    """The Coq term, read back by mpmath (ln, exp, sqrt, PI, ^, exact rationals)."""
    term = coq(fm.parse(text, ("eps",)), {"eps": "x"})
    py = (term.replace("(exp 1)", "(mpmath.e)").replace("(/ ", "(1 / ").replace("^", "**").replace("ln", "mpmath.log").replace("exp", "mpmath.exp")
          .replace("sqrt", "mpmath.sqrt").replace("PI", "mpmath.pi"))
    py = re.sub(r"\((\d+) / (\d+)\)", r"(mpmath.mpf(\1) / \2)", py)
    return eval(py, {"mpmath": mpmath, "x": x})  # noqa: S307 - the test's own printed term


@pytest.mark.parametrize("text", [t.replace("delta", "(eps/7)") for t in FORMULAS])
def test_the_printed_derivative_is_the_slope(text):
    node = fm.parse(text, ("eps",))
    d = derivative(node)
    for x in ("0.3", "0.9", "2.5"):
        with mpmath.workdps(50):
            slope = mpmath.diff(lambda t: _mp_eval(text, t), mpmath.mpf(x))
            value = _mp_eval(text, mpmath.mpf(x))
        b = arb(x)
        v, dv = fm.value_and_slope(node, b, fm.BALLS)
        assert dv.is_finite() and fm.evaluate(d, {"eps": b}, fm.BALLS).overlaps(dv)
        assert abs(float(v.mid()) - float(value)) < 1e-12 * max(1, abs(float(value)))
        assert abs(float(dv.mid()) - float(slope)) < 1e-9 * max(1, abs(float(slope)))


def test_the_printer_writes_exact_rationals_and_refuses_fractional_powers():
    t = coq(fm.parse("0.1*eps^-2 + E - pi", ("eps",)), {"eps": "x"})
    assert t == "((((1 / 10) * (/ (x ^ 2))) + (exp 1)) - PI)"
    with pytest.raises(Unsupported, match="integer powers"):
        coq(fm.parse("eps**(1/2)", ("eps",)), {"eps": "x"})


def test_a_refinement_becomes_one_coq_theorem_over_cells():
    text = translate(REFINED).text
    assert "From CertDP Require Import CertDP Refine." in text
    assert "refine_bracket" in text and "Theorem certdp_claim" in text and "auto_derive" in text
    code = "\n".join(ln for ln in text.splitlines() if not ln.startswith("(*"))
    assert not re.search(r"\d\.\d|\de-?\d", code)  # exact rationals only
    # near x_max F cannot be enclosed: f non-increasing is the theorem's explicit premise, not an axiom
    claim = next(ln for ln in text.splitlines() if ln.startswith("Theorem certdp_claim"))
    assert claim.startswith("Theorem certdp_claim : nonincr2 f -> (exists x, e <= x /\\ 0 < d0 x /\\ forall y, "
                            "e <= y -> 0 < d0 y -> F x <= F y) /\\ (forall x, e <= x -> 0 < d0 x ->")
    assert "Axiom" not in text and "Hypothesis" not in text


def _tampered(**claim) -> dict:
    doc = copy.deepcopy(REFINED)
    doc["claim"].update(claim)
    return doc


@pytest.mark.slow
@pytest.mark.parametrize("name, doc, valid", [
    ("seed", REFINED, True),
    # the minimum is 8.08571785435446523868898588985... (mpmath, 50 digits)
    ("digit of lo, still below the truth", _tampered(lo="8.085717854354465238688963"), True),
    ("digit of lo", _tampered(lo="8.085717854354465238689163"), False),
    ("digit of hi", _tampered(hi="8.085717854354465238688809"), False),
    ("formula", _tampered(formula="-2*log(delta)/eps"), False),
    ("at", _tampered(at={"eps": "1/4", "delta": "exp(-2)"}), False),
])
def test_noise_refinements_under_coqc(name, doc, valid, tmp_path, capsys):
    require_coq()
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    code = main(["verify", str(path), "--kernel", "coq", "--budget", "900"])
    out = capsys.readouterr().out
    assert (code == 0 and out.startswith("VALID")) if valid else (code == 1 and "INVALID" in out), (name, out)
