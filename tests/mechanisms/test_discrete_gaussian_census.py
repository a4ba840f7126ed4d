"""A Census-style heterogeneous composition of discrete Gaussians (different σ and
sensitivities, as in a TopDown-style budget split): the PLD engine's two-sided enclosure
against the exact lattice convolution summed in mpmath (Canonne, Kamath & Steinke 2020
Def 1), and below the zCDP bound (N_Z(0, σ²) with sensitivity Δ is Δ²/(2σ²)-zCDP, CKS20 Thm 4;
zCDP adds up) that a Census user would otherwise report."""

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import composition_accountant, narrowed_epsilon
from certdp.mechanisms.spec import parse_spec

from refs import mp_digits  # noqa: E402

_mpmath_precision = pytest.fixture(autouse=True, scope="module")(mp_digits(50))

#: (σ, Δ, count) of each query family
PARTS = [(Fraction(2), 1, 1), (Fraction(2), 2, 2), (Fraction(4), 1, 1)]


def _law(sigma: Fraction, d: int) -> dict[Fraction, mpmath.mpf]:
    """{loss: P-mass} of one discrete Gaussian step: loss (Δ² − 2Δx)/(2σ²), x ~ N_Z(0, σ²)
    (|x| <= 15σ: the mass left out is below e^{−112})."""
    span = int(15 * sigma) + 1
    s2 = mpmath.mpf(sigma.numerator) ** 2 / sigma.denominator ** 2
    w = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in range(-span, span + 1)}
    z = mpmath.fsum(w.values())
    return {Fraction(d * d - 2 * d * x) / (2 * sigma * sigma): w[x] / z for x in w}


def _convolve(a: dict, b: dict) -> dict:
    out: dict = {}
    for la, ma in a.items():
        for lb, mb in b.items():
            m = ma * mb
            if m > mpmath.mpf(10) ** -48:
                out[la + lb] = out.get(la + lb, 0) + m
    return out


def _truth(eps: Fraction) -> mpmath.mpf:
    law = {Fraction(0): mpmath.mpf(1)}
    for sigma, d, k in PARTS:
        for _ in range(k):
            law = _convolve(law, _law(sigma, d))
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.fsum(m * (1 - mpmath.exp(e - mpmath.mpf(l.numerator) / l.denominator))
                       for l, m in law.items() if l > eps)


def _items():
    return [(parse_spec(f"discrete_gaussian(sigma={s}, sensitivity={d})"), k) for s, d, k in PARTS]


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(3)])
def test_heterogeneous_discrete_gaussians_against_the_exact_convolution(eps):
    acc, method = composition_accountant(_items())
    assert "PLD" in method
    enc = acc.delta(eps)
    truth = _truth(eps)
    assert mpmath.mpf(enc.lo_str(30)) <= truth <= mpmath.mpf(enc.hi_str(30)), (eps, enc, truth)
    # on the lattice 1/32 of all three losses the engine is exact up to its rounding: measured
    # δ(1) ∈ [0.328652964566358923, 0.328652964566358933], δ(3) ∈ [0.049688708606008083, 0.049688708606008093]
    assert float(enc.hi) - float(enc.lo) <= 1e-12 * float(truth), enc


def test_epsilon_is_below_the_zcdp_report():
    rho = sum(Fraction(d * d * k) / (2 * s * s) for s, d, k in PARTS)
    items = _items()
    enc, _ = narrowed_epsilon(items, Fraction(1, 10**6))
    zc, _ = narrowed_epsilon([(parse_spec(f"zcdp(rho={rho})"), 1)], Fraction(1, 10**6))
    assert enc.lo > 0 and enc.hi < zc.hi, (enc, zc)
