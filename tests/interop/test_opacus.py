"""The opacus-style step accountant (issue 17): certified, no torch."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.errors import InputError
from certdp.interop.opacus import StepAccountant


def test_steps_merge_and_match_the_dpsgd_command():
    acc = StepAccountant()
    for _ in range(100):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.history == [(Fraction(1), Fraction(0.01), 100)] and len(acc) == 1
    direct = dpsgd(1, Fraction(0.01), 100, delta="1e-5")
    assert acc.get_epsilon(1e-5) == direct.eps.upper_float()  # the same certified route
    assert "torch" not in sys.modules


def test_heterogeneous_history_is_at_least_each_phase():
    acc = StepAccountant()
    for _ in range(50):
        acc.step(noise_multiplier=1.0, sample_rate=0.02)
    one = acc.epsilon("1e-5")
    for _ in range(50):
        acc.step(noise_multiplier=2.0, sample_rate=1)
    both = acc.epsilon("1e-5")
    assert len(acc) == 2 and both.lo > one.lo  # composition can only add privacy loss


def test_state_round_trip_and_bad_state():
    acc = StepAccountant()
    acc.step(noise_multiplier="1.3", sample_rate="1/256")
    acc.step(noise_multiplier="1.3", sample_rate="1/256")
    again = StepAccountant()
    again.load_state_dict(acc.state_dict())
    assert again.history == acc.history == [(Fraction(13, 10), Fraction(1, 256), 2)]
    for bad in ({"history": [["1", "2", 0]]}, {"history": "x"}, [], {"history": [["a", "1", 1]]}):
        with pytest.raises(InputError):
            StepAccountant().load_state_dict(bad)
    with pytest.raises(InputError):
        acc.step(noise_multiplier=0, sample_rate=0.5)
    assert StepAccountant().get_epsilon(1e-5) == 0.0
