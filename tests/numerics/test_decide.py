"""The one decision loop (numerics.decide): schedule, ceiling, PrecisionError,
and its users against independent truths."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.errors import PrecisionError
from certdp.numerics.ball import MAX_PREC
from certdp.numerics.decide import GROWTH, adaptive, decide
from certdp.numerics.enclosure import Enclosure


def test_schedule_doubles_from_the_start_up_to_the_cap():
    seen = []

    def never(prec):
        seen.append(prec)
        return None

    with pytest.raises(PrecisionError, match="the thing"):
        decide(never, start=100, cap=1000, what="the thing")
    assert seen == [100, 200, 400, 800, 1000] and GROWTH == 2
    seen.clear()
    with pytest.raises(PrecisionError):
        decide(never, start=64, doublings=2, what="x")
    assert seen == [64, 128, 256]
    seen.clear()
    with pytest.raises(PrecisionError):
        decide(never, start=10**9, what="x")
    assert seen == [MAX_PREC]


def test_first_decided_answer_is_returned_and_false_counts_as_decided():
    assert decide(lambda p: p if p >= 256 else None, start=64, what="x") == 256
    assert decide(lambda p: False, start=64, what="x") is False


def test_undecidable_comparison_raises_never_guesses():
    # π computed two ways never separates from itself: undecided at every precision
    def same(_p):
        a, b = arb.pi(), 4 * arb(1).atan()
        return True if a < b else (False if a > b else None)

    with pytest.raises(PrecisionError):
        decide(same, start=64, cap=2048, what="pi vs 4 atan 1")


def test_comparison_decided_by_raising_precision():
    # √2 vs 1.41421356237309504880168872420969807 (< √2 by ~1.4e-36): needs > 120 bits
    q = Fraction("1.41421356237309504880168872420969807")
    with mpmath.workdps(60):
        assert mpmath.sqrt(2) > mpmath.mpf(q.numerator) / q.denominator
    sign = decide(lambda p: 1 if arb(2).sqrt() > arb(q.numerator) / q.denominator else
                  (-1 if arb(2).sqrt() < arb(q.numerator) / q.denominator else None), start=32, what="x")
    assert sign == 1


def test_adaptive_reaches_relative_accuracy():
    y = adaptive(lambda p: arb(2).sqrt(), 200, 53, "sqrt 2")
    with mpmath.workdps(80):
        assert abs(mpmath.mpf(y.mid().str(70, radius=False)) - mpmath.sqrt(2)) < mpmath.mpf(2) ** -190


def test_enclosure_contains_non_dyadic_rational():
    enc = Enclosure.exact(Fraction(1, 3))
    assert enc.contains(Fraction(1, 3)) and not enc.contains(Fraction(1, 3) + Fraction(1, 10**60))


def test_bisect_brackets_sqrt2_and_laplace_inverse():
    from certdp.numerics.decide import bisect  # noqa: PLC0415

    def sign(x):  # +1 when x < √2 certainly
        return 1 if x * x < 2 else -1

    lo, hi = bisect(sign, lo=Fraction(0), hi=Fraction(1), done=lambda a, b: b - a < Fraction(1, 2**80),
                    limit=Fraction(2**10), what="sqrt 2")
    with mpmath.workdps(60):
        r = mpmath.sqrt(2)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= r <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo < Fraction(1, 2**80)
    with pytest.raises(PrecisionError):
        bisect(lambda x: 1, lo=Fraction(0), hi=Fraction(1), done=lambda a, b: True, limit=Fraction(64), what="x")
    # an undecided midpoint stops with the sound, wider bracket
    lo, hi = bisect(lambda x: 0 if Fraction(1, 4) < x < Fraction(3, 4) else (1 if x <= Fraction(1, 4) else -1),
                    lo=Fraction(0), hi=Fraction(1), done=lambda a, b: False, limit=Fraction(8), what="x")
    assert (lo, hi) == (Fraction(0), Fraction(1))


def test_eps_of_laplace_matches_closed_form_by_bisection():
    """profile("...") has no closed-form inverse: ε(δ) comes from the bisection;
    for the Laplace profile ε = θ + 2 log(1 − δ)."""
    from certdp.mechanisms import eps_enclosure, parse_spec  # noqa: PLC0415

    enc = eps_enclosure(parse_spec('profile("Max(1 - exp(eps/2 - 1), 0)")'), "1/10", bits=60)
    with mpmath.workdps(50):
        truth = 2 + 2 * mpmath.log(mpmath.mpf(9) / 10)
    assert enc.contains(mpmath.nstr(truth, 40)) and enc.width < 2.0**-55
