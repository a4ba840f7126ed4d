"""``certdp profile`` and ``certdp mechanisms`` through ``certdp.cli.main``
(and one subprocess call of the installed console script)."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main
from certdp.numerics.enclosure import Enclosure


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def dec_contains(obj, value) -> bool:
    """{"lo","hi"} decimal strings contain the mpmath value (with 1e-40 slack)."""
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(obj["lo"]), mpmath.mpf(obj["hi"])
        s = abs(value) * mpmath.mpf(10) ** -40
        return lo - s <= value <= hi + s


def test_profile_eps_json_laplace(capsys):
    code, out, err = run(capsys, "profile", "laplace(scale=1/2)", "--eps", "0.5", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"input", "delta", "method", "profile_kind"} and data["profile_kind"] == "exact"
    assert data["input"] == {"spec": "laplace(scale=1/2)", "eps": "0.5", "digits": 15}  # the inputs it answered
    with mpmath.workdps(60):
        truth = 1 - mpmath.exp(mpmath.mpf(1) / 4 - 1)  # max(1 − e^{ε/2 − Δ/(2b)}, 0), Δ/b = 2
    assert dec_contains(data["delta"], truth)
    enc = Enclosure.from_json(data["delta"])
    assert enc.relative_width() < 1e-14


def test_profile_eps_human(capsys):
    code, out, _ = run(capsys, "profile", "gaussian(sigma=2)", "--eps", "1")
    assert code == 0
    assert "gaussian(sigma=2, sensitivity=1)" in out and "δ(1) ∈ [" in out


def test_profile_delta_json_gaussian(capsys):
    code, out, _ = run(capsys, "profile", "gaussian(sigma=1)", "--delta", "0.3", "--json")
    assert code == 0
    data = json.loads(out)
    with mpmath.workdps(60):
        f = lambda e: mpmath.ncdf(-e + mpmath.mpf(1) / 2) - mpmath.exp(e) * mpmath.ncdf(-e - mpmath.mpf(1) / 2)  # noqa: E731
        truth = mpmath.findroot(lambda e: f(e) - mpmath.mpf("0.3"), 0.28)
    assert dec_contains(data["eps"], truth)


def test_profile_delta_zero_answer(capsys):
    # δ(0) = (e − 1)/(e + 1) ≈ 0.46 <= 0.5: the smallest ε is exactly 0
    code, out, _ = run(capsys, "profile", "pure_dp(eps=1)", "--delta", "0.5", "--json")
    assert code == 0 and json.loads(out)["eps"] == {"lo": "0", "hi": "0"}


def test_profile_delta_unattainable_exits_1(capsys):
    code, out, err = run(capsys, "profile", "approx_dp(eps=1, delta=0.1)", "--delta", "0.01")
    assert code == 1
    assert "no ε" in out and "1/10" in out
    code, out, _ = run(capsys, "profile", "gaussian_dp(mu=1)", "--delta", "0", "--json")
    assert code == 1 and json.loads(out)["eps"] is None


def test_profile_nested_spec(capsys):
    code, out, _ = run(capsys, "profile", "subsample(pure_dp(eps=2), rate=0.1)", "--delta", "0", "--json")
    assert code == 0
    with mpmath.workdps(60):
        truth = mpmath.log(1 + (mpmath.exp(2) - 1) / 10)
    assert dec_contains(json.loads(out)["eps"], truth)


@pytest.mark.parametrize(
    "argv,word",
    [
        (["profile", "lapalce(scale=1)", "--eps", "1"], "unknown mechanism 'lapalce'"),
        (["profile", "laplace(scale=0)", "--eps", "1"], "scale must be > 0"),
        (["profile", "laplace(scale=1)", "--eps", "-1"], "eps must be >= 0"),
        (["profile", "laplace(scale=1)", "--eps", "abc"], "abc"),
        (["profile", "laplace(scale=1)", "--delta", "1"], "delta must satisfy"),
        (["profile", "compose(laplace(scale=1), k=0)", "--eps", "1"], "k must be"),
        (["profile", "laplace(scale=1)", "--eps", "1", "--digits", "0"], "digits"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, word):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("certdp: error:") and word in err
    assert err.count("\n") == 1


def test_eps_and_delta_are_exclusive(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["profile", "laplace(scale=1)", "--eps", "1", "--delta", "0.1"])
    assert exc.value.code == 2


def test_mechanisms_listing(capsys):
    code, out, _ = run(capsys, "mechanisms")
    assert code == 0
    for name in ("laplace", "gaussian_dp", "subsample", "clip_reify", "profile"):
        assert f"\n{name}: " in out
    code, out, _ = run(capsys, "mechanisms", "--json")
    data = json.loads(out)["mechanisms"]
    lap = next(m for m in data if m["name"] == "laplace")
    assert lap["params"][1] == {"name": "sensitivity", "kind": "number", "doc": "query sensitivity Δ > 0", "default": "1"}


def test_console_script_subprocess():
    """The installed `certdp` console script, found next to the running interpreter
    (where pip puts it; the venv's bin directory need not be on PATH)."""
    import os
    import sys

    bindir = os.path.dirname(sys.executable)
    candidates = [os.path.join(bindir, name) for name in ("certdp", "certdp.exe")]
    exe = next((c for c in candidates if os.path.isfile(c)), None)
    assert exe is not None, f"no certdp console script next to {sys.executable}: python -m pip install -e '.[test]'"
    res = subprocess.run(
        [exe, "profile", "randomized_response(p=3/4)", "--eps", "0", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    # δ(0) = q − (1 − q) = 1/2 exactly (dyadic)
    assert data["delta"] == {"lo": "0.5", "hi": "0.5"}
    assert Fraction(1, 2) == Fraction(data["delta"]["lo"])


def test_composition_without_closed_form_is_routed_to_an_accountant(capsys):
    """compose(pure_dp(eps=1), k=2): the 2-fold randomized response with
    p = e/(1+e).  Its exact δ(1) by hand: the loss takes values 2, 0, -2 with
    P-probabilities p², 2p(1-p), (1-p)², so δ(1) = p²(1 - e^{1-2}) + 2p(1-p)(1 - e^{1})⁺ = p²(1 - 1/e)."""
    import json

    import mpmath

    code, out, _ = run(capsys, "profile", "compose(pure_dp(eps=1), k=2)", "--eps", "1", "--json")
    data = json.loads(out)
    assert code == 0 and "accountant" in data["method"]
    with mpmath.workdps(50):
        p = mpmath.e / (1 + mpmath.e)
        truth = p**2 * (1 - 1 / mpmath.e)
        lo, hi = mpmath.mpf(data["delta"]["lo"]), mpmath.mpf(data["delta"]["hi"])
    assert lo <= truth <= hi and hi - lo < mpmath.mpf(10) ** -8
