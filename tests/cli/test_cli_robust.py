"""Odd but plausible CLI input: a one-line message with exit 2, never a traceback."""

from __future__ import annotations

import pytest

from certdp.cli import main
from required import required


def test_certificate_in_missing_directory(tmp_path, capsys):
    target = tmp_path / "no" / "such" / "dir" / "g.json"
    rc = main(["measure", "gaussian(sigma=2)", "--certificate", str(target)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("certdp: error: cannot use the file") and "No such file" in err
    assert err.count("\n") == 1


def test_plot_rejects_unknown_file_type_before_computing(tmp_path, capsys):
    rc = main(["plot", "profile", "laplace(scale=1)", "-o", str(tmp_path / "x.txt")])
    err = capsys.readouterr().err
    assert rc == 2 and "unsupported file type 'txt'" in err
    assert not (tmp_path / "x.txt").exists()


def test_plot_bands_enclose_the_closed_form(tmp_path, monkeypatch):
    """The plotted band of the Laplace profile contains the closed form
    δ(ε) = 1 − e^{(ε−1)/2} (scale 1, sensitivity 1, ε ∈ [0, 1]) at every grid point."""
    required("matplotlib")
    import matplotlib.axes
    import mpmath

    bands = []
    original = matplotlib.axes.Axes.fill_between

    def spy(self, x, lo, hi, *a, **k):
        bands.append((k.get("label"), list(x), list(lo), list(hi)))
        return original(self, x, lo, hi, *a, **k)

    monkeypatch.setattr(matplotlib.axes.Axes, "fill_between", spy)
    out = tmp_path / "p.png"
    assert main(["plot", "profile", "laplace(scale=1)", "-o", str(out), "--points", "10", "--eps-max", "1"]) == 0
    assert out.stat().st_size > 0
    (label, xs, los, his), = [b for b in bands if "laplace" in b[0]]
    assert len(xs) == 11
    for i, (lo, hi) in enumerate(zip(los, his)):
        with mpmath.workdps(50):
            x = mpmath.mpf(i) / 10  # the exact grid point i/10
            truth = 1 - mpmath.exp((x - 1) / 2) if i < 10 else mpmath.mpf(0)
            assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi)
        assert hi - lo <= 1e-12


def test_startup_does_not_import_sympy_or_analyses():
    """`certdp --version` and `certdp gdp ...` stay fast (issue 18: ≤ 0.3 s):
    building the parser imports no sympy, no analysis and no mechanism code."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from certdp.cli import build_parser, main\n"
        "build_parser()\n"
        "main(['gdp', 'delta', '--mu', '1', '--eps', '1'])\n"
        "heavy = sorted(m for m in sys.modules if m == 'sympy' or m.startswith(('certdp.analyses', 'certdp.mechanisms')))\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


def test_measure_says_not_gdp_first_and_exits_1(capsys):
    """icea(m=20, n=4) has an infinite tail limit (seed 000 App. B): the head μ is
    no GDP statement, so the verdict comes first and the exit code is 1."""
    assert main(["measure", "icea(m=20, n=4)"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("verdict: NOT GDP for any μ")
    assert main(["measure", "laplace(scale=1)", "--width", "1e-4"]) == 0
    assert "verdict" not in capsys.readouterr().out


# -- issue 18, hostile magnitudes (session 25) ---------------------------------

class _Result:
    def __init__(self, rc: int, err: str) -> None:
        self.returncode, self.stderr = rc, err


@pytest.fixture
def _run(capsys):
    def run(*argv: str) -> _Result:
        rc = main(list(argv))
        return _Result(rc, capsys.readouterr().err)
    return run


def test_profile_value_above_one_is_refused_not_an_empty_enclosure(_run) -> None:
    """profile("exp(10**1000)") is no privacy profile: a clear message, exit 2
    (it used to raise ValueError("empty enclosure") from the clip to [0, 1])."""
    r = _run("profile", 'profile("exp(10**1000)")', "--eps", "1")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "not a privacy profile" in r.stderr


def test_gdp_mu_beyond_float_range_is_a_range_message(_run) -> None:
    r = _run("gdp", "mu", "--eps", "1e400", "--delta", "1e-5")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "1e300" in r.stderr


def test_dpsgd_noise_below_the_accountant_range_is_refused(_run) -> None:
    r = _run("dpsgd", "--noise", "1e-300", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "below the range" in r.stderr
