"""DP-SGD in practitioners' terms (issue 38 item 2): epochs, batch size, dataset size.

q = B/N exactly and T = ⌈E·N/B⌉ (rounded up, stated); the answer must be the one of
the explicit (rate, steps) call — the same route, so equality, not closeness, is
the check; the rounding rule is checked against hand-computed counts."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import certdp
from certdp.analyses.accountants.dpsgd import schedule
from certdp.cli import main
from certdp.errors import InputError

MNIST = ["--noise", "1.1", "--delta", "1e-5"]


def test_schedule_rounding_rule():
    q, T, info = schedule(epochs=60, batch_size=256, dataset_size=60000)
    assert q == Fraction(256, 60000) and T == 14063  # 60·60000/256 = 14062.5, rounded up
    assert info["steps_rule"] == "T = ⌈E·N/B⌉ = ⌈14062.5⌉ = 14063 (rounded up)"
    assert schedule(epochs=60, batch_size=250, dataset_size=60000)[1:] == (
        14400, {"epochs": "60", "batch_size": 250, "dataset_size": 60000, "sample_rate_rule": "q = B/N",
                "steps_rule": "T = E·N/B = 14400"})
    assert schedule(epochs="1/3", rate="0.01")[:2] == (Fraction(1, 100), 34)  # ⌈100/3⌉
    assert schedule(epochs="0.5", rate="1/7")[1] == 4  # ⌈3.5⌉
    assert schedule(steps=7, batch_size=np.int64(3), dataset_size=10)[:2] == (Fraction(3, 10), 7)
    assert schedule(steps=5, rate="0.01") == (Fraction(1, 100), 5, None)


@pytest.mark.parametrize("kw", [
    dict(steps=5, epochs=1, rate="0.1"),  # two lengths
    dict(rate="0.1", batch_size=2, dataset_size=10, steps=3),  # two rates
    dict(batch_size=2, steps=3),  # N missing
    dict(dataset_size=10, steps=3),  # B missing
    dict(epochs=1),  # no rate
    dict(rate="0.1"),  # no length
    dict(batch_size=20, dataset_size=10, epochs=1),  # q > 1
    dict(batch_size=2.0, dataset_size=10, epochs=1), dict(batch_size="2.5", dataset_size=10, epochs=1),
    dict(batch_size=0, dataset_size=10, epochs=1), dict(batch_size=True, dataset_size=10, epochs=1),
    dict(batch_size=2, dataset_size=10, epochs=0), dict(batch_size=2, dataset_size=10, epochs="-1"),
    dict(rate="0.01", steps=14062.5), dict(rate="0.01", steps="1e3"),
])
def test_bad_combinations_are_refused(kw):
    with pytest.raises(InputError):
        schedule(**kw)


def test_mnist_60_epochs_api_equals_explicit_steps():
    by_epochs = certdp.dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000, delta="1e-5")
    explicit = certdp.dpsgd("1.1", "256/60000", 14063, delta="1e-5")
    assert (by_epochs.rate, by_epochs.steps) == (Fraction(8, 1875), 14063)
    assert by_epochs.eps.lo_exact == explicit.eps.lo_exact and by_epochs.eps.hi_exact == explicit.eps.hi_exact
    assert by_epochs.eps.lo > 2.37 and by_epochs.eps.hi < 2.39  # ε ∈ [2.379, 2.386] (measured)
    assert by_epochs.to_json()["schedule"]["steps_rule"].endswith("= 14063 (rounded up)")
    assert explicit.schedule is None and "schedule" not in explicit.to_json()


def test_mnist_60_epochs_cli(capsys):
    base = ["dpsgd", *MNIST, "--upper-only"]
    assert main([*base, "--epochs", "60", "--batch-size", "256", "--dataset-size", "60000", "--json"]) == 0
    by_epochs = json.loads(capsys.readouterr().out)
    assert main([*base, "--sample-rate", "256/60000", "--steps", "14063", "--json"]) == 0
    explicit = json.loads(capsys.readouterr().out)
    assert by_epochs["eps"] == explicit["eps"] and by_epochs["steps"] == explicit["steps"] == 14063
    assert by_epochs["schedule"] == {"epochs": "60", "batch_size": 256, "dataset_size": 60000,
                                     "sample_rate_rule": "q = B/N",
                                     "steps_rule": "T = ⌈E·N/B⌉ = ⌈14062.5⌉ = 14063 (rounded up)"}
    assert by_epochs["target"] == explicit["target"] == {"delta": "1e-5"}
    assert main([*base, "--epochs", "60", "--batch-size", "256", "--dataset-size", "60000"]) == 0
    text = capsys.readouterr().out
    assert "q = B/N = 256/60000, T = 14063" in text and "T = ⌈E·N/B⌉ = ⌈14062.5⌉ = 14063 (rounded up)" in text


@pytest.mark.parametrize("extra", [
    ["--steps", "100", "--epochs", "2", "--sample-rate", "0.01"],
    ["--sample-rate", "0.01", "--batch-size", "2", "--dataset-size", "200", "--steps", "3"],
    ["--batch-size", "2", "--epochs", "1"],
    ["--epochs", "1"],
    ["--sample-rate", "0.01"],
    ["--batch-size", "300", "--dataset-size", "200", "--epochs", "1"],
    ["--batch-size", "2.5", "--dataset-size", "200", "--epochs", "1"],
    ["--batch-size", "2", "--dataset-size", "200", "--epochs", "0"],
    ["--sample-rate", "0.01", "--steps", "14062.5"],
])
def test_cli_bad_combinations_exit_2(extra, capsys):
    assert main(["dpsgd", *MNIST, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("certdp: error: ") and "\n" not in err
