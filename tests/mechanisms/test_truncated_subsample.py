"""truncated_subsample (dp_accounting's TruncatedSubsampledGaussianDpEvent): an RDP upper
bound, a labelled mixture of sensitivity-1 and -2 Poisson-subsampled Gaussians with weight
t = P(Bin(n, q) >= B) on the latter.  Independent truth: t by an exact rational binomial sum
(Fraction arithmetic), dp_accounting's PLD of the same event (an estimate that must not lie
above the certified upper end), and the untruncated limit (B > n: t = 0, the RDP curve of the
Poisson-subsampled Gaussian itself)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from flint import arb

from certdp.analyses.dispatch import composition_accountant, eps_of
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.mechanisms.truncated import truncation_probability
from certdp.numerics.ball import working_precision

D = Fraction(1, 10**5)


@pytest.mark.parametrize("n, q, b", [(200, Fraction(1, 20), 15), (200, Fraction(1, 20), 5), (300, Fraction(1, 3), 100),
                                     (50, Fraction(1, 2), 50), (50, Fraction(1, 2), 51), (60, Fraction(1, 100), 1)])
def test_truncation_probability_against_the_exact_binomial_sum(n, q, b):
    exact = sum((comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(b, n + 1)), Fraction(0))
    with working_precision(256):
        t = truncation_probability(n, q, b)
        assert t.contains(arb(exact.numerator) / exact.denominator), (t, float(exact))
        assert exact == 0 and t == 0 or t.rad() <= 1e-30 * max(float(exact), 1e-300) + 1e-70


def test_spec_and_bad_parameters():
    m = parse_spec("truncated_subsample(noise=1, rate=0.01, batch=20, size=1000)")
    assert parse_spec(m.spec()) == m and m.profile_kind.value == "upper bound only"
    for bad in ("truncated_subsample(noise=0, rate=0.01, batch=20, size=1000)",
                "truncated_subsample(noise=1, rate=0, batch=20, size=1000)",
                "truncated_subsample(noise=1, rate=2, batch=20, size=1000)",
                "truncated_subsample(noise=1, rate=0.01, batch=0, size=1000)",
                "truncated_subsample(noise=1, rate=0.01, batch=20, size=0)"):
        with pytest.raises(InputError):
            parse_spec(bad)


def test_untruncated_limit_is_the_subsampled_gaussian_rdp_bound():
    from certdp.analyses.accountants.rdp import RDPAccountant  # noqa: PLC0415

    trunc = parse_spec("truncated_subsample(noise=1, rate=1/100, batch=1001, size=1000)")  # B > n: t = 0
    sgm = parse_spec("subsample(gaussian(sigma=1), rate=1/100)")
    a, b = RDPAccountant().compose(trunc, 100), RDPAccountant().compose(sgm, 100)
    assert a.epsilon(D).upper_float() == b.epsilon(D).upper_float()


#: (n, q, B, σ, steps, dp_accounting's grid, certdp's measured upper end: the smaller of RDP and the
#: PLD of the labelled mixture).  dp_accounting 0.6 PLD (its own mixture, n − 1 other records):
#: 0.154196, 3.17388 (grid 1e-3), 2.25747, 1.73403 (1e-4); the RDP route alone gives 0.331819,
#: 5.13913, 4.24533, 3.32294.  The PLD route takes ~10 s at σ 1 (a loaded 2-core machine): slow.
TRUNCATED = [(200, 0.05, 20, 4.0, 10, 1e-3, 0.147815),
             pytest.param(200, 0.05, 20, 1.0, 10, 1e-3, 3.30450, marks=pytest.mark.slow),
             pytest.param(1000, 0.01, 20, 1.0, 100, 1e-4, 2.38029, marks=pytest.mark.slow),
             pytest.param(60000, 256 / 60000, 300, 1.1, 1000, 1e-4, 1.75216, marks=pytest.mark.slow)]


@pytest.mark.parametrize("n, q, b, s, t, grid, measured", TRUNCATED)
def test_answers_are_upper_bounds_near_dp_accountings_estimate(n, q, b, s, t, grid, measured):
    dpa = pytest.importorskip("dp_accounting")
    if True:
        m = parse_spec(f"truncated_subsample(noise={Fraction(s)}, rate={Fraction(q)}, batch={b}, size={n})")
        ans = eps_of(parse_spec(f"compose({m.spec()}, k={t})"), D)
        assert ans.enclosure.lo == 0 and "upper bound" in ans.method
        theirs = dpa.pld.PLDAccountant(value_discretization_interval=grid).compose(
            dpa.SelfComposedDpEvent(dpa.TruncatedSubsampledGaussianDpEvent(n, q, b, s), t)).get_epsilon(1e-5)
        hi = ans.enclosure.upper_float()
        assert abs(hi - measured) <= 1e-5 * measured, (hi, measured)
        # dp_accounting's estimate of its own (different) mixture bound: within 10 % of ours
        assert abs(theirs - hi) <= 0.1 * hi, (n, theirs, ans.enclosure)
        # a truncated batch is never more private than no truncation at all here: the untruncated
        # Poisson-subsampled Gaussian's certified lower end lies below the bound
        plain = eps_of(parse_spec(f"compose(subsample(gaussian(sigma={Fraction(s)}), rate={Fraction(q)}), k={t})"), D)
        assert plain.enclosure.lower_float() <= ans.enclosure.upper_float()


def test_single_mechanism_and_composition_routes():
    m = parse_spec("truncated_subsample(noise=4, rate=0.01, batch=20, size=1000)")
    one = eps_of(m, D)  # no profile of its own: answered by the accountants
    assert one.enclosure.lo == 0 and 0 < one.enclosure.upper_float() < 10
    acc, method = composition_accountant([(m, 10), (parse_spec("gaussian(sigma=4)"), 1)])
    assert "RDP accountant" in method and "PLD" in method
    acc, method = composition_accountant([(m, 1), (parse_spec("approx_dp(eps=1, delta=1e-6)"), 1)])
    assert "RDP" not in method  # the RDP accountant has no curve for approx_dp: the PLD engine alone
    with pytest.raises(InputError):
        parse_spec(f"subsample({m.spec()}, rate=1/2)").spec() and composition_accountant(
            [(parse_spec(f"subsample({m.spec()}, rate=1/2)"), 2)])


def test_one_step_pld_of_the_labelled_mixture_against_mpmath():
    """The PLD route's δ(ε) of one step encloses (from above, tightly) the labelled mixture's
    hockey stick, (1 − t)·H₁ + t·H₂ in the worse direction, H_Δ the Poisson-subsampled
    Gaussian's closed form in Φ (tests/refs.py, at 50 digits)."""
    import mpmath

    from tests.refs import subsampled_gaussian_delta

    n, q, b, s = 200, Fraction(1, 20), 20, Fraction(4)
    t = sum((comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(b, n + 1)), Fraction(0))
    acc, _ = composition_accountant([(parse_spec(f"truncated_subsample(noise={s}, rate={q}, batch={b}, size={n})"), 1)])
    pld = dict(acc.routes)[next(name for name, _ in acc.routes if name.startswith("certified PLD"))]
    for eps in (Fraction(0), Fraction(1, 10), Fraction(1, 2)):
        with mpmath.workdps(50):
            tm = mpmath.mpf(t.numerator) / t.denominator
            truth = max((1 - tm) * subsampled_gaussian_delta(eps, q, s, rel) + tm * subsampled_gaussian_delta(eps, q, s / 2, rel)
                        for rel in ("add", "remove"))
        enc = pld.delta(eps)
        assert enc.lo == 0 and truth <= enc.upper_float() <= float(truth) * 1.02 + 1e-12, (eps, enc, truth)
