"""Certified point evaluation and inversion of a mechanism's privacy profile.

* :func:`delta_enclosure` — δ(ε) at an exact ε as an :class:`Enclosure`.
* :func:`eps_enclosure` — the smallest ε >= 0 with δ(ε) <= D (the profile is
  non-increasing, so {ε : δ(ε) <= D} is a half-line and this is its left end).
  A closed form or a reduction to an inner mechanism is used when the
  mechanism offers one (``eps_for_delta``); otherwise a certified bisection:
  every step decides the sign of δ(x) − D at an exact dyadic x in ball
  arithmetic (raising precision until decided), keeping lo with
  δ(lo) > D (so ε* >= lo) and hi with δ(hi) <= D (so ε* <= hi).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb


from certdp.errors import InputError
from certdp.mechanisms.base import Mechanism
from certdp.mechanisms.params import DeltaUnattainable, closed_form_enclosure
from certdp.numerics.decide import bisect, decide
from certdp.numerics.ball import digits_to_bits, to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: Largest ε the generic bisection searches before giving up (undecided).
SEARCH_LIMIT = Fraction(2) ** 40

__all__ = ["delta_enclosure", "eps_enclosure", "DeltaUnattainable", "SEARCH_LIMIT"]


def _bits(digits: int | None, bits: int | None) -> int:
    if bits is not None:
        return bits
    return digits_to_bits(digits, None)


def delta_enclosure(mech: Mechanism, eps: object, *, digits: int | None = None, bits: int | None = None) -> Enclosure:
    """Certified δ(ε) for an exact ε >= 0.

    Relative width <= 10^-digits (default 15 digits), or absolute radius
    <= 2^-(2·bits) where δ is 0 or too close to 0 to resolve relatively; at
    the precision cap the (sound, wider) enclosure is returned as is.
    """
    e = exact(eps, "eps")
    if e < 0:
        raise InputError(f"eps must be >= 0, got eps = {eps}")
    b = _bits(digits, bits)
    zero = mech.vanishes_from()
    if zero is not None and e >= zero:
        return Enclosure.exact(0)  # δ(ε) = 0 exactly (a rational comparison, no balls)
    enc = closed_form_enclosure(lambda: mech.delta_ball(to_ball(e)), b, f"{mech.name}: delta({eps})")
    # a value certainly outside [0, 1] is no privacy profile (e.g. profile("exp(10**1000)")):
    # say so rather than clip it to an empty enclosure
    if enc.lo > 1 or enc.hi < 0:
        side = "> 1" if enc.lo > 1 else "< 0"
        raise InputError(f"{mech.name}: not a privacy profile: delta({eps}) {side} (every privacy profile lies in [0, 1])")
    # δ(ε) ∈ [0, 1] for every profile: a wide ball at the precision cap keeps only that part
    lo = enc.lo if enc.lo > 0 else arb(0)
    hi = enc.hi if enc.hi < 1 else arb(1)
    return enc if (lo is enc.lo and hi is enc.hi) else Enclosure(lo, hi)


def _sign_at(mech: Mechanism, x: Fraction, target: Fraction, bits: int) -> int:
    """+1 if δ(x) > target, −1 if δ(x) <= target (certified)."""
    def test(_prec: int) -> int | None:
        y = mech.delta_ball(to_ball(x))
        t = to_ball(target)
        if y.is_finite():
            if y > t:
                return 1
            if y <= t:  # every point of y is <= every point of t
                return -1
        return None

    return decide(test, start=bits + 32, cap=16 * bits + 2048,
                  what=f"{mech.name}: whether δ({x}) <= {target} (δ may equal the target on an interval)")


def eps_enclosure(mech: Mechanism, delta: object, *, digits: int | None = None, bits: int | None = None) -> Enclosure:
    """Certified smallest ε >= 0 with δ(ε) <= delta, for 0 <= delta < 1.

    Width <= 2^-bits·max(1, ε) (``digits`` decimal digits, default 15).
    Raises :class:`DeltaUnattainable` (an InputError) if it is proved that
    no ε reaches ``delta``; :class:`PrecisionError` if the search gives up
    (δ(ε) > delta for all ε <= :data:`SEARCH_LIMIT` checked).  Assumes δ is
    non-increasing (true for every catalog profile; validated for user
    profiles).
    """
    d = exact(delta, "delta")
    if not 0 <= d < 1:
        raise InputError(f"delta must satisfy 0 <= delta < 1, got delta = {delta}")
    b = _bits(digits, bits)
    special = getattr(mech, "eps_for_delta", None)
    if special is not None:
        enc = special(d, b)
        if enc is not None:
            return enc
    if _sign_at(mech, Fraction(0), d, b) < 0:
        return Enclosure.exact(0)
    lo, hi = bisect(lambda x: _sign_at(mech, x, d, b), lo=Fraction(0), hi=Fraction(1),
                    done=lambda lo, hi: hi - lo <= Fraction(1, 2**b) * max(Fraction(1), lo),
                    limit=SEARCH_LIMIT,
                    what=f"{mech.name}: δ(ε) > {delta} for every ε checked (the profile may never reach this δ)")
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(hi))
