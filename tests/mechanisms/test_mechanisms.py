"""Catalog profiles against independent mpmath truth.

References are computed from the *definitions* where practical: the
hockey-stick divergence δ(ε) = ∫ (p − e^ε q)⁺ of the dominating pair, by
mpmath quadrature at 50 digits (Laplace, Gaussian) or exact sums
(randomized response); otherwise from the seed's formulas written
independently in mpmath.  Nothing here uses certdp to compute a reference.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.errors import InputError, PrecisionError
from certdp.mechanisms import (
    ApproxDP,
    ClipReify,
    Compose,
    DeltaUnattainable,
    Gaussian,
    GaussianDP,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsample,
    delta_enclosure,
    eps_enclosure,
)
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from refs import delta_mu_ref

DPS = 60
SLACK = mpmath.mpf(10) ** -40  # relative; far below the 1e-15 widths under test
#: Absolute slack for references whose formula cancels (e^{ε0} − e^ε, Φ − e^εΦ)
#: at DPS digits with ε <= 12: |error| <= e^12 · 1e-60 < 1e-50.  Quadrature
#: references integrate a positive integrand and get no absolute slack.
CANCEL = mpmath.mpf(10) ** -50


def mp(q) -> mpmath.mpf:
    q = Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def contains(enc: Enclosure, value, abs_slack=0) -> bool:
    """lo <= value <= hi up to relative SLACK plus ``abs_slack``."""
    if isinstance(value, (int, Fraction)):
        value = mp(value)
    with mpmath.workdps(400):
        lo = mpmath.ldexp(int(enc.lo.man_exp()[0]), int(enc.lo.man_exp()[1]))
        hi = mpmath.ldexp(int(enc.hi.man_exp()[0]), int(enc.hi.man_exp()[1]))
        s = abs(value) * SLACK + abs_slack
        return lo - s <= value <= hi + s


def tight(enc: Enclosure, value) -> bool:
    """hi − lo <= 1e-14·|value| + 1e-30: what ``delta_enclosure`` promises
    (relative width 2^-52 by default, or absolute radius 2^-104 where δ is 0
    or too small to resolve relatively), with room to spare.  Containment
    alone would let [0, 1] pass for every δ."""
    if isinstance(value, (int, Fraction)):
        value = mp(value)
    with mpmath.workdps(400):
        lo = mpmath.ldexp(int(enc.lo.man_exp()[0]), int(enc.lo.man_exp()[1]))
        hi = mpmath.ldexp(int(enc.hi.man_exp()[0]), int(enc.hi.man_exp()[1]))
        return hi - lo <= abs(value) * mpmath.mpf(10) ** -14 + mpmath.mpf(10) ** -30


def encloses(enc: Enclosure, value, abs_slack=0) -> bool:
    """``value`` in ``enc`` (up to the slack) and ``enc`` tight around it."""
    return contains(enc, value, abs_slack) and tight(enc, value)


def ball_contains(b: arb, value) -> bool:
    with working_precision(300):
        return contains(Enclosure.from_ball(b), value, CANCEL)


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------


def laplace_ref(b, sens, eps):
    """∫ (p − e^ε q)⁺, p = Lap(0, b), q = Lap(Δ, b) density, by quadrature."""
    with mpmath.workdps(DPS):
        b, d, e = mp(b), mp(sens), mp(eps)
        p = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
        q = lambda x: mpmath.exp(-abs(x - d) / b) / (2 * b)  # noqa: E731
        if e >= d / b:
            return mpmath.mpf(0)
        xs = (d - e * b) / 2  # p/q = e^ε there (p/q = e^{(Δ-2x)/b} on [0, Δ])
        f = lambda x: p(x) - mpmath.exp(e) * q(x)  # noqa: E731
        return +mpmath.quad(f, [-mpmath.inf, 0, xs])


def laplace_closed(b, sens, eps):
    """Seed 000 §3 formula max(1 − exp(ε/2 − Δ/(2b)), 0) in mpmath (checked
    against the quadrature reference in test_laplace_contains_hockey_stick)."""
    with mpmath.workdps(DPS):
        return max(1 - mpmath.exp(mp(eps) / 2 - mp(sens) / (2 * mp(b))), 0)


def rr_ref(p, eps):
    """Σ_x (P(x) − e^ε Q(x))⁺ with P = (p, 1−p), Q = (1−p, p) (seed 002 Table 2)."""
    with mpmath.workdps(DPS):
        p, e = (p if isinstance(p, mpmath.mpf) else mp(p)), mp(eps)
        E = mpmath.exp(e)
        return max(p - E * (1 - p), 0) + max((1 - p) - E * p, 0)


def approx_ref(eps0, delta0, eps):
    """Seed 000 Thm 3.1: δ0 + (1−δ0)(e^{ε0} − e^ε)⁺/(1 + e^{ε0})."""
    with mpmath.workdps(DPS):
        e0, d0, e = mp(eps0), mp(delta0), mp(eps)
        return d0 + (1 - d0) * max(mpmath.exp(e0) - mpmath.exp(e), 0) / (1 + mpmath.exp(e0))


fracs = st.fractions


def pos(lo, hi, max_den=1000):
    return st.fractions(min_value=Fraction(lo), max_value=Fraction(hi), max_denominator=max_den).filter(lambda q: q > 0)


eps_st = st.fractions(min_value=0, max_value=12, max_denominator=1000)


# ---------------------------------------------------------------------------
# point containment
# ---------------------------------------------------------------------------


@settings(max_examples=40)
@given(b=pos("0.05", 10), sens=pos("0.1", 5), eps=eps_st)
def test_laplace_contains_hockey_stick(b, sens, eps):
    enc = delta_enclosure(Laplace(scale=b, sensitivity=sens), eps)
    assert encloses(enc, laplace_ref(b, sens, eps))


@settings(max_examples=25)
@given(sigma=pos("0.2", 5), sens=pos("0.5", 2, 10), eps=st.fractions(min_value=0, max_value=6, max_denominator=100))
def test_gaussian_contains_thm32(sigma, sens, eps):
    # reference: seed 000 Thm 3.2 in mpmath with cancellation-aware digits (tests/refs.py)
    enc = delta_enclosure(Gaussian(sigma=sigma, sensitivity=sens), eps)
    assert encloses(enc, delta_mu_ref(sens / sigma, eps))
    assert enc == delta_enclosure(GaussianDP(mu=sens / sigma), eps)


@pytest.mark.parametrize("mu,eps", [(Fraction(1, 2), 0), (Fraction(1, 2), 1), (1, Fraction(1, 3)), (2, 3), (3, Fraction(17, 2))])
def test_thm32_formula_matches_hockey_stick_definition(mu, eps):
    """The closed form used as reference equals ∫ (φ(x−μ) − e^ε φ(x))⁺ dx
    (quadrature of the positive integrand e^ε φ(x*+u) expm1(μu), x* = ε/μ + μ/2).
    mpmath's quadrature loses accuracy for small μ·large x*, so only moderate cases."""
    with mpmath.workdps(DPS):
        m, e = mp(mu), mp(eps)
        xs = e / m + m / 2
        f = lambda u: mpmath.exp(e) * mpmath.npdf(xs + u) * mpmath.expm1(m * u)  # noqa: E731
        q = mpmath.quad(f, [0, 0.25, 1, 4, 16, mpmath.inf])
    ref = delta_mu_ref(mu, eps)
    assert abs(q - ref) <= abs(ref) * mpmath.mpf(10) ** -30
    assert encloses(delta_enclosure(GaussianDP(mu=mu), eps), q, abs(q) * mpmath.mpf(10) ** -30)


@settings(max_examples=50)
@given(p=st.fractions(min_value=0, max_value=1, max_denominator=10**6).filter(lambda q: 0 < q < 1), eps=eps_st)
def test_randomized_response_contains_sum(p, eps):
    assert encloses(delta_enclosure(RandomizedResponse(p=p), eps), rr_ref(p, eps), CANCEL)


@settings(max_examples=40)
@given(eps0=st.fractions(min_value=0, max_value=8, max_denominator=1000), eps=eps_st)
def test_pure_dp_is_randomized_response_worst_case(eps0, eps):
    # seed 000 §5.1: attained by RR with p = e^{ε0}/(1+e^{ε0})
    with mpmath.workdps(DPS):
        p = mpmath.exp(mp(eps0)) / (1 + mpmath.exp(mp(eps0)))
        ref = rr_ref(p, eps)
    assert encloses(delta_enclosure(PureDP(eps=eps0), eps), ref, CANCEL)


@settings(max_examples=40)
@given(
    eps0=st.fractions(min_value=0, max_value=8, max_denominator=1000),
    delta0=st.fractions(min_value=0, max_value=1, max_denominator=10**8).filter(lambda q: q < 1),
    eps=eps_st,
)
def test_approx_dp_contains_thm31(eps0, delta0, eps):
    assert encloses(delta_enclosure(ApproxDP(eps=eps0, delta=delta0), eps), approx_ref(eps0, delta0, eps), CANCEL)


@settings(max_examples=30)
@given(b=pos("0.1", 4), rate=pos(0, 1, 1000), eps=eps_st)
def test_subsample_laplace(b, rate, eps):
    # seed 000 §5.3: δ'(ε') = γ δ(log(1 + (e^{ε'} − 1)/γ))
    with mpmath.workdps(DPS):
        inner = mpmath.log(1 + mpmath.expm1(mp(eps)) / mp(rate))
        theta = 1 / mp(b)
        ref = mp(rate) * max(1 - mpmath.exp(inner / 2 - theta / 2), 0)
    assert encloses(delta_enclosure(Subsample(Laplace(scale=b), rate=rate), eps), ref, CANCEL)


@settings(max_examples=20)
@given(mu=pos("0.2", 3, 100), rate=pos(0, 1, 100), eps=st.fractions(min_value=0, max_value=5, max_denominator=100))
def test_subsample_gaussian_dp(mu, rate, eps):
    with mpmath.workdps(DPS):
        inner = mpmath.log(1 + mpmath.expm1(mp(eps)) / mp(rate))
        m = mp(mu)
        ref = mp(rate) * (mpmath.ncdf(-inner / m + m / 2) - mpmath.exp(inner) * mpmath.ncdf(-inner / m - m / 2))
    assert encloses(delta_enclosure(Subsample(GaussianDP(mu=mu), rate=rate), eps), ref, CANCEL)


@settings(max_examples=15)
@given(sigma=pos(1, 20, 10), k=st.integers(1, 500), eps=st.fractions(min_value=0, max_value=8, max_denominator=100))
def test_compose_gaussian_is_sqrt_k_mu(sigma, k, eps):
    with mpmath.workdps(DPS):
        mu = mpmath.sqrt(k) / mp(sigma)
    assert encloses(delta_enclosure(Compose(Gaussian(sigma=sigma), k=k), eps), gauss_closed(mu, eps), CANCEL)


@settings(max_examples=30)
@given(eps_h=pos("0.1", 10, 100), eps0=st.fractions(min_value=0, max_value=8, max_denominator=100), eps=eps_st)
def test_clip_reify(eps_h, eps0, eps):
    # seed 000 Thm 4.7 / A.7: min(δ_M, Laplace profile with Δ/b = ε_h)
    with mpmath.workdps(DPS):
        lap = max(1 - mpmath.exp(mp(eps) / 2 - mp(eps_h) / 2), 0)
        ref = min(approx_ref(eps0, Fraction(1, 100), eps), lap)
    mech = ClipReify(ApproxDP(eps=eps0, delta=Fraction(1, 100)), eps_h=eps_h, lo=-1, hi=1)
    enc = delta_enclosure(mech, eps)
    assert encloses(enc, ref, CANCEL)
    if eps >= eps_h:
        assert enc == Enclosure.exact(0)


def test_large_eps_gaussian_tail_is_relatively_tight():
    enc = delta_enclosure(GaussianDP(mu=1), 60)
    with mpmath.workdps(1000):  # the two terms cancel to ~1e-770: 1000 digits leave 200
        m, e = mpmath.mpf(1), mpmath.mpf(60)
        ref = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    assert ref < mpmath.mpf(10) ** -700
    assert contains(enc, ref)
    assert enc.relative_width() < 1e-14


# ---------------------------------------------------------------------------
# interval soundness of delta_ball
# ---------------------------------------------------------------------------

MECHS = [
    (Laplace(scale=Fraction(1, 2)), lambda e: laplace_closed(Fraction(1, 2), 1, e)),
    (Laplace(scale=3, sensitivity=Fraction(7, 10)), lambda e: laplace_closed(3, Fraction(7, 10), e)),
    (GaussianDP(mu=Fraction(3, 2)), lambda e: gauss_closed(Fraction(3, 2), e)),
    (RandomizedResponse(p=Fraction(3, 10)), lambda e: rr_ref(Fraction(3, 10), e)),
    (PureDP(eps=2), lambda e: approx_ref(2, 0, e)),
    (ApproxDP(eps=1, delta=Fraction(1, 10)), lambda e: approx_ref(1, Fraction(1, 10), e)),
]


@settings(max_examples=40)
@given(
    idx=st.integers(0, len(MECHS) - 1),
    a=st.fractions(min_value=0, max_value=6, max_denominator=64),
    w=st.fractions(min_value=0, max_value=3, max_denominator=64),
    ts=st.lists(st.fractions(min_value=0, max_value=1, max_denominator=97), min_size=1, max_size=3),
    prec=st.sampled_from([30, 53, 120]),
)
def test_delta_ball_interval_contains_interior_values(idx, a, w, ts, prec):
    mech, ref = MECHS[idx]
    with working_precision(prec):
        ball = to_ball(a).union(to_ball(a + w))
        y = mech.delta_ball(ball)
    for t in ts:
        assert ball_contains(y, ref(a + t * w)), (mech, a, w, t)


def test_delta_ball_interval_for_transforms():
    cases = [
        (Subsample(Laplace(scale=1), rate=Fraction(1, 5)),
         lambda e: Fraction(1, 5) * max(1 - mpmath.exp(mpmath.log(1 + 5 * mpmath.expm1(mp(e))) / 2 - mpmath.mpf(1) / 2), 0)),
        (ClipReify(GaussianDP(mu=1), eps_h=3, lo=0, hi=1),
         lambda e: min(gauss_closed(1, e), max(1 - mpmath.exp(mp(e) / 2 - mpmath.mpf(3) / 2), 0))),
    ]
    for mech, ref in cases:
        for a, b in [(0, Fraction(1, 3)), (Fraction(1, 2), 2), (Fraction(5, 2), Fraction(7, 2))]:
            with working_precision(53):
                y = mech.delta_ball(to_ball(a).union(to_ball(b)))
            for t in (0, Fraction(1, 7), Fraction(1, 2), 1):
                assert ball_contains(y, ref(a + t * (b - a)))


def test_negative_eps_ball_rejected():
    with pytest.raises(InputError):
        Laplace(scale=1).delta_ball(arb(-1))


# ---------------------------------------------------------------------------
# inversion ε(δ)
# ---------------------------------------------------------------------------


class Opaque(Mechanism):
    """Hides a mechanism's closed-form inverse: forces the generic bisection."""

    name = "opaque"

    def __init__(self, inner):
        self.inner = inner

    @property
    def params(self):
        return {"mechanism": self.inner}

    def profile(self):
        return self.inner.profile()

    def delta_ball(self, eps):
        return self.inner.delta_ball(eps)


@pytest.mark.parametrize(
    "mech,delta,ref",
    [
        (Laplace(scale=Fraction(1, 2)), Fraction(1, 1000), lambda: 2 + 2 * mpmath.log(1 - mpmath.mpf("0.001"))),
        (PureDP(eps=1), Fraction(3, 10), lambda: mpmath.log(mpmath.e - mpmath.mpf("0.3") * (1 + mpmath.e))),
        (ApproxDP(eps=1, delta=Fraction(1, 100)), Fraction(1, 10),
         lambda: mpmath.log(mpmath.e - (mpmath.mpf("0.09") / mpmath.mpf("0.99")) * (1 + mpmath.e))),
        (RandomizedResponse(p=Fraction(9, 10)), Fraction(1, 10), lambda: mpmath.log(8)),
    ],
)
def test_closed_form_inverse_and_generic_bisection_agree_with_mpmath(mech, delta, ref):
    with mpmath.workdps(DPS):
        truth = ref()
    closed = eps_enclosure(mech, delta)
    generic = eps_enclosure(Opaque(mech), delta, digits=12)
    assert contains(closed, truth) and contains(generic, truth)
    assert closed.width < arb(10) ** -14 and generic.width < arb(10) ** -11


def test_gaussian_inverse_matches_mpmath_root():
    enc = eps_enclosure(Gaussian(sigma=1), Fraction(3, 10))
    with mpmath.workdps(DPS):
        truth = mpmath.findroot(lambda e: gauss_closed(1, e) - mpmath.mpf("0.3"), 0.28)
    assert contains(enc, truth)


def gauss_closed(mu, e):
    """Seed 000 Thm 3.2 written in mpmath (at DPS digits)."""
    with mpmath.workdps(DPS):
        m = mu if isinstance(mu, mpmath.mpf) else mp(mu)
        e = e if isinstance(e, mpmath.mpf) else mp(e)
        return +(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


def test_seed002_rr_vs_gaussian_same_rdp():
    """Seed 002 §1: GM (σ=1) is (0.277, 0.3)-DP, but RR with p = e/(1+e)
    (= pure_dp(1)) is not (ε, 0.3)-DP for ε < 0.471."""
    gm = eps_enclosure(Gaussian(sigma=1), Fraction(3, 10))
    rr = eps_enclosure(PureDP(eps=1), Fraction(3, 10))
    assert gm.certainly_less_than(Fraction(277, 1000))
    assert rr.certainly_greater_than(Fraction(471, 1000))
    assert rr.certainly_less_than(Fraction(472, 1000))  # printed 0.471 is truncated from 0.47175...


def test_subsample_and_clip_inverse():
    sub = Subsample(PureDP(eps=2), rate=Fraction(1, 10))
    enc = eps_enclosure(sub, 0)
    with mpmath.workdps(DPS):  # δ = 0 first where inner ε = 2: ε' = log(1 + γ(e² − 1))
        truth = mpmath.log(1 + (mpmath.exp(2) - 1) / 10)
    assert contains(enc, truth)
    clip = ClipReify(GaussianDP(mu=1), eps_h=2, lo=0, hi=1)
    assert eps_enclosure(clip, 0) == Enclosure.exact(2)
    enc = eps_enclosure(clip, Fraction(1, 100))
    with mpmath.workdps(DPS):
        t_gauss = mpmath.findroot(lambda e: gauss_closed(1, e) - mpmath.mpf("0.01"), 2)
        t_lap = 2 + 2 * mpmath.log(mpmath.mpf("0.99"))
    assert contains(enc, min(t_gauss, t_lap))


def test_inverse_edge_cases():
    assert eps_enclosure(Laplace(scale=1), Fraction(99, 100)) == Enclosure.exact(0)
    assert eps_enclosure(RandomizedResponse(p=Fraction(1, 2)), 0) == Enclosure.exact(0)
    assert eps_enclosure(ApproxDP(eps=1, delta=Fraction(1, 10)), Fraction(1, 10)).contains(1)
    with pytest.raises(DeltaUnattainable):
        eps_enclosure(ApproxDP(eps=1, delta=Fraction(1, 10)), Fraction(1, 100))
    with pytest.raises(DeltaUnattainable):
        eps_enclosure(GaussianDP(mu=1), 0)
    with pytest.raises(DeltaUnattainable):
        eps_enclosure(Compose(GaussianDP(mu=1), k=4), 0)
    with pytest.raises(InputError):
        eps_enclosure(Laplace(scale=1), 1)
    with pytest.raises(PrecisionError):  # generic search: δ_μ never reaches 0
        eps_enclosure(Opaque(GaussianDP(mu=1)), 0, digits=5)


# ---------------------------------------------------------------------------
# parameter validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build,word",
    [
        (lambda: Laplace(scale=0), "scale"),
        (lambda: Laplace(scale=1, sensitivity=-1), "sensitivity"),
        (lambda: Gaussian(sigma="-2"), "sigma"),
        (lambda: GaussianDP(mu=0), "mu"),
        (lambda: RandomizedResponse(p=1), "p"),
        (lambda: PureDP(eps=-1), "eps"),
        (lambda: ApproxDP(eps=1, delta=1), "delta"),
        (lambda: Subsample(Laplace(scale=1), rate=0), "rate"),
        (lambda: Subsample(Laplace(scale=1), rate="1.5"), "rate"),
        (lambda: Compose(Gaussian(sigma=1), k=0), "k"),
        (lambda: Compose(Gaussian(sigma=1), k="1.5"), "k"),
        (lambda: Compose(Laplace(scale=1), k=2).profile(), "no closed-form"),
        (lambda: Compose(Laplace(scale=1), k=0), "k must be"),
        (lambda: ClipReify(Laplace(scale=1), eps_h=0, lo=0, hi=1), "eps_h"),
        (lambda: ClipReify(Laplace(scale=1), eps_h=1, lo=1, hi=1), "lo < hi"),
        (lambda: Laplace(), "missing"),
        (lambda: Laplace(scale=1, sigma=2), "unknown parameter"),
        (lambda: Laplace(scale=Laplace(scale=1)), "must be a number"),
        (lambda: Subsample(3, rate=Fraction(1, 2)), "must be a mechanism"),
        (lambda: Laplace(scale=float("nan")), "scale"),
        (lambda: Laplace(scale=True), "scale"),
    ],
)
def test_invalid_parameters_raise_input_error(build, word):
    with pytest.raises(InputError, match=word):
        build()


def test_compose_flattens_and_k1_is_identity():
    m = Compose(Compose(GaussianDP(mu=Fraction(1, 2)), k=3), k=5)
    assert m.k == 15 and m.mechanism == GaussianDP(mu=Fraction(1, 2))
    lap = Laplace(scale=1)
    assert delta_enclosure(Compose(lap, k=1), 1) == delta_enclosure(lap, 1)


def test_profiles_are_sympy_in_eps():
    import sympy

    from certdp.mechanisms import EPS

    for mech, ref in MECHS:
        expr = mech.profile()
        assert expr.free_symbols <= {EPS}
        for e in (0, Fraction(1, 3), 2):
            val = sympy.N(expr.subs(EPS, sympy.Rational(e.numerator, e.denominator) if isinstance(e, Fraction) else e), 40)
            with mpmath.workdps(DPS):
                assert abs(mpmath.mpf(str(val)) - ref(e)) < mpmath.mpf(10) ** -30


def test_seed000_sec42_tail_mass():
    """Seed 000 §4.2: with μ = 6, δ_μ(100) is 'on the order of 1e-43' and
    δ_μ(200) is 'smaller than 1e-202'."""
    d100 = delta_enclosure(GaussianDP(mu=6), 100)
    d200 = delta_enclosure(GaussianDP(mu=6), 200)
    assert d100.certainly_greater_than(Fraction(1, 10**43)) and d100.certainly_less_than(Fraction(1, 10**42))
    assert d200.certainly_less_than(Fraction(1, 10**202))
    with mpmath.workdps(400):  # cancellation to 1e-203 leaves ~190 digits
        m = mpmath.mpf(6)
        refs = [mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2) for e in (mpmath.mpf(100), mpmath.mpf(200))]
    assert contains(d100, refs[0]) and contains(d200, refs[1])


@settings(max_examples=40)
@given(
    kind=st.sampled_from(["laplace", "pure", "approx", "rr"]),
    a=st.fractions(min_value=0, max_value=6, max_denominator=100).filter(lambda q: q > 0),
    d0=st.fractions(min_value=0, max_value=Fraction(1, 10), max_denominator=10**6),
    target=st.fractions(min_value=0, max_value=1, max_denominator=10**6).filter(lambda q: q < 1),
)
def test_closed_form_inverses_random(kind, a, d0, target):
    """ε(δ) enclosures vs the inverse written in mpmath (clipped at 0)."""
    with mpmath.workdps(DPS):
        A, D, D0 = mp(a), mp(target), mp(d0)
        if kind == "laplace":  # scale 1/a: θ = a
            mech, truth = Laplace(scale=1 / a), max(A + 2 * mpmath.log(1 - D), 0) if D > 0 else A
        elif kind == "pure":
            mech = PureDP(eps=a)
            arg = mpmath.exp(A) - D * (1 + mpmath.exp(A))
            truth = mpmath.log(arg) if arg > 1 else mpmath.mpf(0)
        elif kind == "approx":
            mech = ApproxDP(eps=a, delta=d0)
            if target < d0:
                with pytest.raises(DeltaUnattainable):
                    eps_enclosure(mech, target)
                return
            arg = mpmath.exp(A) - (D - D0) / (1 - D0) * (1 + mpmath.exp(A))
            truth = mpmath.log(arg) if arg > 1 else mpmath.mpf(0)
        else:  # randomized response with q = e^a/(1+e^a) is pure_dp(a)'s worst case
            q = Fraction(1) - Fraction(1, 2 + int(a))  # an exact probability in [1/2, 1)
            mech = RandomizedResponse(p=q)
            Q = mp(q)
            truth = mpmath.log((Q - D) / (1 - Q)) if Q - D > 1 - Q else mpmath.mpf(0)
    enc = eps_enclosure(mech, target)
    assert contains(enc, truth, CANCEL)
    assert enc.width < arb(2) ** -45
