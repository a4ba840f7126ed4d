"""Replace-one sampling specs (issue 35, sampling): subsample_replace, subset_replace, sample_wr.

Independent truth (nothing from certdp):
* one step of subsample_replace: the hockey-stick divergence of the two mixtures by mpmath
  quadrature of their densities from the crossing point (found by mpmath.findroot) on;
* rate 1: the Gaussian pair N(1, σ²) vs N(−1, σ²) is exactly (2/σ)-GDP, its k-fold
  composition (2√k/σ)-GDP (closed form);
* compositions: dp_accounting 0.6's PLDAccountant under REPLACE_ONE at a fine grid (its
  REPLACE adjacency is the same pair), an estimate that must lie inside the certified
  enclosure or above its upper end;
* subset_replace and sample_wr are upper bounds: they must lie above the exact δ of one
  concrete pair of neighbouring datasets (mpmath), and above the enclosure of a known
  looser-or-equal construction.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings, strategies as st

from certdp.analyses.accountants.pld import PLDAccountant
from certdp.errors import InputError
from certdp.mechanisms.base import ProfileKind
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import working_precision
from refs import delta_mu_ref, mpf

# -- independent references ---------------------------------------------------------------------


def _mixture_hockey(p, q, eps, lo, hi, cuts=()) -> mpmath.mpf:
    """∫ (p − e^ε q)⁺ for densities whose ratio p/q increases: the crossing x* in (lo, hi) by
    findroot, then quadrature of p − e^ε q over (x*, ∞) (pieces split at ``cuts``)."""
    e = mpmath.exp(eps)
    f = lambda x: mpmath.log(p(x)) - mpmath.log(q(x)) - eps  # noqa: E731
    if f(hi) <= 0:
        return mpmath.mpf(0)
    x0 = lo if f(lo) >= 0 else mpmath.findroot(f, (lo, hi), solver="illinois")
    pts = [x0] + sorted(c for c in cuts if c > x0) + [mpmath.inf]
    return mpmath.fsum(mpmath.quad(lambda x: p(x) - e * q(x), [a, b]) for a, b in zip(pts, pts[1:]))


def gauss_replace_ref(sigma, q, eps) -> mpmath.mpf:
    """(1−q)N(0,σ²) + qN(1,σ²) against (1−q)N(0,σ²) + qN(−1,σ²)."""
    with mpmath.workdps(40):
        s, q, eps = mpf(sigma), mpf(q), mpf(eps)
        p = lambda x: (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, 1, s)  # noqa: E731
        r = lambda x: (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, -1, s)  # noqa: E731
        return _mixture_hockey(p, r, eps, mpmath.mpf(-50) * s, 50 * s + 2, cuts=(0, 1))


def laplace_replace_ref(scale, q, eps) -> mpmath.mpf:
    """(1−q)Lap(0,b) + qLap(1,b) against (1−q)Lap(0,b) + qLap(−1,b) (sensitivity 1)."""
    with mpmath.workdps(40):
        b, q, eps = mpf(scale), mpf(q), mpf(eps)
        lap = lambda x, m: mpmath.exp(-abs(x - m) / b) / (2 * b)  # noqa: E731
        p = lambda x: (1 - q) * lap(x, 0) + q * lap(x, 1)  # noqa: E731
        r = lambda x: (1 - q) * lap(x, 0) + q * lap(x, -1)  # noqa: E731
        return _mixture_hockey(p, r, eps, mpmath.mpf(0), mpmath.mpf(1), cuts=(1,))


def _ends(ball: arb) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mpmath.workdps(40):
        m, r = mpmath.mpf(ball.mid().str(40, radius=False)), mpmath.mpf(ball.rad().str(10, radius=False))
        return m - r, m + r


def _inside(ball: arb, truth: mpmath.mpf, width: float | None = 1e-25) -> None:
    """truth ∈ ball (slack 1e-30, far below the widths under test) and, with ``width``,
    the ball's width <= width · max(truth, 1e-10): tight, not only sound."""
    with mpmath.workdps(40):
        lo, hi = _ends(ball)
        slack = mpmath.mpf(10) ** -30
        assert lo - slack <= truth <= hi + slack, (lo, truth, hi)
        if width is not None:
            assert hi - lo <= width * max(truth, mpmath.mpf(10) ** -10), (lo, hi)


# -- one step against mpmath ---------------------------------------------------------------------


@pytest.mark.parametrize("sigma, q", [(1, Fraction(1, 10)), (Fraction(1, 2), Fraction(1, 2)), (3, Fraction(1, 100)),
                                      (Fraction(7, 10), Fraction(9, 10))])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(2)])
def test_gaussian_replace_step_against_mpmath(sigma, q, eps):
    m = parse_spec(f"subsample_replace(gaussian(sigma={sigma}), rate={q})")
    with working_precision(128):
        d = m.delta_ball(arb(eps.numerator) / eps.denominator)
    _inside(d, gauss_replace_ref(sigma, q, eps))


@pytest.mark.parametrize("scale, q", [(1, Fraction(1, 10)), (Fraction(1, 2), Fraction(1, 3)), (2, Fraction(1, 2)),
                                      (1, Fraction(1))])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 20), Fraction(1, 5), Fraction(1)])
def test_laplace_replace_step_against_mpmath(scale, q, eps):
    m = parse_spec(f"subsample_replace(laplace(scale={scale}), rate={q})")
    with working_precision(128):
        d = m.delta_ball(arb(eps.numerator) / eps.denominator)
    _inside(d, laplace_replace_ref(scale, q, eps))


@settings(max_examples=8)
@given(st.fractions(Fraction(2, 5), Fraction(4)).map(lambda x: x.limit_denominator(50)),
       st.fractions(Fraction(1, 100), Fraction(1)).map(lambda x: x.limit_denominator(100)),
       st.fractions(Fraction(0), Fraction(3)).map(lambda x: x.limit_denominator(20)))
def test_gaussian_replace_step_contains_mpmath(sigma, q, eps):
    with working_precision(128):
        d = parse_spec(f"subsample_replace(gaussian(sigma={sigma}), rate={q})").delta_ball(
            arb(eps.numerator) / eps.denominator)
    _inside(d, gauss_replace_ref(sigma, q, eps), width=None)


@settings(max_examples=8)
@given(st.fractions(Fraction(1, 4), Fraction(4)).map(lambda x: x.limit_denominator(50)),
       st.fractions(Fraction(1, 100), Fraction(1)).map(lambda x: x.limit_denominator(100)),
       st.fractions(Fraction(0), Fraction(2)).map(lambda x: x.limit_denominator(20)))
def test_laplace_replace_step_contains_mpmath(scale, q, eps):
    with working_precision(128):
        d = parse_spec(f"subsample_replace(laplace(scale={scale}), rate={q})").delta_ball(
            arb(eps.numerator) / eps.denominator)
    _inside(d, laplace_replace_ref(scale, q, eps), width=None)


@pytest.mark.parametrize("spec, ref", [
    ("subsample_replace(gaussian(sigma=2), rate=1/10)", lambda e: gauss_replace_ref(2, Fraction(1, 10), e)),
    ("subsample_replace(laplace(scale=1), rate=1/5)", lambda e: laplace_replace_ref(1, Fraction(1, 5), e)),
])
def test_the_engine_one_step_contains_mpmath_both_ends(spec, ref):
    """The PLD engine's one-step δ(ε): both ends certified (a two-sided law), around the truth."""
    acc = PLDAccountant(h=Fraction(1, 256)).compose(parse_spec(spec))
    assert acc.two_sided
    for eps in (Fraction(1, 10), Fraction(1, 2)):
        enc = acc.delta(eps)
        truth = ref(eps)
        assert mpmath.mpf(float(enc.lo)) * (1 - 1e-12) <= truth <= mpmath.mpf(float(enc.hi)) * (1 + 1e-12), (enc, truth)
        assert float(enc.hi) - float(enc.lo) <= 0.05 * float(truth) + 1e-9  # the default grid: a few % at most


# -- rate 1: closed forms ------------------------------------------------------------------------


def test_rate_one_gaussian_is_the_sensitivity_two_gaussian():
    m = parse_spec("subsample_replace(gaussian(sigma=3/2), rate=1)")
    assert m.gdp_mu_squared() == Fraction(16, 9)  # (2/σ)²
    with working_precision(128):
        d = m.delta_ball(arb(1))
    _inside(d, delta_mu_ref(Fraction(4, 3), 1))


def test_rate_one_laplace_is_the_sensitivity_two_laplace():
    a = parse_spec("subsample_replace(laplace(scale=2), rate=1)")
    b = parse_spec("laplace(scale=2, sensitivity=2)")
    with working_precision(128):
        for e in (arb(0), arb("0.3"), arb(1)):
            assert a.delta_ball(e).overlaps(b.delta_ball(e))


# -- compositions against dp_accounting -----------------------------------------------------------


@pytest.mark.parametrize("noise, rate, steps", [(2.0, 0.1, 20), (1.0, 0.01, 50)])  # eps ~1.79, ~0.68
def test_composed_gaussian_replace_against_dp_accountings_pld(noise, rate, steps):
    dpa = pytest.importorskip("dp_accounting")
    from certdp.interop.dp_accounting import CertifiedAccountant

    rel = dpa.NeighboringRelation.REPLACE_ONE
    event = dpa.PoissonSampledDpEvent(rate, dpa.GaussianDpEvent(noise))
    spec = CertifiedAccountant(rel).compose(event).items[0][0]
    ours = PLDAccountant(h=Fraction(1, 256)).compose(parse_spec(spec), steps).epsilon(Fraction(1, 10**5))
    theirs = dpa.pld.PLDAccountant(rel, value_discretization_interval=1e-4).compose(event, steps).get_epsilon(1e-5)
    assert float(ours.lo) <= theirs * (1 + 1e-9), (ours, theirs)  # inside, or above the upper end
    assert float(ours.hi) <= theirs * 1.02, (ours, theirs)  # and the certified bound is close (grid 1/256)


# -- upper bounds: subset_replace and sample_wr ---------------------------------------------------


def test_subset_replace_of_a_gaussian_is_attained_by_a_concrete_pair():
    """Batch b of N without replacement, M = gaussian(sigma=1, sensitivity=2) (records in [−1, 1]).
    D: the replaced record 1 and every other −1; D': the replaced record −1.  The batch sums are
    (1−γ)N(c, 1) + γN(c + 2, 1) against N(c, 1): Balle et al. 2018 Thm 9's bound is attained, so the
    profile is EXACT (mpmath quadrature of that pair); the symmetric pair with the rest 0 lies below."""
    m = parse_spec("subset_replace(gaussian(sigma=1, sensitivity=2), batch=10, n=100)")
    assert m.profile_kind is ProfileKind.EXACT
    assert parse_spec("subset_replace(laplace(scale=1, sensitivity=2), batch=10, n=100)").profile_kind is ProfileKind.UPPER
    with mpmath.workdps(40):
        g = mpmath.mpf(1) / 10
        p = lambda x: (1 - g) * mpmath.npdf(x, 0, 1) + g * mpmath.npdf(x, 2, 1)  # noqa: E731
        r = lambda x: mpmath.npdf(x, 0, 1)  # noqa: E731
    with working_precision(128):
        for eps in (Fraction(0), Fraction(1, 4), Fraction(1)):
            d = m.delta_ball(arb(eps.numerator) / eps.denominator)
            with mpmath.workdps(40):
                attained = _mixture_hockey(p, r, mpf(eps), mpmath.mpf(0), mpmath.mpf(40), cuts=(2,))
                below = gauss_replace_ref(1, Fraction(1, 10), eps)
            _inside(d, attained, width=1e-25)
            with mpmath.workdps(40):
                assert below <= attained


def discrete_laplace_replace_ref(t, q, eps) -> mpmath.mpf:
    """Σ_x ((1−q)d(x) + q d(x−1) − e^ε((1−q)d(x) + q d(x+1)))⁺, d(x) ∝ e^{−|x|/t} on the integers
    (|x| <= 400: the rest is below 1e-40 for t <= 2)."""
    with mpmath.workdps(50):
        t, q, e = mpf(t), mpf(q), mpmath.exp(mpf(eps))
        c = mpmath.tanh(1 / (2 * t))
        d = lambda x: c * mpmath.exp(-abs(x) / t)  # noqa: E731
        return mpmath.fsum(max(0, (1 - q) * d(x) + q * d(x - 1) - e * ((1 - q) * d(x) + q * d(x + 1)))
                           for x in range(-400, 401))


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(1, 2)])
def test_subsample_replace_of_a_discrete_laplace_is_a_proved_upper_bound(eps):
    """The larger of the Poisson profiles at Δ and 2Δ (advanced joint convexity): above the exact δ of
    the concrete pair (the record +1 replaced by −1, mpmath sum), and equal to its own formula."""
    m = parse_spec("subsample_replace(discrete_laplace(scale=2), rate=1/10)")
    assert m.profile_kind is ProfileKind.UPPER and m.assumptions == ()
    e = arb(eps.numerator) / eps.denominator
    with working_precision(128):
        d = m.delta_ball(e)
        wide = parse_spec("subsample(discrete_laplace(scale=2, sensitivity=2), rate=1/10)").delta_ball(e)
    assert d.overlaps(wide)
    with mpmath.workdps(40):
        assert discrete_laplace_replace_ref(2, Fraction(1, 10), eps) <= _ends(d)[1]


def sample_wr_ref(sigma, b, n, eps) -> mpmath.mpf:
    """δ(ε) of one concrete pair for b draws with replacement from n records, σ, records 1 vs −1
    and the rest 0: Σ_k π_k N(k, σ²) against Σ_k π_k N(−k, σ²), k ~ Binomial(b, 1/n) (k <= 6)."""
    with mpmath.workdps(40):
        s, eps = mpf(sigma), mpf(eps)
        pk = [mpmath.binomial(b, k) * (mpmath.mpf(1) / n) ** k * (1 - mpmath.mpf(1) / n) ** (b - k) for k in range(7)]
        p = lambda x: mpmath.fsum(w * mpmath.npdf(x, k, s) for k, w in enumerate(pk))  # noqa: E731
        r = lambda x: mpmath.fsum(w * mpmath.npdf(x, -k, s) for k, w in enumerate(pk))  # noqa: E731
        return _mixture_hockey(p, r, eps, mpmath.mpf(-20), mpmath.mpf(30), cuts=(0, 1, 2, 3))


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 2), Fraction(2)])
def test_sample_wr_is_above_a_concrete_pair_and_below_one_step_of_revealed_copies(eps):
    m = parse_spec("sample_wr(gaussian(sigma=1), batch=20, n=100)")
    assert m.profile_kind is ProfileKind.UPPER
    with working_precision(128):
        d = m.delta_ball(arb(eps.numerator) / eps.denominator)
    truth = sample_wr_ref(1, 20, 100, eps)
    with mpmath.workdps(40):
        assert truth <= _ends(d)[1]
        # the bound is Σ π_k δ_{2k}(ε) (mpmath): the ball holds exactly its own formula
        pk = [mpmath.binomial(20, k) * mpmath.mpf("0.01") ** k * mpmath.mpf("0.99") ** (20 - k) for k in range(21)]
        formula = mpmath.fsum(pk[k] * delta_mu_ref(2 * k, eps) for k in range(1, 21))
    _inside(d, formula, width=1e-20)


def test_an_upper_only_law_stays_upper_only_inside_subset():
    from certdp.analyses.accountants.discretise import law_source

    assert not law_source(parse_spec("subset(sample_wr(gaussian(sigma=1), batch=2, n=10), rate=1/2)")).two_sided
    assert law_source(parse_spec("subset(subsample_replace(gaussian(sigma=1), rate=1/2), rate=1/2)")).two_sided


def test_sample_wr_composes_as_an_upper_bound_of_the_revealed_pair():
    """10 steps of b = 4 draws from 1000 records, σ = 2.  Revealed copies k_i per step, the
    composition is a mixture over S = Σ k_i² of Gaussian pairs with μ = 2√S/σ (GDP composition):
    δ(ε) = Σ_S P(S) δ_{2√S/σ}(ε) exactly (mpmath, an exact convolution of the binomial laws).
    The engine's upper bound must lie above it, and within 5 % at the coarse grid h = 1/64."""
    acc = PLDAccountant(h=Fraction(1, 64)).compose(parse_spec("sample_wr(gaussian(sigma=2), batch=4, n=1000)"), 10)
    assert not acc.two_sided
    enc = acc.delta(1)
    with mpmath.workdps(40):
        one = {k * k: mpmath.binomial(4, k) * mpmath.mpf("0.001") ** k * mpmath.mpf("0.999") ** (4 - k) for k in range(5)}
        law = {0: mpmath.mpf(1)}
        for _ in range(10):
            nxt: dict = {}
            for a, pa in law.items():
                for b, pb in one.items():
                    nxt[a + b] = nxt.get(a + b, 0) + pa * pb
            law = nxt
        gdp = lambda m: mpmath.ncdf(-1 / m + m / 2) - mpmath.e * mpmath.ncdf(-1 / m - m / 2)  # noqa: E731 (δ_μ(1))
        truth = mpmath.fsum(p * gdp(mpmath.sqrt(S)) for S, p in law.items() if S)  # μ = 2√S/σ = √S
    assert float(enc.lo) == 0 and truth <= float(enc.hi) <= truth * 1.05, (enc, truth)


# -- specs and refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [
    "subsample_replace(gaussian(sigma=1, sensitivity=1), rate=0.1)",
    "subsample_replace(laplace(scale=2, sensitivity=1), rate=1/3)",
    "subset_replace(randomized_response(p=0.75), batch=10, n=100)",
    "sample_wr(gaussian_dp(mu=0.5), batch=3, n=7)",
])
def test_specs_round_trip(spec):
    m = parse_spec(spec)
    assert parse_spec(m.spec()) == m


@pytest.mark.parametrize("spec, reason", [
    ("subsample_replace(pure_dp(eps=1), rate=1/10)", "gaussian, gaussian_dp"),
    ("subsample_replace(discrete_laplace(scale=1, sensitivity=40000), rate=1/10)", "sensitivity"),
    ("subsample_replace(randomized_response(p=3/4), rate=1/10)", "subset_replace"),
    ("subsample_replace(gaussian(sigma=1), rate=0)", "0 < rate <= 1"),
    ("subset_replace(gaussian(sigma=1), batch=11, n=10)", "batch <= n"),
    ("sample_wr(laplace(scale=1), batch=1, n=10)", "gaussian"),
    ("subsample(sample_wr(gaussian(sigma=1), batch=2, n=10), rate=1/2)", "different neighbouring relations"),
    ("subsample(subsample_replace(gaussian(sigma=1), rate=1/2), rate=1/2)", "different neighbouring relations"),
    ("subset_replace(subset_replace(gaussian(sigma=1), batch=2, n=4), batch=4, n=8)", "directly"),
])
def test_bad_specs_get_one_line_errors(spec, reason):
    with pytest.raises(InputError, match=reason):
        parse_spec(spec)


def test_subsample_replace_carries_its_assumption_and_poisson_rr_is_a_guarantee():
    m = parse_spec("compose(subsample_replace(gaussian(sigma=1), rate=1/10), k=3)")
    assert any("worst case of one substitution" in a for a in m.assumptions)
    assert parse_spec("subsample(randomized_response(p=3/4), rate=1/10)").profile_kind is ProfileKind.GUARANTEE
    assert parse_spec("subsample(laplace(scale=1), rate=1/10)").profile_kind is ProfileKind.EXACT


def test_the_writer_refuses_certificates_for_the_new_specs(tmp_path, capsys):
    from certdp.cli import main

    path = tmp_path / "c.json"
    rc = main(["account", "--mechanism", "subsample_replace(laplace(scale=2), rate=1/10)", "--times", "3",
               "--delta", "1e-5", "--certificate", str(path)])
    assert rc == 2 and not path.exists()
    err = capsys.readouterr().err
    assert "not supported" in err and "Traceback" not in err


def test_sample_wr_refuses_a_copy_law_too_large_to_sum_exactly():
    """batch 1e8 of n 1e9 built (1 - 1/n)^b exactly and ran past any --budget; it is
    refused at the boundary now (a one-line InputError)."""
    from certdp.errors import InputError
    from certdp.mechanisms.spec import parse_spec

    with pytest.raises(InputError, match="too large for the exact copy law"):
        parse_spec("sample_wr(gaussian(sigma=1), batch=100000000, n=1e9)")
