"""The two checker kernels agree on every evidence kind the CLI writes (issue 36 item 2).

Default run (fast): one certificate of each claim and evidence kind — closed forms (dp,
not_dp, value, gdp, not_gdp, gdp_exact), DP-SGD PLDs (pld, pld_lower), the profile pair
(pld_profile, discrete_gaussian), the loss laws (pld_law, pld_law_lower), a noise refinement,
a switch point, the shuffled lower bound, adp_not_prdp — is VALID under ``kernel="flint"``
and ``kernel="mpmath"``; checking the catalog ones under mpmath in a fresh interpreter loads
no sympy (only ``profile("...")`` expressions and a refinement formula outside the checker's grammar may); and a
false claim made from each is INVALID under both kernels.

Slow (``-m slow``): every certificate of the test suite's kinds and of ``certdp audit
--builtin seeds --certificates DIR`` (``benchmarks/kernels.py``): the kernels agree on each,
and the mpmath kernel's CPU time (the smaller of two runs) is at most 10x flint's on each (the
issue's bound; measured on 119 certificates: at most 7.5x, certdp/verifier/README.md).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from fractions import Fraction

import pytest

from certdp.cli import main
from certdp.verifier.checker import verify

ROOT = pathlib.Path(__file__).resolve().parents[2]

sys.path.insert(0, str(ROOT / "tests" / "certificates"))
import test_checker_no_sympy as _owner  # noqa: E402  (one owner of the shared claim blocks and commands)

#: The owner's claim blocks by id (tests/certificates/test_checker_no_sympy.py).
_BLOCKS = {re.search(r'^id = "([^"]+)"$', b, re.M).group(1): "[[claim]]\n" + b
           for b in _owner.CLAIMS.split("[[claim]]\n")[1:]}
#: The blocks of the owner's that this test checks under both kernels, and its own four
#: (a refuted Gaussian, a DP-SGD dp and not_dp from PLDs, a noise refinement with a formula).
SHARED = ("dp_closed_form", "not_dp_law", "value_delta", "value_eps_binomial", "value_mu_gdp", "gdp_laplace",
          "not_gdp", "gdp_exact", "value_switch_eps")
CLAIMS = "".join(_BLOCKS[i] for i in SHARED) + '''
[[claim]]
id = "not_dp_gauss"
mechanism = "gaussian(sigma=1)"
kind = "not_dp"
eps = "1"
delta = "1e-5"

[[claim]]
id = "dp_dpsgd"
mechanism = "dpsgd(noise=2, rate=1/100, steps=10)"
kind = "dp"
eps = "1"
delta = "1e-5"

[[claim]]
id = "not_dp_dpsgd"
mechanism = "dpsgd(noise=2, rate=1/100, steps=10)"
kind = "not_dp"
eps = "0.01"
delta = "1e-5"

[[claim]]
id = "value_refined"
kind = "value"
quantity = "refined_sigma"
formula = "-log(delta)/eps"
at = { eps = "0.2", delta = "exp(-2)" }
reported = "8.086"
'''

#: CLI commands that write a certificate to the path appended with --certificate (the owner's).
COMMANDS = {k: _owner.COMMANDS[k] for k in ("measure_gdp", "profile_discrete_gaussian", "profile_law_pld", "prdp",
                                             "dpsgd_shuffle")}

#: Certificates whose check may load sympy: none since the checker reads a refinement's
#: claim.formula with its own grammar (certdp.verifier.formula); only a formula outside it
#: (if, Piecewise, Max, erf, ...) would.
USER_EXPRESSION: tuple[str, ...] = ()


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    d = tmp_path_factory.mktemp("kernels")
    (d / "claims.toml").write_text(CLAIMS)
    main(["audit", str(d / "claims.toml"), "--certificates", str(d / "audit"), "--quiet"])
    paths = {p.name.rsplit("-", 1)[0]: p for p in (d / "audit").glob("*.json")}
    assert len(paths) == CLAIMS.count("[[claim]]"), sorted(paths)
    for name, argv in COMMANDS.items():
        path = d / f"{name}.json"
        main([*argv, "--certificate", str(path), "--quiet"])
        assert path.exists(), name
        paths[name] = path
    return paths


def test_every_evidence_kind_is_covered(certificates):
    docs = [json.loads(p.read_text()) for p in certificates.values()]
    evidence = {k for doc in docs for k in doc["evidence"]}
    assert {"pld", "pld_lower", "pld_profile", "pld_law", "pld_law_lower", "cells", "bracket"} <= evidence, evidence
    kinds = {doc["claim"]["kind"] for doc in docs}
    assert {"dp", "not_dp", "value", "gdp", "not_gdp", "gdp_exact", "adp_not_prdp", "not_dp_shuffled"} <= kinds
    quantities = {doc["claim"].get("quantity") for doc in docs}
    assert {"refined_sigma", "switch_eps", "mu_gdp", "eps", "delta"} <= quantities


def test_both_kernels_accept_every_certificate(certificates):
    for name, path in sorted(certificates.items()):
        flint, mp = verify(str(path), "flint"), verify(str(path), "mpmath")
        assert flint.valid, (name, flint.failed_step)
        assert mp.valid, (name, mp.failed_step)


CHILD = r'''
import json, sys
from certdp.verifier.checker import verify
out = []
for path in sys.argv[1:]:
    r = verify(path, "mpmath")
    out.append([path, r.valid, "sympy" in sys.modules, "certdp.expr.evaluate" in sys.modules])
print(json.dumps(out))
'''


def test_mpmath_kernel_loads_no_sympy_for_catalog_certificates(certificates):
    paths = [str(p) for n, p in sorted(certificates.items()) if n not in USER_EXPRESSION]
    run = subprocess.run([sys.executable, "-c", CHILD, *paths], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout.strip().splitlines()[-1])
    assert all(r[1] for r in rows), rows
    loaded = [r[0] for r in rows if r[2] or r[3]]
    assert not loaded, f"sympy / the expression evaluator loaded under --kernel mpmath by: {loaded}"


def _tampered(name: str, doc: dict) -> dict | None:
    """A false claim made from a true certificate (None: the kind has no simple false variant here)."""
    c = doc["claim"]
    if name == "dp_closed_form":
        c["delta"] = "0.52"  # δ(1/2) = 1 − e^{−3/4} = 0.5276...
    elif name == "not_dp_gauss":
        c["delta"] = "0.2"  # δ_1(1) = 0.1269...
    elif name == "dp_dpsgd":
        c["eps"] = "0.03"  # its ε(1e-5) is 0.0658...
    elif name in ("profile_discrete_gaussian", "profile_law_pld"):
        c["eps"] = str(Fraction(c["eps"]) / 2)
    elif name in ("not_dp_dpsgd", "not_dp_law"):
        c["eps"] = "2"  # far above where δ(ε) >= 1e-5
    elif name == "dpsgd_shuffle":
        c["eps"] = "4.5"
    elif name in ("gdp_laplace", "measure_gdp"):
        c["mu"] = str(Fraction(c["mu"]) * Fraction(9, 10))
    elif name == "not_gdp":
        c["mu"] = "1.1"  # laplace(scale=1) is 1.0308...-GDP
    elif name == "gdp_exact":
        c["mu"] = "0.99"
    elif c.get("kind") == "value":
        lo, hi = Fraction(c["lo"]), Fraction(c["hi"])
        w = max(hi - lo, Fraction(1, 10**12))
        c["lo"], c["hi"] = str(hi + w), str(hi + 2 * w)  # an enclosure beside the true one
    else:
        return None
    return doc


def test_false_claims_are_invalid_under_both_kernels(certificates, tmp_path):
    tried = 0
    for name, path in sorted(certificates.items()):
        doc = _tampered(name, json.loads(path.read_text()))
        if doc is None:
            continue
        bad = tmp_path / f"{name}.json"
        bad.write_text(json.dumps(doc))
        tried += 1
        for kernel in ("flint", "mpmath"):
            assert not verify(str(bad), kernel).valid, (name, kernel)
    assert tried >= 16, tried


def test_pld_profile_knots_tampered_are_invalid_under_mpmath(certificates, tmp_path):
    """Knots dropped from the profile pair make a chord below the convex profile: the kernel
    must not accept it unless its convexity and mass steps still hold (then the claim is true)."""
    doc = json.loads(certificates["profile_discrete_gaussian"].read_text())
    ev = doc["evidence"]["pld_profile"]
    ev["knots"] = [0, ev["knots"][-1]]
    doc["claim"]["eps"] = str(Fraction(doc["claim"]["eps"]) / 3)
    bad = tmp_path / "knots.json"
    bad.write_text(json.dumps(doc))
    assert not verify(str(bad), "mpmath").valid
    assert not verify(str(bad), "flint").valid


# -- slow: every certificate of the test suite's kinds and of the seeds' audit -----------


@pytest.fixture(scope="module")
def all_rows(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import kernels  # noqa: PLC0415

    out = tmp_path_factory.mktemp("bench")
    paths = [p for p in kernels.write_certificates(out, seeds=True)]
    rows = []
    for p in paths:
        verify(str(p), "flint")
        verify(str(p), "mpmath")  # imports and tables out of the timing
        # the less disturbed of two runs (other jobs share the cores)
        tf, rf = min((kernels.cpu(lambda: verify(str(p), "flint")) for _ in range(2)), key=lambda r: r[0])
        tm, rm = min((kernels.cpu(lambda: verify(str(p), "mpmath")) for _ in range(2)), key=lambda r: r[0])
        rows.append((str(p.relative_to(out)), rf, rm, tf, tm))
    return rows


@pytest.mark.slow
def test_kernels_agree_on_every_suite_and_seed_certificate(all_rows):
    assert len(all_rows) >= 100
    bad = [(n, rf.failed_step, rm.failed_step) for n, rf, rm, _, _ in all_rows if not (rf.valid and rm.valid)]
    assert not bad, bad


@pytest.mark.slow
def test_mpmath_kernel_costs_at_most_ten_times_flint(all_rows):
    # flint times below 1 ms are floored at 1 ms: process_time cannot resolve less
    slow = [(n, round(tm / max(tf, 1e-3), 1)) for n, _, _, tf, tm in all_rows if tm > 10 * max(tf, 1e-3)]
    assert not slow, f"mpmath / flint above 10x: {slow}"
