"""gaussian_mixture (dp_accounting's MixtureOfGaussiansDpEvent): N(0, σ²) against
Σ p_i N(c_i, σ²), both orders, an exact two-sided PLD.  Independent truth: the hockey
stick at the root x* of the likelihood ratio in mpmath (50 digits) for one step; the
Poisson-subsampled Gaussian (c = (0, 1), p = (1 − q, q)) is the same pair; dp_accounting's
PLD estimate inside the enclosure."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import composition_accountant, eps_of
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec


def _truth(sigma, cs, ps, eps) -> mpmath.mpf:
    """max over both orders of E[(1 − e^{ε−L})⁺], at 50 digits."""
    with mpmath.workdps(50):
        s = mpmath.mpf(sigma.numerator) / sigma.denominator
        c = [mpmath.mpf(x.numerator) / x.denominator for x in cs]
        p = [mpmath.mpf(x.numerator) / x.denominator for x in ps]
        e = mpmath.mpf(eps.numerator) / eps.denominator
        ell = lambda x: mpmath.log(mpmath.fsum(pi * mpmath.exp((ci * x - ci * ci / 2) / s**2) for ci, pi in zip(c, p)))  # noqa: E731

        def root(w):
            lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
            for _ in range(300):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if ell(mid) < w else (lo, mid)
            return (lo + hi) / 2
        bottom = mpmath.log(sum(pi for ci, pi in zip(c, p) if ci == 0)) if any(ci == 0 for ci in c) else -mpmath.inf
        x = root(e) if e > bottom else mpmath.mpf(-60)
        remove = mpmath.fsum(pi * mpmath.ncdf(-(x - ci) / s) for ci, pi in zip(c, p)) - mpmath.exp(e) * mpmath.ncdf(-x / s)
        add = mpmath.mpf(0)
        if -e > bottom:
            x = root(-e)
            add = mpmath.ncdf(x / s) - mpmath.exp(e) * mpmath.fsum(pi * mpmath.ncdf((x - ci) / s) for ci, pi in zip(c, p))
        return max(remove, add)


CASES = [(Fraction(2), (Fraction(0), Fraction(1, 2), Fraction(1)), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))),
         pytest.param(Fraction(1), (Fraction(1, 2), Fraction(2)), (Fraction(3, 4), Fraction(1, 4)),
                      marks=pytest.mark.slow)]  # a wide loss range: 35 s on a loaded 2-core machine


@pytest.mark.parametrize("sigma, cs, ps", CASES)
def test_one_step_against_mpmath(sigma, cs, ps):
    spec = (f'gaussian_mixture(sigma={sigma}, sensitivities="{", ".join(map(str, cs))}", '
            f'probs="{", ".join(map(str, ps))}")')
    acc, method = composition_accountant([(parse_spec(spec), 1)])
    assert "mixture of Gaussians" in method
    for eps in (Fraction(0), Fraction(1, 4), Fraction(1)):
        enc = acc.delta(eps)
        truth = _truth(sigma, cs, ps, eps)
        assert enc.lower_float() <= truth <= enc.upper_float(), (eps, enc, truth)
        assert float(enc.hi) - float(enc.lo) <= 0.02 * float(truth) + 1e-12, (eps, enc, truth)


def test_poisson_case_is_the_subsampled_gaussian():
    mog = parse_spec('gaussian_mixture(sigma=2, sensitivities="0, 1", probs="9/10, 1/10")')
    sgm = parse_spec("subsample(gaussian(sigma=2), rate=1/10)")
    a = eps_of(parse_spec(f"compose({mog.spec()}, k=20)"), Fraction(1, 10**5)).enclosure
    b = eps_of(parse_spec(f"compose({sgm.spec()}, k=20)"), Fraction(1, 10**5)).enclosure
    assert a.lo_exact <= b.hi_exact and b.lo_exact <= a.hi_exact, (a, b)  # the same true ε in both


@pytest.mark.parametrize("bad", ['gaussian_mixture(sigma=1, sensitivities="0, 1", probs="1/2")',
                                 'gaussian_mixture(sigma=1, sensitivities="0, -1", probs="1/2, 1/2")',
                                 'gaussian_mixture(sigma=1, sensitivities="0, 1", probs="1/2, 1/3")',
                                 'gaussian_mixture(sigma=1, sensitivities="0", probs="1")',
                                 'gaussian_mixture(sigma=0, sensitivities="1", probs="1")',
                                 'gaussian_mixture(sigma=1, sensitivities="a, 1", probs="1/2, 1/2")'])
def test_bad_parameters_are_one_line_errors(bad):
    with pytest.raises(InputError):
        parse_spec(bad)


def test_against_dp_accountings_pld():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.dp_event import MixtureOfGaussiansDpEvent

    from certdp.interop.dp_accounting import CertifiedAccountant

    ev = MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0], [0.5, 0.5])
    acc = CertifiedAccountant().compose(ev, 5)
    enc = acc._route(acc.items).epsilon(Fraction(1, 10**5))  # the engine's grid, unrefined (fast)
    # dp_accounting's MoG PLD takes 24 s at its default grid 1e-4 (2.80776558), 3 s at 1e-3 (2.80776810)
    theirs = dpa.pld.PLDAccountant(value_discretization_interval=1e-3).compose(ev, 5).get_epsilon(1e-5)
    assert enc.lower_float() <= theirs <= enc.upper_float() * (1 + 1e-3), (enc, theirs)  # certdp [2.8074, 2.8078]
    with pytest.raises(InputError, match="REPLACE_ONE"):
        CertifiedAccountant(dpa.NeighboringRelation.REPLACE_ONE).compose(ev)
    assert CertifiedAccountant().compose(MixtureOfGaussiansDpEvent(1.0, [0.0], [1.0])).items == []
