"""adp_not_prdp certificates: writer, independent checker, mutation tests, CLI."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest

from certdp.verifier.check_prdp import KINDS, check
from certdp.cli import main
from certdp.analyses.prdp import theorem_3_2, theorem_3_3
from certdp.certificates.prdp_writer import counterexample_certificate, write_certificate
from refs import mp_digits, mpq


_mp_precision = pytest.fixture(autouse=True)(mp_digits(80))


def claim_true_diagonal(doc) -> bool:
    """Independent truth (mpmath, 50 digits) of the claim for a diagonal certificate:
    for the diagonal mechanism, sup_S hockey-stick = (p - e^ε q)⁺ (+ the other
    classes, which are ≤ 0 when p ≥ q and ε ≥ 0), PrDP mass = p when p > e^ε̂ q."""
    m, c = doc["mechanism"], doc["claim"]
    n, p, q = m["n"], Fraction(m["p"]), Fraction(m["q"])
    if not (n >= 2 and 0 < p < 1 and 0 < q < 1 and p + (n - 1) * q == 1):
        return False
    e, eh = mpmath.exp(mpq(c["eps"])), mpmath.exp(mpq(c["eps_hat"]))
    dist_a = [p, q] + [q] * (n - 2)  # M(0)
    dist_b = [q, p] + [q] * (n - 2)  # M(1)
    hs = sum(max(mpq(x) - e * mpq(y), 0) for x, y in zip(dist_a[:3], dist_b[:3]))
    if n > 3:
        hs += (n - 3) * max(mpq(q) - e * mpq(q), 0)
    adp = hs <= mpq(c["delta"])
    mass = sum(mpq(x) for x, y in zip(dist_a[:3], dist_b[:3]) if mpq(x) > eh * mpq(y))
    if n > 3 and mpq(q) > eh * mpq(q):
        mass += (n - 3) * mpq(q)
    dh = c["delta_hat"]
    if isinstance(dh, dict):
        return adp  # penalty form: tested separately
    return bool(adp and mass > mpq(dh))


@pytest.fixture(scope="module")
def docs():
    return {
        "wide": counterexample_certificate(theorem_3_2("0.5", "0.01", "1")),
        "seed": counterexample_certificate(theorem_3_2("0.5", "0.01", "1", choice="seed")),
        "thm33": counterexample_certificate(theorem_3_3("0.5", "0.25", "0.7", "x**2")),
        "thm33_irrational": counterexample_certificate(theorem_3_3("0.5", "0.25", "0.3", "sqrt(x)/10")),
    }


def test_kinds():
    assert KINDS == ("adp_not_prdp",)


@pytest.mark.parametrize("name", ["wide", "seed", "thm33", "thm33_irrational"])
def test_certificates_are_valid(docs, name):
    doc = docs[name]
    assert doc["format"] == "certdp-certificate" and doc["version"] == 1
    assert doc["claim"]["kind"] == "adp_not_prdp"
    assert check(json.loads(json.dumps(doc))) == (True, None)


def test_irrational_delta_hat_uses_penalty(docs):
    dh = docs["thm33_irrational"]["claim"]["delta_hat"]
    assert set(dh) == {"penalty", "x"}


def test_stored_margins_are_not_trusted(docs):
    doc = copy.deepcopy(docs["seed"])
    doc["evidence"]["reported"]["prdp"]["violation"] = {"lo": "-1", "hi": "-1"}
    doc["evidence"]["reported"]["adp"]["holds"] = False
    assert check(doc) == (True, None)


def _mutations(doc):
    m = doc["mechanism"]
    n, p, q = m["n"], Fraction(m["p"]), Fraction(m["q"])
    yield "n+1", ("mechanism", "n"), n + 1
    yield "n-1", ("mechanism", "n"), n - 1
    yield "n=2", ("mechanism", "n"), 2
    yield "p+eps", ("mechanism", "p"), str(p + Fraction(1, 10**12))
    yield "q-eps", ("mechanism", "q"), str(q - Fraction(1, 10**12))
    # consistent re-solve: p' = p + t, q' = (1 - p')/(n-1) — a different but valid table?
    for t in (Fraction(1, 10**6), Fraction(-1, 10**6), Fraction(1, 100), Fraction(-1, 1000)):
        p2 = p + t
        q2 = (1 - p2) / (n - 1)
        yield f"resolve p{t}", None, (str(p2), f"{q2.numerator}/{q2.denominator}")
    yield "delta smaller", ("claim", "delta"), str(Fraction(doc["claim"]["delta"]) / 2)
    yield "delta_hat larger", ("claim", "delta_hat"), str(p)
    yield "eps_hat larger", ("claim", "eps_hat"), "3"
    yield "eps smaller", ("claim", "eps"), "0"
    yield "witness output", ("evidence", "prdp_witness"), {"pair": [0, 1], "outputs": [1]}
    yield "witness pair", ("evidence", "prdp_witness"), {"pair": [0, 0], "outputs": [0]}


@pytest.mark.parametrize("name", ["wide", "seed"])
def test_mutations_invalid_or_still_true(docs, name):
    base = docs[name]
    outcomes = []
    for label, path, value in _mutations(base):
        doc = copy.deepcopy(base)
        if path is None:
            doc["mechanism"]["p"], doc["mechanism"]["q"] = value
        else:
            doc[path[0]][path[1]] = value
        ok, step = check(doc)
        if ok:
            assert claim_true_diagonal(doc), f"{label}: checker accepted a false claim"
        else:
            assert step, label
        outcomes.append(ok)
    assert not all(outcomes) and outcomes.count(False) >= 8


def test_mutation_thm33_penalty(docs):
    doc = copy.deepcopy(docs["thm33_irrational"])
    doc["claim"]["delta_hat"]["penalty"] = "sqrt(x)"  # g(δ') 10x larger: p > g(δ') fails
    assert check(doc)[0] is False
    doc = copy.deepcopy(docs["thm33"])
    doc["claim"]["delta_hat"]["x"] = "1/2"  # δ̂ = 1/4 > p
    assert check(doc)[0] is False


def test_malformed(docs):
    doc = copy.deepcopy(docs["wide"])
    doc["mechanism"] = "diagonal(n=433)"
    assert check(doc)[0] is False
    doc = copy.deepcopy(docs["wide"])
    doc["claim"]["eps"] = 0.5
    assert check(doc)[0] is False
    assert check({"format": "nope"})[0] is False


def test_table_certificate():
    doc = {
        "format": "certdp-certificate",
        "version": 1,
        "claim": {"kind": "adp_not_prdp", "eps": "1/2", "delta": "1/10", "eps_hat": "1/2", "delta_hat": "1/10"},
        "mechanism": {"type": "table", "rows": [["1/2", "1/2"], ["1/4", "3/4"]]},
        "evidence": {"prdp_witness": {"pair": [0, 1], "outputs": [0]}},
        "precision": 64,
        "producer": "test",
    }
    # sup hockey-stick = 1/2 - e^{1/2}/4 = 0.0878 <= 0.1; PrDP mass 1/2 > 0.1
    assert check(doc) == (True, None)
    bad = copy.deepcopy(doc)
    bad["claim"]["delta"] = "0.08"  # 0.0878 > 0.08
    assert check(bad)[0] is False
    bad = copy.deepcopy(doc)
    bad["mechanism"]["rows"][0] = ["1/2", "1/3"]
    assert check(bad)[0] is False


def test_shared_checker_dispatch(tmp_path, docs):
    """``certdp verify`` (certdp.verifier.checker) dispatches adp_not_prdp here."""
    from certdp.verifier import checker  # a broken checker must fail here, not skip

    path = tmp_path / "c.json"
    path.write_text(json.dumps(docs["seed"]))
    res = checker.verify(str(path))
    assert res.valid and res.failed_step is None
    bad = copy.deepcopy(docs["seed"])
    bad["mechanism"]["n"] += 1
    path.write_text(json.dumps(bad))
    assert not checker.verify(str(path)).valid


# ---------------------------------------------------------------- CLI


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_convert(capsys):
    code, out, _ = run(capsys, "prdp", "convert", "--eps", "0.5", "--delta", "0.01", "--eps-hat", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"input", "delta_hat"}
    truth = mpmath.mpf("0.01") / (1 - mpmath.exp(mpmath.mpf(-1) / 2))
    assert mpmath.mpf(data["delta_hat"]["lo"]) <= truth <= mpmath.mpf(data["delta_hat"]["hi"])


def test_cli_counterexample_json_and_certificate(capsys, tmp_path):
    cert = tmp_path / "cx.json"
    code, out, _ = run(
        capsys, "prdp", "counterexample", "--eps", "0.5", "--delta", "0.01", "--eps-hat", "1",
        "--certificate", str(cert), "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"input", "n", "p", "q", "eps", "delta", "eps_hat", "delta_hat", "adp", "prdp"}
    assert data["n"] == 433 and data["p"] == "5/437" and data["q"] == "1/437"
    assert data["adp"]["holds"] is True and set(data["adp"]["margin"]) == {"lo", "hi"}
    assert data["prdp"]["holds"] is False and set(data["prdp"]["violation"]) == {"lo", "hi"}
    assert check(json.loads(cert.read_text())) == (True, None)


def test_cli_counterexample_penalty(capsys):
    code, out, _ = run(
        capsys, "prdp", "counterexample", "--eps", "0.5", "--delta", "0.25", "--eps-hat", "0.3",
        "--penalty", "sqrt(x)/10", "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert isinstance(data["delta_hat"], dict) and set(data["delta_hat"]) == {"lo", "hi"}
    d = Fraction(data["delta"])
    g = mpmath.sqrt(mpq(d)) / 10
    assert mpmath.mpf(data["delta_hat"]["lo"]) <= g <= mpmath.mpf(data["delta_hat"]["hi"])


def test_cli_counterexample_K(capsys):
    code, out, _ = run(capsys, "prdp", "counterexample", "--eps", "0.1", "--delta", "0.25", "--eps-hat", "0.28", "--K", "3")
    assert code == 0 and "Corollary 3.4" in out and "CERTIFIED" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["prdp", "counterexample", "--eps", "0.5", "--delta", "2", "--eps-hat", "1"],
        ["prdp", "counterexample", "--eps", "abc", "--delta", "0.1", "--eps-hat", "1"],
        ["prdp", "counterexample", "--eps", "0.5", "--delta", "0.25", "--eps-hat", "1", "--penalty", "10*x"],
        ["prdp", "counterexample", "--eps", "0.5", "--delta", "0.25", "--eps-hat", "1", "--penalty", "x^2"],
        ["prdp", "convert", "--eps", "1", "--delta", "0.1", "--eps-hat", "0.5"],
        ["prdp", "convert", "--eps", "1", "--delta", "0.1"],
    ],
)
def test_cli_bad_input_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith("certdp: error:") and "Traceback" not in err


def test_cli_check(capsys, tmp_path):
    t = tmp_path / "t.json"
    t.write_text(json.dumps({"rows": [["1/2", "1/2"], ["1/4", "3/4"]]}))
    code, out, _ = run(capsys, "prdp", "check", str(t), "--eps", "0.5", "--delta", "0.1", "--json")
    data = json.loads(out)
    assert code == 1  # PrDP fails
    assert data["adp"]["holds"] is True and data["prdp"]["holds"] is False
    assert data["prdp"]["witness"] == {"pair": [0, 1], "outputs": [0]}
    code, out, _ = run(capsys, "prdp", "check", str(t), "--eps", "0.5", "--delta", "0.5")
    assert code == 0
    t.write_text(json.dumps({"rows": [[0.5, 0.5], ["1/4", "3/4"]]}))
    code, _, err = run(capsys, "prdp", "check", str(t), "--eps", "0.5", "--delta", "0.1")
    assert code == 2 and "float" in err
    code, _, err = run(capsys, "prdp", "check", str(tmp_path / "missing.json"), "--eps", "0.5", "--delta", "0.1")
    assert code == 2
