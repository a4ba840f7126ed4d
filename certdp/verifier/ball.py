"""Ball-arithmetic plumbing on top of python-flint's ``arb``.

* :func:`working_precision` sets flint's (global) working precision for a block.
* :func:`to_ball` turns an exact parameter into a ball that contains it.
* :func:`lower_bound` / :func:`upper_bound` give exact dyadic endpoints of a
  ball.  python-flint's ``arb.lower()``/``upper()`` round outward at the
  *current* context precision, so they are always sound but loosen when the
  context is coarse; we therefore take them at a precision large enough to
  represent ``mid ± rad`` exactly.
* :func:`adaptive` re-runs a ball computation at growing precision until the
  result is accurate enough, and raises :class:`PrecisionError` otherwise.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from flint import arb, ctx, fmpq, fmpz

from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.exact import exact

#: Hard ceiling on working precision (bits).  Reaching it raises PrecisionError.
MAX_PREC = 1 << 15


class working_precision:  # noqa: N801 - used like a function: ``with working_precision(p):``
    """Run a block at ``bits`` bits of working precision, then restore.

    (A class rather than ``contextlib.contextmanager``: it sits on every hot
    path and the generator machinery costs several microseconds.)
    """

    __slots__ = ("bits", "old")

    def __init__(self, bits: int) -> None:
        self.bits = max(int(bits), 2)

    def __enter__(self) -> None:
        self.old = ctx.prec
        ctx.prec = self.bits

    def __exit__(self, *exc: object) -> None:
        ctx.prec = self.old


def to_ball(x: object, name: str = "value") -> arb:
    """A ball containing the exact value of ``x`` at the current precision.

    ``x`` may already be an ``arb`` (returned as is) or anything
    :func:`certdp.numerics.exact.exact` accepts.
    """
    if isinstance(x, arb):
        return x
    q = x if type(x) is Fraction else exact(x, name)
    return _fraction_ball(q.numerator, q.denominator, ctx.prec)


@functools.lru_cache(maxsize=8192)
def _fraction_ball(num: int, den: int, prec: int) -> arb:
    """Ball of num/den at ``prec`` bits (arb values are immutable: safe to cache)."""
    if den & (den - 1) == 0:  # dyadic (integers included): exact ball
        return arb((fmpz(num), fmpz(1 - den.bit_length())))
    with working_precision(prec):
        return arb(fmpq(num, den))  # rounded outward


def exact_ball(man: int, exp: int) -> arb:
    """The exact dyadic number ``man * 2**exp`` as a zero-radius ball."""
    return arb((fmpz(man), fmpz(exp)))


def exact_bits(x: arb) -> int:
    """Working precision for taking the endpoints ``mid ± rad`` of ``x``.

    For a ball with nonzero radius, rel_accuracy_bits + 40 bits: outward
    rounding then loosens an endpoint by at most 2^-39 of the radius (sound,
    and negligibly looser).  For an exact ball, the bits of its mantissa.
    """
    r = x.rel_accuracy_bits()
    if 0 <= r < MAX_PREC - 64 and not x.rad().is_zero():
        return max(r + 40, 64)
    return _exact_bits_full(x)


def _exact_bits_full(x: arb) -> int:
    """Bits needed to hold ``mid ± rad`` exactly (capped at MAX_PREC)."""
    m_man, m_exp = x.mid().man_exp()
    r_man, r_exp = x.rad().man_exp()
    if r_man == 0:
        return max(int(m_man).bit_length(), 2) + 2
    if m_man == 0:
        return max(int(r_man).bit_length(), 2) + 2
    top = max(int(m_exp) + int(m_man).bit_length(), int(r_exp) + int(r_man).bit_length())
    bottom = min(int(m_exp), int(r_exp))
    return min(top - bottom + 4, MAX_PREC)


def lower_bound(x: arb) -> arb:
    """An exact (zero-radius) lower bound of the ball ``x``, as tight as possible."""
    _check_finite(x)
    with working_precision(exact_bits(x)):
        return x.lower()


def upper_bound(x: arb) -> arb:
    """An exact (zero-radius) upper bound of the ball ``x``, as tight as possible."""
    _check_finite(x)
    with working_precision(exact_bits(x)):
        return x.upper()


def _check_finite(x: arb) -> None:
    if not x.is_finite():
        raise PrecisionError(f"ball {x} is not finite")


#: Largest |binary exponent| turned into an exact Fraction (2^(2^20) already
#: has 315,653 digits; beyond that the conversion would exhaust memory).
MAX_FRACTION_EXPONENT = 1 << 20


def dyadic_to_fraction(x: arb) -> Fraction:
    """The exact rational value of a zero-radius ball (moderate exponents only)."""
    if not x.is_exact():
        raise ValueError("ball has nonzero radius")
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    if abs(exp) > MAX_FRACTION_EXPONENT:
        raise PrecisionError(f"a ball of magnitude 2^{exp} is beyond exact rational conversion "
                             f"(|exponent| > {MAX_FRACTION_EXPONENT})")
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))



def rel_accuracy_bits(x: arb) -> int:
    """Relative accuracy of ``x`` in bits (large for exact balls)."""
    if x.is_exact():
        return MAX_PREC
    return int(x.rel_accuracy_bits())


def digits_to_bits(digits: int | None, prec: int | None, default_digits: int = 15) -> int:
    """Relative accuracy target in bits from a ``digits=`` or ``prec=`` option.

    ``digits=d`` asks for relative width at most ``10**-d``; ``prec=p`` for
    ``p`` bits.  Giving both is an error.
    """
    if digits is not None and prec is not None:
        raise InputError("give digits= or prec=, not both")
    if prec is not None:
        if not isinstance(prec, int) or isinstance(prec, bool) or not 2 <= prec <= MAX_PREC // 2:
            raise InputError(f"prec must be an integer in [2, {MAX_PREC // 2}], got {prec!r}")
        return prec
    d = default_digits if digits is None else digits
    if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 4000:
        raise InputError(f"digits must be an integer in [1, 4000], got {d!r}")
    # relative width 2*rad/|mid| <= 10**-d  <=  rel accuracy bits >= d*log2(10) + 1
    return math.ceil(d * math.log2(10)) + 2


def fixed_point_units(m: arb, scale: arb, up: bool) -> int:
    """A probability mass ``m`` (at most 1) in units of 1/scale, rounded up (``up``) or
    down, and at least 0.  Rounding down may always drop a mass that is not bounded (0);
    rounding up raises PrecisionError then (an unbounded mass cannot be bounded from above).
    A ball reaching beyond 2 (units: 2·scale) bounds no probability: it counts as unbounded
    (its ends are never converted to integers, which for a ball as wide as 10^60 aborted
    the process inside FLINT)."""
    x = m * scale
    cap = 2 * scale
    v = None
    if x.is_finite():
        if up:
            u = upper_bound(x)
            if u <= cap:
                v = u.ceil().unique_fmpz()
        else:
            lo = lower_bound(x)
            if not lo > 0:
                return 0
            if lo <= cap:
                v = lo.floor().unique_fmpz()
            else:
                raise PrecisionError("a probability mass has a lower bound above 2: the loss law is wrong")
    if v is None:
        if up:
            raise PrecisionError("a probability mass could not be bounded at this precision "
                                 "(the loss law is too extreme for this grid)")
        return 0
    return max(int(v), 0)
