"""`certdp sweep` (issue 19): grid files, certified rows, resuming, and the
process-pool and Dask backends giving the same rows.

Truth for the values: the Gaussian mechanism with noise σ (sensitivity 1) is
exactly 1/σ-GDP (Dong, Roth, Su 2022), so δ(ε) = δ_μ(ε) in closed form
(mpmath, tests/refs.py) and μ = 1/σ; ε(δ) is the root of that closed form.
The Dask tests use a LocalCluster of 2 worker *processes* (threads_per_worker=1,
as the sweep requires).
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.cli import main
from certdp.errors import InputError
from certdp.sweep import load_grid, parse_grid, run_sweep
from refs import delta_mu_ref, mpf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GAUSS = """
spec = "gaussian(sigma={s})"
[axes]
s = ["0.5", "0.80", "1", "3"]
[[quantity]]
kind = "eps"
delta = "1e-5"
[[quantity]]
kind = "delta"
eps = "1"
[[quantity]]
kind = "mu"
"""

#: four cheap DP-SGD points (PLD accountant), for the backend comparisons
DPSGD = """
spec = "dpsgd(noise={sigma}, rate=0.1, steps={T})"
[axes]
sigma = ["3", "4"]
T = [5, 10]
[[quantity]]
kind = "eps"
delta = "1e-3"
"""


def _write(tmp_path, text: str, name: str = "grid.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _without_seconds(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


# -- grid files ---------------------------------------------------------------

def test_axis_values_are_exact_and_canonical():
    g = parse_grid(GAUSS.replace('"0.5", ', '"5/10", '))
    assert [(a.name, a.values) for a in g.axes] == [("s", ("0.5", "0.8", "1", "3"))]  # "5/10", "0.80" canonical
    assert g.spec_for(("0.8",)) == "gaussian(sigma=0.8)"
    # an exact range: 0.1 + 0.1 + 0.1 is 0.3 here (with floats the last value would be lost)
    r = parse_grid(GAUSS.replace('s = ["0.5", "0.80", "1", "3"]', 's = { first = "0.1", last = "0.3", step = "0.1" }'))
    assert list(r.points()) == [(0, ("0.1",)), (1, ("0.2",)), (2, ("0.3",))]
    assert [r.index_of((v,)) for v in ("0.1", "0.3", "0.30", "3/10", "0.4", "0.15")] == [0, 2, None, None, None, None]
    assert r.columns == ("s", "eps_lo", "eps_hi", "delta_lo", "delta_hi", "mu_lo", "mu_hi", "residual_hi",
                         "assumptions", "route", "seconds", "error")


@pytest.mark.parametrize("change, message", [
    (('"0.80"', "0.8"), "TOML float"),
    (('"0.80"', '"0.8) + laplace(scale=1"'), "not an exact decimal"),
    (('"0.80"', '"sigma"'), "not an exact decimal"),
    (('"0.80"', '"2/4"'), "appears twice"),
    (("sigma={s}", "sigma={t}"), "{t} is not an axis"),
    (("sigma={s}", "sigma=1"), "does not appear in the spec template"),
    (("sigma={s}", "sigma={s}{"), "braces"),
    (('kind = "mu"', 'kind = "eps"\ndelta = "1e-3"'), "appear twice"),
    (('kind = "mu"', 'kind = "calibrate"'), "calibrate"),  # needs param, eps, delta; and a grid of its own
    (('kind = "mu"', 'kind = "mu"\nalpha = "1"'), "unknown key"),
    (('eps = "1"', 'epsilon = "1"'), "unknown key"),
])
def test_malformed_grid_files_are_refused(change, message):
    with pytest.raises(InputError, match=message):
        parse_grid(GAUSS.replace(*change, 1))


def test_cli_reports_a_bad_grid_in_one_line(tmp_path, capsys):
    path = _write(tmp_path, GAUSS.replace('"0.80"', "0.8"))
    assert main(["sweep", path, "--out", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("certdp: error:") and "\n" not in err
    assert main(["sweep", _write(tmp_path, GAUSS), "--out", str(tmp_path / "r.txt")]) == 2
    assert ".csv or .parquet" in capsys.readouterr().err


# -- values ----------------------------------------------------------------------

def _gauss_eps_ref(sigma: Fraction, delta: Fraction) -> mpmath.mpf:
    """The ε with δ_μ(ε) = δ, μ = 1/σ, by bisection (δ_μ decreases in ε)."""
    with mpmath.workdps(60):
        m, lo, hi = 1 / mpf(sigma), mpmath.mpf(0), mpmath.mpf(60)
        for _ in range(200):
            mid = (lo + hi) / 2
            if mpmath.ncdf(-mid / m + m / 2) - mpmath.exp(mid) * mpmath.ncdf(-mid / m - m / 2) > mpf(delta):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def test_gaussian_rows_enclose_the_closed_form(tmp_path, capsys):
    out = tmp_path / "g.csv"
    assert main(["sweep", _write(tmp_path, GAUSS.replace('"0.80", ', "")), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    rows = _rows(out)
    assert [r["s"] for r in rows] == ["0.5", "1", "3"]
    for r in rows:
        sigma = Fraction(r["s"])
        assert r["error"] == "" and "closed-form" in r["route"] and r["assumptions"] == ""
        with mpmath.workdps(60):
            d = delta_mu_ref(1 / sigma, 1)
            assert mpf(r["delta_lo"]) <= d <= mpf(r["delta_hi"])
            assert mpf(r["delta_hi"]) - mpf(r["delta_lo"]) <= d * mpf("1e-15")
            assert mpf(r["mu_lo"]) <= 1 / mpf(sigma) <= mpf(r["mu_hi"]) and r["residual_hi"] == "0"
            e = _gauss_eps_ref(sigma, Fraction(1, 10**5))
            assert mpf(r["eps_lo"]) <= e <= mpf(r["eps_hi"])
            assert mpf(r["eps_hi"]) - mpf(r["eps_lo"]) <= mpf("1e-12")


def test_progress_on_request_and_silence_on_quiet(tmp_path, capsys):
    grid = _write(tmp_path, GAUSS)
    assert main(["sweep", grid, "--out", str(tmp_path / "p.csv"), "--progress"]) == 0
    captured = capsys.readouterr()
    assert "[4/4]" in captured.err and "points/s, ETA 0:00" in captured.err
    assert "4 points: 4 computed, 0 already in" in captured.out
    assert main(["sweep", grid, "--out", str(tmp_path / "p.csv"), "--quiet"]) == 0  # resumed: nothing to do
    assert capsys.readouterr() == ("", "")


def test_a_failing_point_gets_an_error_row_and_the_sweep_goes_on(tmp_path, capsys):
    out = tmp_path / "e.csv"
    grid = _write(tmp_path, GAUSS.replace('"0.5", "0.80", "1", "3"', '"-1", "2", "0"'))
    assert main(["sweep", grid, "--out", str(out)]) == 1  # some point failed
    assert "3 points: 3 computed, 0 already in" in capsys.readouterr().out
    rows = {r["s"]: r for r in _rows(out)}
    assert rows["2"]["error"] == "" and mpf(rows["2"]["mu_lo"]) <= mpf("0.5") <= mpf(rows["2"]["mu_hi"])
    for bad in ("-1", "0"):
        assert rows[bad]["error"].startswith("InputError:") and rows[bad]["eps_lo"] == ""


# -- streaming and resuming ----------------------------------------------------------

def test_resume_skips_finished_points_and_drops_a_partial_line(tmp_path):
    grid = load_grid(_write(tmp_path, GAUSS))
    full = tmp_path / "full.csv"
    s = run_sweep(grid, str(full))
    assert (s.total, s.computed, s.resumed, s.failed) == (4, 4, 0, 0)
    reference = _rows(full)
    part = tmp_path / "part.csv"
    lines = full.read_text().splitlines(keepends=True)
    part.write_text(lines[0] + lines[3] + lines[1] + lines[2][:17])  # unsorted, and killed mid-line
    (tmp_path / "part.csv.sweep.json").write_text((tmp_path / "full.csv.sweep.json").read_text())
    digests = (tmp_path / "full.csv.sweep.rows").read_text()
    (tmp_path / "part.csv.sweep.rows").write_text(digests + digests[:17])  # its digests, and one cut mid-line
    s = run_sweep(grid, str(part))
    assert (s.computed, s.resumed) == (2, 2)
    assert _without_seconds(_rows(part)) == _without_seconds(reference)
    assert run_sweep(grid, str(part)).computed == 0  # nothing left to do


def test_results_of_another_grid_are_never_mixed(tmp_path, capsys):
    out = str(tmp_path / "r.csv")
    assert main(["sweep", _write(tmp_path, GAUSS), "--out", out, "--quiet"]) == 0
    other = _write(tmp_path, GAUSS.replace('delta = "1e-5"', 'delta = "1e-6"'), "other.toml")
    assert main(["sweep", other, "--out", out]) == 2
    assert "other settings" in capsys.readouterr().err
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    assert main(["sweep", other, "--out", str(foreign)]) == 2
    assert "was not written by" in capsys.readouterr().err


def test_a_grown_axis_reuses_the_finished_points(tmp_path, capsys):
    """Adding values to an axis computes only the new points (a per-point cache keyed by
    the point and the grid's settings); the file is the one a fresh run of the grown grid
    writes; removing a finished value is refused (its row would be lost)."""
    out = str(tmp_path / "r.csv")
    assert main(["sweep", _write(tmp_path, GAUSS), "--out", out, "--quiet"]) == 0
    before = {r["s"]: r for r in _rows(out)}
    grown = _write(tmp_path, GAUSS.replace('s = ["0.5", "0.80", "1", "3"]', 's = ["0.5", "0.80", "1", "2", "3", "4"]'),
                   "grown.toml")
    assert main(["sweep", grown, "--out", out]) == 0
    assert "6 points: 2 computed, 4 already in" in capsys.readouterr().out
    after = _rows(out)
    assert [r["s"] for r in after] == ["0.5", "0.8", "1", "2", "3", "4"]  # grid order
    for r in after:
        if r["s"] in before:
            assert r == before[r["s"]]  # reused as it was, seconds included
    fresh = str(tmp_path / "fresh.csv")
    assert main(["sweep", grown, "--out", fresh, "--quiet"]) == 0
    assert _without_seconds(_rows(fresh)) == _without_seconds(after)
    assert main(["sweep", _write(tmp_path, GAUSS), "--out", out]) == 2  # 2 and 4 would be dropped
    assert "no longer a point of the grid" in capsys.readouterr().err


def test_calibrate_in_a_grid(tmp_path):
    """kind = "calibrate": the value `certdp calibrate` certifies, at every point."""
    text = """
spec = "gaussian(sigma=x, sensitivity={d})"
[axes]
d = ["1", "2"]
[[quantity]]
kind = "calibrate"
param = "x"
eps = "1"
delta = "1e-5"
resolution = "1/100"
"""
    out = str(tmp_path / "c.csv")
    assert main(["sweep", _write(tmp_path, text), "--out", out, "--quiet"]) == 0
    import certdp

    for r in _rows(out):
        want = certdp.calibrate(f"gaussian(sigma=x, sensitivity={r['d']})", "x", eps=1, delta="1e-5",
                                resolution="1/100")
        assert Fraction(r["calibrate_value"]) == want.value and r["calibrate_optimal"] == "true"
        assert Fraction(r["calibrate_delta_hi"]) <= Fraction(1, 10**5) and not r["error"]
    v1, v2 = (Fraction(r["calibrate_value"]) for r in _rows(out))
    assert 2 * v1 - Fraction(1, 100) <= v2 <= 2 * v1  # the optimal σ scales with Δ: ⌈2σ*⌉ vs 2⌈σ*⌉ on 1/100·Z
    mixed = _write(tmp_path, text + '[[quantity]]\nkind = "eps"\ndelta = "1e-5"\n', "mixed.toml")
    assert main(["sweep", mixed, "--out", str(tmp_path / "m.csv")]) == 2


_KILL_AFTER = """
import os, signal, sys
from certdp.sweep import load_grid, run_sweep

def kill(progress):
    if progress.computed == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)

run_sweep(load_grid(sys.argv[1]), sys.argv[2], on_progress=kill)
"""


def test_a_killed_sweep_resumes(tmp_path):
    """SIGKILL a running sweep right after its 5th row (a hook in the process,
    not a timer: the same rows every run); the re-run computes exactly the rest."""
    many = GAUSS.replace('["0.5", "0.80", "1", "3"]', '{ first = "1/10", last = "20", step = "1/10" }')
    grid = _write(tmp_path, many.replace('[[quantity]]\nkind = "mu"\n', ""))
    out = tmp_path / "k.csv"
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _KILL_AFTER, grid, str(out), "5"], env=env, timeout=600)
    assert proc.returncode == -signal.SIGKILL
    assert [r["s"] for r in _rows(out)] == ["0.1", "0.2", "0.3", "0.4", "0.5"]  # the journal, before the final sort
    s = run_sweep(load_grid(grid), str(out))
    assert (s.resumed, s.computed, s.failed) == (5, 195, 0)
    assert [Fraction(r["s"]) for r in _rows(out)] == [Fraction(i, 10) for i in range(1, 201)]


# -- backends ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def serial_rows(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial")
    out = d / "serial.csv"
    assert run_sweep(load_grid(_write(d, DPSGD)), str(out)).failed == 0
    rows = _rows(out)
    assert all("PLD" in r["route"] for r in rows)
    return _without_seconds(rows)


def test_process_pool_gives_the_same_rows(tmp_path, serial_rows, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["sweep", _write(tmp_path, DPSGD), "--out", str(out), "--jobs", "2"]) == 0
    assert _without_seconds(_rows(out)) == serial_rows


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def test_dask_cluster_gives_the_same_rows_and_parquet(tmp_path, serial_rows, cluster):
    pa = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "dask.parquet"
    assert main(["sweep", _write(tmp_path, DPSGD), "--out", str(out), "--dask", cluster.scheduler_address]) == 0
    assert not os.path.exists(f"{out}.journal.csv")
    rows = pa.read_table(out).to_pylist()
    assert _without_seconds(rows) == serial_rows
    again = run_sweep(load_grid(_write(tmp_path, DPSGD)), str(out), dask=cluster.scheduler_address)
    assert (again.computed, again.resumed) == (0, 4)


def test_dask_local_starts_its_own_cluster(tmp_path, serial_rows):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "local.csv"
    assert main(["sweep", _write(tmp_path, DPSGD), "--out", str(out), "--dask", "local", "--jobs", "2"]) == 0
    assert _without_seconds(_rows(out)) == serial_rows


def test_the_budget_bounds_a_sweep_on_dask(tmp_path, cluster, capsys):
    """--budget reaches the points running on the cluster: the command stops
    with exit 1, and no row records the sweep's budget as a point's failure."""
    grid = _write(tmp_path, DPSGD.replace('T = [5, 10]', 'T = { first = "100", last = "3000", step = "100" }')
                  .replace('sigma = ["3", "4"]', 'sigma = ["1"]'))
    out = tmp_path / "budget.csv"
    assert main(["sweep", grid, "--out", str(out), "--dask", cluster.scheduler_address, "--budget", "1",
                 "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("certdp: the sweep needs more than the budget of 1 s") and "to resume" in err
    rows = _rows(out)
    assert len(rows) < 30 and all(r["error"] == "" for r in rows)


def test_dask_workers_with_threads_are_refused(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c:
        assert main(["sweep", _write(tmp_path, DPSGD), "--out", str(tmp_path / "t.csv"),
                     "--dask", c.scheduler_address]) == 2
    assert "--nthreads 1" in capsys.readouterr().err


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert main(["sweep", _write(tmp_path, DPSGD), "--out", str(tmp_path / "x.parquet")]) == 2
    assert "needs pyarrow" in capsys.readouterr().err


CLAIMS = """
[[claim]]
id = "laplace-dp"
mechanism = "laplace(scale=1)"
kind = "dp"
eps = "1"
delta = "0"

[[claim]]
id = "gaussian-not-dp"
mechanism = "gaussian(sigma=1)"
kind = "not_dp"
eps = "1"
delta = "1e-3"

[[claim]]
id = "gaussian-half-gdp"
mechanism = "gaussian(sigma=2)"
kind = "gdp"
mu = "0.5"
"""


def test_audit_on_dask_gives_the_verdicts_in_file_order(tmp_path, cluster, capsys):
    import json

    claims = _write(tmp_path, CLAIMS, "claims.toml")
    assert main(["audit", claims, "--json"]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main(["audit", claims, "--json", "--dask", cluster.scheduler_address]) == 0
    assert json.loads(capsys.readouterr().out) == serial
    assert [c["id"] for c in serial["claims"]] == ["laplace-dp", "gaussian-not-dp", "gaussian-half-gdp"]
    assert {c["verdict"] for c in serial["claims"]} == {"CONFIRMED"}
