"""δ answers of the PLD engine are narrowed by default (issue 16/18): a composition's
δ(ε) is refined (grid halved, at most three times) until it is at most 1 % wide
relative to its upper end, and every refined enclosure lies inside the coarser
one (both are certified, so they must intersect; nested is what halving gives)."""

from __future__ import annotations

from fractions import Fraction

from certdp import api
from certdp.analyses.dispatch import composition_accountant
from certdp.mechanisms.spec import parse_spec


def test_subsampled_laplace_delta_is_narrowed_to_one_percent() -> None:
    # (k = 10 at ε = 1 was the example until the atoms of the lower discretisation were
    # merged with their neighbours: its default grid is now 0.25 % wide on its own)
    items = [(parse_spec("subsample(laplace(scale=1/2), rate=1/100)"), 1000)]
    coarse = composition_accountant(items)[0].delta(Fraction(5, 2))  # type: ignore[attr-defined]
    ans = api.delta("compose(subsample(laplace(scale=1/2), rate=1/100), k=1000)", "5/2")
    lo, hi = ans.enclosure.lo_exact, ans.enclosure.hi_exact
    assert coarse.hi_exact - coarse.lo_exact > coarse.hi_exact / 100  # the default grid alone is wider
    assert hi - lo <= hi / 100
    assert coarse.lo_exact <= lo and hi <= coarse.hi_exact
    assert lo > coarse.lo_exact


def test_account_cli_prints_the_narrowed_delta(capsys) -> None:
    import json

    from certdp.cli import main

    assert main(["account", "--mechanism", "subsample(laplace(scale=1), rate=1/10)", "--times", "10",
                 "--eps", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["delta"]
    lo, hi = Fraction(d["lo"]), Fraction(d["hi"])
    assert 0 < hi - lo <= hi / 100
