"""Enclosure type: exact endpoints, outward decimal strings, exact parsing."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

from certdp import InputError
from certdp.numerics.ball import working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact, parse_decimal


@pytest.mark.parametrize(
    "text,value",
    [("0.1", Fraction(1, 10)), ("1e-5", Fraction(1, 100000)), ("-2.5E3", Fraction(-2500)),
     ("1/3", Fraction(1, 3)), (".5", Fraction(1, 2)), ("7", Fraction(7)), ("  3.  ", Fraction(3))],
)
def test_parse_decimal_exact(text, value):
    assert parse_decimal(text) == value


@pytest.mark.parametrize("text", ["", "1e", "0x10", "1/0", "nan", "inf", "1e999999", "__import__('os')", "1+1", "--1"])
def test_parse_decimal_rejects(text):
    with pytest.raises(InputError):
        parse_decimal(text)


def test_float_is_exact_binary():
    assert exact(0.1) == Fraction(0.1) != Fraction(1, 10)


@given(st.fractions(), st.integers(5, 30))
def test_decimal_strings_round_outward(q, digits):
    with working_precision(64):
        enc = Enclosure.from_ball(arb(q.numerator) / q.denominator)
    lo, hi = Fraction(enc.lo_str(digits)), Fraction(enc.hi_str(digits))
    assert lo <= q <= hi
    assert enc.contains(q)


@given(st.fractions(min_value=-10**6, max_value=10**6))
def test_json_round_trip_contains(q):
    enc = Enclosure.exact(q)
    back = Enclosure.from_json(enc.to_json())
    assert back.contains(q) and back.contains_enclosure(enc)


def test_contains_is_decided_exactly():
    enc = Enclosure.exact("0.5")
    assert enc.contains("1/2") and not enc.contains("0.5000000000000000000000000001")
    with working_precision(100):
        third = Enclosure.from_ball(arb(1) / 3)
    assert third.contains(Fraction(1, 3))
    assert not third.contains("0.3333333333333333")


def test_str_and_json_shape():
    with working_precision(53):
        enc = Enclosure.from_ball(arb(1) / 3)
    s = str(enc)
    assert s.startswith("[0.333") and ", " in s
    j = enc.to_json()
    assert set(j) == {"lo", "hi"} and Fraction(j["lo"]) < Fraction(1, 3) < Fraction(j["hi"])


def test_tiny_numbers_keep_exponent():
    with working_precision(64):
        enc = Enclosure.from_ball(arb(-10**7).exp())
    j = enc.to_json(8)
    assert j["lo"].endswith("e-4342945") and j["hi"].endswith("e-4342945")


@pytest.mark.parametrize("bad", [{"lo": "1"}, {"lo": "2", "hi": "1"}, {"lo": 1, "hi": 2}, [], {"lo": "x", "hi": "1"}])
def test_from_json_rejects(bad):
    with pytest.raises(InputError):
        Enclosure.from_json(bad)


def test_contains_mpmath_values_with_sign():
    import mpmath

    enc = Enclosure.exact("-0.75")
    assert enc.contains(mpmath.mpf(-3) / 4)
    assert not enc.contains(mpmath.mpf(3) / 4)
    with pytest.raises(InputError):
        enc.contains(mpmath.inf)


def test_pickle_round_trip_is_exact():
    import pickle

    from certdp.numerics import delta_mu

    for enc in (delta_mu(1, 1), Enclosure.exact(0), Enclosure.exact("-2.5"), delta_mu("0.001", 10000)):
        back = pickle.loads(pickle.dumps(enc))
        assert back == enc and back.lo == enc.lo and back.hi == enc.hi


def test_decimal_string_is_exact_next_to_a_decimal():
    # the endpoints of an exact 1e-5 lie 1e-81 from it, far below any working precision:
    # rounding them must still see which side of 1e-5 they are on (exact integers)
    from fractions import Fraction  # noqa: PLC0415

    from certdp.numerics.enclosure import Enclosure, decimal_string  # noqa: PLC0415

    e = Enclosure.exact(Fraction(1, 10**5))
    assert e.lo_exact < Fraction(1, 10**5) < e.hi_exact
    for digits in (6, 12, 15):
        assert decimal_string(e.hi, digits, "down") == "0.00001"
        assert decimal_string(e.lo, digits, "up") == "0.00001"
        assert Fraction(decimal_string(e.hi, digits, "up")) > Fraction(1, 10**5)
        assert Fraction(decimal_string(e.lo, digits, "down")) < Fraction(1, 10**5)
