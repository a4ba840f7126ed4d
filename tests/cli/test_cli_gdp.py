"""CLI tests for `certdp gdp` and `certdp demo`, through the real entry points."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from fractions import Fraction

import pytest

from certdp.cli import main
from refs import delta_mu_ref, mpf


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_delta_json(capsys):
    code, out, _ = run(capsys, "gdp", "delta", "--mu", "1", "--eps", "1", "--json")
    assert code == 0
    data = json.loads(out)
    lo, hi = Fraction(data["delta"]["lo"]), Fraction(data["delta"]["hi"])
    ref = delta_mu_ref(1, 1)
    assert mpf(lo) <= ref <= mpf(hi) and hi - lo < Fraction(1, 10**15)


def test_mu_json_brackets_root(capsys):
    code, out, _ = run(capsys, "gdp", "mu", "--eps", "1", "--delta", "1e-5", "--json")
    assert code == 0
    mu = json.loads(out)["mu"]
    lo, hi = Fraction(mu["lo"]), Fraction(mu["hi"])
    assert delta_mu_ref(lo, 1) <= mpf("1e-5") <= delta_mu_ref(hi, 1)
    assert hi - lo <= Fraction(1, 10**12)


def test_eps_json(capsys):
    code, out, _ = run(capsys, "gdp", "eps", "--mu", "1", "--delta", "1e-5", "--json")
    e = json.loads(out)["eps"]
    lo, hi = Fraction(e["lo"]), Fraction(e["hi"])
    assert code == 0 and delta_mu_ref(1, hi) <= mpf("1e-5") <= delta_mu_ref(1, lo)


def test_from_pure_dp_human(capsys):
    code, out, _ = run(capsys, "gdp", "from-pure-dp", "--eps", "1")
    assert code == 0 and "μ ∈ [1.23203" in out


def test_table_json_shape(capsys):
    code, out, _ = run(capsys, "gdp", "table", "--eps", "1,8", "--delta", "1e-5,1e-9", "--json")
    rows = json.loads(out)["table"]
    assert code == 0 and len(rows) == 4
    cell = {(r["eps"], r["delta"]): r["mu"] for r in rows}
    # seed 003 Table 3: (ε=8, δ=1e-9) -> 1.26, (ε=1, δ=1e-5) -> 0.27 (two decimals)
    assert abs(float(Fraction(cell[("8", "1e-9")]["lo"])) - 1.26) < 0.005
    assert abs(float(Fraction(cell[("1", "1e-5")]["hi"])) - 0.27) < 0.005


@pytest.mark.parametrize(
    "argv",
    [
        ["gdp", "mu", "--eps", "1", "--delta", "2"],
        ["gdp", "mu", "--eps", "-1", "--delta", "0.1"],
        ["gdp", "delta", "--mu", "abc", "--eps", "1"],
        ["gdp", "delta", "--mu", "0", "--eps", "1"],
        ["gdp", "table", "--eps", "1,,2"],
        ["gdp", "eps", "--mu", "1", "--delta", "__import__('os')"],
    ],
)
def test_bad_input_exit_2_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("certdp: error:") and err.count("\n") == 1


def test_demo_reports_table3(capsys):
    code, out, _ = run(capsys, "demo", "--json")
    rows = json.loads(out)["seed003_table3"]
    assert code == 0 and len(rows) == 24
    assert all(r["agrees"] for r in rows)


def test_console_script_subprocess():
    exe = shutil.which("certdp")
    cmd = [exe] if exe else [sys.executable, "-m", "certdp"]
    res = subprocess.run(cmd + ["gdp", "delta", "--mu", "6", "--eps", "100", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)["delta"]
    ref = delta_mu_ref(6, 100)
    assert mpf(Fraction(d["lo"])) <= ref <= mpf(Fraction(d["hi"]))
    bad = subprocess.run(cmd + ["gdp", "mu", "--eps", "1", "--delta", "0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "delta" in bad.stderr


def test_help_everywhere():
    for argv in (["--help"], ["gdp", "--help"], ["gdp", "table", "--help"], ["demo", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0


def test_demo_tour_parts(capsys):
    """The demo's tour: SGD tail L = 1/2 (seed 000 §4), Laplace μ = 2Φ⁻¹(1 − e⁻¹/2)
    (its GDPT is maximal at ε = 0, δ(0) = 1 − e⁻¹), a VALID certificate, and a
    DP-SGD ε bound just above dp_accounting's 7.424385 (certified upper end)."""
    import mpmath

    code, out, _ = run(capsys, "demo", "--json")
    data = json.loads(out)
    assert code == 0 and data["identify_sgd"]["L"] == "1/2"
    with mpmath.workdps(40):
        mu = 2 * mpmath.sqrt(2) * mpmath.erfinv(2 * (1 - mpmath.exp(-1) / 2) - 1)
    enc = data["measure_laplace"]["mu"]
    assert mpf(Fraction(enc["lo"])) <= mu <= mpf(Fraction(enc["hi"]))
    assert data["measure_laplace"]["certificate_valid"] is True
    assert Fraction("7.4243") < Fraction(data["dpsgd"]["eps_upper"]) < Fraction("7.426")
