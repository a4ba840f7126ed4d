"""dp_accounting interop, issue 35: Poisson sampling of a Laplace step, and k-bucket
randomized response (every k >= 2) under REPLACE_ONE.

Independent truth:
* mpmath from the definitions: the hockey-stick divergence of the output laws,
  by quadrature of the Laplace densities for one Poisson-sampled Laplace step
  (both directions of add-or-remove, the worse one), and by an exact binomial
  sum for T-fold randomized response built from dp_accounting's own definition
  (true bucket w.p. 1 − p + p/k, each other w.p. p/k);
* dp_accounting 0.6's PLDAccountant at a fine grid (1e-4) and its RdpAccountant,
  as float estimates that must lie inside the certified enclosure or above it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
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
SC, C, RR = dpa.SelfComposedDpEvent, dpa.ComposedDpEvent, dpa.RandomizedResponseDpEvent
REPLACE = dpa.NeighboringRelation.REPLACE_ONE
D = Fraction(1, 10**5)


def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _laplace_hockey(a, b, scale) -> mpmath.mpf:
    """∫ (a·p(x) − b·q(x))⁺ dx for p = Lap(0, scale), q = Lap(1, scale) (densities e^{−|x−m|/s}/(2s)),
    by quadrature on the pieces where the sign of a·p − b·q is constant."""
    s = scale
    p = lambda x: mpmath.exp(-abs(x) / s) / (2 * s)  # noqa: E731
    q = lambda x: mpmath.exp(-abs(x - 1) / s) / (2 * s)  # noqa: E731
    f = lambda x: max(mpmath.mpf(0), a * p(x) - b * q(x))  # noqa: E731
    cuts = [-mpmath.inf, mpmath.mpf(0), mpmath.mpf(1), mpmath.inf]
    if a > 0 and b > 0:  # on [0, 1] the ratio p/q = e^{(1 − 2x)/s} crosses b/a once
        x0 = (1 - s * mpmath.log(b / a)) / 2
        if 0 < x0 < 1:
            cuts.insert(2, x0)
    return mpmath.fsum(mpmath.quad(f, [lo, hi]) for lo, hi in zip(cuts, cuts[1:]))


def poisson_laplace_delta_ref(scale, rate, eps) -> mpmath.mpf:
    """δ(ε) of one Poisson-sampled Laplace step (sensitivity 1) under add-or-remove-one:
    remove ((1−γ)Q + γP against Q) and add (P against (1−γ)P + γQ), the worse one."""
    with mpmath.workdps(40):
        g, e, s = _mp(rate), mpmath.exp(_mp(eps)), _mp(scale)
        remove = _laplace_hockey(g, e - 1 + g, s)  # γp + (1−γ)q − e^ε q
        add = _laplace_hockey(1 - e * (1 - g), e * g, s)  # p − e^ε((1−γ)p + γq)
        return max(remove, add)


def rr_composed_delta_ref(noise, buckets, steps, eps) -> mpmath.mpf:
    """δ(ε) of ``steps``-fold k-ary randomized response (dp_accounting's definition) on replace-one
    neighbours x ≠ x': per step the loss is +ℓ w.p. a = 1 − p + p/k, −ℓ w.p. b = p/k and 0 w.p.
    r = 1 − a − b under P (ℓ = log(a/b)); δ(ε) = E_P[(1 − e^{ε − L})⁺], an exact multinomial sum."""
    with mpmath.workdps(60):
        p, k = _mp(noise), buckets
        a, b = 1 - p + p / k, p / k
        r, ell, e = 1 - a - b, mpmath.log(a / b), _mp(eps)
        total = mpmath.mpf(0)
        for i in range(steps + 1):
            for j in range(steps + 1 - i):
                m = steps - i - j
                w = mpmath.factorial(steps) / (mpmath.factorial(i) * mpmath.factorial(j) * mpmath.factorial(m))
                mass = w * a**i * b**j * (r**m if m else 1)
                total += mass * max(mpmath.mpf(0), 1 - mpmath.exp(e - (i - j) * ell))
        return total


# -- Poisson-sampled Laplace ---------------------------------------------------------------------------


@pytest.mark.parametrize("scale, rate, eps", [(2.0, 0.1, Fraction(1, 50)), (1.0, 0.25, Fraction(1, 4)),
                                               (0.5, 0.01, Fraction(1, 100))])
def test_one_poisson_sampled_laplace_step_against_mpmath(scale, rate, eps):
    acc = CertifiedAccountant().compose(P(rate, L(scale)))
    truth = poisson_laplace_delta_ref(Fraction(scale), Fraction(rate), eps)
    enc = acc.delta_enclosure(eps)
    assert truth > 0
    assert enc.lower_float() <= truth <= enc.upper_float(), (enc, truth)
    assert acc.get_delta(float(eps)) >= truth
    assert enc.width <= 2e-3 * float(truth), (enc, truth)  # measured: ≤ 0.1 % of δ


#: (event, bound on the relative width of the ε(1e-5) and of the δ(1) enclosure at the accountant's
#: default width, the CLI's: at most 1 % of δ and at most max(0.02, 0.1 % of ε) for ε — measured
#: 0.11 % / 0.8 %, 0.54 % / 0.7 % (6 % before the δ answers were refined), 0.08 % / 0.6 %)
LAPLACE_EVENTS = {
    "100 x P(0.1, L(2))": (SC(P(0.1, L(2.0)), 100), 2e-3, 1e-2),
    "1000 x P(0.01, L(1))": (SC(P(0.01, L(1.0)), 1000), 1e-2, 1e-2),
    "P(0.1, L(2)) + P(0.01, G(1)) + L(3)": (C([SC(P(0.1, L(2.0)), 50), SC(P(0.01, G(1.0)), 100), L(3.0)]),
                                            2e-3, 1e-2),
}


@pytest.mark.parametrize("name", sorted(LAPLACE_EVENTS))
def test_poisson_sampled_laplace_against_dp_accountings_pld(name):
    event, rel_width, delta_rel_width = LAPLACE_EVENTS[name]
    ours = CertifiedAccountant().compose(event)
    theirs = dpa.pld.PLDAccountant(value_discretization_interval=1e-4).compose(event)
    enc = ours.epsilon_enclosure(D)
    e_theirs = theirs.get_epsilon(1e-5)
    # dp_accounting's (pessimistic, float) estimate inside the enclosure or just above it (the
    # answers are refined to the CLI's default width, which can be narrower than its grid), up to
    # its grid 1e-4 per composed PLD below the lower end (never observed)
    assert enc.lower_float() - 1e-4 <= e_theirs <= enc.upper_float() * (1 + 1e-3), (enc, e_theirs)
    assert ours.get_epsilon(1e-5) == enc.upper_float()
    assert enc.width <= rel_width * enc.upper_float(), enc
    d_enc, d_theirs = ours.delta_enclosure(1), theirs.get_delta(1.0)
    assert d_enc.lower_float() <= d_theirs <= d_enc.upper_float() * (1 + 1e-2), (d_enc, d_theirs)
    assert d_enc.width <= delta_rel_width * d_enc.upper_float(), d_enc


def test_poisson_sampled_laplace_specs_and_nesting():
    (spec, k), = event_to_specs(SC(P(0.1, L(2.0)), 100))
    assert spec == "subsample(laplace(scale=2), rate=3602879701896397/36028797018963968)" and k == 100
    # Poisson sampling of Poisson sampling is Poisson sampling at the product rate (0.5 · 0.2 = 0.1
    # exactly in binary): the engine multiplies the rates, so the answers coincide
    nested = CertifiedAccountant().compose(SC(P(0.5, P(0.2, L(2.0))), 100))
    flat = CertifiedAccountant().compose(SC(P(0.1, L(2.0)), 100))
    assert str(nested.epsilon_enclosure(D)) == str(flat.epsilon_enclosure(D))
    # nothing released / not private, as dp_accounting
    assert event_to_specs(P(0.0, L(1.0))) == [] and event_to_specs(P(0.3, dpa.NoOpDpEvent())) == []
    assert CertifiedAccountant().compose(P(0.5, L(0.0))).get_epsilon(1e-5) == float("inf")


@pytest.mark.parametrize("event", [
    P(0.1, SC(L(1.0), 2)),  # one Poisson draw shared by two steps is not compose(subsample(...))
    P(0.1, C([L(1.0), G(1.0)])),
    P(0.1, RR(0.5, 2)),  # randomized response is replace-one only
    P(0.1, dpa.NonPrivateDpEvent()),
    P(-0.1, L(1.0)),
    P(1.5, L(1.0)),
])
def test_poisson_sampling_of_what_the_engine_lacks_is_refused(event):
    acc = CertifiedAccountant()
    assert not acc.supports(event)
    with pytest.raises(UnsupportedEventError):
        acc.compose(event)
    assert acc.items == []


# -- randomized response under REPLACE_ONE ----------------------------------------------------------


def _rr_spec(noise, k) -> str:
    truth = 1 - Fraction(noise) + Fraction(noise) / k
    return f"randomized_response(p={truth})" if k == 2 else f"randomized_response_k(p={truth}, k={k})"


@pytest.mark.parametrize("noise, k, steps", [(0.5, 2, 10), (0.1, 2, 3), (0.9, 2, 40), (0.3, 2, 1),
                                             (0.5, 4, 10), (0.2, 3, 5), (0.8, 10, 30), (0.5, 100, 20),
                                             (0.3, 5, 1)])
def test_randomized_response_against_the_exact_sum(noise, k, steps):
    acc = CertifiedAccountant(REPLACE).compose(RR(noise, k), steps)
    assert acc.items == [(_rr_spec(noise, k), steps)]
    for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
        truth = rr_composed_delta_ref(Fraction(noise), k, steps, eps)
        enc = acc.delta_enclosure(eps)
        assert enc.lower_float() <= truth <= enc.upper_float(), (enc, truth)
        assert enc.width <= 1e-12 * max(float(truth), 1e-300) or enc.width <= 1e-300, (enc, truth)
    # ε(δ) = min{ε : δ(ε) <= target}: the truth at the upper end is <= target, at the lower end >= it
    enc = acc.epsilon_enclosure(D)
    assert enc.width <= 1e-8, enc
    assert rr_composed_delta_ref(Fraction(noise), k, steps, Fraction(enc.upper_float())) <= _mp(D)
    if enc.lower_float() > 0:
        lo = Fraction(enc.lower_float()) - Fraction(1, 10**12)
        assert rr_composed_delta_ref(Fraction(noise), k, steps, lo) >= _mp(D)


#: measured (certdp ε(1e-5) enclosure | dp_accounting PLD at grid 1e-4, step by step | its RDP):
#: (0.5, 4, 10): [16.0932790074, 16.0932790083] | 16.0938998835 | 16.093286
#: (0.2, 3, 5): [12.8247263347, 12.8247263355] | 12.8249795476 | 12.827549
#: (0.8, 10, 30): [23.3575248268, 23.3575248280] | 23.3582576398 | 24.576367
@pytest.mark.parametrize("noise, k, steps", [(0.5, 2, 10), (0.1, 2, 3), (0.9, 2, 40),
                                             (0.5, 4, 10), (0.2, 3, 5), (0.8, 10, 30)])
def test_randomized_response_against_dp_accounting(noise, k, steps):
    ours = CertifiedAccountant(REPLACE).compose(RR(noise, k), steps)
    enc = ours.epsilon_enclosure(D)
    # dp_accounting 0.6's PLDAccountant ignores the count of a RandomizedResponseDpEvent
    # (compose(RR, 10) composes once), so its steps are composed one by one here
    pld = dpa.pld.PLDAccountant(REPLACE, value_discretization_interval=1e-4)
    for _ in range(steps):
        pld.compose(RR(noise, k))
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=REPLACE).compose(RR(noise, k), steps)
    e_pld, e_rdp = pld.get_epsilon(1e-5), rdp.get_epsilon(1e-5)
    # both are pessimistic estimates: at or above the certified lower end, and the PLD within its
    # grid (1e-4 per step) of the certified upper end
    assert enc.lower_float() <= e_pld <= enc.upper_float() + steps * 1e-4, (enc, e_pld)
    assert enc.lower_float() <= e_rdp, (enc, e_rdp)
    d_enc, d_pld = ours.delta_enclosure(Fraction(1, 2)), pld.get_delta(0.5)
    assert d_enc.lower_float() * (1 - 1e-6) <= d_pld, (d_enc, d_pld)


def test_randomized_response_count_is_composition():
    once = CertifiedAccountant(REPLACE)
    for _ in range(10):
        once.compose(RR(0.5, 2))
    assert once.items == CertifiedAccountant(REPLACE).compose(SC(RR(0.5, 2), 10)).items
    # 10-fold RR with truth 3/4: the top atom (loss 10 log 3, mass (3/4)^10 >> 1e-5) pins ε near 10 log 3
    assert abs(once.get_epsilon(1e-5) - 10.98594529) < 1e-7


def test_randomized_response_edge_cases_like_dp_accounting():
    assert event_to_specs(RR(0.0, 1), neighboring_relation=REPLACE) == []  # one bucket: a no-op
    assert event_to_spec(RR(1.0, 2), neighboring_relation=REPLACE) == "randomized_response(p=1/2)"
    assert CertifiedAccountant(REPLACE).compose(RR(1.0, 2), 5).get_epsilon(1e-5) == 0.0
    # k buckets, noise 1: uniform output, δ ≡ 0; noise 1/2 with 4 buckets: truth w.p. 5/8
    assert event_to_spec(RR(1.0, 5), neighboring_relation=REPLACE) == "randomized_response_k(p=1/5, k=5)"
    assert CertifiedAccountant(REPLACE).compose(RR(1.0, 5), 5).get_epsilon(1e-5) == 0.0
    assert event_to_spec(SC(RR(0.5, 4), 3), neighboring_relation=REPLACE) == \
        "compose(randomized_response_k(p=5/8, k=4), k=3)"
    ours, theirs = CertifiedAccountant(REPLACE).compose(RR(0.0, 2)), dpa.pld.PLDAccountant(REPLACE).compose(RR(0.0, 2))
    assert ours.get_epsilon(1e-5) == theirs.get_epsilon(1e-5) == float("inf")
    with pytest.raises(UnsupportedEventError, match="non-private"):
        event_to_specs(RR(0.0, 2), neighboring_relation=REPLACE)


@pytest.mark.parametrize("event, reason", [
    (RR(1.5, 2), "noise_parameter"),
    (RR(1.5, 3), "noise_parameter"),
    (RR(0.5, 0), "num_buckets"),
    (P(0.1, SC(G(1.0), 2)), "Poisson sampling under replace-one of SelfComposedDpEvent"),
    (C([RR(0.5, 2), G(1.0), P(0.1, RR(0.5, 2))]), "Poisson sampling under replace-one of RandomizedResponse"),
    (G(-1.0), "sigma must be > 0"),
    (P(0.1, RR(0.5, 4)), "Poisson sampling under replace-one of RandomizedResponseDpEvent"),
])
def test_replace_one_accepts_only_what_is_mapped_exactly(event, reason):
    acc = CertifiedAccountant(REPLACE).compose(RR(0.5, 2))
    assert not acc.supports(event)
    with pytest.raises(UnsupportedEventError, match=reason):
        acc.compose(event)
    assert acc.items == [("randomized_response(p=3/4)", 1)]  # a refused event leaves no trace


def test_randomized_response_needs_replace_one():
    for event in (RR(0.5, 2), C([G(1.0), RR(0.5, 2)])):
        assert not CertifiedAccountant().supports(event)
        with pytest.raises(UnsupportedEventError, match="replace-one relation only"):
            CertifiedAccountant().compose(event)
    with pytest.raises(UnsupportedEventError, match="replace-one relation only"):
        CertifiedAccountant(dpa.NeighboringRelation.REPLACE_SPECIAL).compose(RR(0.5, 2))
    with pytest.raises(InputError):
        event_to_specs(G(1.0), neighboring_relation="replace")


# -- the Gaussian and Laplace under REPLACE_ONE: sensitivity 2 ----------------------------------------
#
# dp_accounting's dp_event.py defines noise_multiplier = s/C for values of norm <= C, so replacing one
# value moves the sum by up to 2C.  Its PLDAccountant follows this for the Gaussian (mu_upper(x + 1)
# against mu_lower(x − 1)) and refuses the Laplace; its RdpAccountant ignores the relation
# (sensitivity 1), which by the event's definition is optimistic.


@pytest.mark.parametrize("noise, steps", [(2.0, 1), (1.1, 100), (5.0, 7)])
def test_replace_one_gaussian_is_sensitivity_two(noise, steps):
    acc = CertifiedAccountant(REPLACE).compose(G(noise), steps)
    assert acc.items == [(f"gaussian(sigma={Fraction(noise)}, sensitivity=2)", steps)]
    # the composition is exactly μ-GDP with μ = 2·sqrt(steps)/σ (Dong, Roth & Su 2022)
    for eps in (Fraction(1, 2), Fraction(3)):
        with mpmath.workdps(40):  # δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)
            mu, e = 2 * mpmath.sqrt(steps) / _mp(noise), _mp(eps)
            truth = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
        enc = acc.delta_enclosure(eps)
        assert enc.lower_float() <= truth <= enc.upper_float(), (enc, truth)
        assert enc.width <= 1e-9 * float(truth), enc
    enc = acc.epsilon_enclosure(D)
    assert enc.width <= 1e-9 * enc.upper_float(), enc
    theirs = dpa.pld.PLDAccountant(REPLACE, value_discretization_interval=1e-4).compose(G(noise), steps)
    e_pld = theirs.get_epsilon(1e-5)
    # measured: σ 2, 1 step: certdp [4.37717809558, 4.37717809581], dp_accounting PLD 4.37717810002
    # (the 4.377); σ 1.1, 100 steps: [241.934961044, 241.934961057] vs 241.934961065
    assert enc.lower_float() <= e_pld <= enc.upper_float() * (1 + 1e-6), (enc, e_pld)
    # its RDP accountant (sensitivity 1 under REPLACE_ONE) is below: σ 2 gives 2.1657
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=REPLACE).compose(G(noise), steps).get_epsilon(1e-5)
    assert rdp < enc.lower_float()


@pytest.mark.parametrize("noise, steps", [(2.0, 1), (10.0, 20)])
def test_replace_one_laplace_is_sensitivity_two(noise, steps):
    acc = CertifiedAccountant(REPLACE).compose(L(noise), steps)
    assert acc.items == [(f"laplace(scale={Fraction(noise)}, sensitivity=2)", steps)]
    if steps == 1:  # one step against quadrature of Lap(0, b) vs Lap(2, b) = Lap(0, b/2) vs Lap(1, b/2)
        for eps in (Fraction(0), Fraction(1, 4), Fraction(9, 10)):
            with mpmath.workdps(40):
                truth = _laplace_hockey(1, mpmath.exp(_mp(eps)), _mp(noise) / 2)
            enc = acc.delta_enclosure(eps)
            assert enc.lower_float() <= truth <= enc.upper_float(), (enc, truth)
            # the accountant's PLD route, not the closed form: measured 1.9e-5 relative at ε = 1/4
            assert enc.width <= 5e-5 * float(truth), enc
        assert acc.delta_enclosure(Fraction(1)).upper_float() <= 1e-150  # (2/b)-DP, 2/b = 1: δ(1) = 0
    # dp_accounting's PLDAccountant refuses the Laplace under REPLACE_ONE; the same pair under
    # ADD_OR_REMOVE_ONE is Laplace noise b/2 at sensitivity 1
    theirs = dpa.pld.PLDAccountant(value_discretization_interval=1e-4).compose(L(noise / 2), steps)
    enc = acc.epsilon_enclosure(D)
    e_pld = theirs.get_epsilon(1e-5)
    assert enc.lower_float() - 1e-4 <= e_pld <= enc.upper_float() * (1 + 1e-6) + 1e-9, (enc, e_pld)
    assert enc.width <= 1e-4 * enc.upper_float(), enc
    with pytest.raises(dpa.UnsupportedEventError):
        dpa.pld.PLDAccountant(REPLACE).compose(L(noise), steps)


def test_replace_one_mixes_randomized_response_gaussian_and_laplace():
    acc = CertifiedAccountant(REPLACE).compose(C([SC(RR(0.5, 4), 3), G(4.0), L(8.0)]))
    assert acc.items == [("randomized_response_k(p=5/8, k=4)", 3), ("gaussian(sigma=4, sensitivity=2)", 1),
                         ("laplace(scale=8, sensitivity=2)", 1)]
    enc = acc.epsilon_enclosure(D)
    assert 0 < enc.lower_float() and enc.width <= 1e-3 * enc.upper_float(), enc


# -- ZCDpEvent: an upper bound (Canonne, Kamath & Steinke 2020 Prop 12) ------------------------------------
#
# measured (certdp ε(1e-5) upper end | dp_accounting RdpAccountant, the same conversion on its order
# grid | Bun & Steinke 2016 ρ + 2 sqrt(ρ log(1/δ))):
#   ρ 1/2: 4.72839 | 4.72851 | 5.29853;  100 x ρ 0.01: 7.07720 | 7.07739 | 7.78614;  ρ 2: 10.7249 | 10.7255 | 11.5971


@pytest.mark.parametrize("rho, steps", [(0.5, 1), (0.01, 100), (2.0, 1)])
@pytest.mark.parametrize("relation", [None, REPLACE])
def test_zcdp_event_is_an_upper_bound_between_the_gaussian_and_bun_steinke(rho, steps, relation):
    acc = CertifiedAccountant(relation).compose(dpa.ZCDpEvent(rho), steps)
    assert acc.items == [(f"zcdp(rho={Fraction(rho)})", steps)]
    enc = acc.epsilon_enclosure(D)
    assert enc.lower_float() == 0.0  # an upper bound only: the lower end proves nothing
    hi = acc.get_epsilon(1e-5)
    with mpmath.workdps(40):
        r = _mp(rho) * steps
        bun_steinke = r + 2 * mpmath.sqrt(r * mpmath.log(10**5))
        mu = mpmath.sqrt(2 * r)  # the Gaussian with this μ is exactly ρ-zCDP: no valid bound is below it
        g = lambda e: mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)  # noqa: E731
        gauss_delta = g(mpmath.mpf(hi))
    assert gauss_delta <= _mp(D) and hi <= bun_steinke, (hi, bun_steinke)
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
    e_rdp = rdp.compose(dpa.ZCDpEvent(rho), steps).get_epsilon(1e-5)
    # the same conversion at a float-searched order: at or below dp_accounting's order grid, and close
    assert e_rdp * (1 - 1e-3) <= hi <= e_rdp * (1 + 1e-9), (hi, e_rdp)


def test_zcdp_event_edge_cases_and_mixes():
    assert event_to_specs(dpa.ZCDpEvent(0.0)) == []  # ρ = 0: nothing released
    for event, reason in ((dpa.ZCDpEvent(0.5, 0.1), "xi > 0"), (dpa.ZCDpEvent(-0.5), "rho >= 0"),
                          (P(0.1, dpa.ZCDpEvent(0.5, 0.1)), "xi > 0")):
        assert not CertifiedAccountant().supports(event)
        with pytest.raises(UnsupportedEventError, match=reason):
            CertifiedAccountant().compose(event)
    # with a Gaussian (σ 2 is exactly 1/8-zCDP): between the exact GDP composition of two μ = 1/2
    # Gaussians and dp_accounting's RDP answer (measured 3.13616 vs 3.18899)
    event = C([dpa.ZCDpEvent(0.125), G(2.0)])
    hi = CertifiedAccountant().compose(event).get_epsilon(1e-5)
    e_rdp = dpa.rdp.RdpAccountant().compose(event).get_epsilon(1e-5)
    with mpmath.workdps(40):
        mu = 1 / mpmath.sqrt(2)
        gauss_delta = mpmath.ncdf(-hi / mu + mu / 2) - mpmath.exp(hi) * mpmath.ncdf(-hi / mu - mu / 2)
    assert gauss_delta <= _mp(D) and hi <= e_rdp, (hi, e_rdp)


# -- DiscreteLaplaceDpEvent: discrete_laplace(scale=1/a, sensitivity=Δ), 2Δ under REPLACE_ONE -------------


def discrete_laplace_delta_ref(a, sens, eps) -> mpmath.mpf:
    """Σ_x (P(x) − e^ε Q(x))⁺ for dp_accounting's pmf P(x) = e^{−a|x|} tanh(a/2), Q(x) = P(x − Δ):
    the two half-lines x <= 0 and x >= Δ by geometric sums, the integers in between one by one
    (the larger of the two orders; the pair is symmetric, so they agree)."""
    with mpmath.workdps(50):
        a, e = _mp(a), mpmath.exp(_mp(eps))
        c = mpmath.tanh(a / 2)
        left = c / (1 - mpmath.exp(-a))  # P-mass of x <= 0; Q-mass there is e^{−aΔ} times it
        total = max(mpmath.mpf(0), left * (1 - e * mpmath.exp(-a * sens)))
        total += max(mpmath.mpf(0), left * (mpmath.exp(-a * sens) - e))  # x >= Δ: P = e^{−aΔ}·(Q-mass)
        for x in range(1, sens):
            total += max(mpmath.mpf(0), c * (mpmath.exp(-a * x) - e * mpmath.exp(-a * (sens - x))))
        return total


@pytest.mark.parametrize("a, sens", [(0.5, 1), (0.2, 3), (1.5, 2)])
@pytest.mark.parametrize("relation", [None, REPLACE])
def test_discrete_laplace_against_the_exact_sum_and_dp_accounting(a, sens, relation):
    from dp_accounting.dp_event import DiscreteLaplaceDpEvent

    acc = CertifiedAccountant(relation).compose(DiscreteLaplaceDpEvent(a, sens))
    d = sens if relation is None else 2 * sens
    assert acc.items == [(f"discrete_laplace(scale={1 / Fraction(a)}, sensitivity={d})", 1)]
    for eps in (Fraction(0), Fraction(1, 10), Fraction(1)):
        truth = discrete_laplace_delta_ref(Fraction(a), d, eps)
        enc = acc.delta_enclosure(eps)
        assert enc.lower_float() <= truth <= enc.upper_float(), (enc, truth)
        assert enc.width <= 1e-12 * max(float(truth), 1e-300) or enc.width <= 1e-300, (enc, truth)
    if relation is None:  # dp_accounting's PLD refuses it under REPLACE_ONE
        theirs = dpa.pld.PLDAccountant(value_discretization_interval=1e-4).compose(DiscreteLaplaceDpEvent(a, sens), 10)
        enc = CertifiedAccountant().compose(DiscreteLaplaceDpEvent(a, sens), 10).epsilon_enclosure(D)
        # measured a 0.2, Δ 3: certdp [5.99603223988811714, 5.99603223988811715], dp_accounting 5.99703 (its grid)
        assert enc.lower_float() <= theirs.get_epsilon(1e-5) <= enc.upper_float() + 10 * 1e-4 + 1e-9, enc
        assert enc.width <= 1e-9 * enc.upper_float(), enc


# -- every DpEvent class of the installed dp_accounting, under both relations ---------------------------------


def _instances():
    from dp_accounting import dp_event as de

    g = G(1.0)
    return {
        "ComposedDpEvent": C([g, L(1.0)]), "DiscreteLaplaceDpEvent": de.DiscreteLaplaceDpEvent(0.5, 1),
        "GaussianDpEvent": g, "LaplaceDpEvent": L(1.0),
        "MixtureOfGaussiansDpEvent": de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]),
        "NoOpDpEvent": dpa.NoOpDpEvent(), "NonPrivateDpEvent": dpa.NonPrivateDpEvent(),
        "PoissonSampledDpEvent": P(0.1, g), "RandomizedResponseDpEvent": RR(0.5, 3),
        "RepeatAndSelectDpEvent": de.RepeatAndSelectDpEvent(g, 1.0, 1.0),
        "SampledWithReplacementDpEvent": de.SampledWithReplacementDpEvent(1000, 10, g),
        "SampledWithoutReplacementDpEvent": de.SampledWithoutReplacementDpEvent(1000, 10, g),
        "SelfComposedDpEvent": SC(g, 3), "SingleEpochTreeAggregationDpEvent": de.SingleEpochTreeAggregationDpEvent(1.0, 8),
        "TruncatedSubsampledGaussianDpEvent": de.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 20, 4.0),
        "UnsupportedDpEvent": de.UnsupportedDpEvent(), "ZCDpEvent": dpa.ZCDpEvent(0.5),
    }


#: (class, relation) pairs certdp accepts; every other pair must be refused with a reason docs/interop.md lists
ACCEPTED = {
    (n, r) for n in ("ComposedDpEvent", "DiscreteLaplaceDpEvent", "GaussianDpEvent", "LaplaceDpEvent",
                     "NoOpDpEvent", "NonPrivateDpEvent", "SelfComposedDpEvent", "ZCDpEvent") for r in ("add", "replace")
} | {("PoissonSampledDpEvent", "add"), ("PoissonSampledDpEvent", "replace"), ("RandomizedResponseDpEvent", "replace"),
     ("SampledWithoutReplacementDpEvent", "replace"), ("SampledWithReplacementDpEvent", "replace"),
     ("SingleEpochTreeAggregationDpEvent", "replace"), ("TruncatedSubsampledGaussianDpEvent", "add"),
     ("MixtureOfGaussiansDpEvent", "add")}

#: a phrase of each refusal reason, as docs/interop.md words it
DOC_PHRASES = {
    ("MixtureOfGaussiansDpEvent", "replace"): "mixtures of Gaussians under", "RepeatAndSelectDpEvent": "repeat-and-select",
    "SampledWithReplacementDpEvent": "a fixed batch of a dataset of fixed size",
    "SampledWithoutReplacementDpEvent": "a fixed batch of a dataset of fixed size",
    ("SingleEpochTreeAggregationDpEvent", "add"): "tree aggregation under", ("TruncatedSubsampledGaussianDpEvent", "replace"): "truncated Poisson sampling under",
    "UnsupportedDpEvent": "UnsupportedDpEvent", ("RandomizedResponseDpEvent", "add"): "randomized response under",
}


def test_every_dp_event_class_is_certified_or_refused_for_a_listed_reason():
    import inspect
    from pathlib import Path

    from dp_accounting import dp_event as de

    classes = {n for n, c in inspect.getmembers(de, inspect.isclass) if issubclass(c, de.DpEvent) and c is not de.DpEvent}
    events = _instances()
    assert classes == set(events), classes ^ set(events)  # a new dp_accounting class must be added here
    doc = " ".join(Path(__file__).resolve().parents[2].joinpath("docs", "interop.md").read_text().split())
    for name, event in events.items():
        for rel, relation in (("add", None), ("replace", REPLACE)):
            acc = CertifiedAccountant(relation)
            if (name, rel) in ACCEPTED:
                assert acc.supports(event), (name, rel)
                acc.compose(event)
                eps = acc.get_epsilon(1e-5)
                assert eps > 0 or name == "NoOpDpEvent", (name, rel, eps)
            else:
                assert not acc.supports(event), (name, rel)
                with pytest.raises(UnsupportedEventError):
                    acc.compose(event)
                phrase = DOC_PHRASES.get((name, rel), DOC_PHRASES.get(name))
                assert phrase and phrase in doc, (name, rel, phrase)
