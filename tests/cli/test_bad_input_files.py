"""Every input file a command reads — claims files, sweep grids, mechanism tables —
that is undecodable, absurdly nested, a directory or missing gives one line on
stderr and exit 2, never a traceback (issue 18; found by the file fuzz)."""

from __future__ import annotations

import pytest

from certdp.cli import main
from required import required

READERS = [
    lambda f: ["audit", f],
    lambda f: ["sweep", f, "--out", f + ".jsonl"],
    lambda f: ["prdp", "check", "--eps", "1", "--delta", "0", f],
]

CONTENTS = {
    "not-utf8": b"\x80\xff[[claim]]",
    "deep-toml": ("a = " + "[" * 10_000 + "]" * 10_000 + "\n").encode(),
    "deep-json": ("[" * 100_000).encode(),
    "empty": b"",
}


@pytest.mark.parametrize("reader", range(len(READERS)))
@pytest.mark.parametrize("name", sorted(CONTENTS))
def test_bad_file_is_one_line_exit_2(reader, name, tmp_path, capsys):
    f = tmp_path / f"{name}.in"
    f.write_bytes(CONTENTS[name])
    rc = main(READERS[reader](str(f)))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("certdp: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("reader", range(len(READERS)))
def test_directory_and_missing_file(reader, tmp_path, capsys):
    for path in (str(tmp_path), str(tmp_path / "missing.toml")):
        assert main(READERS[reader](path)) == 2
        err = capsys.readouterr().err
        assert err.startswith("certdp: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("text", ['claim = ["x"]\n', 'claim = [["x"]]\n', 'claim = [1, 2]\n'])
def test_claims_that_are_not_tables(text, tmp_path, capsys):
    f = tmp_path / "c.toml"
    f.write_text(text)
    assert main(["audit", str(f)]) == 2
    assert "is not a [[claim]] table" in capsys.readouterr().err


def test_empty_builtin_name(capsys):
    assert main(["audit", "--builtin", ""]) == 2
    assert "no built-in claims file" in capsys.readouterr().err


@pytest.mark.parametrize("extra", ['"inputs": [{"a": 1}, "b"]', '"inputs": 3', '"outputs": [[1], [2]]',
                                   '"neighbours": 3', '"neighbours": [1, 2]', '"neighbours": true'])
def test_prdp_table_fields_of_the_wrong_type(extra, tmp_path, capsys):
    """Labels and neighbour lists of the wrong JSON type (found by the hostile probe:
    TypeError: unhashable type / 'int' object is not iterable)."""
    f = tmp_path / "t.json"
    f.write_text('{"rows": [["1/2", "1/2"], ["1/3", "2/3"]], ' + extra + "}")
    assert main(["prdp", "check", "--eps", "1", "--delta", "0", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("certdp: error: ") and err.count("\n") == 1


def test_plot_points_are_bounded(tmp_path, capsys):
    required("matplotlib")
    assert main(["plot", "profile", "laplace(scale=1)", "-o", str(tmp_path / "p.png"), "--points", "1000000"]) == 2
    assert "--points must be an integer in [1, 10000]" in capsys.readouterr().err


def test_claim_with_an_unparsable_spec_makes_the_file_malformed(tmp_path, capsys):
    """docs/claims.md: a malformed file is refused as a whole, naming the claim and field."""
    f = tmp_path / "c.toml"
    f.write_text('[[claim]]\nid = "x"\nkind = "dp"\nmechanism = "laplace(scale=1"\neps = "1"\ndelta = "0"\n')
    assert main(["audit", str(f)]) == 2
    assert "claim 'x', field 'mechanism'" in capsys.readouterr().err


def test_empty_output_names_are_refused(tmp_path, capsys):
    assert main(["measure", "gaussian(sigma=1)", "--certificate", ""]) == 2
    assert "empty file name" in capsys.readouterr().err


def test_pure_dp_compositions_vanish_exactly(capsys):
    """10-fold Laplace(1) is 10-DP: δ(ε) = 0 exactly from ε = 10 on (was a budget
    overrun through the PLD engine); just below, the engine's δ is positive."""
    import json

    for eps, zero in (("700", True), ("10", True), ("9.99", False)):
        assert main(["profile", "compose(laplace(scale=1), k=10)", "--eps", eps, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)["delta"]
        assert (d["hi"] == "0") == zero, (eps, d)
    assert main(["account", "--mechanism", "subsample(laplace(scale=1), rate=1/2)", "--times", "3",
                 "--eps", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["delta"] == {"lo": "0", "hi": "0"}


def test_prdp_check_says_when_delta_makes_it_vacuous(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_text('{"rows": [["1/2", "1/2"], ["1/4", "3/4"]]}')
    assert main(["prdp", "check", "--eps", "0", "--delta", "1", str(f)]) == 0
    assert "vacuous" in capsys.readouterr().out
    assert main(["prdp", "check", "--eps", "0", "--delta", "1/2", str(f)]) == 1  # PrDP fails: not vacuous
    assert "vacuous" not in capsys.readouterr().out
