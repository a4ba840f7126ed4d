"""``certdp bench engine``: certdp's router against dp_accounting on the generic engine's
examples, each tool in its own process (the plumbing; the numbers are benchmarks, not tests)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from certdp.bench import ENGINE_CASES, bench_engine
from certdp.cli import main


def test_engine_bench_rows_and_ratios():
    rows = bench_engine(cases=(2,))  # Poisson(1/10) Laplace(1) x 10
    assert [r["function"] for r in rows] == [f"{ENGINE_CASES[2][0]}: certdp two-sided",
                                             f"{ENGINE_CASES[2][0]}: dp_accounting"]
    mine, theirs = rows
    assert mine["seconds"] > 0 and mine["peak_mb"] > 0 and mine["result"].startswith("ε ∈ [")
    lo, hi = (Fraction(x) for x in mine["result"][len("ε ∈ ["):].split("]")[0].split(", "))
    # a sanity check of the parsed row (the value is tested in tests/analyses/test_pld_engine.py)
    assert lo <= Fraction("1.1742") <= hi and hi - lo < Fraction(1, 1000)
    if theirs["seconds"] is not None:  # the interop extra is installed (CI installs it)
        assert theirs["time_vs_certdp_two_sided"] == theirs["seconds"] / mine["seconds"]
    else:
        assert theirs["result"].startswith("not installed")


def test_engine_bench_is_a_cli_choice(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "nonsense"])
    assert exit_.value.code == 2 and "engine" in capsys.readouterr().err
