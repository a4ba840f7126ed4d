"""discrete_gaussian(sigma, sensitivity): profile and k-fold compositions against the
pmf summed in mpmath (Canonne, Kamath & Steinke 2020, Def 1)."""

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import accountant_for
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import working_precision
from certdp.numerics.enclosure import Enclosure

from refs import mp_digits  # noqa: E402

#: 50 digits for this module's mpmath references, restored at the end of the
#: module (a module-level assignment leaked into every later test module).
_mpmath_precision = pytest.fixture(autouse=True, scope="module")(mp_digits(50))


def _loss_law(sigma, d, span=80):
    """{loss index j: P-mass}, loss = j/(2σ²) with j = Δ² − 2Δx, from the pmf written out."""
    s2 = (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
    xs = range(-span, span + 1)
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in xs)
    return {d * d - 2 * d * x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) / z for x in xs}, 2 * s2


def _delta(law, scale, eps):
    """δ(ε) = E_P[(1 − e^{ε − L})⁺] of a lattice loss law {j: mass}, L = j/scale."""
    return mpmath.fsum(m * (1 - mpmath.exp(eps - mpmath.mpf(j) / scale)) for j, m in law.items()
                       if mpmath.mpf(j) / scale > eps)


def _compose(law, k):
    out = {0: mpmath.mpf(1)}
    for _ in range(k):
        nxt: dict = {}
        for a, ma in out.items():
            for b, mb in law.items():
                if ma * mb > mpmath.mpf(10) ** -45:
                    nxt[a + b] = nxt.get(a + b, 0) + ma * mb
        out = nxt
    return out


@pytest.mark.parametrize("sigma,d", [("1", 1), ("1/2", 1), ("3", 2)])
def test_profile_against_the_pmf(sigma, d):
    mech = parse_spec(f"discrete_gaussian(sigma={sigma}, sensitivity={d})")
    law, scale = _loss_law(Fraction(sigma), d)
    for eps in ("0", "1/2", "1", "2"):
        with working_precision(128):
            enc = Enclosure.from_ball(mech.delta_ball(Enclosure.exact(Fraction(eps)).ball))
        truth = _delta(law, scale, mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
        assert mpmath.mpf(enc.lo_str(40)) <= truth <= mpmath.mpf(enc.hi_str(40)), (eps, truth, enc)
        assert enc.width < 1e-30


def test_composition_against_the_exact_lattice_convolution():
    law, scale = _loss_law(Fraction(2), 1)
    truth = _delta(_compose(law, 10), scale, mpmath.mpf(3))
    acc, _ = accountant_for(parse_spec("compose(discrete_gaussian(sigma=2), k=10)"))
    enc = acc.delta(3)
    assert mpmath.mpf(enc.lo_str(30)) <= truth <= mpmath.mpf(enc.hi_str(30)), (truth, enc)
    assert float(enc.hi) - float(enc.lo) < 1e-6 * float(truth)  # on its lattice: tight


def test_discrete_is_close_to_the_continuous_gaussian_here():
    # CKS20 §1: at sigma = 2, k = 10 the discrete Gaussian's delta(7.5) lies a little
    # below the continuous Gaussian's (1/sqrt(10) ... the same concentrated-DP bound)
    dg = accountant_for(parse_spec("compose(discrete_gaussian(sigma=2), k=10)"))[0].delta("7.5")
    with working_precision(128):
        g = Enclosure.from_ball(parse_spec("compose(gaussian(sigma=2), k=10)").delta_ball(
            Enclosure.exact(Fraction(15, 2)).ball))
    assert float(dg.hi) <= float(g.lo) and float(dg.lo) >= 0.9 * float(g.lo), (dg, g)


def test_bad_parameters_are_refused():
    for spec in ("discrete_gaussian(sigma=0)", "discrete_gaussian(sigma=1, sensitivity=1/2)",
                 "discrete_gaussian(sigma=10**9)", "discrete_gaussian(sigma=1e9)"):
        with pytest.raises(InputError):
            parse_spec(spec)


def test_route_names_the_certified_sum_not_a_closed_form() -> None:
    """The answer names how it was computed: the discrete Gaussian's profile is a
    sum with bounded tails, not a closed form (also under subsampling)."""
    from certdp import api

    for spec in ("discrete_gaussian(sigma=2)", "subsample(discrete_gaussian(sigma=2), rate=1/2)"):
        ans = api.delta(spec, 1)
        assert "certified sum" in ans.method and "closed-form" not in ans.method
    assert api.delta("laplace(scale=2)", "1/4").method == "closed-form privacy profile"
