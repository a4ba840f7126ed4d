"""The generic PLD engine (issue 16) against independent truth.

Truths: exact binomial / multinomial sums in mpmath for finite pairs (randomized
response, pure and approximate DP, their Poisson-subsampled pairs built by hand from
seed 002 Thm 11(1)), the closed-form Gaussian composition δ_{μ√k}, the closed
Laplace profile, and a second certified implementation (the φ accountant) where both apply.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from certdp.analyses.accountants.discretise import LawSource, profile_law
from certdp.analyses.accountants.loss_laws import GaussianLaw, LaplaceLaw
from certdp.analyses.accountants.phi import PhiAccountant, to_pair
from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian
from certdp.analyses.dispatch import composition_accountant
from certdp.mechanisms import parse_spec
from refs import delta_mu_ref, mpf
from timing import timed, within


def ends(enc) -> tuple[mpmath.mpf, mpmath.mpf]:
    return mpf(Fraction(enc.lo_str(40))), mpf(Fraction(enc.hi_str(40)))


def hockey(atoms, eps) -> mpmath.mpf:
    """Σ_{ℓ > ε} p (1 − e^{ε−ℓ}) over (ℓ, p) atoms; ℓ = +inf counts p."""
    e = mpf(eps)
    return mpmath.fsum(p if ell == mpmath.inf else p * (1 - mpmath.exp(e - ell)) for ell, p in atoms if ell > e)


def kfold(pair_p, pair_q, k):
    """Atoms (loss, P-mass) of the k-fold product of the finite pair (p, q) (multinomial)."""
    out = {(): (mpmath.mpf(0), mpmath.mpf(1))}
    atoms = [(mpmath.log(a / b) if b > 0 else mpmath.inf, a) for a, b in zip(pair_p, pair_q) if a > 0]
    dist = {mpmath.mpf(0): mpmath.mpf(1)}
    for _ in range(k):
        nxt: dict = {}
        for l0, p0 in dist.items():
            for l1, p1 in atoms:
                key = l0 + l1
                nxt[key] = nxt.get(key, 0) + p0 * p1
        dist = nxt
    del out
    return list(dist.items())


def finite_truth(p, q, k, eps) -> mpmath.mpf:
    """max over both orders of the k-fold hockey-stick divergence of a finite pair."""
    return max(hockey(kfold(p, q, k), eps), hockey(kfold(q, p, k), eps))


def subsampled(p, q, gamma):
    """Seed 002 Thm 11(1) for a symmetric pair (P, Q): remove ((1−γ)Q + γP, Q), add (P, (1−γ)P + γQ)."""
    rem = ([(1 - gamma) * b + gamma * a for a, b in zip(p, q)], list(q))
    add = (list(p), [(1 - gamma) * a + gamma * b for a, b in zip(p, q)])
    return rem, add


# ---------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, derandomize=True)
@given(p=st.fractions(Fraction(51, 100), Fraction(19, 20)), k=st.integers(1, 25),
       eps=st.fractions(Fraction(0), Fraction(6)))
def test_randomized_response_composition_contains_the_binomial_truth(p, k, eps):
    with mpmath.workdps(50):
        truth = finite_truth([mpf(p), 1 - mpf(p)], [1 - mpf(p), mpf(p)], k, eps)
        lo, hi = ends(PLDAccountant().compose(parse_spec(f"randomized_response(p={p})"), k).delta(eps))
        assert lo <= truth * (1 + mpf("1e-40")) and truth <= hi * (1 + mpf("1e-40"))


def test_pure_dp_on_its_lattice_is_exact_to_fixed_point_rounding():
    acc = PLDAccountant().compose(parse_spec("pure_dp(eps=3/10)"), 40)
    assert acc.exact_grid
    with mpmath.workdps(60):
        e = mpf(Fraction(3, 10))
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        for eps in (Fraction(0), Fraction(3, 2), Fraction(33, 10), Fraction(7)):
            truth = finite_truth([p, 1 - p], [1 - p, p], 40, eps)
            lo, hi = ends(acc.delta(eps))
            assert lo <= truth <= hi and hi - lo <= mpf("1e-13") * truth + mpf("1e-30")
        lo, hi = ends(acc.delta(12))  # the maximal loss: δ = 0 exactly
        assert lo == 0 and hi < mpf("1e-25")


@pytest.mark.parametrize("eps0,delta0,k", [(Fraction(1, 2), Fraction(1, 1000), 5), (Fraction(1), Fraction(1, 10**6), 12)])
def test_approx_dp_composition_has_its_closed_form(eps0, delta0, k):
    """δ_k(ε) = 1 − (1−δ0)^k + (1−δ0)^k δ_RR,k(ε) (the pair of Liu et al. 2022 Thm 3.1)."""
    acc = PLDAccountant().compose(parse_spec(f"approx_dp(eps={eps0}, delta={delta0})"), k)
    with mpmath.workdps(60):
        e = mpf(eps0)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        keep = (1 - mpf(delta0)) ** k
        for eps in (Fraction(0), Fraction(1), Fraction(3)):
            truth = 1 - keep + keep * finite_truth([p, 1 - p], [1 - p, p], k, eps)
            lo, hi = ends(acc.delta(eps))
            assert lo <= truth <= hi and hi - lo <= mpf("1e-12")


@pytest.mark.parametrize("spec,k", [("randomized_response(p=3/4)", 30), ("pure_dp(eps=1)", 60),
                                    ("approx_dp(eps=1/2, delta=1/100000)", 40)])
def test_subsampled_finite_pairs_against_the_hand_built_pair(spec, k):
    """PLD engine and the φ accountant's exact finite route, both against the
    subsampled pair written out from seed 002 Thm 11(1) and composed in mpmath."""
    gamma = Fraction(1, 20)
    mech = parse_spec(f"subsample({spec}, rate={gamma})")
    with mpmath.workdps(50):
        if "randomized_response" in spec:
            pp = mpf(Fraction(3, 4))
            p, q = [pp, 1 - pp], [1 - pp, pp]
        else:
            e0 = mpf(Fraction(1) if "pure" in spec else Fraction(1, 2))
            d0 = mpf(0) if "pure" in spec else mpf(Fraction(1, 100000))
            w = (1 - d0)
            hi, lo = w * mpmath.exp(e0) / (1 + mpmath.exp(e0)), w / (1 + mpmath.exp(e0))
            p, q = [hi, lo, d0, mpf(0)], [lo, hi, mpf(0), d0]
        (rp, rq), (ap, aq) = subsampled(p, q, mpf(gamma))
        for eps in (Fraction(1, 2), Fraction(1), Fraction(2)):
            truth = max(hockey(kfold(rp, rq, k), eps), hockey(kfold(ap, aq, k), eps))
            lo, hi = ends(PLDAccountant().compose(mech, k).delta(eps))
            assert lo <= truth * (1 + mpf("1e-30")) and truth <= hi * (1 + mpf("1e-30")), ("pld", eps)
            lo, hi = ends(PhiAccountant().compose(mech, k).delta(eps))
            assert lo <= truth * (1 + mpf("1e-30")) and truth <= hi * (1 + mpf("1e-30")), ("phi", eps)
            assert hi - lo <= mpf("1e-8") * truth + mpf("1e-30")


def test_laplace_one_step_contains_the_closed_form_profile():
    acc = PLDAccountant().compose(parse_spec("laplace(scale=2/3)"), 1)
    with mpmath.workdps(50):
        for eps in (Fraction(0), Fraction(1, 4), Fraction(1), Fraction(3, 2)):
            truth = max(mpf(0), 1 - mpmath.exp(mpf(eps) / 2 - mpf(Fraction(3, 4))))
            lo, hi = ends(acc.delta(eps))
            assert lo <= truth <= hi and hi - lo < mpf("1e-3")


@pytest.mark.parametrize("scale,k", [(Fraction(1), 3), (Fraction(5), 10), (Fraction(1, 2), 6)])
def test_laplace_compositions_agree_with_the_phi_accountant(scale, k):
    """Two independent certified implementations: their enclosures must intersect,
    and the PLD one must be narrow."""
    mech = parse_spec(f"laplace(scale={scale})")
    for eps in (Fraction(1, 2), Fraction(2), Fraction(4)):
        a = PLDAccountant().compose(mech, k).delta(eps)
        b = PhiAccountant().compose(mech, k).delta(eps)
        alo, ahi = ends(a)
        blo, bhi = ends(b)
        assert alo <= bhi and blo <= ahi, (eps, a, b)
        assert ahi - alo <= mpf("1e-3") * (ahi + mpf("1e-12"))


def test_laplace_two_fold_against_quadrature():
    """δ(ε) = E_{L1}[H_{e^{ε−L1}}] with the one-step curve H_{e^t} = (1 − e^{(t−a)/2})⁺ for
    t >= 0 and 1 − e^t + e^t H_{e^{−t}} for t < 0 (symmetric pair), L1 with atoms +a (1/2),
    −a (e^{−a}/2) and density e^{−x}/2 at L1 = (1 − 2x)a, x ∈ (0, 1); b = 1, a = 1: mpmath quadrature."""
    a = mpf(1)
    with mpmath.workdps(30):
        def h1(t):
            if t >= 0:
                return max(mpf(0), 1 - mpmath.exp((t - a) / 2))
            return 1 - mpmath.exp(t) + mpmath.exp(t) * h1(-t)

        eps = mpf(1)
        truth = (h1(eps - a) / 2 + mpmath.exp(-a) / 2 * h1(eps + a)
                 + mpmath.quad(lambda x: h1(eps - (1 - 2 * x) * a) * mpmath.exp(-x) / 2, [0, 0.5, 1]))
    lo, hi = ends(PLDAccountant().compose(parse_spec("laplace(scale=1)"), 2).delta(1))
    assert lo - mpf("1e-20") <= truth <= hi + mpf("1e-20") and hi - lo < mpf("1e-3")


def test_generic_gaussian_law_is_the_gaussian_composition():
    """The loss-law path with GaussianLaw(η = 1/2): k-fold is exactly δ_{√k}."""
    src = LawSource(GaussianLaw(Fraction(1, 2)))
    acc = PLDAccountant().compose(src, 9)
    for eps in (Fraction(0), Fraction(2), Fraction(6)):
        truth = delta_mu_ref(3, eps)
        lo, hi = ends(acc.delta(eps))
        assert lo <= truth <= hi and hi - lo < mpf("1e-2") * truth


def test_generic_subsampled_gaussian_agrees_with_the_tuned_path():
    """Two implementations of the Poisson-subsampled Gaussian: the generic
    SubsampledLaw(GaussianLaw) and the Gaussian-mixture path; intervals intersect."""
    sigma, q, k = Fraction(1), Fraction(1, 10), 20
    generic = PLDAccountant().compose(LawSource(GaussianLaw(1 / (2 * sigma**2)), rate=q), k)
    tuned = PLDAccountant().compose(SubsampledGaussian(sigma, q), k)
    for eps in (Fraction(1, 2), Fraction(1), Fraction(2)):
        a, b = ends(generic.delta(eps)), ends(tuned.delta(eps))
        assert a[0] <= b[1] and b[0] <= a[1]
        assert a[1] - a[0] < mpf("0.02") * a[1]


def test_subsampled_laplace_one_step_contains_the_amplification_closed_form():
    """One step: δ'(ε) = γ δ_L(log(1 + (e^ε − 1)/γ)) (Balle et al. 2018; remove direction)."""
    gamma = mpf(Fraction(1, 10))
    acc = PLDAccountant().compose(parse_spec("subsample(laplace(scale=1), rate=1/10)"), 1)
    with mpmath.workdps(40):
        for eps in (Fraction(1, 20), Fraction(1, 10)):
            inner = mpmath.log(1 + (mpmath.exp(mpf(eps)) - 1) / gamma)
            truth = gamma * max(0, 1 - mpmath.exp(inner / 2 - mpf(Fraction(1, 2))))
            lo, hi = ends(acc.delta(eps))
            assert lo <= truth <= hi and hi - lo < mpf("2e-2") * truth


def test_profile_pair_bounds_from_above_only_and_tightly():
    """compose(profile(pure-DP profile), k): never below the exact pure-DP
    composition, close to it, lower end 0 (an upper-bound profile refutes nothing)."""
    expr = "(exp(1/2) - exp(eps))/(1 + exp(1/2))"
    mech = parse_spec(f'profile("Max({expr}, 0)")')
    acc = PLDAccountant().compose(mech, 10)
    assert not acc.two_sided and "upper bound only" in acc.method
    with mpmath.workdps(50):
        e = mpf(Fraction(1, 2))
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        for eps in (Fraction(0), Fraction(1), Fraction(2)):
            truth = finite_truth([p, 1 - p], [1 - p, p], 10, eps)
            lo, hi = ends(acc.delta(eps))
            assert lo == 0 and truth <= hi <= truth * (1 + mpf("0.02")) + mpf("1e-9")


def test_profile_law_is_a_probability_pair_dominating_its_samples():
    """Masses sum to 1 under P and Q and the hockey stick at grid points is >= the profile."""
    from flint import arb

    from certdp.numerics.ball import to_ball, working_precision

    mech = parse_spec("laplace(scale=1/2)")
    law = profile_law(mech, Fraction(1, 64), 1e-12)
    with working_precision(200):
        tp = law.p_inf() + sum((t.p for t in law.atoms()), arb(0))
        tq = law.q_minf() + sum((t.q for t in law.atoms()), arb(0))
        assert abs(tp - 1) < 1e-20 and abs(tq - 1) < 1e-20
        for i in (0, 10, 64, 127):
            e = Fraction(i, 64)
            hs = law.p_inf() + sum(((t.p - to_ball(e).exp() * t.q) for t in law.atoms() if t.loss > e), arb(0))
            assert hs >= upper_bound_of(mech, e) - arb(10) ** -30


def upper_bound_of(mech, e):
    from certdp.numerics.ball import to_ball, upper_bound

    return upper_bound(mech.delta_ball(to_ball(e)))


def test_dispatch_routes_and_names_the_route():
    for spec, k, want in (("laplace(scale=5)", 50, "PLD"), ("randomized_response(p=3/4)", 20, "phi"),
                          ("pure_dp(eps=1/5)", 50, "PLD"), ("gaussian(sigma=2)", 3, "phi"),
                          ("subsample(pure_dp(eps=1), rate=1/100)", 10, "phi"),
                          ("subsample(laplace(scale=1), rate=1/10)", 10, "PLD")):
        _, method = composition_accountant([(parse_spec(spec), k)])
        assert want in method, (spec, method)


@pytest.mark.parametrize("spec,k,delta,truth", [
    # dp_accounting's PLD (value_discretization_interval 1e-4) for orientation: the
    # certified enclosure must contain the tight value within its width
    ("laplace(scale=5)", 50, "1/10000", "5.3794"),
    ("subsample(laplace(scale=1), rate=1/10)", 10, "1/100000", "1.1742"),
])
@timed(15)
def test_issue_examples_are_fast_and_narrow(spec, k, delta, truth, time_limit):
    with within(time_limit):
        acc, _ = composition_accountant([(parse_spec(spec), k)])
        e = acc.epsilon(delta)
    lo, hi = ends(e)
    assert lo <= mpf(truth) + mpf("2e-4") and mpf(truth) - mpf("2e-4") <= hi and hi - lo < mpf("0.01") * hi


def test_profile_pair_of_a_non_convex_upper_profile_uses_the_hull():
    """clip_reify's profile bound min(δ_M, Laplace) is not convex in e^ε; the hull pair
    still bounds it, vanishes where it does (ε >= eps_h: no mass at +∞) and
    composes: 5 steps of a 2-DP mechanism are 10-DP."""
    mech = parse_spec("clip_reify(gaussian(sigma=1), eps_h=2, lo=0, hi=1)")
    law = profile_law(mech, Fraction(1, 256), 1e-17)
    assert law.p_inf() == 0
    acc = PLDAccountant().compose(mech, 5)
    assert acc.delta(10).hi_exact == 0
    e = acc.epsilon(Fraction(1, 10**5))
    assert e.lo_exact == 0 and 0 < e.hi_exact <= 10


def test_unreachable_and_uncertifiable_delta_are_told_apart():
    from certdp.errors import BudgetExceeded
    from certdp.mechanisms.params import DeltaUnattainable

    with pytest.raises(DeltaUnattainable, match="proved"):
        PLDAccountant().compose(parse_spec("approx_dp(eps=1, delta=1/1000)"), 100).epsilon(Fraction(1, 10**5))
    with pytest.raises(BudgetExceeded, match="may be finite"):
        PLDAccountant().compose(parse_spec("icea(m=20, n=4)"), 3).epsilon(Fraction(1, 10**5))
