"""Readable output (issue 38 item 4): small exact numbers print as outward decimals;
--json echoes the inputs it answered; the audit table names the quantity of its
enclosure column; one exit-code rule (README); --help has no Sphinx markup;
--progress off a terminal prints one line per point."""

from __future__ import annotations

import argparse
import json
import re
from fractions import Fraction

import pytest

from certdp.cli import build_parser, main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_long_exact_residual_prints_as_an_outward_decimal(capsys):
    args = ("dpsgd", "--noise", "1.1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5", "--mu",
            "--residual", "1e-30", "--no-regret", "--quiet")
    code, out, _ = _run(capsys, *args)
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if "residual η" in ln]
    m = re.search(r"residual η <= (\S+)$", line)
    assert m and "/" not in line, line  # not 5218758221145/37778931862957161709568
    code, out, _ = _run(capsys, *args, "--json")
    exact_eta = Fraction(json.loads(out)["accountant"]["residual"])  # the exact η stays in --json
    assert exact_eta.denominator > 10**6  # a long fraction indeed
    shown = Fraction(m.group(1))
    assert exact_eta <= shown <= exact_eta * Fraction(1001, 1000)  # rounded up (the weaker, still proved), 6 digits


#: (argv, the inputs --json must echo under "input")
ECHOES = [
    (["gdp", "mu", "--eps", "1", "--delta", "1e-5"], {"eps": "1", "delta": "1e-5"}),
    (["gdp", "delta", "--mu", "1", "--eps", "log(2)"], {"mu": "1", "eps": "log(2)"}),
    (["gdp", "eps", "--mu", "1", "--delta", "1e-5"], {"mu": "1", "delta": "1e-5"}),
    (["gdp", "from-pure-dp", "--eps", "1"], {"eps": "1"}),
    (["profile", "laplace(scale=1)", "--eps", "0.5"], {"spec": "laplace(scale=1)", "eps": "0.5"}),
    (["tradeoff", "gaussian(sigma=1)", "--alpha", "0.1"], {"spec": "gaussian(sigma=1)"}),
    (["calibrate", "gaussian(sigma=x)", "--param", "x", "--eps", "1", "--delta", "1e-5"],
     {"spec": "gaussian(sigma=x)", "param": "x", "eps": "1", "delta": "1e-5"}),
    (["prdp", "convert", "--eps", "1", "--delta", "1e-5", "--eps-hat", "2"], {"eps": "1", "delta": "1e-5"}),
    (["dpsgd", "--noise", "2", "--sample-rate", "0.01", "--steps", "10", "--delta", "1e-5", "--upper-only"],
     {"noise": "2", "sample_rate": "0.01", "steps": "10", "delta": "1e-5"}),
]


@pytest.mark.parametrize("argv, given", ECHOES, ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else "")
def test_json_echoes_the_inputs_it_answered(capsys, argv, given):
    code, out, _ = _run(capsys, *argv, "--json", "--quiet")
    assert code == 0
    data = json.loads(out)
    echoed = data["input"]
    for key, value in given.items():
        assert echoed[key] == value, (key, echoed)


def test_every_json_command_echoes_its_inputs():
    """The rule sits in the one JSON printer (cli.common.emit); the commands that print their
    own JSON say what they answered in their own keys."""
    import inspect

    import certdp.cli as cli
    import importlib

    for name in cli.COMMAND_MODULES:
        src = inspect.getsource(importlib.import_module(name))
        if "json.dumps" in src:  # its own JSON: audit (claims carry their ids), sweep (grid, out), verify (claim)
            assert name.rsplit(".", 1)[1] in ("audit", "sweep", "verify"), name


CLAIMS = """
[[claim]]
id = "lap"
kind = "dp"
mechanism = "laplace(scale=1/2)"
eps = "0.5"
delta = "0.53"
[[claim]]
id = "g"
kind = "gdp"
mechanism = "gaussian(sigma=2)"
mu = "{mu}"
"""


def test_audit_table_names_its_quantity_and_exit_codes_follow_the_rule(tmp_path, capsys):
    claims = tmp_path / "c.toml"
    claims.write_text(CLAIMS.format(mu="0.5"))  # both true
    code, out, _ = _run(capsys, "audit", str(claims))
    assert code == 0
    header, lap, g = out.splitlines()[:3]
    assert header.split()[:4] == ["id", "verdict", "quantity", "certified"]
    assert "δ(ε=0.5)" in lap and "μ (GDP)" in g
    claims.write_text(CLAIMS.format(mu="0.4"))  # μ = 1/2 exactly: the claim is REFUTED
    code, out, _ = _run(capsys, "audit", str(claims))
    assert code == 1 and "1 REFUTED" in out  # a negative verdict exits 1 (README: one rule)
    code, out, _ = _run(capsys, "audit", str(claims), "--json")
    assert code == 1 and [c["quantity"] for c in json.loads(out)["claims"]] == ["δ(ε=0.5)", "μ (GDP)"]


def test_readme_states_the_exit_code_rule():
    import pathlib

    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "Exit code 0 when the answer is positive" in readme
    assert "`audit` exits 1 if any claim is REFUTED" in readme


def _parsers(p: argparse.ArgumentParser):
    yield p
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub in dict.fromkeys(a.choices.values()):
                yield from _parsers(sub)


def test_help_texts_have_no_sphinx_markup():
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 20  # every subcommand and sub-subcommand
    for p in parsers:
        text = p.format_help()
        assert "``" not in text and not re.search(r":(func|class|mod|meth|attr|data|exc):`", text), p.prog


def test_progress_off_a_terminal_is_one_line_per_point(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text('spec = "subsample(gaussian(sigma={s}), rate=1/100)"\n[axes]\ns = ["1", "2", "3"]\n'
                    '[[quantity]]\nkind = "delta"\neps = "1"\n')
    code, _, err = _run(capsys, "sweep", str(grid), "--out", str(tmp_path / "r.csv"), "--progress")
    assert code == 0
    lines = err.splitlines()
    assert [ln.split("]")[0] for ln in lines] == ["[1/3", "[2/3", "[3/3"], lines  # nothing from inside a point
    claims = tmp_path / "c.toml"
    claims.write_text(CLAIMS.format(mu="0.5"))
    code, _, err = _run(capsys, "audit", str(claims), "--progress")
    assert err.splitlines() == ["certdp: auditing claims: 1/2", "certdp: auditing claims: 2/2"]
