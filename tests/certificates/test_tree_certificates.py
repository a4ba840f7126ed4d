"""Certificates of the issue-35 specs: tree_aggregation is written as its d-fold Gaussian
(the same trade-off curve, G_μ with μ² = dΔ²/σ²), which the checker re-evaluates in closed
form — VALID, and INVALID once tampered; truncated_subsample, gaussian_mixture and zCDP
mixes have no checker evidence and are refused at write time, with no file written."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from certdp.cli import main
from certdp.verifier.checker import check


def _write(tmp_path, *args):
    path = tmp_path / "c.json"
    rc = main(["account", *args, "--delta", "1e-5", "--certificate", str(path)])
    return rc, path


@pytest.mark.parametrize("specs, mechanism", [
    (["tree_aggregation(noise=1, steps=100)"], "compose(gaussian(sigma=1, sensitivity=1), k=7)"),
    (["compose(tree_aggregation(noise=2, steps=1000, sensitivity=2), k=3)"],
     "compose(gaussian(sigma=2, sensitivity=2), k=30)"),
    (["tree_aggregation(noise=3/2, steps=1)"], "gaussian(sigma=1.5, sensitivity=1)"),
])
def test_tree_aggregation_certificates_are_valid_and_tampering_breaks_them(tmp_path, specs, mechanism):
    args = [a for s in specs for a in ("--mechanism", s)]
    rc, path = _write(tmp_path, *args)
    assert rc == 0
    doc = json.loads(path.read_text())
    assert doc["mechanism"] == mechanism and doc["claim"]["kind"] == "dp"
    assert check(doc).valid
    eps = Fraction(doc["claim"]["eps"])
    less_private = mechanism.replace("k=", "k=1").replace("gaussian(sigma=1.5", "gaussian(sigma=1")  # k 7 -> 17, σ 1.5 -> 1
    for tampered in ({**doc, "claim": {**doc["claim"], "eps": str(eps * Fraction(999, 1000))}},
                     {**doc, "mechanism": less_private}):
        assert not check(tampered).valid, tampered


@pytest.mark.slow  # the pld_items evidence of a heterogeneous composition: 54 s on a loaded 2-core machine
def test_tree_aggregation_in_a_heterogeneous_composition(tmp_path):
    rc, path = _write(tmp_path, "--mechanism", "tree_aggregation(noise=1, steps=100)", "--mechanism", "gaussian(sigma=3)")
    assert rc == 0
    doc = json.loads(path.read_text())
    assert "tree_aggregation" not in doc["mechanism"] and check(doc).valid


@pytest.mark.parametrize("specs", [["truncated_subsample(noise=4, rate=0.01, batch=20, size=1000)"],
                                   ["zcdp(rho=0.1)", "gaussian(sigma=2)"],
                                   ['gaussian_mixture(sigma=2, sensitivities="0, 1", probs="1/2, 1/2")']])
def test_upper_bound_specs_without_checker_evidence_are_refused_at_write_time(tmp_path, capsys, specs):
    args = [a for s in specs for a in ("--mechanism", s)]
    rc, path = _write(tmp_path, *args)
    assert rc == 2 and not path.exists()
    err = capsys.readouterr().err
    assert "not supported" in err and len(err.strip().splitlines()) == 1, err
