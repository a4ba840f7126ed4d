"""An unproved hypothesis of a composed mechanism travels with ``certdp account``'s answer
(text and JSON) and with the dp_accounting interop's answers (``assumptions`` and a warning)."""

from __future__ import annotations

import json
import warnings

import pytest

from certdp.cli import main

SPEC = "subsample_replace(gaussian(sigma=1), rate=1/100)"


def test_account_prints_and_lists_the_assumption(capsys):
    assert main(["account", "--mechanism", SPEC, "--times", "3", "--delta", "1e-5"]) == 0
    out = capsys.readouterr().out
    assert "assuming (unproved): subsample_replace" in out
    assert main(["account", "--mechanism", SPEC, "--times", "3", "--delta", "1e-5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["assumptions"]) == 1 and "worst case" in data["assumptions"][0]


def test_account_without_hypotheses_lists_none(capsys):
    assert main(["account", "--mechanism", "gaussian(sigma=2)", "--times", "3", "--delta", "1e-5", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["assumptions"] == [] and "assuming" not in out


def test_interop_exposes_and_warns_about_the_assumption():
    dpa = pytest.importorskip("dp_accounting")
    from certdp.interop.dp_accounting import CertifiedAccountant

    acc = CertifiedAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 3)
        acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 3)  # no new hypothesis
    assert [str(w.message).startswith("certdp: answers now assume (unproved)") for w in caught] == [True]
    assert len(acc.assumptions) == 1
    assert CertifiedAccountant().compose(dpa.GaussianDpEvent(1.0)).assumptions == ()
