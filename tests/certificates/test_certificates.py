"""Certificates: round trip, independent checker, CLI exit codes, mutation tests.

Truth of mutated claims is decided independently with mpmath (closed forms for
the Laplace mechanism), never by certdp code.
"""

from __future__ import annotations

from certdp.certificates.writer import measurement_certificate

import ast
import json
import pathlib
import random
import re
import subprocess
import sys

import mpmath
import pytest

from certdp.certificates import MalformedCertificate, check, verify
from certdp.errors import InputError
from certdp.certificates.writer import write
from certdp.cli import main
from certdp.analyses.gdpt import measure
from certdp.certificates.writer import not_gdp_certificate
from certdp.mechanisms.spec import parse_spec
from refs import mp_delta_mu, mp_digits, mp_mu_gdp, mpq

_mpmath_precision = pytest.fixture(autouse=True)(mp_digits(30))

ROOT = pathlib.Path(__file__).resolve().parents[2]


_TRUTH_CACHE: dict = {}


def laplace_truth(theta):
    """(δ_A, sup G) for Laplace with Δ/b = θ; sup G = G(0) (checked on a grid)."""
    key = mpmath.nstr(theta, 25)
    if key not in _TRUTH_CACHE:
        _TRUTH_CACHE[key] = _laplace_truth(theta)
    return _TRUTH_CACHE[key]


def _laplace_truth(theta):

    def d(e):
        return max(1 - mpmath.exp(e / 2 - theta / 2), mpmath.mpf(0))

    g0 = mp_mu_gdp(mpmath.mpf(0), d(mpmath.mpf(0)))
    for i in range(1, 8):
        e = theta * i / 8
        assert mp_mu_gdp(e, d(e)) <= g0 + mpmath.mpf("1e-20")
    return d, g0


@pytest.fixture(scope="module")
def lap_doc():
    r = measure(parse_spec("laplace(scale=1/2)"), width="1e-3")
    return measurement_certificate(r)


@pytest.fixture(scope="module")
def head_doc():
    r = measure(parse_spec('profile("exp(-eps**2)/2")'), width="1e-3")
    return measurement_certificate(r)


def test_roundtrip_valid(lap_doc, tmp_path):
    assert lap_doc["format"] == "certdp-certificate" and lap_doc["version"] == 1
    assert lap_doc["claim"]["kind"] == "gdp"
    res = check(lap_doc)
    assert res.valid and res.failed_step is None
    _, mu_star = laplace_truth(mpmath.mpf(2))
    assert mpq(lap_doc["claim"]["mu_lower"]) <= mu_star <= mpq(lap_doc["claim"]["mu"])
    f = tmp_path / "c.json"
    write(lap_doc, str(f))
    assert verify(str(f)).valid


def test_head_with_residual(head_doc):
    assert head_doc["claim"]["kind"] == "gdp_head"
    assert mpq(head_doc["claim"]["residual"]) <= mpmath.mpf("1e-30")
    assert check(head_doc).valid
    bad = json.loads(json.dumps(head_doc))
    bad["claim"]["residual"] = "1e-40"  # smaller than δ_A(eps_max): false
    res = check(bad)
    assert not res.valid and "residual" in res.failed_step


def test_less_private_mechanism_is_invalid(lap_doc):
    """Mutation (1): the same claim for scale=1/3 (a less private Laplace) must fail."""
    bad = json.loads(json.dumps(lap_doc))
    bad["mechanism"] = bad["mechanism"].replace("scale=0.5", "scale=1/3")
    assert bad["mechanism"] != lap_doc["mechanism"]
    res = check(bad)
    assert not res.valid
    assert res.failed_step.startswith("cell") or res.failed_step.startswith("tail")


def test_lower_mu_is_invalid(lap_doc):
    bad = json.loads(json.dumps(lap_doc))
    bad["claim"]["mu"] = "1.79"
    res = check(bad)
    assert not res.valid and res.failed_step.startswith("cell")
    bad = json.loads(json.dumps(lap_doc))
    bad["claim"]["mu_lower"] = "1.81"
    res = check(bad)
    assert not res.valid and res.failed_step.startswith("witness")


def _claim_true(doc) -> bool:
    """Independent (mpmath) truth of a Laplace GDP certificate's claim."""
    m = re.fullmatch(r"laplace\(scale=([0-9./e+-]+), sensitivity=([0-9./e+-]+)\)", doc["mechanism"])
    assert m, doc["mechanism"]
    scale, sens = mpq(m.group(1)), mpq(m.group(2))
    theta = sens / scale
    d, mu_star = laplace_truth(theta)
    c = doc["claim"]
    ok = True
    if c["kind"] in ("gdp", "gdp_head"):
        ok &= mpq(c["mu"]) >= mu_star - mpmath.mpf("1e-25")
        if "mu_lower" in c:
            ok &= mpq(c["mu_lower"]) <= mu_star + mpmath.mpf("1e-25")
        if "residual" in c:
            ok &= mpq(c["residual"]) >= d(mpq(c["eps_max"]))
    return bool(ok)


def test_random_digit_mutations_never_accept_false_claims(lap_doc):
    """Mutation (2): random digit changes are rejected or leave a true claim."""
    text = json.dumps(lap_doc)
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    rng = random.Random(20261121)
    # always include digits of the mechanism and the claim, plus random ones
    claim_start = text.index('"claim"')
    special = [i for i in digits if claim_start <= i < claim_start + 200][:30]
    mech_start = text.index('"mechanism"')
    special += [i for i in digits if mech_start <= i < mech_start + 60]
    picks = special + rng.sample(digits, min(120, len(digits)))
    outcomes = {"malformed": 0, "invalid": 0, "valid": 0}
    for pos in picks:
        new = rng.choice([d for d in "0123456789" if d != text[pos]])
        mutated = text[:pos] + new + text[pos + 1:]
        try:
            doc = json.loads(mutated)
            res = check(doc)
        except (MalformedCertificate, json.JSONDecodeError):  # verify: exit 2
            outcomes["malformed"] += 1
            continue
        if res.valid:
            outcomes["valid"] += 1
            assert _claim_true(doc), f"accepted a false claim after mutating position {pos}: {doc['claim']} {doc['mechanism']}"
        else:
            outcomes["invalid"] += 1
    print(outcomes)
    assert outcomes["invalid"] > 0 and outcomes["valid"] > 0  # the test exercised both paths


def test_malformed_documents(lap_doc):
    for mutate in (
        lambda d: d.update(extra=1),
        lambda d: d["claim"].update(kind="gdp_everything"),
        lambda d: d["claim"].update(colour="blue"),
        lambda d: d["evidence"].update(notes="x"),
        lambda d: d.update(version=2),
        lambda d: d.update(precision=8),
        lambda d: d.update(mechanism="laplace(scale=-1)"),
        lambda d: d["claim"].update(mu="one"),
        lambda d: d["evidence"].update(cells=["0"]),
    ):
        bad = json.loads(json.dumps(lap_doc))
        mutate(bad)
        with pytest.raises(MalformedCertificate):
            check(bad)


def test_cell_structure_checked(lap_doc):
    bad = json.loads(json.dumps(lap_doc))
    bad["evidence"]["cells"] = bad["evidence"]["cells"][:-1]
    assert not check(bad).valid
    bad = json.loads(json.dumps(lap_doc))
    cells = bad["evidence"]["cells"]
    cells[1], cells[2] = cells[2], cells[1]
    res = check(bad)
    assert not res.valid and "increasing" in res.failed_step


def test_not_gdp_certificate():
    # Laplace(1/2) is exactly 1.8009...-GDP, so not 3/2-GDP
    m = parse_spec("laplace(scale=1/2)")
    doc = not_gdp_certificate(m, "3/2")
    assert check(doc).valid
    e = mpq(doc["evidence"]["witness"]["eps"])
    lap = lambda x: max(1 - mpmath.exp(x / 2 - 1), 0)  # noqa: E731  δ of Laplace(1/2), Δ = 1
    assert lap(e) > mp_delta_mu(mpmath.mpf(3) / 2, e)  # independently true
    bad = json.loads(json.dumps(doc))
    bad["evidence"]["witness"]["eps"] = "2"  # δ_A(2) = 0: not a witness
    assert not check(bad).valid


def test_not_gdp_refused_for_upper_bound_profiles():
    """A user profile is only an upper bound: no not_gdp certificate, and a
    hand-made one is INVALID even when the inequality at the witness holds."""
    m = parse_spec('profile("1/(2+2*eps)")')
    with pytest.raises(InputError, match="upper bound"):
        not_gdp_certificate(m, 3)
    doc = not_gdp_certificate(parse_spec("laplace(scale=1/2)"), "3/2")
    doc["mechanism"] = 'profile("1/(2+2*eps)")'
    doc["claim"]["mu"] = "3"
    doc["evidence"]["witness"]["eps"] = "20"
    assert 1 / mpmath.mpf(42) > mp_delta_mu(mpmath.mpf(3), mpmath.mpf(20))  # the inequality holds ...
    res = check(doc)
    assert not res.valid and "upper bound" in res.failed_step  # ... but proves nothing


def test_cli_verify_exit_codes(lap_doc, tmp_path, capsys):
    good = tmp_path / "good.json"
    write(lap_doc, str(good))
    assert main(["verify", str(good), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is True and out["failed_step"] is None
    assert out["claim"]["kind"] == "gdp" and out["claim"]["mechanism"] == lap_doc["mechanism"]
    assert out["claim"]["mu"] == lap_doc["claim"]["mu"] and out["claim"]["eps_max"] == "2"
    assert out["claim"]["residual"] == "0"
    bad = json.loads(json.dumps(lap_doc))
    bad["mechanism"] = "laplace(scale=1/3, sensitivity=1)"
    f = tmp_path / "bad.json"
    write(bad, str(f))
    assert main(["verify", str(f), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and out["failed_step"]
    g = tmp_path / "broken.json"
    g.write_text("{not json")
    assert main(["verify", str(g)]) == 2
    g.write_text(json.dumps(dict(lap_doc, precision=96.0)))
    assert main(["verify", str(g)]) == 2


def test_cli_measure_json_and_certificate(tmp_path, capsys):
    f = tmp_path / "m.json"
    assert main(["measure", "pure_dp(eps=1)", "--width", "1e-4", "--json", "--certificate", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"input", "mu", "eps_max", "residual", "tail", "strict_mu_at_least", "evaluations", "cells",
                        "profile_kind", "assumptions", "method", "verdict", "strict_mu_at_most", "tail_mu_at_most"}
    assert out["verdict"] is None
    truth = -2 * mpmath.sqrt(2) * mpmath.erfinv(2 / (1 + mpmath.e) - 1)
    assert mpq(out["mu"]["lo"]) <= truth <= mpq(out["mu"]["hi"])
    assert out["tail"]["kind"] in ("zero", "residual")
    assert main(["verify", str(f)]) == 0
    assert main(["measure", "laplace(scale=-1)"]) == 2


def test_checker_imports_only_the_kernel():
    """The checker module must not import search code (certdp.analyses.gdpt, limits, accountants)."""
    src = (ROOT / "certdp" / "verifier" / "checker.py").read_text()
    mods = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
    certdp_mods = {m for m in mods if m.startswith("certdp")}
    # issue 36: the checker imports its own package only (the expression machinery for
    # user profile("...") expressions aside; tests/test_architecture.py checks every module)
    allowed = ("certdp.verifier", "certdp.expr")
    cells_src = (ROOT / "certdp" / "numerics" / "cells.py").read_text()
    for node in ast.walk(ast.parse(cells_src)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("certdp"):
            assert node.module.startswith("certdp.verifier"), node.module  # re-exports the checker's
    assert all(m.startswith(allowed) for m in certdp_mods), certdp_mods
    code = (
        "import sys, json; from certdp.verifier.checker import check;"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('certdp.analyses.gdpt') or m.startswith('certdp.analyses.limits'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_prdp_kinds_are_dispatched():
    """Kinds of certdp.verifier.check_prdp go to that checker (seed 004 certificates)."""
    # certdp's own modules: an import error must fail the test, not skip it
    import certdp.verifier.check_prdp  # noqa: F401
    from certdp.analyses.prdp import constructions
    from certdp.certificates import prdp_writer as writer

    doc = writer.counterexample_certificate(constructions.theorem_3_2("1/2", "1/100", "1"))
    assert check(doc).valid
    bad = json.loads(json.dumps(doc))
    bad["claim"]["delta"] = "1/1000"  # the diagonal mechanism is not (1/2, 1/1000)-ADP
    assert not check(bad).valid


def test_exact_gaussian_route_certificate(tmp_path, capsys):
    """measure and audit take the exact route for exactly Gaussian trade-off
    curves: μ = √n/σ, strict, a small certificate checked in rationals."""
    f = tmp_path / "g.json"
    assert main(["measure", "compose(gaussian(sigma=2), k=3)", "--json", "--certificate", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = mpmath.sqrt(3) / 2
    assert mpq(out["mu"]["lo"]) <= truth <= mpq(out["mu"]["hi"]) and out["residual"] is None
    assert f.stat().st_size < 10_000
    doc = json.loads(f.read_text())
    assert doc["claim"]["kind"] == "gdp_exact" and check(doc).valid
    for mu, ok in (("0.8660254037844386", False), ("0.8660254037844387", True), ("0.87", True)):
        bad = json.loads(json.dumps(doc))
        bad["claim"]["mu"] = mu
        bad["claim"].pop("mu_lower")
        assert check(bad).valid is ok, mu  # √3/2 = 0.86602540378443864676...
    bad = json.loads(json.dumps(doc))
    bad["claim"]["mu_lower"] = "0.8660254037844387"
    assert not check(bad).valid
    bad = json.loads(json.dumps(doc))
    bad["mechanism"] = "compose(laplace(scale=2), k=3)"
    assert not check(bad).valid
