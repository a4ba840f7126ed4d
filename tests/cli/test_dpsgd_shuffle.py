"""``certdp dpsgd --sampling shuffle``: the proved lower bound beside the
no-amplification upper bound and the Poisson enclosure, each with its meaning;
bad input is one line and exit 2."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from certdp.cli import main
from certdp.verifier.checker import check

BASE = ["dpsgd", "--noise", "1", "--batch-size", "100", "--dataset-size", "10000", "--epochs", "1",
        "--delta", "1e-5", "--sampling", "shuffle"]


def test_human_and_json(capsys, tmp_path):
    cert = tmp_path / "s.json"
    assert main([*BASE, "--certificate", str(cert)]) == 0
    text = capsys.readouterr().out
    assert "shuffled, proved:  ε >= 4.06" in text and "upper bound without amplification" in text
    assert "NOT a valid guarantee" in text and "independent permutations" in text
    assert check(json.loads(cert.read_text())).valid
    assert main([*BASE, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    low, up, poi = data["shuffle_lower"], data["shuffle_upper"], data["poisson"]
    assert Fraction(low["eps_at_least"]) > Fraction(405, 100) and "lower bound" in low["meaning"]
    assert "upper bound" in up["meaning"] and "Poisson" in poi["meaning"]
    assert Fraction(poi["eps"]["hi"]) < Fraction(low["eps_at_least"]) <= Fraction(up["eps"]["lo"])
    assert data["poisson_below_shuffled_lower"] is True and data["relation"].startswith("zero-out")


@pytest.mark.parametrize("extra", [
    ["--mu"], ["--upper-only"], ["--grid", "1/1024"], ["--width", "0.1"],
])
def test_poisson_only_options_exit_2(extra, capsys):
    assert main([*BASE, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("certdp: error: ") and "\n" not in err and "--sampling shuffle" in err


@pytest.mark.parametrize("argv", [
    ["dpsgd", "--noise", "1", "--sample-rate", "0.01", "--epochs", "1", "--delta", "1e-5", "--sampling", "shuffle"],
    ["dpsgd", "--noise", "1", "--batch-size", "3", "--dataset-size", "100", "--epochs", "1", "--delta", "1e-5",
     "--sampling", "shuffle"],
    ["dpsgd", "--noise", "1", "--batch-size", "10", "--dataset-size", "100", "--epochs", "0.5", "--delta", "1e-5",
     "--sampling", "shuffle"],
    ["dpsgd", "--noise", "-1", "--batch-size", "10", "--dataset-size", "100", "--epochs", "1", "--delta", "1e-5",
     "--sampling", "shuffle"],
    # a float-placed partition: 1e-250 raised a traceback (math domain error), 1e-400 a ZeroDivisionError
    *[["dpsgd", "--noise", n, "--batch-size", "10", "--dataset-size", "100", "--epochs", "1", "--delta", "1e-5",
       "--sampling", "shuffle"] for n in ("1e-400", "1e-250", "0.03", "1e5")],
])
def test_bad_input_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("certdp: error: ") and "\n" not in err
