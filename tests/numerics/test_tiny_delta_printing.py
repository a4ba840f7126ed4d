"""δ_μ(ε) far below 1e-308 is printed with its exact decimal exponent (issue 18).

At μ = 1e-100, ε = 1 the true δ is about 10^(-2.2e199).  The printed ends must
be outward bounds of the truth, which mpmath computes here independently at
700 digits (the two Φ terms agree to ~400 digits, so less precision cancels
to garbage).
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import pytest

from certdp.numerics.enclosure import decimal_string
from certdp.numerics.gdp import delta_mu


def _mpmath_delta(mu: str, eps: str) -> mpmath.mpf:
    with mpmath.workdps(700):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        a = -e / m + m / 2
        return mpmath.ncdf(a) - mpmath.exp(e) * mpmath.ncdf(a - m)


def _as_mpf(text: str) -> mpmath.mpf:
    with mpmath.workdps(700):
        return mpmath.mpf(text)


@pytest.mark.parametrize("mu, eps", [("1e-100", "1"), ("1", "1e100"), ("1e-60", "2")])
def test_printed_tiny_delta_brackets_the_truth(mu: str, eps: str) -> None:
    enc = delta_mu(mu, eps, digits=12)
    lo, hi = decimal_string(enc.lo, 12, "down"), decimal_string(enc.hi, 12, "up")
    truth = _mpmath_delta(mu, eps)
    with mpmath.workdps(700):
        assert truth > 0
        assert _as_mpf(lo) <= truth <= _as_mpf(hi), (lo, hi)
        # the exponent is exact: both ends share it, and the mantissas agree to 10 digits
        assert lo.split("e")[1] == hi.split("e")[1]
        assert abs(_as_mpf(hi) / _as_mpf(lo) - 1) < mpmath.mpf("1e-10")


def test_cli_json_prints_the_exponent() -> None:
    out = subprocess.run([sys.executable, "-m", "certdp", "gdp", "delta", "--mu", "1e-100", "--eps", "1", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)["delta"]
    truth = _mpmath_delta("1e-100", "1")
    with mpmath.workdps(700):
        assert _as_mpf(d["lo"]) <= truth <= _as_mpf(d["hi"])
        assert _as_mpf(d["lo"]) > 0


def test_beyond_the_printed_range_is_a_coarse_outward_bound() -> None:
    from certdp.numerics.ball import exact_ball

    tiny = exact_ball(1, -(10 ** 1005))  # 2^(-10^1005) ≈ 10^(-3e1004): beyond 10^(-10^1000)
    assert decimal_string(tiny, 5, "down") == "0"
    up = decimal_string(tiny, 5, "up")
    assert up == "1e-1" + "0" * 1000
