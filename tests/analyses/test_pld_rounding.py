"""The re-rounding of a PLD product goes the stated way, coefficient by coefficient
(the upper PLD's masses UP, the lower's DOWN), checked against the exact rational
product c / 2^bits.  A wrong direction moves F_ε by only ~2^-bits per product, far
below what a comparison with an independent δ could see, so it is tested here
directly (regression: a "ceiling" built from fmpz_poly // fmpz, which is not the
coefficient-wise floor for negative coefficients, rounded the upper PLD down)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st
from flint import fmpz_poly

from certdp.analyses.accountants.pld import DiscretePLD

coeffs = st.lists(st.one_of(st.just(0), st.integers(0, 2**70)), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(coeffs, coeffs, st.integers(0, 2**40), st.integers(0, 2**40), st.integers(1, 64),
       st.integers(-5, 5), st.integers(-5, 5))
def test_combine_rounds_each_mass_the_stated_way(a, b, ia, ib, bits, oa, ob):
    h = Fraction(1, 64)
    exact = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            exact[i + j] += x * y
    fa, fb = sum(a), sum(b)
    for kind in ("upper", "lower"):
        inf_a, inf_b = (ia, ib) if kind == "upper" else (0, 0)
        A = DiscretePLD(fmpz_poly(a), oa, h, bits, inf_a, kind)
        B = DiscretePLD(fmpz_poly(b), ob, h, bits, inf_b, kind)
        C = A.combine(B, 0)  # no truncation: every coefficient is compared
        got = [int(c) for c in C.poly.coeffs()]
        got += [0] * (len(exact) - len(got))
        assert C.offset == oa + ob
        inf_exact = Fraction(inf_a * (fb + inf_b) + fa * inf_b, 2**bits)
        for g, e in zip(got, exact):
            if kind == "upper":
                assert Fraction(e, 2**bits) <= g <= Fraction(e, 2**bits) + 2
            else:
                assert Fraction(e, 2**bits) - 1 < g <= Fraction(e, 2**bits)
        if kind == "upper":
            assert inf_exact <= C.inf < inf_exact + 1
        else:
            assert C.inf == 0


def test_power_equals_repeated_products_bounds():
    """count-fold power of an exact lattice law: the upper ≥ the exact count-fold
    convolution (scaled), the lower ≤ it, at every coefficient (count 1..9)."""
    one = [3 << 20, 5 << 20, 0, 7 << 20]  # masses in units 2^-24 (bits 24): a measure of mass 15/16
    bits = 24
    for count in range(1, 10):
        exact = [Fraction(1)]
        for _ in range(count):
            nxt = [Fraction(0)] * (len(exact) + len(one) - 1)
            for i, x in enumerate(exact):
                for j, y in enumerate(one):
                    nxt[i + j] += x * Fraction(y, 2**bits)
            exact = nxt
        for kind in ("upper", "lower"):
            P = DiscretePLD(fmpz_poly(one), 0, Fraction(1, 8), bits, 0, kind).power(count, 0)
            got = [Fraction(int(c), 2**bits) for c in P.poly.coeffs()]
            got += [Fraction(0)] * (len(exact) - len(got))
            assert P.offset == 0
            for g, e in zip(got, exact):
                assert (g >= e) if kind == "upper" else (g <= e)


@settings(max_examples=100, deadline=None)
@given(coeffs, coeffs, st.integers(0, 2**40), st.integers(0, 2**40), st.integers(1, 64))
def test_checker_product_rounds_up(a, b, ia, ib, bits):
    """The checker's own product (certdp.verifier.check_pld) rounds up too:
    ⌈c / 2^bits⌉ exactly, and the mass at +∞ up."""
    from certdp.verifier.check_pld import _product

    exact = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            exact[i + j] += x * y
    off, cs, inf = _product((0, a, ia), (0, b, ib), bits, 0)
    assert off == 0 and len(cs) <= len(exact)
    cs = list(cs) + [0] * (len(exact) - len(cs))  # FLINT drops trailing zero coefficients
    for g, e in zip(cs, exact):
        assert g == -((-e) // 2**bits)
    inf_exact = Fraction(ia * (sum(b) + ib) + sum(a) * ib, 2**bits)
    assert inf_exact <= inf < inf_exact + 1


def _reference_combine(A, B, tau_units):
    """The composition as it was built on FLINT polynomials (fmpz_poly product, floor
    division by 2^bits, +1 per coefficient for the upper kind, then the tails moved),
    written out independently of :mod:`certdp.numerics.kronecker`."""
    from flint import fmpz

    bits = A.bits
    prod = A.poly * B.poly
    fa, fb = (int(p.poly(1)) if p.poly.length() else 0 for p in (A, B))
    inf_exact = A.inf * (fb + B.inf) + fa * B.inf
    n = prod.length()
    prod = prod // fmpz(1 << bits)
    if A.kind == "upper":
        prod = prod + fmpz_poly([1] * n)
        inf = -((-inf_exact) >> bits)
    else:
        inf = inf_exact >> bits
    cs = [int(c) for c in prod.coeffs()]
    if len(cs) <= 1 or tau_units <= 0:
        return cs, A.offset + B.offset, inf
    pre = [0]
    for c in cs:
        pre.append(pre[-1] + c)
    total = pre[-1]
    lo = max(k for k in range(len(cs)) if pre[k] <= tau_units)
    hi = min(k for k in range(lo, len(cs)) if total - pre[k + 1] <= tau_units)
    kept = cs[lo:hi + 1]
    if A.kind == "upper":
        kept[0] += pre[lo]
        inf += total - pre[hi + 1]
    else:
        kept[-1] += total - pre[hi + 1]
    while kept and kept[-1] == 0:
        kept.pop()
    return kept, A.offset + B.offset + lo, inf


big = st.lists(st.one_of(st.just(0), st.integers(0, 2**130), st.integers(2**63, 2**64 + 5)), min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(big, big, st.integers(0, 2**70), st.integers(0, 2**70), st.integers(1, 140),
       st.integers(0, 2**80), st.booleans())
def test_combine_equals_the_polynomial_product_exactly(a, b, ia, ib, bits, tau, square):
    # the Kronecker-substitution product and the limb arithmetic (carries across 64-bit
    # limbs, shifts by any number of bits, tails moved at any tau) give the very
    # coefficients of the FLINT polynomial product, re-rounded and truncated
    h = Fraction(1, 64)
    for kind in ("upper", "lower"):
        inf_a, inf_b = (ia, ib) if kind == "upper" else (0, 0)
        A = DiscretePLD(fmpz_poly(a), 3, h, bits, inf_a, kind)
        B = A if square else DiscretePLD(fmpz_poly(b), -2, h, bits, inf_b, kind)
        C = A.combine(B, tau)
        want, off, inf = _reference_combine(A, B, tau)
        assert [int(c) for c in C.poly.coeffs()] == want
        assert C.inf == inf
        if want:
            assert C.offset == off
