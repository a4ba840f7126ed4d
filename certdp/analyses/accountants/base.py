"""The accountant interface shared by every certdp accountant.

An accountant holds a (heterogeneous) composition of mechanisms and answers
the privacy profile of the composition with certified enclosures:

* :meth:`Accountant.compose` adds ``count`` copies of a mechanism (any order,
  any mix) and returns a NEW accountant (accountants are immutable values, so
  an accountant can be shared and extended without surprises);
* :meth:`Accountant.delta` returns an :class:`Enclosure` of
  δ(ε) = max over neighbouring relations (add/remove) of the hockey-stick
  divergence H_{e^ε}(P‖Q) of the composed dominating pair (Zhu, Dong & Wang 2022 §4.1);
* :meth:`Accountant.epsilon` returns an enclosure of the smallest ε >= 0 with
  δ(ε) <= δ.  The default is a certified bisection on certified δ: δ(ε) is
  non-increasing in ε, so ``delta(a).lo > δ`` proves ε* > a and
  ``delta(b).hi <= δ`` proves ε* <= b.

Implementations: :mod:`certdp.analyses.accountants.phi` (characteristic-function /
MGF inversion accountant, Zhu, Dong & Wang 2022) and :mod:`certdp.analyses.accountants.pld`
(certified PLD accountant).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Iterable, Literal

from flint import arb

from certdp.errors import InputError
from certdp.numerics.decide import bisect
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import check_nonnegative, check_open_unit, exact
from certdp.numerics.numpy_scalars import from_numpy, from_numpy_int

#: The two neighbouring relations whose dominating pairs may differ.
Relation = Literal["add", "remove"]
RELATIONS: tuple[Relation, Relation] = ("add", "remove")


def default_width(enc: Enclosure, is_eps: bool = True) -> Fraction:
    """The width an answer is refined to without a request (issue 16): at most 1 % of
    its upper end, and for ε also at most max(0.02, 0.1 % of it) — rounded down to three
    significant digits (a stricter target that prints short: 0.00164, not a 90-digit ratio)."""
    hi = enc.hi_exact
    w = min(hi / 100, max(Fraction(1, 50), hi / 1000)) if is_eps else hi / 100
    return _three_digits_down(w)


def _three_digits_down(w: Fraction) -> Fraction:
    """The largest d·10^e <= w with d < 1000 an integer (w itself when it is 0)."""
    if w <= 0:
        return w
    e = len(str(w.numerator)) - len(str(w.denominator)) - 3
    while Fraction(10) ** (e + 3) <= w:
        e += 1
    while Fraction(10) ** (e + 2) > w:
        e -= 1
    unit = Fraction(10) ** e
    return (w // unit) * unit


def halvings(width: Fraction, target: Fraction, ratio: float) -> int:
    """How many halvings of a grid should bring an enclosure of ``width`` to ``target``
    when each halving shrinks it by ``ratio`` (measured, or a model): at least 1, and 1
    when the ratio shows no progress (<= 1.2).  A guide only: the callers check the width
    they reach and refine again if it is still too wide."""
    if target <= 0 or width <= target or not ratio > 1.2:
        return 1
    r = width / target  # exact; its log from the bit lengths when it is beyond a float
    log_r = (math.log(float(r)) if r < 10**300 else
             (r.numerator.bit_length() - r.denominator.bit_length()) * math.log(2))
    return max(1, math.ceil(log_r / math.log(ratio) - 1e-9))


def check_width(width: object) -> Fraction:
    """A requested absolute width: exact and > 0 (a closed form: a rational below it)."""
    from certdp.expr.brackets import rational_at_most  # noqa: PLC0415 (closed forms: 1/3, exp(-2))

    w = width if isinstance(width, (Fraction, int)) else rational_at_most(width, "width")
    w = exact(w, "width")
    if w <= 0:
        raise InputError(f"width must be > 0, got {width!r}")
    return w


def check_count(count: object) -> int:
    """Validate a composition count (a positive int)."""
    count = from_numpy_int(count, "composition count")  # np.int64 too
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputError(f"composition count must be a positive integer, got {count!r}")
    return count


def check_eps(eps: object) -> Fraction:
    """Validate ε (an exact number >= 0)."""
    return check_nonnegative(from_numpy(eps, "eps"), "eps")


def check_delta(delta: object) -> Fraction:
    """Validate a target δ in (0, 1)."""
    return check_open_unit(from_numpy(delta, "delta"), "delta")



class Accountant(ABC):
    """A certified privacy accountant (immutable; :meth:`compose` returns a new one)."""

    @abstractmethod
    def compose(self, mechanism: object, count: int = 1) -> "Accountant":
        """A new accountant with ``count`` more copies of ``mechanism``.

        ``mechanism`` is a catalog :class:`certdp.mechanisms.base.Mechanism`
        or an accountant-specific dominating-pair object.  Raises
        :class:`InputError` for a mechanism the accountant cannot handle.
        """

    def compose_all(self, items: Iterable[tuple[object, int]]) -> "Accountant":
        """Compose ``(mechanism, count)`` pairs in order."""
        acc: Accountant = self
        for mech, count in items:
            acc = acc.compose(mech, count)
        return acc

    @abstractmethod
    def delta(self, eps: object) -> Enclosure:
        """Enclosure of δ(ε) of the composition (max over add/remove)."""

    def delta_at_infinity(self) -> Enclosure | None:
        """Enclosure of lim_{ε→∞} δ(ε) (the mass of the loss at +∞), if known."""
        return None

    def epsilon(self, delta: object, *, rel_tol: object = Fraction(1, 10**10),
                max_steps: int = 200) -> Enclosure:
        """Enclosure of ε* = min{ε >= 0 : δ(ε) <= delta} by certified bisection
        (width <= rel_tol·max(ε*, 1e-6) unless a comparison stays undecided).

        Sound for any :meth:`delta` that returns valid enclosures: an undecided
        comparison stops the bisection early and the (wider) bracket is
        returned.  Raises :class:`InputError` if no finite ε reaches ``delta``
        (δ(∞) certified > delta).
        """
        target = check_delta(delta)
        tol = exact(rel_tol, "rel_tol")
        with working_precision(128):
            t_ball = to_ball(target)
        d0 = self.delta(0)
        if d0.hi <= t_ball:
            return Enclosure.exact(0)
        inf_mass = self.delta_at_infinity()
        if inf_mass is not None and inf_mass.lo > t_ball:
            raise InputError(f"no finite eps achieves delta={delta}: the loss has mass "
                             f">= {inf_mass} at +infinity")
        seen: dict[Fraction, float] = {}  # log δ(x) − log δ, floats: a search guide only

        def sign_at(x: Fraction) -> int:  # +1: δ(x) > target certainly, so ε* > x
            d = self.delta(x)
            record(x, d)
            return -1 if d.hi <= t_ball else (1 if d.lo > t_ball else 0)

        def guide(lo: Fraction, hi: Fraction) -> list[Fraction] | None:
            """A secant step on log δ through the two latest evaluations (else the
            bracket ends), tested at ± a quarter of the tolerance: when the estimate
            is that good, the two tests close the bracket (a search guide only)."""
            pts = list(seen.items())
            pairs = [pts[-2:]] if len(pts) >= 2 else []
            if lo in seen and hi in seen:
                pairs.append([(lo, seen[lo]), (hi, seen[hi])])
            for (x0, f0), (x1, f1) in pairs:
                if f0 == f1:
                    continue
                est = float(x0) - f0 * (float(x1) - float(x0)) / (f1 - f0)
                if float(lo) < est < float(hi):
                    r = float(tol) * max(est, 1e-6) / 4
                    return [_dyadic(est - r), _dyadic(est + r)]
            return None

        log_target = math.log(float(target)) if target > Fraction(1, 10**300) else math.log(1e-300)

        def record(x: Fraction, d: Enclosure) -> None:
            mid = (d.lower_float() + d.upper_float()) / 2
            if mid > 0 and math.isfinite(mid):
                seen[x] = math.log(mid) - log_target

        record(Fraction(0), d0)
        lo, hi = bisect(sign_at, lo=Fraction(0), hi=Fraction(1),
                        done=lambda lo, hi: hi - lo <= tol * max(lo, Fraction(1, 10**6)),
                        limit=Fraction(2**40), what=f"eps with delta(eps) <= {delta}", max_steps=max_steps,
                        guide=guide)
        return Enclosure(_down(lo), _up(hi))


def _dyadic(x: float) -> Fraction:
    """A short dyadic near the float x (a proposal point; exactness is not needed)."""
    return Fraction(round(x * 2**40), 2**40) if math.isfinite(x) else Fraction(0)


def _down(x: Fraction) -> arb:
    from certdp.numerics.ball import lower_bound  # noqa: PLC0415

    with working_precision(256):
        return lower_bound(to_ball(x))


def _up(x: Fraction) -> arb:
    from certdp.numerics.ball import upper_bound  # noqa: PLC0415

    with working_precision(256):
        return upper_bound(to_ball(x))
