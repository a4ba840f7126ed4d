"""The one certified bisection with a float guide (issue 16): a guide can only
change which points are tested — the bracket stays certified even when the
guide lies — and a good guide needs far fewer tests."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.numerics.decide import bisect

ROOT = Fraction(31415926535, 10**10)


def _sign(calls: list):
    def sign_at(x: Fraction) -> int:
        calls.append(x)
        return 1 if x < ROOT else -1
    return sign_at


def _done(lo: Fraction, hi: Fraction) -> bool:
    return hi - lo <= Fraction(1, 10**9)


@settings(max_examples=100, deadline=None)
@given(lies=st.lists(st.fractions(min_value=-10, max_value=10), min_size=0, max_size=4))
def test_a_lying_guide_cannot_break_the_bracket(lies):
    lo, hi = bisect(_sign([]), lo=Fraction(0), hi=Fraction(1), done=_done, limit=Fraction(2**20), what="t",
                    guide=lambda lo, hi: list(lies))
    assert lo <= ROOT <= hi and hi - lo <= Fraction(1, 10**9)


def test_a_good_guide_closes_the_bracket_in_few_tests():
    plain, guided = [], []
    bisect(_sign(plain), lo=Fraction(0), hi=Fraction(1), done=_done, limit=Fraction(2**20), what="t")
    r = Fraction(1, 4 * 10**9)
    bisect(_sign(guided), lo=Fraction(0), hi=Fraction(1), done=_done, limit=Fraction(2**20), what="t",
           guide=lambda lo, hi: [ROOT - r, ROOT + r])
    assert len(plain) >= 30 and len(guided) <= 5
