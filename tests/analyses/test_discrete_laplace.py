"""discrete_laplace(scale=t, sensitivity=Δ): profile, accountant routes, against mpmath sums."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.dispatch import composition_accountant, delta_of
from certdp.errors import InputError
from certdp.mechanisms import parse_spec
from refs import mpf


def pmf_pair(t, d, lo=-400, hi=400):
    """P = DL(0), Q = DL(Δ) written out term by term (truncated far in the tails)."""
    r = mpmath.exp(-1 / mpf(t))
    c = (1 - r) / (1 + r)
    return [(c * r ** abs(x), c * r ** abs(x - d)) for x in range(lo, hi + 1)]


def kfold_truth(t, d, k, eps):
    atoms: dict = {}
    for p, q in pmf_pair(t, d):
        key = mpmath.nstr(mpmath.log(p / q), 30)
        atoms[key] = (atoms.get(key, (0, 0))[0] + p, mpmath.log(p / q))
    dist = {mpmath.mpf(0): mpmath.mpf(1)}
    for _ in range(k):
        nxt: dict = {}
        for l0, p0 in dist.items():
            for p1, l1 in atoms.values():
                key = mpmath.nstr(l0 + l1, 25)
                v = nxt.get(key, (mpmath.mpf(0), l0 + l1))
                nxt[key] = (v[0] + p0 * p1, l0 + l1)
        dist = {v[1]: v[0] for v in nxt.values()}
    e = mpf(eps)
    return mpmath.fsum(p * (1 - mpmath.exp(e - ell)) for ell, p in dist.items() if ell > e)


@pytest.mark.parametrize("t,d", [(Fraction(1, 2), 1), (Fraction(3, 2), 3), (Fraction(1), 4)])
def test_profile_is_the_pmf_sum(t, d):
    m = parse_spec(f"discrete_laplace(scale={t}, sensitivity={d})")
    with mpmath.workdps(50):
        for eps in (Fraction(0), Fraction(1, 3), Fraction(1)):
            truth = mpmath.fsum(max(0, p - mpmath.exp(mpf(eps)) * q) for p, q in pmf_pair(t, d))
            enc = delta_of(m, eps).enclosure
            assert mpf(Fraction(enc.lo_str(40))) <= truth <= mpf(Fraction(enc.hi_str(40)))


def test_compositions_are_exact_on_the_lattice():
    with mpmath.workdps(40):
        for t, d, k in ((Fraction(1), 2, 6), (Fraction(2), 3, 5)):
            mech = parse_spec(f"discrete_laplace(scale={t}, sensitivity={d})")
            acc, method = composition_accountant([(mech, k)])
            assert "PLD" in method and acc.exact_grid
            for eps in (Fraction(1, 2), Fraction(2)):
                truth = kfold_truth(t, d, k, eps)
                enc = acc.delta(eps)
                lo, hi = mpf(Fraction(enc.lo_str(40))), mpf(Fraction(enc.hi_str(40)))
                assert lo <= truth <= hi and hi - lo <= mpf("1e-12") * truth


def test_bad_sensitivity_is_refused():
    for bad in ("0", "1/2", "1001"):
        with pytest.raises(InputError):
            parse_spec(f"discrete_laplace(scale=1, sensitivity={bad})")
