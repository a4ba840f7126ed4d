"""The RDP accountant at fractional orders, both directions of the sampled
Gaussian pair, zCDP, and the routes of ``certdp account`` (issue 17 part 1).

Independent truth: the Rényi integrals ∫ P^α Q^{1−α} written from the densities
and integrated by mpmath at high precision (nothing from certdp), closed forms
re-derived here, and the tight PLD / φ accountants' lower ends (an RDP bound
must never be below the true ε)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.analyses.accountants.rdp import QUAD_MAX_PEAK, RDPAccountant, _interpolated_log_a, sgm_rdp
from certdp.cli import main
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import to_ball, working_precision

from refs import mp_digits, mpq

_mpmath_precision = pytest.fixture(autouse=True)(mp_digits(30))
REL = mpmath.mpf(10) ** -20  # mpmath's quadrature is accurate, not rigorous: a small slack


def _ends(ball) -> tuple[mpmath.mpf, mpmath.mpf]:
    with working_precision(300):  # arb's lower()/upper() round at the context precision
        return mpmath.mpf(ball.lower().str(40, radius=False)), mpmath.mpf(ball.upper().str(40, radius=False))


def _contains(ball, value, rel=REL) -> bool:
    lo, hi = _ends(ball)
    tol = rel * max(1, abs(value))
    return lo - tol <= value <= hi + tol


def _above(ball, value, rel=REL) -> bool:
    return _ends(ball)[1] >= value - rel * max(1, abs(value))


def _renyi_sgm(q, s, a) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(D_α(μ‖μ0), D_α(μ0‖μ)) of μ0 = N(0, s²), μ = (1−q)N(0, s²) + qN(1, s²), by
    quadrature of ∫ P^α Q^{1−α} over the densities (Mironov, Talwar & Zhang 2019 §3)."""
    q, s, a = mpq(q), mpq(s), mpq(a)
    p0 = lambda z: mpmath.npdf(z, 0, s)  # noqa: E731
    p1 = lambda z: (1 - q) * mpmath.npdf(z, 0, s) + q * mpmath.npdf(z, 1, s)  # noqa: E731
    pts = sorted({-mpmath.inf, -12 * s, mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1), a - 12 * s, a,
                  a + 12 * s, mpmath.inf})
    big_a = mpmath.quad(lambda z: p1(z) ** a * p0(z) ** (1 - a), pts, maxdegree=6)
    big_b = mpmath.quad(lambda z: p0(z) ** a * p1(z) ** (1 - a), pts, maxdegree=6)
    return mpmath.log(big_a) / (a - 1), mpmath.log(big_b) / (a - 1)


# --- the sampled Gaussian at fractional orders ------------------------------------

@settings(max_examples=15, deadline=None)
@given(s10=st.integers(6, 60), q1000=st.integers(1, 999), n=st.integers(1, 30), k=st.integers(1, 7))
def test_sampled_gaussian_fractional_orders_contain_the_renyi_integrals(s10, q1000, n, k):
    """At α = n + k/8 the certified curve contains the larger of the two divergences."""
    s, q, a = Fraction(s10, 10), Fraction(q1000, 1000), Fraction(8 * n + k, 8)
    d_fwd, d_bwd = _renyi_sgm(q, s, a)
    ball = RDPAccountant().compose(parse_spec(f"subsample(gaussian(sigma={s}), rate={q})")).rdp(a)
    assert _contains(ball, max(d_fwd, d_bwd))


@settings(max_examples=10, deadline=None)
@given(s10=st.integers(5, 60), q1000=st.integers(1, 999), a=st.integers(2, 40))
def test_sampled_gaussian_integer_orders_contain_both_directions(s10, q1000, a):
    s, q = Fraction(s10, 10), Fraction(q1000, 1000)
    d_fwd, d_bwd = _renyi_sgm(q, s, a)
    assert _contains(sgm_rdp(q, s, Fraction(a)), max(d_fwd, d_bwd))


@pytest.mark.parametrize("q,s,a", [("1/100", 4, "69/4"), ("1/2", "4/5", "11/4"), ("1/10", 1, "5/4"),
                                   ("9/10", "1/2", "41/2"), ("1/1000", "1/2", "121/2")])
def test_sampled_gaussian_named_cases(q, s, a):
    d_fwd, d_bwd = _renyi_sgm(q, s, a)
    ball = sgm_rdp(Fraction(q), Fraction(s), Fraction(a))
    assert _contains(ball, max(d_fwd, d_bwd))
    assert d_bwd <= d_fwd  # the reverse direction is smaller here (certdp computes it, not assumes it)


@settings(max_examples=10, deadline=None)
@given(s10=st.integers(5, 40), q100=st.integers(1, 99), n=st.integers(1, 20), k=st.integers(1, 7))
def test_convexity_fallback_is_an_upper_bound(s10, q100, n, k):
    """The fallback: (α−1)·RDP <= interpolation of log A at the integer neighbours."""
    s, q, a = Fraction(s10, 10), Fraction(q100, 100), Fraction(8 * n + k, 8)
    d_fwd, _ = _renyi_sgm(q, s, a)
    with working_precision(256):
        bound = _interpolated_log_a(q, s, a) / to_ball(a - 1)
    assert _above(bound, d_fwd)


def test_large_fractional_order_uses_the_fallback_and_stays_above():
    s, q, a = Fraction(1, 4), Fraction(1, 50), Fraction(2049, 8)
    assert a / s > QUAD_MAX_PEAK  # the convexity route
    d_fwd, d_bwd = _renyi_sgm(q, s, a)
    assert _above(sgm_rdp(q, s, a), max(d_fwd, d_bwd), rel=mpmath.mpf(10) ** -15)


# --- closed forms at fractional orders --------------------------------------------

@pytest.mark.parametrize("a", ["3/2", "5/4", "37/8"])
def test_gaussian_laplace_rr_pure_at_fractional_orders(a):
    am = mpq(a)
    assert _contains(RDPAccountant().compose(parse_spec("gaussian(sigma=3)")).rdp(a), am / 18)
    b = mpmath.mpf(2)
    f = lambda x: mpmath.exp(-am * abs(x) / b - (1 - am) * abs(x - 1) / b) / (2 * b)  # noqa: E731
    lap = mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])) / (am - 1)
    assert _contains(RDPAccountant().compose(parse_spec("laplace(scale=2)")).rdp(a), lap)
    p = mpmath.mpf("0.7")
    rr = mpmath.log(p**am * (1 - p) ** (1 - am) + (1 - p) ** am * p ** (1 - am)) / (am - 1)
    assert _contains(RDPAccountant().compose(parse_spec("randomized_response(p=0.7)")).rdp(a), rr)
    e = mpmath.mpf("0.5")  # pure 1/2-DP: randomized response with p = e^ε/(1+e^ε)
    pe = mpmath.exp(e) / (1 + mpmath.exp(e))
    pure = mpmath.log(pe**am * (1 - pe) ** (1 - am) + (1 - pe) ** am * pe ** (1 - am)) / (am - 1)
    ball = RDPAccountant().compose(parse_spec("pure_dp(eps=0.5)")).rdp(a)
    assert _contains(ball, pure)
    assert _ends(ball)[1] <= min(e, am * e**2 / 2)  # below the textbook bound (Bun & Steinke 2016)
    # data processing: Laplace(scale 2) is 1/2-DP, so its curve lies below the pure-DP one
    assert _ends(RDPAccountant().compose(parse_spec("laplace(scale=2)")).rdp(a))[1] <= _ends(ball)[0]


def test_composition_adds_per_order_at_fractional_orders():
    parts = [("subsample(gaussian(sigma=2), rate=1/20)", 7), ("laplace(scale=3)", 2), ("pure_dp(eps=1/4)", 5)]
    acc = RDPAccountant()
    for spec, k in parts:
        acc = acc.compose(parse_spec(spec), k)
    for a in ("3/2", "29/8"):
        singles = [(k, _ends(RDPAccountant().compose(parse_spec(spec)).rdp(a))) for spec, k in parts]
        lo, hi = _ends(acc.rdp(a))
        slack = mpmath.mpf(10) ** -28  # mpmath's own rounding of the sums at 30 digits
        assert lo <= sum(k * e[1] for k, e in singles) + slack and sum(k * e[0] for k, e in singles) <= hi + slack
        assert hi - lo < mpmath.mpf(10) ** -20
    nested = RDPAccountant().compose(parse_spec("compose(laplace(scale=3), k=4)"), 2)
    flat = RDPAccountant().compose(parse_spec("laplace(scale=3)"), 8)
    assert _contains(nested.rdp("5/2"), _ends(flat.rdp("5/2"))[0], rel=mpmath.mpf(10) ** -30)


# --- conversions, soundness against the tight accountants -------------------------

def test_abadi_example_with_fractional_orders():
    """Abadi et al. 2016: q = 0.01, σ = 4, T = 10⁴, δ = 1e-5, moments accountant ε ≈ 1.26.
    Each reported bound is >= its conversion evaluated independently (mpmath) at its order."""
    acc = RDPAccountant().compose(parse_spec("subsample(gaussian(sigma=4), rate=0.01)"), 10000)
    delta = mpmath.mpf("1e-5")
    for conv in ("classic", "improved"):
        bound = acc.epsilon_bound("1e-5", conv)
        assert bound.conversion == conv and bound.enclosure.lo == 0
        a = mpq(bound.order)
        rho = 10000 * max(_renyi_sgm("1/100", 4, bound.order))
        want = (rho + mpmath.log(1 / delta) / (a - 1) if conv == "classic"
                else rho + mpmath.log((a - 1) / a) - (mpmath.log(delta) + mpmath.log(a)) / (a - 1))
        assert _above(bound.enclosure.hi, want, rel=mpmath.mpf(10) ** -15)
        assert bound.enclosure.upper_float() <= (1.27 if conv == "classic" else 1.04)
    assert acc.epsilon_bound("1e-5", "classic").enclosure.upper_float() >= 1.2


@pytest.mark.parametrize("spec,T,delta", [("subsample(gaussian(sigma=0.8), rate=1/2)", 5, "1e-3"),
                                          ("subsample(gaussian(sigma=1/2), rate=1/1000)", 10, "1e-6")])
def test_fractional_orders_never_below_the_pld_lower_end(spec, T, delta):
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

    bound = RDPAccountant().compose(parse_spec(spec), T).epsilon_bound(delta)
    assert bound.order.denominator != 1  # a fractional order won here
    pld = PLDAccountant().compose(parse_spec(spec), T).epsilon(delta)
    assert bound.enclosure.hi >= pld.lo


def test_laplace_rdp_never_below_the_phi_lower_end():
    from certdp.analyses.accountants.phi import PhiAccountant, to_pair  # noqa: PLC0415

    mech = parse_spec("laplace(scale=2)")
    rdp = RDPAccountant().compose(mech, 20)
    phi = PhiAccountant().compose(to_pair(mech), 20)
    for eps in ("1", "3"):
        assert rdp.delta(eps).hi >= phi.delta(eps).lo


def test_zcdp():
    acc = RDPAccountant().compose(parse_spec("gaussian(sigma=2)"), 3).compose(parse_spec("gaussian_dp(mu=1)"))
    z = acc.zcdp()
    assert z.lo_exact == z.hi_exact == Fraction(3, 8) + Fraction(1, 2)
    mixed = acc.compose(parse_spec("pure_dp(eps=1/2)"), 2).zcdp()
    assert mixed.lo == 0 and mixed.hi_exact == Fraction(7, 8) + Fraction(1, 4)
    with pytest.raises(InputError, match="no zCDP"):
        acc.compose(parse_spec("laplace(scale=1)")).zcdp()
    assert _contains(acc.rdp("7/3"), mpmath.mpf(7) / 3 * mpmath.mpf(7) / 8)  # ρ(α) = α ρ


def test_inputs_are_checked():
    acc = RDPAccountant().compose(parse_spec("gaussian(sigma=1)"))
    with pytest.raises(InputError, match="order must be > 1"):
        acc.rdp(1)
    with pytest.raises(InputError, match="conversion must be"):
        acc.epsilon_bound("1e-5", "optimal")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        RDPAccountant(orders=())


# --- the command line and the API --------------------------------------------------

def test_cli_routes_and_conversion(capsys):
    args = ["account", "--mechanism", "subsample(gaussian(sigma=4), rate=0.01)", "--times", "100", "--delta", "1e-5"]
    assert main(args + ["--accountant", "rdp", "--conversion", "classic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["conversion"] == "classic" and out["upper_bound_only"] and Fraction(out["order"]) > 1
    assert Fraction(out["eps"]["lo"]) == 0
    rdp_hi = Fraction(out["eps"]["hi"])
    assert main(args + ["--accountant", "pld", "--json"]) == 0
    pld = json.loads(capsys.readouterr().out)["eps"]
    assert Fraction(pld["lo"]) <= rdp_hi
    assert main(["account", "--mechanism", "laplace(scale=2)", "--times", "3", "--eps", "1", "--accountant", "phi"]) == 0
    assert "phi accountant" in capsys.readouterr().out
    assert main(args + ["--conversion", "classic"]) == 2
    assert "rdp only" in capsys.readouterr().err


def test_api():
    import certdp  # noqa: PLC0415

    b = certdp.rdp_epsilon("subsample(gaussian(sigma=4), rate=0.01)", "1e-5", 10000)
    assert b.conversion == "improved" and b.enclosure.lo == 0 and b.upper == b.enclosure.hi
    assert 1.0 < b.enclosure.upper_float() < 1.04
    d = certdp.rdp_delta("gaussian(sigma=2)", 1, 4, conversion="classic")
    assert d.conversion == "classic" and d.enclosure.hi <= 1
    assert certdp.zcdp("gaussian(sigma=2)", 8).hi_exact == 1


@pytest.mark.parametrize("q,s,a", [("1/2", "1/2", "9/8"), ("9/10", 1, 3), ("1/100", 4, "35/2"), ("99/100", "3/10", 8)])
def test_reverse_moment_b_by_itself(q, s, a):
    """B_α = ∫ μ0^α μ^{1−α} (masked by the max above when A_α is larger): checked on its own."""
    from certdp.analyses.accountants.rdp import sgm_moment  # noqa: PLC0415

    _, d_bwd = _renyi_sgm(q, s, a)
    ball = sgm_moment(Fraction(q), Fraction(s), Fraction(a), "B")
    assert _contains(ball, mpmath.exp(d_bwd * (mpq(a) - 1)))
