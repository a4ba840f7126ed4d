"""The RDP accountant's float guide (issue 37 item 4): it only chooses orders, so the
guided search must report a certified bound at the order it names, and on these cases
the very bound the exhaustive search (every order in balls) finds."""
from fractions import Fraction

import pytest

from certdp.analyses.accountants.rdp import RDPAccountant, _guide
from certdp.mechanisms.spec import parse_spec


@pytest.mark.parametrize("spec,T,delta", [("subsample(gaussian(sigma=4), rate=1/100)", 10000, "1e-5"),
                                          ("subsample(gaussian(sigma=0.8), rate=1/2)", 5, "1e-3"),
                                          ("subsample(gaussian(sigma=20), rate=1/10000)", 100, "1e-5"),
                                          ("laplace(scale=2)", 20, "1e-5")])
def test_guided_search_finds_the_exhaustive_bound(spec, T, delta):
    mech = parse_spec(spec)
    guided = RDPAccountant().compose(mech, T)
    full = RDPAccountant(search="exhaustive").compose(mech, T)
    g, f = guided.epsilon_bound(delta), full.epsilon_bound(delta)
    assert (g.order, g.conversion) == (f.order, f.conversion)
    assert g.enclosure.hi == f.enclosure.hi


@pytest.mark.parametrize("a", ["9/8", "7/4", "2", "35/2", "64", "1024"])
def test_guide_tracks_the_certified_curve(a):
    mech = parse_spec("subsample(gaussian(sigma=4), rate=1/100)")
    ball = RDPAccountant(search="exhaustive").compose(mech).rdp(a)
    est = _guide(mech)(Fraction(a))
    assert abs(est - float(ball.mid())) <= 1e-9 * abs(float(ball.mid())) + 1e-15


@pytest.mark.parametrize("spec,T", [("subsample(gaussian(sigma=2), rate=1)", 10000), ("gaussian(sigma=3/10)", 10000),
                                    ("subsample(gaussian(sigma=20, sensitivity=3), rate=1)", 100),
                                    ("gaussian_dp(mu=1/2)", 7), ("zcdp(rho=1/8)", 3), ("tree_aggregation(noise=5, steps=100)", 1),
                                    ("discrete_gaussian(sigma=3)", 50)])
@pytest.mark.parametrize("delta", ["1e-5", "1e-12", "1/3"])
def test_linear_curves_take_the_bisected_orders_and_the_exhaustive_bound(spec, T, delta):
    """ρ(α) = cα (full batch, Gaussians, zCDP): the guide's scores are convex in α, so the
    bisection on the grid ranks the same orders first as scoring them all: the same
    order, conversion and bound as the exhaustive search, for ε and for δ."""
    mech = parse_spec(spec)
    guided = RDPAccountant().compose(mech, T)
    assert guided._linear_slope() is not None
    full = RDPAccountant(search="exhaustive").compose(mech, T)
    g, f = guided.epsilon_bound(delta), full.epsilon_bound(delta)
    assert (g.order, g.conversion, g.enclosure.hi_exact) == (f.order, f.conversion, f.enclosure.hi_exact)
    eps = Fraction(g.enclosure.hi_exact).limit_denominator(1000) + 1
    g, f = guided.delta_bound(eps), full.delta_bound(eps)
    assert (g.order, g.conversion, g.enclosure.hi_exact) == (f.order, f.conversion, f.enclosure.hi_exact)


def test_full_batch_gaussian_bound_against_the_closed_form():
    """σ 2, T 10⁴ at q = 1: the reported ε is the improved conversion of ρ(α) = Tα/(2σ²) at the
    order it names (mpmath, 50 digits), and it lies above the exact ε of the (√T/σ)-GDP
    composition (Balle & Wang 2018) at δ 1e-5: an upper bound."""
    import mpmath

    b = RDPAccountant().compose(parse_spec("subsample(gaussian(sigma=2), rate=1)"), 10000).epsilon_bound("1e-5")
    with mpmath.workdps(50):
        a, L = mpmath.mpf(b.order.numerator) / b.order.denominator, -mpmath.log(mpmath.mpf("1e-5"))
        rho = 10000 * a / 8
        want = rho + mpmath.log((a - 1) / a) + (L - mpmath.log(a)) / (a - 1)
        assert abs(mpmath.mpf(b.enclosure.hi_exact.numerator) / b.enclosure.hi_exact.denominator - want) < 1e-30 * want
        mu = mpmath.mpf(50)  # √T/σ

        def gdp_delta(e):
            return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)

        exact_eps = mpmath.findroot(lambda e: gdp_delta(e) - mpmath.mpf("1e-5"), 1400)
        assert exact_eps < want < Fraction(102, 100) * exact_eps  # RDP is 1.7 % looser here
