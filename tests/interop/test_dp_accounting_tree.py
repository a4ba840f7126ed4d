"""dp_accounting interop, issue 35: tree aggregation, truncated Poisson sampling, zCDP inside
compositions, REPLACE_SPECIAL, and answers as tight as the CLI's default width.

Independent truth: the closed-form GDP ε of tree aggregation by mpmath (μ² = Δ²·depth/σ²,
depth from dp_accounting's own float formula); dp_accounting 0.6's RdpAccountant (tree
aggregation under REPLACE_SPECIAL, zCDP compositions) and PLDAccountant as estimates that
must lie inside the certified enclosure or above its upper end (RDP: an upper bound); for
ρ-zCDP composed with Gaussians, the exact ε of the Gaussian with μ² = 2ρ + Σ 1/σ² (a ρ-zCDP
mechanism), which every valid upper bound must reach.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

dpa = pytest.importorskip("dp_accounting")

from certdp.errors import InputError  # noqa: E402
from certdp.interop.dp_accounting import CertifiedAccountant, UnsupportedEventError, event_to_specs  # noqa: E402
from tests.refs import mp_delta_mu  # noqa: E402

G, P, SC, C = dpa.GaussianDpEvent, dpa.PoissonSampledDpEvent, dpa.SelfComposedDpEvent, dpa.ComposedDpEvent
TREE, Z = dpa.SingleEpochTreeAggregationDpEvent, dpa.ZCDpEvent
TRUNC = dpa.TruncatedSubsampledGaussianDpEvent
REL = dpa.NeighboringRelation
D = Fraction(1, 10**5)


def _gdp_eps(mu2: Fraction, delta: float = 1e-5) -> mpmath.mpf:
    """ε with δ_μ(ε) = δ (the float δ's exact value, as the accountant reads it), by 200
    bisection steps at 60 digits (δ_μ decreases in ε)."""
    mu2 = Fraction(mu2)
    with mpmath.workdps(60):
        mu, d = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator), mpmath.mpf(delta)
        lo, hi = mpmath.mpf(0), mu * mu / 2 + 10 * mu + 10
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mp_delta_mu(mu, mid) > d else (lo, mid)
        return (lo + hi) / 2


def _inside(enc, truth: mpmath.mpf, rel: float) -> bool:
    """lo <= truth <= hi exactly (60 digits), and the enclosure at most ``rel`` wide relatively."""
    with mpmath.workdps(60):
        lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (enc.lo_exact, enc.hi_exact))
        return lo <= truth <= hi and hi - lo <= rel * truth


#: (noise, step_counts, count): measured certdp ε(1e-5) enclosure / dp_accounting RDP (REPLACE_SPECIAL)
TREES = [(1.0, 100, 3), (2.0, [10, 1000], 3), (0.7, 1, 3), (5.0, 2**16, 1)]


@pytest.mark.parametrize("noise, steps, count", TREES)
def test_tree_aggregation_is_exactly_gaussian(noise, steps, count):
    depth = math.ceil(math.log2(max(steps if isinstance(steps, list) else [steps]) + 1))  # dp_accounting's formula
    ev = TREE(noise, steps)
    for rel, sens in ((REL.REPLACE_SPECIAL, 1), (REL.REPLACE_ONE, 2)):
        ours = CertifiedAccountant(rel).compose(ev, count)
        enc = ours.epsilon_enclosure(1e-5)
        truth = _gdp_eps(Fraction(count * sens**2 * depth) / Fraction(noise) ** 2)
        assert _inside(enc, truth, 1e-12), (enc, truth)
        if rel is REL.REPLACE_SPECIAL:  # dp_accounting's RDP of the same event: an upper bound, above
            rdp = dpa.rdp.RdpAccountant(neighboring_relation=rel).compose(ev, count).get_epsilon(1e-5)
            assert rdp >= enc.upper_float(), (rdp, enc)


def test_tree_aggregation_edges_and_relations():
    assert event_to_specs(TREE(1.5, [3, 7, 0]), neighboring_relation=REL.REPLACE_SPECIAL) == [
        ("tree_aggregation(noise=3/2, steps=7)", 1)]
    assert event_to_specs(TREE(1.5, 7), neighboring_relation=REL.REPLACE_ONE) == [
        ("tree_aggregation(noise=3/2, steps=7, sensitivity=2)", 1)]
    acc = CertifiedAccountant(REL.REPLACE_SPECIAL)
    assert acc.compose(TREE(1.0, [0, 0])).items == []  # no steps: nothing released
    assert acc.compose(TREE(0.0, 5)).get_epsilon(1e-5) == math.inf
    with pytest.raises(UnsupportedEventError, match="REPLACE_SPECIAL only"):
        CertifiedAccountant().compose(TREE(1.0, 8))
    assert not CertifiedAccountant().supports(TREE(1.0, 8))
    for bad in (TREE(1.0, []), TREE(-1.0, 3), TREE(1.0, -3)):
        with pytest.raises(UnsupportedEventError):
            CertifiedAccountant(REL.REPLACE_SPECIAL).compose(bad)


def test_replace_special_is_add_or_remove_for_what_it_accepts():
    ev = C([SC(P(0.01, G(1.1)), 100), G(3.0), dpa.LaplaceDpEvent(4.0), Z(0.01)])
    a = CertifiedAccountant(REL.REPLACE_SPECIAL).compose(ev)
    b = CertifiedAccountant().compose(ev)
    assert a.items == b.items
    with pytest.raises(UnsupportedEventError):  # randomized response: replace-one only
        CertifiedAccountant(REL.REPLACE_SPECIAL).compose(dpa.RandomizedResponseDpEvent(0.5, 2))


def test_truncated_events():
    ev = SC(TRUNC(200, 0.05, 20, 4.0), 10)
    (spec, k), = event_to_specs(ev)
    assert spec.startswith("truncated_subsample(noise=4, rate=") and spec.endswith("batch=20, size=200)") and k == 10
    acc = CertifiedAccountant().compose(ev)
    enc = acc.epsilon_enclosure(1e-5)
    assert enc.lo == 0 and abs(enc.upper_float() - 0.147815) < 1e-5, enc  # dp_accounting PLD 0.154196 (1e-3)
    assert acc.get_delta(1.0) <= 1
    for noop in (TRUNC(200, 0.0, 20, 1.0), TRUNC(200, 0.05, 0, 1.0), TRUNC(0, 0.05, 20, 1.0)):
        assert CertifiedAccountant().compose(noop).items == []
    assert CertifiedAccountant().compose(TRUNC(200, 0.05, 20, 0.0)).get_epsilon(1e-5) == math.inf
    with pytest.raises(UnsupportedEventError, match="mixture against a mixture"):
        CertifiedAccountant(REL.REPLACE_ONE).compose(ev)
    with pytest.raises(UnsupportedEventError):
        CertifiedAccountant().compose(TRUNC(200, 1.5, 20, 1.0))


#: (ρ, σ of the Gaussian part, its count, rate of a Poisson part or None)
ZCDP_MIXES = [(0.125, 2.0, 1, None), (0.01, 1.5, 10, None), (0.05, 1.1, 200, 0.01)]


@pytest.mark.parametrize("rho, sigma, k, rate", ZCDP_MIXES)
def test_zcdp_compositions_answer_through_rdp(rho, sigma, k, rate):
    part = G(sigma) if rate is None else P(rate, G(sigma))
    ev = C([Z(rho), SC(part, k)])
    enc = CertifiedAccountant().compose(ev).epsilon_enclosure(1e-5)
    assert enc.lo == 0  # an upper bound only
    rdp = dpa.rdp.RdpAccountant().compose(ev).get_epsilon(1e-5)
    assert enc.upper_float() <= rdp * (1 + 1e-9), (enc, rdp)  # never worse than the RDP route
    if rate is None:  # the Gaussian with μ² = 2ρ + k/σ² is such a composition: a valid bound reaches it
        assert enc.upper_float() >= _gdp_eps(2 * Fraction(rho) + k / Fraction(sigma) ** 2), enc


def test_width_matches_the_cli_and_can_be_asked_narrower():
    from certdp.analyses.dispatch import narrowed_epsilon  # noqa: PLC0415
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    ev = SC(P(0.01, G(1.1)), 500)
    acc = CertifiedAccountant().compose(ev)
    cli, _ = narrowed_epsilon([(parse_spec(s), k) for s, k in acc.items], Fraction(1e-5))
    default = acc.epsilon_enclosure(1e-5)
    assert (default.lo_exact, default.hi_exact) == (cli.lo_exact, cli.hi_exact)  # the same enclosure as `certdp account --delta`
    fine = acc.epsilon_enclosure(1e-5, width="1e-4")
    assert fine.width <= 1e-4 and fine.lo >= default.lo and fine.hi <= default.hi
    assert CertifiedAccountant(width=Fraction(1, 10**4)).compose(ev).get_epsilon(1e-5) == fine.upper_float()
    theirs = dpa.pld.PLDAccountant().compose(ev).get_epsilon(1e-5)
    assert fine.lower_float() <= theirs <= fine.upper_float() * (1 + 5e-4), (fine, theirs)
    for bad in (0, -1, "x"):
        with pytest.raises(InputError):
            CertifiedAccountant(width=bad)


def test_every_dp_event_class_under_replace_special():
    """REPLACE_SPECIAL (a record replaced by a zero record): what add-or-remove-one accepts
    (a zero record adds nothing, so the pairs are the same) and tree aggregation, without
    randomized response (certdp maps it under REPLACE_ONE only); each refusal a listed reason."""
    from pathlib import Path

    from tests.interop.test_dp_accounting_events import ACCEPTED, DOC_PHRASES, _instances

    doc = " ".join(Path(__file__).resolve().parents[2].joinpath("docs", "interop.md").read_text().split())
    accepted = {n for n, r in ACCEPTED if r == "add"} | {"SingleEpochTreeAggregationDpEvent"}
    for name, event in _instances().items():
        acc = CertifiedAccountant(REL.REPLACE_SPECIAL)
        if name in accepted:
            assert acc.supports(event), name
            assert acc.compose(event).get_epsilon(1e-5) > 0 or name == "NoOpDpEvent", name
        else:
            assert not acc.supports(event), name
            with pytest.raises(UnsupportedEventError):
                acc.compose(event)
            phrase = DOC_PHRASES.get((name, "add"), DOC_PHRASES.get(name))
            assert phrase and phrase in doc, (name, phrase)
