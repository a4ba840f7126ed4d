"""The checker's own σ-formula grammar and monotonicity calculus (issue 36: noise refinements
checked without sympy).

Truth is independent of certdp's code: mpmath at 90 digits (values, and derivatives by
mpmath.diff), and for the calculus sympy's own symbolic proof (the old verdict) plus a grid
of partial derivatives in mpmath.  The certificates are the noise refinements of the test
suite (test_optimum_certificates, test_kernels_agree, the every-kind audit) and of the
seeds (certdp/data/claims/seeds.toml); after checking them all under both kernels a fresh
interpreter has not imported sympy, and a changed digit of the formula, of claim.at or of
the claimed interval is INVALID under both kernels."""

from __future__ import annotations

import copy
import json
import pathlib
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import iv

from certdp.audit.claims import parse_claims
from certdp.audit.verdicts import audit_claim
from certdp.expr.monotone import decreasing_in_eps_and_delta
from certdp.expr.parser import parse_expression
from certdp.verifier import formula as fm
from certdp.verifier.ball import to_ball
from certdp.verifier.check_iv import check as check_iv
from certdp.verifier.checker import check
from certdp.verifier.formula_monotone import monotonicity_assumption, node_info, proves_non_increasing, reciprocal
from certdp.verifier.schema import MalformedCertificate

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: every σ-formula of the tests, the seeds and the literature claims, and a few more
CORPUS = [
    "-log(delta)/eps", "-2*log(delta)/eps", "-log(delta)/eps**2", "sqrt(-log(delta))/eps", "(1 - delta)/eps",
    "2/eps*sqrt(log(1/delta))", "sqrt(2*log(5/(4*delta)))/eps", "sqrt(2*log(1.25/delta))/eps",
    "-log(delta)/eps*(1 + 1/(1000*(eps**4 - 2*eps**2 + 2)))", "log(delta)/eps", "-log(delta)*eps",
    "exp(-eps)*(1 - delta)", "1/(eps + delta)", "-log(delta)/eps - eps", "(1 - delta)**2/eps", "(delta - 1)**3/eps",
    "pi/eps - E*delta", "-log(delta)/(eps - 1)", "1/eps**2 - delta", "exp(-1/delta)", "-log(1 - delta)",
    "sqrt(2*log(5/(4*delta)))/eps + 1/(100*eps - 119)", "eps**(1/2)*log(delta)", "(-eps)**3*delta",
]


def _mp(text: str, e: mpmath.mpf, d: mpmath.mpf) -> mpmath.mpf:
    import sympy
    f = parse_expression(text, ("eps", "delta"))
    syms = {s.name: s for s in f.free_symbols}
    fl = sympy.lambdify([syms.get("eps", sympy.Symbol("eps")), syms.get("delta", sympy.Symbol("delta"))], f, "mpmath")
    return fl(e, d)


@pytest.mark.parametrize("text", [t for t in CORPUS if "eps - 1" not in t and "119" not in t])
def test_values_and_forward_derivatives_against_mpmath(text):
    node = fm.parse(text)
    big = fm.substitute(node, "delta", fm.parse("exp(-2)*eps/3", ("eps",)))  # one variable
    with mpmath.workdps(90):
        x = mpmath.mpf(7) / 10
        g = lambda t: _mp(text, t, mpmath.exp(-2) * t / 3)  # noqa: E731
        truth, slope = g(x), mpmath.diff(g, x)
        old = ctx.prec
        try:
            ctx.prec = 200
            v, dv = fm.value_and_slope(big, arb(7) / 10, fm.BALLS)
        finally:
            ctx.prec = old
        assert v.is_finite() and dv.is_finite(), text
        assert abs(mpmath.mpf(v.mid().str(60, radius=False)) - truth) < mpmath.mpf(10) ** -40
        assert abs(mpmath.mpf(dv.mid().str(60, radius=False)) - slope) < mpmath.mpf(10) ** -30
        assert v.rad() < 1e-45 and dv.rad() < 1e-45  # widths, not only containment
        old = iv.prec
        iv.prec = 200
        try:
            vi, di = fm.value_and_slope(big, iv.mpf(7) / 10, fm.intervals())
        finally:
            iv.prec = old
        (v0, v1), (d0, d1) = ([mpmath.mpf(e) for e in z._mpi_] for z in (vi, di))
        assert v0 <= truth <= v1 and d0 <= slope <= d1 and v1 - v0 < 1e-45


@pytest.mark.parametrize("text, x", [
    ("log(eps - 1)", (Fraction(1, 2), Fraction(3, 2))),   # log of a ball not proved positive
    ("1/(eps - 1)", (Fraction(1, 2), Fraction(3, 2))),    # division by a ball holding 0
    ("sqrt(eps - 1)", (Fraction(1, 2), Fraction(3, 2))),  # sqrt of a ball not proved >= 0
    ("eps**(1/3)", (Fraction(-1), Fraction(1))),          # a rational power of a non-positive ball
    ("eps**-2", (Fraction(-1), Fraction(1))),
])
def test_an_unproved_domain_is_undecided_never_a_number(text, x):
    n = fm.parse(text, ("eps",))
    v, d = fm.value_and_slope(n, to_ball(x[0]).union(to_ball(x[1])), fm.BALLS)
    assert not v.is_finite() and not d.is_finite()
    vi, di = fm.value_and_slope(n, iv.mpf([x[0].numerator / x[0].denominator, x[1].numerator / x[1].denominator]),
                                fm.intervals())
    assert vi.a == -mpmath.inf and vi.b == mpmath.inf and di.b == mpmath.inf
    # the derivative of sqrt needs a positive argument: at 0 only the value is defined
    v0, d0 = fm.value_and_slope(fm.parse("sqrt(eps)", ("eps",)), arb(0), fm.BALLS)
    assert not d0.is_finite() and fm.evaluate(fm.parse("sqrt(eps)", ("eps",)), {"eps": arb(0)}, fm.BALLS) == 0


@pytest.mark.parametrize("text", ["if(eps < 1, 1, 2)*-log(delta)/eps", "Max(1/eps, 2)*-log(delta)",
                                  "erfc(eps)*-log(delta)", "eps**eps*-log(delta)", "-log(delta, 2)/eps",
                                  "Piecewise((1, eps < 1), (2, True))*-log(delta)"])
def test_constructs_outside_the_grammar_are_unsupported(text):
    with pytest.raises(fm.Unsupported):
        fm.parse(text)


@pytest.mark.parametrize("text, token", [
    ("__import__('os')", "position 11"), ("exp(-", "the end"), ("-log(x)/eps", "'x'"), ("eps**100001", "100001"),
    ("1/eps + ", "the end"), ("(" * 70 + "eps" + ")" * 70, "nesting"), ("eps" + "+eps" * 800, "longer"),
    ("log delta", "'delta'"), ("eps $ 2", "'$'"),
])
def test_malformed_formulas_name_the_token(text, token):
    with pytest.raises(MalformedCertificate) as err:
        fm.parse(text)
    assert not isinstance(err.value, fm.Unsupported)
    assert token.strip("'") in str(err.value), str(err.value)


def test_exact_numbers_and_powers():
    assert fm.parse("0.1", ()).q == Fraction(1, 10) and fm.parse("1e-5", ()).q == Fraction(1, 100000)
    n = fm.parse("eps^-2 + eps**(1/2) - -eps**2", ("eps",))  # ** binds tighter than unary minus
    v = fm.evaluate(n, {"eps": arb(4)}, fm.BALLS)
    assert v.contains(arb(1) / 16 + 2 + 16) and v.rad() < 1e-10


def _partials_nonpositive(text: str) -> bool:
    """mpmath on a grid of ε in (0, 20], δ in (0, 1): both partials <= 0 (a necessary check)."""
    import sympy
    fl = lambda a, b: _mp(text, a, b)  # noqa: E731
    with mpmath.workdps(30):
        for a in (mpmath.mpf(k) / 7 for k in range(1, 140, 9)):
            for b in (mpmath.mpf(k) / 101 for k in range(1, 101, 7)):
                try:
                    de = mpmath.diff(lambda t: fl(t, b), a)
                    dd = mpmath.diff(lambda t: fl(a, t), b)
                except (ZeroDivisionError, ValueError):
                    return False
                if mpmath.re(de) > 1e-20 or mpmath.re(dd) > 1e-20 or mpmath.im(fl(a, b)) != 0:
                    return False
    return True


@pytest.mark.parametrize("text", CORPUS)
def test_the_calculus_agrees_with_sympy_and_is_sound_on_the_corpus(text):
    proved = proves_non_increasing(fm.parse(text))
    assert proved == decreasing_in_eps_and_delta(parse_expression(text, ("eps", "delta"))), text
    if proved:
        assert _partials_nonpositive(text), text
    assert monotonicity_assumption(text) == (() if proved else monotonicity_assumption(text))
    assert bool(monotonicity_assumption(text)) is not proved


def test_the_calculus_may_prove_more_than_sympy_but_only_true_things():
    text = "log(1 + 1/eps)*log(2/delta)"
    assert proves_non_increasing(fm.parse(text)) and _partials_nonpositive(text)
    assert not decreasing_in_eps_and_delta(parse_expression(text, ("eps", "delta")))


# -- certificates --------------------------------------------------------------------------

SEEDS = (ROOT / "certdp/data/claims/seeds.toml").read_text()


def _refinement_claims() -> list:
    seeds = [c for c in parse_claims(SEEDS) if c.quantity and c.quantity.startswith("refined_")]
    assert len(seeds) == 3
    extra = parse_claims("\n".join(
        f'[[claim]]\nid = "t{i}"\nkind = "value"\nquantity = "{q}"\nformula = "{f}"\nat = {{ eps = "{e}", delta = "{d}" }}\n'
        f'reported = "{r}"\n' for i, (q, f, e, d, r) in enumerate([
            ("refined_sigma", "2/eps*sqrt(log(1/delta))", "0.5", "1e-5", "17"),
            ("refined_eps0", "sqrt(2*log(1.25/delta))/eps", "1", "1e-3", "1.9"),
            ("refined_sigma", "-log(delta)/eps*(1 + 1/(1000*(eps**4 - 2*eps**2 + 2)))", "0.2", "exp(-2)", "8.087"),
        ])))
    return seeds + extra


@pytest.fixture(scope="module")
def docs() -> dict[str, dict]:
    out = {}
    for claim in _refinement_claims():
        v = audit_claim(claim, want_certificate=True)
        assert v.certificate is not None, (claim.id, v.no_certificate)
        out[claim.id] = v.certificate
    return out


CHILD = r'''
import json, sys
from certdp.verifier.checker import check
from certdp.verifier.check_iv import check as check_iv
out = []
for path in sys.argv[1:]:
    doc = json.load(open(path))
    out.append([path, check(doc).valid, check_iv(doc)[0], "sympy" in sys.modules])
print(json.dumps(out))
'''


def test_every_refinement_certificate_is_checked_without_sympy(docs, tmp_path):
    paths = []
    for cid, doc in docs.items():
        p = tmp_path / f"{cid}.json"
        p.write_text(json.dumps(doc))
        paths.append(str(p))
    run = subprocess.run([sys.executable, "-c", CHILD, *paths], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(rows) == 6 and all(r[1] and r[2] for r in rows), rows
    assert not any(r[3] for r in rows), rows


def _digit_changed(text: str) -> str:
    i = next(i for i, ch in enumerate(text) if ch.isdigit() and ch not in "0")
    return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:]


def test_a_changed_digit_is_invalid_under_both_kernels(docs):
    doc = docs["seed000-noise-refinement-sigma"]
    assert check(doc).valid and check_iv(doc)[0]
    mutants = []
    for path, new in ((("formula",), "-log(delta)/(2*eps)"), (("formula",), "-2*log(delta)/eps"),
                      (("at", "eps"), "0.3"), (("at", "delta"), "exp(-3)")):
        m = copy.deepcopy(doc)
        (m["claim"] if len(path) == 1 else m["claim"][path[0]])[path[-1]] = new
        mutants.append(m)
    for field in ("lo", "hi"):
        m = copy.deepcopy(doc)
        m["claim"][field] = _digit_changed(m["claim"][field])
        if Fraction(m["claim"]["lo"]) <= Fraction(m["claim"]["hi"]):
            mutants.append(m)
    m = copy.deepcopy(docs["seed000-noise-refinement-eps0"])
    m["claim"]["lo"] = m["claim"]["hi"] = _digit_changed(m["claim"]["lo"])
    mutants.append(m)
    assert len(mutants) >= 6
    for m in mutants:
        assert not check(m).valid, m["claim"]
        assert not check_iv(m)[0], m["claim"]


def test_the_derivation_is_exposed_node_by_node():
    """node_info / reciprocal (what the Coq kernel replays) give the calculus's ranges and directions."""
    i = node_info(fm.parse("-log(delta)/eps"))
    assert i is not None and (i.d_eps, i.d_delta) == (-1, -1) and i.rng.lo == 0 and i.rng.lo_open and i.rng.hi is None
    lg = node_info(fm.parse("log(delta)"))
    assert lg is not None and lg.rng.hi == 0 and lg.rng.hi_open and (lg.d_eps, lg.d_delta) == (0, 1)
    r = reciprocal(lg)  # 1/log(delta) < 0, decreasing in delta
    assert r is not None and r.rng.neg() and r.d_delta == -1
    assert reciprocal(node_info(fm.parse("eps - 1"))) is None  # sign unknown: no rule
    assert node_info(fm.parse("log(eps - 1)")) is None  # log of a range not proved positive
    for text in ("2/eps*sqrt(log(1/delta))", "eps*delta", "(delta - 2)^2"):
        f, fi = fm.parse(text), node_info(fm.parse(text))
        assert proves_non_increasing(f) == (fi is not None and fi.d_eps in (0, -1) and fi.d_delta in (0, -1))
