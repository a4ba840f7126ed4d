"""dp_accounting interop (issue 17): a dp_accounting user swaps PLDAccountant
for certdp's CertifiedAccountant and gets certified upper bounds, never below
dp_accounting's own estimates and close to them."""

from __future__ import annotations

from fractions import Fraction

import pytest

dpa = pytest.importorskip("dp_accounting")

from certdp.errors import InputError  # noqa: E402
from certdp.interop.dp_accounting import (  # noqa: E402
    CertifiedAccountant,
    UnsupportedEventError,
    event_to_spec,
    event_to_specs,
)

G, L, P = dpa.GaussianDpEvent, dpa.LaplaceDpEvent, dpa.PoissonSampledDpEvent
EVENTS = {
    "gaussian": G(2.0),
    "dpsgd": dpa.SelfComposedDpEvent(P(0.01, G(1.1)), 500),
    "laplace": dpa.SelfComposedDpEvent(L(5.0), 20),
    "mixed": dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(G(3.0), 10), dpa.SelfComposedDpEvent(L(4.0), 5)]),
    "dpsgd_two_phases": dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(P(0.02, G(1.5)), 100),
                                             dpa.SelfComposedDpEvent(P(0.01, G(0.9)), 50)]),
}


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_certified_epsilon_is_an_upper_bound_close_to_dp_accounting(name):
    event = EVENTS[name]
    ours = CertifiedAccountant().compose(event)
    theirs = dpa.pld.PLDAccountant(value_discretization_interval=1e-4).compose(event)
    e_ours, e_theirs = ours.get_epsilon(1e-5), theirs.get_epsilon(1e-5)
    enc = ours.epsilon_enclosure(Fraction(1, 10**5))
    # dp_accounting's PLD estimate is pessimistic by design, so it is not a lower bound; the
    # certified enclosure must sit within 3 % of it on both sides
    assert e_theirs * 0.97 <= e_ours <= e_theirs * 1.03, (e_ours, e_theirs)
    assert enc.lower_float() <= e_theirs * 1.001
    d_ours, d_theirs = ours.get_delta(1.0), theirs.get_delta(1.0)
    assert d_theirs * 0.97 <= d_ours <= d_theirs * 1.03 + 1e-12, (d_ours, d_theirs)


def test_specs_are_exact():
    assert event_to_spec(G(0.5)) == "gaussian(sigma=1/2)"
    assert event_to_spec(dpa.SelfComposedDpEvent(L(2.0), 3)) == "compose(laplace(scale=2), k=3)"
    (spec, k), = event_to_specs(dpa.SelfComposedDpEvent(P(0.1, G(1.0)), 7))
    assert spec == f"subsample(gaussian(sigma=1), rate={Fraction(0.1)})" and k == 7  # the float's exact value
    assert event_to_specs(dpa.NoOpDpEvent()) == []


@pytest.mark.parametrize("event", [dpa.RandomizedResponseDpEvent(0.5, 2), P(0.1, L(1.0)), G(float("inf")),
                                   dpa.NonPrivateDpEvent()])
def test_unsupported_events_raise_both_error_types(event):
    with pytest.raises(UnsupportedEventError):
        event_to_specs(event)
    assert not CertifiedAccountant().supports(event)
    with pytest.raises(dpa.UnsupportedEventError):
        CertifiedAccountant().compose(event)
    assert issubclass(UnsupportedEventError, InputError)


def test_swap_in_interface():
    acc = CertifiedAccountant()
    assert isinstance(acc, dpa.PrivacyAccountant)
    assert acc.get_epsilon(1e-5) == 0.0
    assert acc.compose(G(1.0)) is acc
    with pytest.raises(UnsupportedEventError):
        CertifiedAccountant(dpa.NeighboringRelation.REPLACE_ONE)
