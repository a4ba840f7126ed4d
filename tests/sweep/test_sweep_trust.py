"""`certdp sweep` under hostile input (issue 34, defects 4 and 5).

* A grid's size is computed from its axis definitions: a grid beyond the cap is
  refused at once (exit 2, one line) without expanding an axis, under an
  address-space limit far below what an expansion would need.
* ``--budget`` bounds the whole sweep (in-process, on processes, on Dask): exit 1
  with a message, the finished rows saved and resumable.
* The sidecar records the grid's definition (a range as first/step/count), not
  its values.
* A resume trusts only the rows certdp wrote: an edited row, a forged duplicate
  or a row of a point outside the grid is refused (exit 2, naming its line).
* A quantity's ``residual`` is checked by the audit's own rule (one owner).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest

from certdp.audit.claims import parse_claim
from certdp.cli import main
from certdp.errors import InputError
from certdp.sweep import load_grid, parse_grid, run_sweep
from certdp.sweep.grid import MAX_POINTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GAUSS = """
spec = "gaussian(sigma={s})"
[axes]
s = ["1", "2", "3"]
[[quantity]]
kind = "delta"
eps = "1"
"""

#: DP-SGD points of 0.05-1 s each: together far more than a budget of 1/2 s
SLOW = """
spec = "dpsgd(noise=1, rate=0.01, steps={T})"
[axes]
T = { first = "100", last = "3000", step = "100" }
[[quantity]]
kind = "eps"
delta = "1e-5"
"""

HUGE_AXIS = '{ first = "1", last = "10000000", step = "1" }'


def _write(tmp_path, text: str, name: str = "grid.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# -- defect 4: the size from the definitions, the cap at once -------------------------

_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (400 * 2**20, 400 * 2**20))
from certdp.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("spec, axes, points", [
    ("gaussian(sigma={s})", f"s = {HUGE_AXIS}", "10000000"),                                  # one axis
    ("compose(gaussian(sigma={s}), k={t})", f"s = {HUGE_AXIS}\nt = {HUGE_AXIS}", "100000000000000"),  # two
], ids=["1e7-axis", "1e14-grid"])
def test_a_huge_grid_is_refused_at_once_in_little_memory(tmp_path, spec, axes, points):
    """Under a 400 MB address-space limit (the command needs about 110 MB): an
    expansion of 10^7 exact values (about 2 GB) would run out of memory instead."""
    grid = _write(tmp_path, f'spec = "{spec}"\n[axes]\n{axes}\n[[quantity]]\nkind = "delta"\neps = "1"\n')
    out = tmp_path / "huge.csv"
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _LIMITED, "sweep", grid, "--out", str(out), "--budget", "10"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("certdp: error: grid file:") and proc.stderr.count("\n") == 1, proc.stderr
    assert f"(at most {MAX_POINTS})" in proc.stderr
    assert f"grid file: {points} points (at most {MAX_POINTS})" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["grid.toml"]  # no results file, no sidecar


def test_the_size_comes_from_the_definitions():
    g = parse_grid(GAUSS.replace('s = ["1", "2", "3"]', 's = { first = "1/10", last = "100000", step = "1/10" }'))
    assert g.size == 10**6 == MAX_POINTS
    over = GAUSS.replace('s = ["1", "2", "3"]', 's = { first = "1/10", last = "100000.1", step = "1/10" }')
    with pytest.raises(InputError, match=r"1000001 points \(at most 1000000\)"):
        parse_grid(over)


def test_the_sidecar_records_the_definition_not_the_values(tmp_path):
    grid = _write(tmp_path, GAUSS.replace('s = ["1", "2", "3"]', 's = { first = "1", last = "100000", step = "1" }'))
    out = tmp_path / "r.csv"
    assert main(["sweep", grid, "--out", str(out), "--budget", "1/2", "--quiet"]) == 1
    meta = tmp_path / "r.csv.sweep.json"
    assert meta.stat().st_size < 2000
    axis = json.loads(meta.read_text())["grid"]["axes"][0]
    assert axis == {"name": "s", "first": "1", "step": "1", "count": 100000}


# -- defect 4: --budget bounds the whole sweep -----------------------------------------

@pytest.mark.parametrize("backend", [[], ["--jobs", "2"]], ids=["in-process", "processes"])
def test_the_budget_bounds_the_whole_sweep_and_the_rest_resumes(tmp_path, capsys, backend):
    grid = _write(tmp_path, SLOW)
    out = tmp_path / "b.csv"
    assert main(["sweep", grid, "--out", str(out), "--budget", "1/2", "--quiet", *backend]) == 1
    err = capsys.readouterr().err
    assert err.startswith("certdp: the sweep needs more than the budget of 0.5 s") and err.count("\n") == 1, err
    assert "run the same command again to resume" in err
    saved = _rows(out)
    assert len(saved) < 30
    assert all(r["error"] == "" for r in saved)  # a point stopped by the sweep's budget is not a failed point
    s = run_sweep(load_grid(grid), str(out))
    assert (s.resumed, s.computed, s.failed) == (len(saved), 30 - len(saved), 0)
    assert [int(r["T"]) for r in _rows(out)] == list(range(100, 3001, 100))


def test_the_point_budget_still_makes_an_error_row(tmp_path):
    grid = _write(tmp_path, SLOW.replace('last = "3000"', 'last = "200"'))
    out = tmp_path / "p.csv"
    assert main(["sweep", grid, "--out", str(out), "--point-budget", "1/1000", "--quiet"]) == 1
    rows = _rows(out)
    assert len(rows) == 2 and all("--point-budget" in r["error"] for r in rows)


# -- defect 5: a resume trusts only what certdp wrote --------------------------------

@pytest.fixture
def finished(tmp_path, capsys):
    grid = _write(tmp_path, GAUSS)
    out = tmp_path / "r.csv"
    assert main(["sweep", grid, "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    return grid, out


def _resume_refused(grid, out, capsys) -> str:
    before = out.read_text()
    assert main(["sweep", grid, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("certdp: error:") and err.count("\n") == 1, err
    assert out.read_text() == before  # the file is left as it was
    return err


def test_an_edited_row_is_refused_on_resume(finished, capsys):
    grid, out = finished
    lines = out.read_text().splitlines(keepends=True)
    assert lines[1].startswith("1,0.12693")
    cells = lines[1].split(",")
    lines[1] = ",".join([cells[0], "abc", "-5", *cells[3:]])
    out.write_text("".join(lines))
    err = _resume_refused(grid, out, capsys)
    assert "line 2" in err and "s=1" in err and "not a row certdp computed" in err


def test_a_forged_duplicate_row_is_refused_on_resume(finished, capsys):
    grid, out = finished
    lines = out.read_text().splitlines(keepends=True)
    forged = lines[2].replace("0.006829594983114575384234953", "0.001")
    out.write_text("".join(lines) + forged)
    err = _resume_refused(grid, out, capsys)
    assert "line 5" in err and "s=2" in err


def test_an_exact_copy_of_a_row_is_refused_on_resume(finished, capsys):
    grid, out = finished
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines) + lines[2])
    err = _resume_refused(grid, out, capsys)
    assert "line 5" in err and "s=2" in err and "twice" in err and "line 3" in err


def test_a_row_outside_the_grid_is_refused_on_resume(finished, capsys):
    grid, out = finished
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines) + lines[2].replace("2,", "7,", 1))
    err = _resume_refused(grid, out, capsys)
    assert "line 5" in err and "s=7" in err and "not a point of this grid" in err


def test_rows_without_their_digests_are_refused(finished, capsys):
    grid, out = finished
    os.remove(f"{out}.sweep.rows")
    err = _resume_refused(grid, out, capsys)
    assert "line 2" in err and "s=1" in err


def test_an_untouched_file_resumes_and_nothing_is_recomputed(finished, capsys):
    grid, out = finished
    assert main(["sweep", grid, "--out", str(out)]) == 0
    assert "3 points: 0 computed, 3 already in" in capsys.readouterr().out


# -- defect 5: the residual, by the audit's rule --------------------------------------

@pytest.mark.parametrize("residual", ["-1", "2"])
def test_a_residual_outside_0_1_is_refused_as_the_audit_refuses_it(residual):
    grid = GAUSS.replace('kind = "delta"\neps = "1"', f'kind = "mu"\nresidual = "{residual}"')
    with pytest.raises(InputError) as in_grid:
        parse_grid(grid)
    with pytest.raises(InputError) as in_claim:
        parse_claim({"id": "c", "kind": "gdp", "mechanism": "gaussian(sigma=1)", "mu": "1", "residual": residual}, 0)
    rule = str(in_claim.value).split(": ", 1)[1]  # after "claim 'c', field 'residual'"
    assert "[0, 1]" in rule
    assert str(in_grid.value).endswith(rule)
