"""The opacus-style step accountant (issue 17): certified, no torch, exact numbers.

Independent truth: the certdp DP-SGD command's route is the same accountant, so
agreement with it is only a wiring check; the comparison with dp_accounting's
PLD (float estimates) and the closed form for rate-1 steps (a Gaussian
composition is μ-GDP with μ² = Σ 1/σ², δ_μ in mpmath) are independent."""

from __future__ import annotations

import sys
from collections import OrderedDict
from fractions import Fraction

import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.errors import InputError
from certdp.interop.opacus import StepAccountant
from tests.refs import delta_mu_ref


def test_steps_merge_and_match_the_dpsgd_command():
    acc = StepAccountant()
    for _ in range(100):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.history == [(Fraction(1), Fraction(0.01), 100)] and len(acc) == 1
    # the same certified route at the same exact δ: opacus passes the float 1e-5, whose
    # binary value lies ~8e-22 above the decimal 1/10^5 (the two ε ends differ in the
    # 17th digit and may round to neighbouring floats)
    direct = dpsgd(1, Fraction(0.01), 100, delta=Fraction(1e-5))
    assert acc.get_epsilon(1e-5) == direct.eps.upper_float()
    assert acc.epsilon(1e-5).hi_exact == direct.eps.hi_exact
    assert "torch" not in sys.modules


def test_only_consecutive_identical_steps_merge():
    acc = StepAccountant()
    for s, q in ((1, "1/2"), (1, 0.5), (2, 0.5), (1, 0.5), (1, "0.5")):
        acc.step(noise_multiplier=s, sample_rate=q)
    assert acc.history == [(1, Fraction(1, 2), 2), (2, Fraction(1, 2), 1), (1, Fraction(1, 2), 2)]
    assert acc.specs()[1] == ("subsample(gaussian(sigma=2), rate=1/2)", 1)


def test_full_batch_steps_against_the_gaussian_closed_form():
    # rate 1: plain Gaussians; 2 steps at σ = 1 and 4 at σ = 2 are μ-GDP with μ² = 2 + 1 = 3
    acc = StepAccountant()
    for s in (1, 1, 2, 2, 2, 2):
        acc.step(noise_multiplier=s, sample_rate=1)
    eps = acc.get_epsilon(1e-3)
    assert delta_mu_ref(Fraction(17320508075688772, 10**16), eps) <= 1e-3  # √3 rounded down: still ≤ δ
    assert delta_mu_ref(Fraction(17320508075688773, 10**16), eps * (1 - 1e-6)) > 1e-3  # and tight


def test_heterogeneous_history_is_at_least_each_phase():
    acc = StepAccountant()
    for _ in range(20):
        acc.step(noise_multiplier=1.0, sample_rate=0.02)
    one = acc.epsilon("1e-5")
    for _ in range(20):
        acc.step(noise_multiplier=3.0, sample_rate=1)
    both = acc.epsilon("1e-5")
    assert len(acc) == 2 and both.lo > one.hi  # composition adds privacy loss


def test_against_dp_accounting_pld():
    dpa = pytest.importorskip("dp_accounting")
    acc = StepAccountant()
    for _ in range(200):
        acc.step(noise_multiplier=1.1, sample_rate=256 / 60000)
    for _ in range(100):
        acc.step(noise_multiplier=0.8, sample_rate=512 / 60000)
    ours = acc.get_epsilon(1e-5)
    event = dpa.ComposedDpEvent([
        dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(n / 60000, dpa.GaussianDpEvent(s)), k)
        for s, n, k in ((1.1, 256, 200), (0.8, 512, 100))])
    theirs = dpa.pld.PLDAccountant().compose(event).get_epsilon(1e-5)
    assert acc.epsilon(1e-5).lower_float() <= theirs <= ours <= theirs * 1.002, (ours, theirs)
    from certdp.interop.dp_accounting import CertifiedAccountant  # noqa: PLC0415

    # both interfaces hand the same (spec, count) items to the one composition route
    assert CertifiedAccountant().compose(event).items == acc.specs()


def test_state_round_trip_and_bad_state():
    acc = StepAccountant()
    acc.step(noise_multiplier="1.3", sample_rate="1/256")
    acc.step(noise_multiplier="1.3", sample_rate="1/256")
    acc.step(noise_multiplier=0.7, sample_rate=0.1)
    state = acc.state_dict()
    # opacus' shape (a list of (noise, rate, steps) tuples): floats where exact, else exact strings
    assert state["mechanism"] == "certdp-pld" and state["history"][0] == ("13/10", 0.00390625, 2)
    assert state["history"][1] == (0.7, 0.1, 1)
    again = StepAccountant()
    again.load_state_dict(state)
    assert again.history == acc.history
    assert again.history[0] == (Fraction(13, 10), Fraction(1, 256), 2) and again.history[1][1] == Fraction(0.1)
    for bad in ({"history": [["1", "2", 0]]}, {"history": "x"}, [], {"history": [["a", "1", 1]]},
                {"history": [["1", "2", 1]]}, {"history": [[0, 0.5, 1]]}, {"history": [[1, 0.5, True]]}):
        with pytest.raises(InputError):
            StepAccountant().load_state_dict(bad)
    with pytest.raises(InputError):
        acc.step(noise_multiplier=0, sample_rate=0.5)
    assert StepAccountant().get_epsilon(1e-5) == 0.0


def test_loads_an_opacus_state_dict():
    # opacus' IAccountant.state_dict: OrderedDict(history=[(noise, rate, steps), ...], mechanism=<classmethod>)
    class RDPAccountant:  # stand-in for opacus' class (no torch needed)
        @classmethod
        def mechanism(cls) -> str:
            return "rdp"

    state = OrderedDict(history=[(1.1, 0.004, 300), (0.9, 0.004, 20)], mechanism=RDPAccountant.mechanism)
    acc = StepAccountant()
    acc.load_state_dict(state)
    assert acc.history == [(Fraction(1.1), Fraction(0.004), 300), (Fraction(0.9), Fraction(0.004), 20)]
    direct = StepAccountant()
    for s, n in ((1.1, 300), (0.9, 20)):
        for _ in range(n):
            direct.step(noise_multiplier=s, sample_rate=0.004)
    assert direct.history == acc.history
