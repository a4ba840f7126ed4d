"""Packaging (issue 38 item 5): a LICENSE matching pyproject, no top-level `proofs` in the
wheel, extras that refer to each other, a Jupyter front end in `notebooks`, python-flint
capped at the tested minor version, py.typed shipped."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_file_matches_pyproject():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_package_discovery_is_certdp_only():
    from setuptools import find_packages

    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    found = find_packages(str(ROOT), include=include)
    assert "certdp" in found and "certdp.verifier" in found
    assert not [p for p in found if not (p == "certdp" or p.startswith("certdp."))], found
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["certdp"]


def test_extras_refer_to_each_other():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "certdp[nbrun]" in extras["notebooks"] and "certdp[nbrun]" in extras["test"]
    assert "certdp[plot]" in extras["nbrun"]
    assert any(r.startswith("jupyterlab") for r in extras["notebooks"])  # notebooks/README.md: `jupyter lab`
    assert not any(r.startswith("jupyterlab") for r in extras["test"])  # the suite runs them headless
    for name, reqs in extras.items():  # a package listed once: an extra that needs it refers to its extra
        direct = [re.split(r"[<>=\[; ]", r)[0] for r in reqs if not r.startswith("certdp[")]
        assert len(direct) == len(set(direct)), name
    plot_users = [n for n, reqs in extras.items() if any(r.startswith("matplotlib") for r in reqs)]
    assert plot_users == ["plot"]


def test_flint_is_capped_at_the_tested_minor():
    (flint,) = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("python-flint")]
    assert "<0.10" in flint
    import flint as f

    assert f.__version__.startswith("0.9."), "python-flint outside the tested range: run the suite, then raise the cap"


def test_certdp_proofs_needs_a_checkout(monkeypatch, tmp_path, capsys):
    """Without the checkout's proofs/ folder `certdp proofs` is a one-line error, not a traceback."""
    import certdp.cli.proofs as cmd
    from certdp.cli import main

    fake = tmp_path / "site" / "certdp" / "cli"
    fake.mkdir(parents=True)
    monkeypatch.setattr(cmd, "__file__", str(fake / "proofs.py"))  # an installed wheel: no proofs/ beside it
    import importlib.util

    real = importlib.util.find_spec  # an installed wheel: no `proofs` anywhere on the path
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "proofs" else real(name, *a))
    assert main(["proofs"]) == 2
    assert "source checkout" in capsys.readouterr().err


@pytest.mark.slow
def test_wheel_contents(tmp_path):
    """The built wheel: certdp and its dist-info only (no top-level `proofs`), py.typed, the license."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", str(ROOT), "-w",
                    str(tmp_path), "-q"], check=True)
    (wheel,) = tmp_path.glob("certdp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"certdp", f"{wheel.name.split('-py3')[0]}.dist-info"}
    assert "certdp/py.typed" in names and any(n.endswith("licenses/LICENSE") for n in names)
