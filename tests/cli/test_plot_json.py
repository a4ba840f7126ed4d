"""certdp plot ... --json: the certified band that was drawn, checked against closed forms."""

import json
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main

pytest.importorskip("matplotlib")


def test_profile_band_contains_the_laplace_profile(tmp_path, capsys):
    out = tmp_path / "p.png"
    assert main(["plot", "profile", "laplace(scale=2)", "-o", str(out), "--points", "8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert out.stat().st_size > 1000 and doc["plot"] == "profile" and len(doc["band"]) == 9
    for row in doc["band"]:
        e = Fraction(row["eps"])
        truth = max(1 - mpmath.exp(mpmath.mpf(e.numerator) / e.denominator / 2 - mpmath.mpf(1) / 4), 0)
        lo, hi = (mpmath.mpf(row["enclosure"][k]) for k in ("lo", "hi"))
        assert lo <= truth <= hi and hi - lo < 1e-15


def test_tradeoff_band_contains_randomized_response(tmp_path, capsys):
    assert main(["plot", "tradeoff", "randomized_response(p=3/4)", "-o", str(tmp_path / "t.png"),
                 "--points", "4", "--mu", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for row in doc["band"]:
        a = Fraction(row["alpha"])
        truth = max(Fraction(0), 1 - 3 * a, (1 - a) / 3)  # f of RR(3/4): eps0 = log 3, delta = 0
        lo, hi = Fraction(row["enclosure"]["lo"]), Fraction(row["enclosure"]["hi"])
        assert lo <= truth <= hi, (a, lo, truth, hi)
