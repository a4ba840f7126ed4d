"""Without --width, the router refines an accountant's eps answer to the DP-SGD default
(<= 1 % of eps and <= max(0.02, 0.1 % of eps)), for profile, account and the API alike."""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from certdp.analyses.dispatch import default_width, eps_of
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.enclosure import Enclosure


def test_default_width_rule():
    enc = Enclosure.hull(Enclosure.exact(Fraction(7)), Enclosure.exact(Fraction(8)))
    assert default_width(enc) == Fraction(2, 100)  # min(8/100, max(1/50, 8/1000))
    small = Enclosure.hull(Enclosure.exact(Fraction(1, 8)), Enclosure.exact(Fraction(1, 4)))
    assert default_width(small) == Fraction(1, 400)  # 1 % of 1/4


def test_dpsgd_answer_meets_the_default_width():
    # sigma 1, q = 1/100, T = 1000; dp_accounting's value (grid 1e-4) is 1.828244 and lies inside
    ans = eps_of(parse_spec("dpsgd(noise=1, rate=1/100, steps=1000)"), "1e-5")
    width = ans.enclosure.hi_exact - ans.enclosure.lo_exact
    assert width <= default_width(ans.enclosure), float(width)
    assert ans.enclosure.lo_exact <= Fraction("1.82824") and Fraction("1.82825") <= ans.enclosure.hi_exact


@pytest.mark.slow
@pytest.mark.soundness
def test_main_example_is_refined_by_default():
    # the example: the first grid gives [4.729, 7.692]; refined by default to width <= 0.02,
    # containing dp_accounting's 7.69003 (grid 1e-4)
    ans = eps_of(parse_spec("dpsgd(noise=0.6, rate=256/60000, steps=7031)"), "1e-5")
    assert ans.enclosure.hi_exact - ans.enclosure.lo_exact <= Fraction(2, 100)
    assert ans.enclosure.lo_exact <= Fraction("7.69003") <= ans.enclosure.hi_exact


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=Fraction(1, 10**40), max_value=Fraction(10**40)))
def test_default_width_is_rounded_down_to_three_digits(w):
    # a stricter target that prints short: d·10^e <= w with 100 <= d < 1000
    from certdp.analyses.accountants.base import _three_digits_down  # noqa: PLC0415

    r = _three_digits_down(w)
    assert 0 < r <= w and w - r < w / 100
    k = 0
    while (r * 10**k).denominator != 1:
        k += 1
    digits = str(r.numerator * 10**k // r.denominator).rstrip("0")
    assert len(digits) <= 3
