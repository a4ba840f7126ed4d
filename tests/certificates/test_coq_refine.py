"""Noise refinements of a σ-formula (Liu et al. 2022 App. C, §5.2) under the Coq kernel (issues 40
and 36): the seeds' three certificates become one Coq theorem each, that F(x) = f(x, δ0(x)) has a
minimiser on {x >= ε, δ0(x) > 0} and every minimiser lies in [r0, r1], the quantity there in [lo, hi];
a changed digit makes coqc fail.  f's monotonicity (nonincr2 f, which bounds F near x_max) is proved in
Coq from the sign calculus's derivation (proofs/coq/Mono.v); it stays a premise of certdp_claim only
when the certificate states it in claim.assumptions.

Default run (no coqc): the Coq printer of the checker's formula tree and the derivative term
of its forward-mode rules, checked against mpmath (50 digits) and against the balls the checker
uses; constructs the printer does not write are refused.  The printed
monotonicity derivation exists exactly for the formulas the calculus proves.  Slow (coqc, about 40 s
of CPU each): the seeds' certificates VALID with certdp_claim free of premises and only the trusted
axioms, tampered ones INVALID, an unprovable formula VALID under its stated premise."""

from __future__ import annotations

import copy
import json
import re

import mpmath
import pytest
from flint import arb

from certdp.cli import main
from certdp.verifier import formula as fm
from certdp.verifier.coq import run
from certdp.verifier.coq.mono import proof as mono_proof
from certdp.verifier.coq.refine import coq, derivative
from certdp.verifier.coq.terms import Unsupported
from certdp.verifier.coq.translate import translate
from certdp.verifier.formula_monotone import assumption_text, proves_non_increasing
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
    assert "From CertDP Require Import CertDP Refine Mono." in text
    assert "refine_bracket" in text and "Theorem certdp_claim" in text and "auto_derive" in text
    code = "\n".join(ln for ln in text.splitlines() if not ln.startswith("(*"))
    assert not re.search(r"\d\.\d|\de-?\d", code)  # exact rationals only
    # near x_max F cannot be enclosed: the bound uses f non-increasing, proved in Coq (f_mono), no premise
    claim = next(ln for ln in text.splitlines() if ln.startswith("Theorem certdp_claim"))
    assert claim.startswith("Theorem certdp_claim : (exists x, e <= x /\\ 0 < d0 x /\\ forall y, "
                            "e <= y -> 0 < d0 y -> F x <= F y) /\\ (forall x, e <= x -> 0 < d0 x ->")
    assert "Lemma f_mono : nonincr2 f." in text and "refine_mono_cell f e d" in text
    assert "Fm f_mono d_lt1" in text and "Hf" not in code
    assert "Axiom" not in text and "Hypothesis" not in text


#: Formulas beyond FORMULAS that exercise every rule of the replay: signed divisors, negative and
#: zero powers, products of non-positive factors, exp / sqrt / log ranges with rounded ends.
MORE = ["(-1)/(-(eps+1))", "exp(-eps)*(-log(delta))", "(1+delta)^0/eps", "sqrt(eps)^-2 + (1-delta)^-1*(-1)",
        "exp(-delta)/sqrt(eps+1)", "log(2 - delta)/eps - 3*eps", "(-eps)*(1+delta)", "-(eps+1)^-2*-1",
        "1/log(delta)*(-1)/(1+eps)", "eps*delta",
        # natural powers of a base of any sign: even of a negative base, odd of a negative or unknown one
        "(delta-2)^2", "(delta - 1)^4", "(-eps)^3 - delta", "(1-eps-delta)^3", "exp((1-eps-delta)^3)",
        "(-2-delta)^3 + (-eps)^4*(-1)", "(-1-eps)^-2", "(eps-delta)^3*(-1)", "-(eps+1)^-3"]


@pytest.mark.parametrize("text", FORMULAS + MORE)
def test_the_monotonicity_derivation_is_printed_for_each_provable_formula(text):
    f = fm.parse(text)
    p = mono_proof(f)
    assert (p is not None) == proves_non_increasing(f), text
    if p is None:
        return
    lines = p.splitlines()
    assert lines[-2] == "Lemma f_mono : nonincr2 f."
    assert lines[-1].startswith("Proof. exact (mono_nonincr2 f ")
    # one definition and one lemma per node (and per reciprocal of a divisor or a negative power)
    defs = [ln for ln in lines if ln.startswith("Definition mn_")]
    lemmas = [ln for ln in lines if ln.startswith("Lemma Mn_")]
    assert len(defs) == len(lemmas) >= _nodes(f)
    assert not re.search(r"\d\.\d|\de-?\d", p)  # exact rationals only
    assert "Admitted" not in p and "admit" not in p and "Axiom" not in p


def _nodes(n: fm.Node) -> int:
    return 1 + sum(_nodes(k) for k in n.kids)


def test_the_seed_formula_replays_the_calculus_rules():
    p = mono_proof(fm.parse("-log(delta)/eps"))
    assert p is not None
    # delta in (0, 1) increasing, log(delta) < 0 increasing (log 1 = 0), -log(delta) > 0 decreasing,
    # eps > 0 increasing, 1/eps > 0 decreasing, the quotient of non-negative factors decreasing in both
    assert "Lemma Mn_0 : mnode mn_0 (fun v => (0) < v /\\ v < (1)) Cst Inc." in p
    assert "apply ln_neg_s; lra" in p
    assert "Lemma Mn_2 : mnode mn_2 (fun v => (0) < v /\\ True) Cst Dec." in p
    assert "Lemma Mn_4 : mnode mn_4 (fun v => (0) < v /\\ True) Dec Cst." in p
    assert p.splitlines()[-1] == ("Proof. exact (mono_nonincr2 f (fun v => (0) < v /\\ True) Dec Dec Mn_5 I I). Qed.")


def test_a_stated_monotonicity_stays_the_theorems_premise():
    text = "-log(delta)/eps*(1 + 1/(1000*(eps**4 - 2*eps**2 + 2)))"
    assert not proves_non_increasing(fm.parse(text))
    doc = copy.deepcopy(REFINED)
    doc["claim"].update(formula=text, assumptions=[assumption_text(text)])
    out = translate(doc).text
    claim = next(ln for ln in out.splitlines() if ln.startswith("Theorem certdp_claim"))
    assert claim.startswith("Theorem certdp_claim : nonincr2 f -> (exists x")
    assert "It is a stated hypothesis" in out and "f_mono" not in out


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


SEED_CLAIMS = """
[[claim]]
id = "ref-eps0"
kind = "value"
quantity = "refined_eps0"
formula = "-log(delta)/eps"
at = { eps = "0.2", delta = "exp(-2)" }
reported = "0.334"

[[claim]]
id = "ref-delta0"
kind = "value"
quantity = "refined_delta0"
formula = "-log(delta)/eps"
at = { eps = "0.2", delta = "exp(-2)" }
reported = "0.067"

[[claim]]
id = "ref-sigma"
kind = "value"
quantity = "refined_sigma"
formula = "-log(delta)/eps"
at = { eps = "0.2", delta = "exp(-2)" }
reported = "8.086"
"""


def _seed_certificates() -> list[dict]:
    """The seeds' three noise refinements (seed 000 §5.2), as `certdp audit` writes them."""
    from certdp.audit.claims import parse_claims  # noqa: PLC0415
    from certdp.audit.verdicts import audit_claim  # noqa: PLC0415

    return [audit_claim(c, want_certificate=True).certificate for c in parse_claims(SEED_CLAIMS)]


def _verify(doc: dict, tmp_path, capsys, monkeypatch) -> tuple[int, str, str, list[list[str]]]:
    """(exit code, output, the Coq script, the axiom lists Print Assumptions gave) of --kernel coq."""
    seen: list[list[str]] = []
    real = run.axioms

    def spy(output: str) -> list[str]:
        seen.append(real(output))
        return seen[-1]

    monkeypatch.setattr(run, "axioms", spy)
    path, script = tmp_path / "c.json", tmp_path / "c.v"
    path.write_text(json.dumps(doc))
    code = main(["verify", str(path), "--kernel", "coq", "--budget", "900", "--coq-out", str(script)])
    return code, capsys.readouterr().out, script.read_text(), seen


@pytest.mark.slow
@pytest.mark.soundness
@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_seed_refinements_are_valid_with_a_claim_free_of_premises(index, tmp_path, capsys, monkeypatch):
    require_coq()
    doc = _seed_certificates()[index]
    assert "assumptions" not in doc["claim"]
    code, out, script, seen = _verify(doc, tmp_path, capsys, monkeypatch)
    assert code == 0 and out.startswith("VALID") and "unproved" not in out, out
    claim = next(ln for ln in script.splitlines() if ln.startswith("Theorem certdp_claim"))
    assert claim.startswith("Theorem certdp_claim : (exists x") and "nonincr2" not in claim
    assert "Lemma f_mono : nonincr2 f." in script and "Fm f_mono d_lt1" in script
    # Print Assumptions certdp_claim: only the trusted axioms (Coq's reals, excluded middle, primitives)
    (axioms,) = seen
    assert axioms and all(a in run.ALLOWED_AXIOMS or a.startswith(run.PRIMITIVE_PREFIXES) for a in axioms), axioms
    assert "Classical_Prop.classic" in axioms and not any("gaussian" in a or "nonincr" in a for a in axioms)


@pytest.mark.slow
@pytest.mark.soundness
def test_an_unprovable_formula_keeps_its_stated_premise_under_coqc(tmp_path, capsys, monkeypatch):
    require_coq()
    from certdp.audit.claims import parse_claims  # noqa: PLC0415
    from certdp.audit.verdicts import audit_claim  # noqa: PLC0415

    text = SEED_CLAIMS.split("[[claim]]")[-1].replace(
        "-log(delta)/eps", "-log(delta)/eps*(1 + 1/(1000*(eps**4 - 2*eps**2 + 2)))").replace("8.086", "8.087")
    (claim,) = parse_claims("[[claim]]" + text)
    doc = audit_claim(claim, want_certificate=True).certificate
    assert doc["claim"]["assumptions"]
    code, out, script, _ = _verify(doc, tmp_path, capsys, monkeypatch)
    # exit 1: VALID only under the stated, unproved hypothesis (as under the other kernels)
    assert code == 1 and out.startswith("VALID only under unproved assumptions"), out
    claim_line = next(ln for ln in script.splitlines() if ln.startswith("Theorem certdp_claim"))
    assert claim_line.startswith("Theorem certdp_claim : nonincr2 f -> ")
    assert "It is a stated hypothesis" in script and "f_mono" not in script


@pytest.mark.slow
def test_the_printed_derivations_compile(tmp_path):
    """Every provable formula's derivation (FORMULAS and MORE) is accepted by coqc, one Module each."""
    require_coq()
    import subprocess  # noqa: PLC0415

    parts = ["From Coq Require Import Reals Lra.\nFrom Interval Require Import Tactic.\n"
             "From CertDP Require Import Refine Mono.\nOpen Scope R_scope."]
    for i, text in enumerate(FORMULAS + MORE):
        f = fm.parse(text)
        p = mono_proof(f)
        if p is not None:
            parts.append(f"Module T{i}.\nDefinition f (eps delta : R) : R := {coq(f, {'eps': 'eps', 'delta': 'delta'})}.\n"
                         f"{p}\nEnd T{i}.")
    (tmp_path / "derivations.v").write_text("\n".join(parts) + "\n")
    res = subprocess.run(["coqc", "-q", "-Q", str(run.library()), "CertDP", "derivations.v"], cwd=tmp_path,
                         capture_output=True, text=True, check=False, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
