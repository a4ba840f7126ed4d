"""Exact vector products by Kronecker substitution (certdp.numerics.kronecker), checked
against Python's own integer arithmetic: products, floors by any power of 2, carries
across 64-bit limbs, prefix sums, and the conversions to and from FLINT polynomials."""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpz_poly
from hypothesis import given, settings, strategies as st

from certdp.numerics import kronecker as K

ints = st.lists(st.one_of(st.just(0), st.integers(0, 2**64 - 1), st.integers(0, 2**200),
                          st.sampled_from([2**64 - 1, 2**64, 2**128 - 1])), min_size=0, max_size=25)


def values(limbs):
    return [sum(int(x) << (64 * j) for j, x in enumerate(row)) for row in limbs]


@settings(max_examples=300, deadline=None)
@given(ints, ints, st.integers(0, 300), st.booleans())
def test_mul_shift_is_the_exact_floor_of_the_product(a, b, shift, square):
    b = a if square else b
    A = K.from_ints(a)
    B = A if square else K.from_ints(b)
    got = values(K.mul_shift(A, B, shift))
    if not a or not b:
        assert got == []
        return
    want = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            want[i + j] += x * y
    assert got == [w >> shift for w in want]


def test_a_too_small_slot_is_refused_not_wrapped():
    A = K.from_ints([2**70, 2**70])
    with pytest.raises(ValueError):
        K._pack(A, 4)  # 2^70 does not fit 4 bytes


@given(ints)
def test_total_is_exact(a):
    assert K.total(K.from_ints(a)) == sum(a)


@given(ints)
def test_add_one_carries_through_the_limbs(a):
    assert values(K.add_one(K.from_ints(a))) == [x + 1 for x in a]


@given(ints, st.integers(0, 30))
def test_prefix_sums_are_exact(a, k):
    P = K.PrefixSums(K.from_ints(a))
    assert P(k) == sum(a[:k]) and P.total() == sum(a)


@given(ints)
def test_polynomial_round_trip(a):
    p = fmpz_poly(a)
    assert K.to_poly(K.from_poly(p)) == p
    assert values(K.trim_limbs(K.from_ints(a))) == a


def test_limbs_are_little_endian_bytes():
    # the packing reads the limbs as bytes: the dtype must fix the byte order
    arr = K.from_ints([1 + (2 << 64)])
    assert arr.dtype == np.dtype("<u8") and arr.view(np.uint8)[0, 0] == 1 and arr.view(np.uint8)[0, 8] == 2
