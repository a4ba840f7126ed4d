"""Sweep and audit results load into a pandas DataFrame in one call (issue 38 item 3);
``certdp sweep --json`` prints its summary (item 7).  Skipped without pandas."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from certdp.cli import main
from certdp.sweep.frames import outward_float

GRID = """
spec = "compose(gaussian(sigma={s}), k={k})"
[axes]
s = ["1", "3"]
k = ["1", "4"]
[[quantity]]
kind = "eps"
delta = "1e-5"
"""


def test_outward_float_is_on_the_safe_side():
    for text in ("0.1", "1/3", "4.377178095681224512247808", "1e-400", "1e400", "-0.1", "7"):
        q = Fraction(text)
        lo, hi = outward_float(text, True), outward_float(text, False)
        assert Fraction(lo) <= q if math.isfinite(lo) else lo < 0 or q < 0
        assert q <= Fraction(hi) if math.isfinite(hi) else hi > 0
        assert lo == hi or math.nextafter(lo, math.inf) == hi  # the two floats around it, no wider
    assert math.isnan(outward_float("", True))


def test_sweep_json_summary(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(grid), "--out", str(out), "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["points"] == 4 and doc["computed"] == 4 and doc["resumed"] == 0 and doc["failed"] == 0
    assert doc["columns"][:4] == ["s", "k", "eps_lo", "eps_hi"] and doc["out"] == str(out)


def test_results_and_verdicts_frames(tmp_path):
    pd = pytest.importorskip("pandas")
    from certdp.sweep import results_frame, verdicts_frame

    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(grid), "--out", str(out), "--quiet"]) == 0
    frame = results_frame(out, floats=True)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 4
    assert list(frame["s"]) == ["1", "1", "3", "3"] and frame["eps_lo"].map(type).eq(str).all()
    for lo, hi, lo_f, hi_f in zip(frame["eps_lo"], frame["eps_hi"], frame["eps_lo_float"], frame["eps_hi_float"]):
        assert Fraction(lo_f) <= Fraction(lo) <= Fraction(hi) <= Fraction(hi_f)
    from certdp.audit import audit_claim, builtin_path, load_claims

    verdicts = [audit_claim(c) for c in load_claims(builtin_path("seeds"))[:2]]
    vf = verdicts_frame(verdicts, floats=True)
    assert list(vf["id"]) == [v.id for v in verdicts] and list(vf["verdict"]) == [v.verdict for v in verdicts]
    for v, lo, hi in zip(verdicts, vf["enclosure_lo"], vf["enclosure_hi"]):
        assert (lo, hi) == (v.enclosure.lo_str(), v.enclosure.hi_str())
    # the --json form of `certdp audit` loads the same way
    same = verdicts_frame({"claims": [v.to_json() for v in verdicts]})
    assert list(same["enclosure_hi"]) == list(vf["enclosure_hi"])
