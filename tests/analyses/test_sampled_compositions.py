"""Poisson sampling of a composition (one draw shared by k steps): the product law of finite pairs.

Independent truth: the exact hockey-stick sum in mpmath (60 digits) over the product pair's
atoms — for k copies of an ε0-DP pair, j "+" atoms out of k: loss (2j − k)ε0, P-mass
C(k, j) a^j b^{k−j}, Q-mass C(k, j) b^j a^{k−j} (a = e^{ε0}/(1 + e^{ε0}), b = 1 − a) — sampled at
rate γ in both directions (remove: γP + (1−γ)Q against Q; add: P against (1−γ)P + γQ), the worse.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.pld import PLDAccountant
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec


def sampled_product_delta_ref(eps0, k, rate, eps) -> mpmath.mpf:
    with mpmath.workdps(60):
        e0, g, e = mpmath.mpf(eps0), mpmath.mpf(rate), mpmath.exp(mpmath.mpf(eps))
        a = mpmath.exp(e0) / (1 + mpmath.exp(e0))
        b = 1 - a
        P = [mpmath.binomial(k, j) * a**j * b ** (k - j) for j in range(k + 1)]
        Q = [mpmath.binomial(k, j) * b**j * a ** (k - j) for j in range(k + 1)]
        remove = mpmath.fsum(max(0, g * p + (1 - g) * q - e * q) for p, q in zip(P, Q))
        add = mpmath.fsum(max(0, p - e * ((1 - g) * p + g * q)) for p, q in zip(P, Q))
        return max(remove, add)


@pytest.mark.parametrize("spec, eps0, k, rate", [
    ("subsample(compose(pure_dp(eps=1), k=3), rate=1/10)", 1, 3, Fraction(1, 10)),
    ("subsample(compose(pure_dp(eps=1/2), k=5), rate=1/3)", Fraction(1, 2), 5, Fraction(1, 3)),
    ("subsample(compose(randomized_response(p=3/4), k=4), rate=1/5)", mpmath.log(3), 4, Fraction(1, 5)),
])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 4), Fraction(1)])
def test_one_sampled_composition_against_the_exact_sum(spec, eps0, k, rate, eps):
    acc = PLDAccountant().compose(parse_spec(spec))
    assert acc.two_sided
    enc = acc.delta(eps)
    truth = sampled_product_delta_ref(eps0 if not isinstance(eps0, Fraction) else mpmath.mpf(eps0.numerator) / eps0.denominator,
                                      k, mpmath.mpf(rate.numerator) / rate.denominator, mpmath.mpf(eps.numerator) / eps.denominator)
    lo, hi = mpmath.mpf(float(enc.lo)), mpmath.mpf(float(enc.hi))
    assert lo * (1 - 1e-12) <= truth <= hi * (1 + 1e-12), (enc, truth)
    assert hi - lo <= 0.02 * truth + 1e-12  # two-sided and tight on the default grid


def test_the_product_law_equals_the_composition_at_rate_one():
    """Rate 1: subsample(compose(M, k), 1) is compose(M, k) (the φ route, exact)."""
    a = PLDAccountant().compose(parse_spec("subsample(compose(pure_dp(eps=1/2), k=4), rate=1)")).delta(Fraction(1))
    truth = sampled_product_delta_ref(mpmath.mpf(1) / 2, 4, 1, 1)
    assert float(a.lo) * (1 - 1e-12) <= truth <= float(a.hi) * (1 + 1e-12)


@pytest.mark.parametrize("spec", [
    "subsample(compose(laplace(scale=2), k=3), rate=1/10)",
    "subsample(compose_all(laplace(scale=2), gaussian(sigma=3)), rate=1/10)",
    "subsample(compose(zcdp(rho=1/2), k=2), rate=1/10)",
])
def test_what_has_no_product_law_is_refused(spec):
    with pytest.raises(InputError, match="composition inside"):
        PLDAccountant().compose(parse_spec(spec)).delta(Fraction(1))


def test_a_certificate_of_a_sampled_composition_is_valid_and_a_tampered_one_is_not(tmp_path):
    """The writer certifies it with existing checker evidence (the pair of the profile): VALID as
    written; the stated ε lowered below the certified one (δ(ε) then exceeds the bound), INVALID."""
    import json

    from certdp.cli import main
    from certdp.verifier.checker import check

    path = tmp_path / "c.json"
    assert main(["account", "--mechanism", "subsample(compose(pure_dp(eps=1), k=3), rate=1/10)", "--times", "2",
                 "--delta", "1e-5", "--certificate", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert check(doc).valid
    eps = Fraction(doc["claim"]["eps"])
    doc["claim"]["eps"] = str(eps * Fraction(9, 10))
    assert not check(doc).valid
