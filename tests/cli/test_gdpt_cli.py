"""CLI: certdp measure (human output) and certdp plot."""

from __future__ import annotations

import importlib.util

import pytest

from certdp.cli import main


def test_measure_human_output(capsys):
    assert main(["measure", "laplace(scale=1/2)", "--width", "1e-4"]) == 0
    out = capsys.readouterr().out
    assert "μ ∈ [1.800" in out and "tail: zero" in out


def test_measure_bad_width(capsys):
    assert main(["measure", "laplace(scale=1/2)", "--width", "-1"]) == 2
    assert "width" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["gdpt", "profile"])
def test_plot(what, tmp_path, capsys):
    out = tmp_path / f"{what}.png"
    rc = main(["plot", what, "laplace(scale=1/2)", "-o", str(out), "--eps-max", "3", "--points", "12"])
    if importlib.util.find_spec("matplotlib") is None:
        assert rc == 2 and "matplotlib" in capsys.readouterr().err
    else:
        assert rc == 0 and out.stat().st_size > 1000
