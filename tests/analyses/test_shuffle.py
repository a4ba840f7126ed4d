"""The certified lower bound for DP-SGD with shuffled batches (issue 35 item 2).

Independent truth: mpmath at 40 digits (the same finite pair's hockey-stick
divergence summed directly, and the exact Gaussian composition, which is
(√E/σ)-GDP); the published finding of Chua et al. 2024."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

import certdp
from certdp.analyses.accountants import shuffle_pair as sp
from certdp.analyses.accountants.shuffle import BITS, shuffled_dpsgd
from certdp.errors import InputError
from refs import mp_delta_mu, mp_digits, mpf
from required import required

dps = pytest.fixture(autouse=True)(mp_digits(40))


def mp_of(x) -> mpmath.mpf:
    """An exact arb (an endpoint) as an mpmath number."""
    m, e = x.man_exp()
    return mpmath.ldexp(int(m), int(e))


def mp_eps_of_gdp(mu, delta) -> mpmath.mpf:
    """ε with δ_μ(ε) = δ, by bisection in mpmath (δ_μ decreases in ε)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(60)
    for _ in range(120):
        mid = (lo + hi) / 2
        if mp_delta_mu(mu, mid) > mpf(delta):
            lo = mid
        else:
            hi = mid
    return lo


def mp_cells(noise, batches, con, points):
    """The one-epoch cell laws of the max statistic, by mpmath's ncdf."""
    s = mpf(noise)

    def F(shift, t):
        return mpmath.ncdf((mpf(t) - shift) / s) * mpmath.ncdf(mpf(t) / s) ** (batches - 1)

    fp = [mpmath.mpf(0)] + [F(con.a, t) for t in points] + [mpmath.mpf(1)]
    fq = [mpmath.mpf(0)] + [F(con.c, t) for t in points] + [mpmath.mpf(1)]
    return [fp[i + 1] - fp[i] for i in range(len(fp) - 1)], [fq[i + 1] - fq[i] for i in range(len(fq) - 1)]


def mp_product_delta(p, q, epochs, eps) -> mpmath.mpf:
    """H_{e^ε}(P^{⊗E} ‖ Q^{⊗E}) summed over every E-tuple of cells."""
    total = mpmath.mpf(0)
    w = mpmath.exp(mpf(eps))
    for tup in itertools.product(range(len(p)), repeat=epochs):
        a = mpmath.fprod(p[i] for i in tup)
        b = mpmath.fprod(q[i] for i in tup)
        total += max(a - w * b, 0)
    return total


@pytest.mark.parametrize("batches,epochs,con", [(1, 1, 0), (5, 1, 1), (3, 2, 1), (4, 2, 0)])
def test_delta_lower_inside_mpmath_value_of_the_same_pair(batches, epochs, con):
    """certdp's δ_lower(ε) of the E-fold cell pair is at most the exact value (mpmath,
    every E-tuple summed) and within 1 % of it (the loss grid 2^-12 is the only loss)."""
    cons = sp.CONSTRUCTIONS[con]
    noise = Fraction(3, 4)
    step = Fraction(1, 4)
    points = tuple(step * i for i in range(-8, 21))  # 29 points, 30 cells
    pair = sp.cell_pair(noise, batches, cons, points)
    mp_p, mp_q = mp_cells(noise, batches, cons, points)
    for ours, ref in zip(pair.p + pair.q, mp_p + mp_q):  # the masses themselves, enclosed
        assert mp_of(ours.lower()) <= ref <= mp_of(ours.upper())
    pld = sp.power(sp.one_epoch(pair.p, pair.q, 12, BITS), epochs)
    for eps in (Fraction(1, 2), Fraction(3, 2)):
        truth = mp_product_delta(mp_p, mp_q, epochs, eps)
        got = mp_of(sp.delta_lower(pld, eps).upper())
        assert got <= truth
        assert got >= truth * mpmath.mpf("0.99"), (float(got), float(truth))


def test_one_batch_per_epoch_is_the_gaussian_composition():
    """k = 1 (B = N, full batch): the run is E Gaussian steps, exactly (√E/σ)-GDP.  The
    lower bound lies below the mpmath value of that ε and within 0.001 of it; the
    upper bound (no amplification) contains it."""
    for epochs in (1, 4):
        r = shuffled_dpsgd(1, batch_size=10, dataset_size=10, epochs=epochs, delta="1e-5")
        truth = mp_eps_of_gdp(mpmath.sqrt(epochs), Fraction(1, 10**5))
        assert mpf(r.lower.eps) <= truth <= mpf(r.upper.eps.hi_exact)
        assert truth - mpf(r.lower.eps) < mpmath.mpf("0.001"), float(truth - mpf(r.lower.eps))
        assert r.poisson.eps.contains(r.upper.eps.lo_exact)  # q = 1: Poisson is the same run


def test_batch_size_one_single_epoch_stays_below_the_one_gaussian_bound():
    """B = 1, one epoch: the target example is in exactly one step, so the run is
    (1/σ)-GDP (given the permutation one Gaussian step touches it; mixing cannot
    increase δ).  The lower bound must stay below that ε (mpmath) and, at σ = 1 with
    20 steps, is within 10 % of it (the max of 20 coordinates reveals the step)."""
    r = shuffled_dpsgd(1, batch_size=1, dataset_size=20, epochs=1, delta="1e-5")
    truth = mp_eps_of_gdp(1, Fraction(1, 10**5))
    assert mpf(r.lower.eps) <= truth <= mpf(r.upper.eps.hi_exact)
    assert mpf(r.lower.eps) > truth * mpmath.mpf("0.9")


def test_shuffled_eps_is_above_the_poisson_eps():
    """Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024 ("How private are
    DP-SGD implementations?", ICML 2024; one epoch) and the multi-epoch follow-up
    ("Scalable DP-SGD: shuffling vs. Poisson subsampling", NeurIPS 2024) find that with
    shuffled batches the true ε can be far above the Poisson-subsampling ε usually
    reported, the gap being largest at small σ, where the batch holding the target
    stands out among the k batch sums (their construction: the other examples'
    gradients −1, our "others-minus-one").  (Their figures plot ε or σ curves — e.g.
    the NeurIPS paper's Figure 3 at ε = 5, δ = 2.7e-8, 1 and 5 epochs — and we could
    not transcribe exact values, so the test checks the finding itself, with our own
    certified numbers.)  At σ = 1, B/N = 100/10,000, δ = 1e-5 we prove
    shuffled ε >= 4.05 after one epoch and >= 7.07 after five, against a certified
    Poisson ε <= 0.719 and <= 1.327: the Poisson number is refuted for the shuffled
    run.  Measured 2026-11-27 (docs/shuffling.md)."""
    one = shuffled_dpsgd(1, batch_size=100, dataset_size=10000, epochs=1, delta="1e-5")
    assert one.lower.eps > Fraction(405, 100) and one.poisson.eps.hi_exact < Fraction(719, 1000)
    assert one.poisson_refuted() and one.lower.construction == "others-minus-one"
    five = shuffled_dpsgd(1, batch_size=100, dataset_size=10000, epochs=5, delta="1e-5")
    assert five.lower.eps > Fraction(707, 100) and five.poisson.eps.hi_exact < Fraction(1327, 1000)
    for r in (one, five):  # the no-amplification bound stays above the lower bound
        assert r.lower.eps <= r.upper.eps.lo_exact


def test_large_noise_many_batches_does_not_refute_poisson():
    """Where amplification by shuffling is real (σ = 4, 1,000 batches) the lower bound
    is small and does not refute the Poisson number: the tool says so, no more."""
    r = shuffled_dpsgd(4, batch_size=10, dataset_size=10000, epochs=1, delta="1e-5")
    assert not r.poisson_refuted()
    assert r.lower.eps < r.upper.eps.lo_exact


def test_delta_answers_and_the_api():
    r = certdp.dpsgd(1, batch_size=100, dataset_size=10000, epochs=1, eps=2, sampling="shuffle")
    assert r.lower.delta.lo_exact > r.poisson.delta.hi_exact  # Poisson δ refuted at ε = 2
    assert r.lower.delta.hi_exact <= r.upper.delta.lo_exact
    data = r.to_json()
    assert data["sampling"] == "shuffle" and "delta_at_least" in data["shuffle_lower"]
    assert "poisson" in data and "shuffle_upper" in data


@pytest.mark.parametrize("kw,msg", [
    (dict(batch_size=3, dataset_size=10, epochs=1), "must divide"),
    (dict(batch_size=2, dataset_size=10, epochs="1.5"), "positive integer"),
    (dict(batch_size=2, dataset_size=10, steps=3), "one full epoch"),
    (dict(batch_size=None, dataset_size=10, epochs=1), "batch-size"),
])
def test_bad_input_is_one_line(kw, msg):
    with pytest.raises(InputError, match=msg):
        shuffled_dpsgd(1, delta="1e-5", **kw)


def test_api_refuses_unknown_sampling_and_poisson_options():
    with pytest.raises(InputError, match="sampling must be"):
        certdp.dpsgd(1, "0.1", 10, delta="1e-5", sampling="shufle")
    with pytest.raises(InputError, match="takes no"):
        certdp.dpsgd(1, batch_size=2, dataset_size=10, epochs=1, delta="1e-5", sampling="shuffle", mu=True)


def test_dp_accounting_estimate_of_the_same_pair_lies_above_the_lower_bound():
    """dp_accounting 0.6's PLD of the same one-epoch cell pair (its pessimistic
    estimate, composed over the epochs) is a float estimate of the pair's ε: it must lie
    at or above certdp's certified lower bound, and close to it (within 0.5 %).
    Measured (grid 1e-4), δ = 1e-5: σ = 1, B/N = 100/10,000, 5 epochs: certdp >= 7.0868,
    dp_accounting 7.0878; σ = 1.1, 250/60,000, 60 epochs: 10.7275 and 10.7459; σ = 2,
    100/10,000, 10 epochs: 0.9478 and 0.9495.  Here 2 epochs on a 1e-3 grid (fast)."""
    import math

    pldm = required("dp_accounting.pld.privacy_loss_distribution")
    r = shuffled_dpsgd(1, batch_size=100, dataset_size=10000, epochs=2, delta="1e-5")
    con = next(c for c in sp.CONSTRUCTIONS if c.name == r.lower.construction)
    pair = sp.cell_pair(Fraction(1), 100, con, sp.partition(Fraction(1), 100, con))
    p, q = (pair.p, pair.q) if r.lower.direction == "D‖D'" else (pair.q, pair.p)
    log_p = {i: math.log(float(x.mid())) for i, x in enumerate(p) if float(x.mid()) > 0}
    log_q = {i: math.log(float(x.mid())) for i, x in enumerate(q) if float(x.mid()) > 0}
    # dp_accounting's order: (mu_lower, mu_upper), δ = sup mu_upper(S) − e^ε mu_lower(S)
    est = pldm.from_two_probability_mass_functions(log_q, log_p, value_discretization_interval=1e-3) \
        .self_compose(2).get_epsilon_for_delta(1e-5)
    assert float(r.lower.eps) <= est <= float(r.lower.eps) * 1.005, (float(r.lower.eps), est)
