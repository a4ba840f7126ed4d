"""dp_accounting interop (issue 17): a dp_accounting user swaps PLDAccountant
for certdp's CertifiedAccountant and gets certified upper bounds, never below
dp_accounting's own ε estimates and close to them.

Independent truth: dp_accounting 0.6's PLDAccountant (float estimates, no error
bound) and, for Gaussian events, δ_μ in mpmath (tests/refs.py)."""

from __future__ import annotations

import math
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
from tests.refs import delta_mu_ref  # noqa: E402

G, L, P = dpa.GaussianDpEvent, dpa.LaplaceDpEvent, dpa.PoissonSampledDpEvent
SC, C = dpa.SelfComposedDpEvent, dpa.ComposedDpEvent
EVENTS = {
    "gaussian": G(2.0),
    "dpsgd": SC(P(0.01, G(1.1)), 500),
    "laplace": SC(L(5.0), 20),
    "mixed": C([SC(G(3.0), 10), SC(L(4.0), 5)]),
    "dpsgd_two_phases": C([SC(P(0.02, G(1.5)), 100), SC(P(0.01, G(0.9)), 50)]),
}
#: stated tolerances ("not absurdly larger"); measured worst cases 0.045 % (ε) and 0.55 % (δ), both dpsgd
EPS_REL_TOL = 2e-3
DELTA_REL_TOL = 1e-2


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_certified_bound_holds_dp_accountings_estimate_and_is_close(name):
    event = EVENTS[name]
    ours = CertifiedAccountant().compose(event)
    theirs = dpa.pld.PLDAccountant().compose(event)  # the default a dp_accounting user runs
    e_theirs = theirs.get_epsilon(1e-5)
    enc = ours.epsilon_enclosure(Fraction(1, 10**5))
    e_ours = ours.get_epsilon(1e-5)
    assert e_ours == enc.upper_float()
    # dp_accounting's estimate lies inside the certified enclosure: the certified upper bound is
    # >= it (the criterion; observed, not a theorem - dp_accounting's estimate is itself
    # pessimistic) and dp_accounting is not optimistic beyond certdp's certified lower end
    # (dp_accounting's pessimistic estimate may exceed a tight enclosure by its own
    # discretisation error: 3.5e-9 for the single Gaussian, whose enclosure is 1e-10 wide)
    assert enc.lower_float() <= e_theirs <= e_ours + 1e-8, (enc, e_theirs)
    assert e_ours <= e_theirs * (1 + EPS_REL_TOL), (e_ours, e_theirs)
    # δ(1): certdp's enclosures are tight (width ~1e-16 off the PLD route), so dp_accounting's
    # pessimistic δ may sit just above the certified upper end - close both ways
    d_enc, d_theirs = ours.delta_enclosure(1), float(theirs.get_delta(1.0))
    assert d_enc.lower_float() <= d_theirs <= d_enc.upper_float() * (1 + 1e-6), (d_enc, d_theirs)
    assert ours.get_delta(1.0) <= d_theirs * (1 + DELTA_REL_TOL)


def test_gaussian_events_against_mpmath():
    # SelfComposed(Gaussian(σ), k) is exactly μ-GDP with μ = √k/σ: δ(ε) = δ_μ(ε) (Dong, Roth & Su 2022)
    for sigma, k, mu, eps in ((2.0, 1, Fraction(1, 2), 1), (3.0, 9, 1, Fraction(1, 2)), (0.75, 4, Fraction(8, 3), 3)):
        acc = CertifiedAccountant().compose(SC(G(sigma), k))
        truth = delta_mu_ref(mu, eps)
        enc = acc.delta_enclosure(eps)
        assert enc.contains(truth), (enc, truth)
        assert acc.get_delta(float(eps)) >= truth and enc.width < 1e-12


def test_same_answers_as_certdp_account(capsys):
    from certdp.cli import main  # noqa: PLC0415

    acc = CertifiedAccountant().compose(EVENTS["mixed"])
    args = ["account", "--delta", "1e-5"]
    for spec, k in acc.items:
        args += ["--mechanism", spec, "--times", str(k)]
    assert main(args) == 0
    assert f"eps(delta=1e-5) ∈ {acc.epsilon_enclosure('1e-5')}" in capsys.readouterr().out


def test_specs_are_exact():
    assert event_to_spec(G(0.5)) == "gaussian(sigma=1/2)"
    assert event_to_spec(SC(L(2.0), 3)) == "compose(laplace(scale=2), k=3)"
    (spec, k), = event_to_specs(SC(P(0.1, G(1.0)), 7))
    assert spec == "subsample(gaussian(sigma=1), rate=3602879701896397/36028797018963968)" and k == 7
    assert Fraction(3602879701896397, 36028797018963968) == Fraction(0.1)  # the float's exact value
    assert event_to_spec(G(1.1)) == "gaussian(sigma=2476979795053773/2251799813685248)"
    # identical parts add up; nested counts multiply
    assert event_to_spec(C([SC(G(1.0), 2), G(1.0), SC(SC(G(1.0), 3), 2)])) == "compose(gaussian(sigma=1), k=9)"
    assert event_to_specs(C([G(1.0), L(1.0)]), count=2) == [("gaussian(sigma=1)", 2), ("laplace(scale=1)", 2)]
    assert event_to_specs(dpa.NoOpDpEvent()) == [] and event_to_specs(P(0.0, G(1.0))) == []
    with pytest.raises(UnsupportedEventError, match="heterogeneous"):
        event_to_spec(C([G(1.0), L(1.0)]))
    with pytest.raises(UnsupportedEventError, match="releases nothing"):
        event_to_spec(dpa.NoOpDpEvent())


def test_numpy_parameters_are_exact():
    np = pytest.importorskip("numpy")
    assert event_to_spec(G(np.float32(0.1))) == "gaussian(sigma=13421773/134217728)"  # float32's 0.1 = 13421773/2^27
    assert event_to_specs(SC(L(np.float64(2.0)), np.int64(3))) == [("laplace(scale=2)", 3)]


@pytest.mark.parametrize("event", [
    dpa.RandomizedResponseDpEvent(0.5, 2), P(0.1, SC(L(1.0), 2)), P(0.1, C([L(1.0)])),
    P(0.1, dpa.RandomizedResponseDpEvent(0.5, 2)), P(0.1, dpa.NonPrivateDpEvent()), G(float("inf")), G(float("nan")), G(-1.0),
    P(1.5, G(1.0)), dpa.SampledWithoutReplacementDpEvent(100, 10, G(1.0)), dpa.ZCDpEvent(0.5, 0.1),
    SC(G(1.0), -1),
])
def test_unsupported_events_raise_both_error_types(event):
    assert not CertifiedAccountant().supports(event)
    acc = CertifiedAccountant()
    with pytest.raises(UnsupportedEventError):  # also a dp_accounting.UnsupportedEventError
        acc.compose(event)
    assert acc.items == [] and acc.get_epsilon(1e-5) == 0.0  # a refused event leaves no trace
    assert issubclass(UnsupportedEventError, InputError) and issubclass(UnsupportedEventError, dpa.UnsupportedEventError)


def test_a_mix_of_laplace_and_subsampled_gaussians_is_held_by_the_engine():
    """Once refused; the generic PLD engine now holds any mix (issue 16).  Checked
    against dp_accounting's own PLD within its discretisation error."""
    acc = CertifiedAccountant().compose(L(1.0))
    assert acc.supports(P(0.01, G(1.0)))
    acc.compose(P(0.01, G(1.0)), 10)
    assert [k for _, k in acc.items] == [1, 10]
    theirs = dpa.pld.PLDAccountant().compose(L(1.0)).compose(P(0.01, G(1.0)), 10)
    ours_eps, theirs_eps = acc.get_epsilon(1e-5), theirs.get_epsilon(1e-5)
    assert ours_eps >= theirs_eps - 1e-3 and ours_eps <= theirs_eps * 1.01


def test_non_private_events_like_dp_accounting():
    for event in (dpa.NonPrivateDpEvent(), G(0.0), C([G(1.0), SC(L(0.0), 2)]), P(0.5, G(0.0))):
        with pytest.raises(UnsupportedEventError, match="non-private"):
            event_to_specs(event)
        ours, theirs = CertifiedAccountant().compose(event), dpa.pld.PLDAccountant().compose(event)
        assert ours.get_epsilon(1e-5) == theirs.get_epsilon(1e-5) == math.inf
        assert ours.get_delta(1.0) == 1.0


def test_swap_in_interface():
    acc = CertifiedAccountant()
    assert isinstance(acc, dpa.PrivacyAccountant)
    assert acc.get_epsilon(1e-5) == 0.0 and acc.get_delta(0.0) == 0.0
    assert acc.compose(G(1.0)) is acc and acc.compose(G(1.0), 3) is acc
    assert acc.items == [("gaussian(sigma=1)", 4)]
    assert acc.ledger == dpa.pld.PLDAccountant().compose(G(1.0)).compose(G(1.0), 3).ledger  # dp_accounting's ledger
    assert acc.get_epsilon(1.0) == 0.0  # δ >= 1 needs no privacy
    for bad in (0.0, -1e-5, float("nan")):
        with pytest.raises(InputError):
            acc.get_epsilon(bad)
    for bad in (-1.0, float("inf")):
        with pytest.raises(InputError):
            acc.get_delta(bad)
    with pytest.raises(UnsupportedEventError):  # REPLACE_SPECIAL is accepted, randomized response not under it
        CertifiedAccountant(dpa.NeighboringRelation.REPLACE_SPECIAL).compose(dpa.RandomizedResponseDpEvent(0.5, 2))
