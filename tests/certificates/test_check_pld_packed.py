"""The checker's packed composition (check_pld._Packed) against a plain reference: the
polynomial product of the mass lists, each coefficient divided by 2^bits rounding up (or
down), the mass at +∞ a_∞(Σb + b_∞) + Σa·b_∞ rounded the same way, and the tails of
mass <= τ moved (up: bottom onto the first kept point, top to +∞) or dropped (down)."""

from __future__ import annotations

import random

import pytest

from certdp.verifier.check_pld import _compose_lower, _product, compose


def _reference(a, b, bits, tau, up):
    (oa, ca, ia), (ob, cb, ib) = a, b
    prod = [0] * (len(ca) + len(cb) - 1)
    for i, x in enumerate(ca):
        for j, y in enumerate(cb):
            prod[i + j] += x * y
    div = (lambda c: -((-c) >> bits)) if up else (lambda c: c >> bits)
    cs = [div(c) for c in prod]
    inf = div(ia * (sum(cb) + ib) + sum(ca) * ib)
    while len(cs) > 1 and cs[-1] == 0 and not up:
        cs.pop()
    lo, pre = 0, 0
    if tau > 0:
        while lo < len(cs) - 1 and pre + cs[lo] <= tau:
            pre, lo = pre + cs[lo], lo + 1
        hi, cut = len(cs) - 1, 0
        while hi > lo and cut + cs[hi] <= tau:
            cut, hi = cut + cs[hi], hi - 1
        cs = cs[lo:hi + 1]
        if up:
            cs[0] += pre
            inf += cut
    while cs and cs[-1] == 0:
        cs.pop()
    return oa + ob + lo, cs, inf


def _strip(pld):
    cs = list(pld[1])
    while cs and cs[-1] == 0:
        cs.pop()
    return pld[0], cs, pld[2]


@pytest.mark.parametrize("seed", range(6))
def test_packed_products_equal_the_reference(seed):
    rng = random.Random(seed)
    for _ in range(40):
        bits = rng.randint(8, 80)
        top = 1 << (bits + rng.choice((-6, 0, 3, 40)))  # totals below, at and far above 2^bits
        a = (rng.randint(-9, 9), [rng.randint(0, top) for _ in range(rng.randint(1, 30))], rng.randint(0, 5))
        b = (rng.randint(-9, 9), [rng.randint(0, top) for _ in range(rng.randint(1, 30))], rng.randint(0, 5))
        a[1][-1] += 1
        b[1][-1] += 1
        tau = rng.choice((0, 1, top >> 4, top))
        assert _product(a, b, bits, tau) == _reference(a, b, bits, tau, True)
        ref = a
        for _ in range(2):
            ref = _reference(ref, ref, bits, tau, True)
        assert compose(a, 4, bits, tau) == ref
        low = _reference(_reference(a, a, bits, tau, False), a, bits, tau, False)
        assert _strip(_compose_lower(a, 3, bits, tau)) == _strip(low)
