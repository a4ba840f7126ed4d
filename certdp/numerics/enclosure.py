"""The certified real number returned by every certdp computation.

An :class:`Enclosure` holds two exact dyadic numbers ``lo <= hi`` (zero-radius
``arb`` balls) with the guarantee ``lo <= truth <= hi``.  Decimal strings made
from it are rounded *outward*: the printed lower end is ``<=`` ``lo`` and the
printed upper end ``>=`` ``hi``, so a printed enclosure is still an enclosure.
"""

from __future__ import annotations

import math
import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Any, Callable, Iterator, Mapping

from flint import arb

from certdp.errors import InputError, PrecisionError
from certdp.numerics.decide import decide
from certdp.numerics.ball import MAX_PREC, exact_ball, exact_bits, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.exact import parse_decimal

#: Significant digits of the decimal strings in JSON output.
JSON_DIGITS = 25


def _as_ball(x: object) -> arb:
    """A ball containing the number ``x`` (exact numbers, strings, mpmath mpf, arb)."""
    if isinstance(x, arb):
        return x
    mod = type(x).__module__ or ""
    if mod.startswith("mpmath") and hasattr(x, "_mpf_"):
        sign, man, exp, _ = x._mpf_  # exact binary value; man_exp drops the sign
        if not man and exp:  # mpmath encodes nan/inf as zero mantissa, nonzero exponent
            raise InputError(f"not a finite number: {x}")
        return exact_ball(-int(man) if sign else int(man), int(exp))
    return to_ball(x)


def decimal_string(v: arb, digits: int, direction: str, strip: bool = True) -> str:
    """Decimal string of the exact ball ``v`` with ``digits`` significant digits,
    rounded ``"down"`` (result <= v) or ``"up"`` (result >= v).  With
    ``strip=False`` trailing zeros are kept (aligned display)."""
    if not v.is_exact():
        raise ValueError("decimal_string needs an exact ball")
    if v.is_zero():
        return "0"
    negative = bool(v < 0)
    with working_precision(int(v.man_exp()[0]).bit_length() + 8):
        a = -v if negative else v  # exact: enough bits for the mantissa
    # round the magnitude towards zero iff (down and positive) or (up and negative)
    towards_zero = (direction == "down") != negative
    # the binary exponent can be astronomically large (δ_μ(1e400) ≈ 10^(−1e50)):
    # work with enough bits to get log10 exactly to an integer
    ebits = int(v.man_exp()[1]).bit_length()
    with working_precision(64 + 2 * ebits):
        log10 = a.log_base(10)
        if log10.upper() < -MAX_PRINTED_EXPONENT or log10.lower() > MAX_PRINTED_EXPONENT:
            # one significant digit, outward: 10^⌊log10 a⌋ <= a <= 10^⌈log10 a⌉
            k10 = log10.lower().floor() if towards_zero else log10.upper().ceil()
            return _power_of_ten(k10, towards_zero, negative)
        e10 = int(log10.mid().floor().unique_fmpz())  # a guess: off by one shows a digit more/less
    shift = digits - 1 - e10
    m, e = (int(x) for x in a.man_exp())
    if abs(e) < 100_000 and abs(shift) < 100_000:
        # exact: a = m·2^e, so a·10^shift is a ratio of integers (a ball would straddle the
        # digit when a lies within its working precision of a decimal, e.g. the endpoint
        # 1e-5 + 1e-81 of an exact 1e-5: 9.9999999999999e-6 instead of 1e-5)
        num, den = (m << e, 1) if e >= 0 else (m, 1 << -e)
        num, den = (num * 10**shift, den) if shift >= 0 else (num, den * 10**-shift)
        k = num // den if towards_zero else -(-num // den)
    else:
        work = int(digits * 3.33) + 64 + ebits  # 10^shift is rounded ~log2|shift| times
        with working_precision(work):
            scaled = a * arb(10) ** shift if shift >= 0 else a / arb(10) ** (-shift)
            bound = scaled.lower().floor() if towards_zero else scaled.upper().ceil()
            k = int(bound.unique_fmpz())
    exp10 = e10 - digits + 1
    s = str(k)
    # strip trailing zeros into the exponent
    stripped = s.rstrip("0") if strip else s
    exp10 += len(s) - len(stripped)
    s = stripped or "0"
    sign = "-" if negative else ""
    point = len(s) + exp10  # value = 0.s * 10**point
    if exp10 >= 0 and point <= 21:
        return f"{sign}{s}{'0' * exp10}"
    if exp10 < 0 and 0 < point:
        return f"{sign}{s[:point]}.{s[point:]}"
    if exp10 < 0 and -5 <= point <= 0:
        return f"{sign}0.{'0' * (-point)}{s}"
    mant = s[0] + ("." + s[1:] if len(s) > 1 else "")
    return f"{sign}{mant}e{point - 1}"


#: Decimal exponents printed in full (δ_μ(1) at μ = 1e-100 ≈ 10^(-2.2e199)); beyond them
#: a coarser outward bound (tiny: 0 or 1e-(10^1000); huge ones cannot be bounded above).
MAX_PRINTED_EXPONENT = 10**1000


def _power_of_ten(k10: arb, towards_zero: bool, negative: bool) -> str:
    """``±1e{k10}`` for an exact integer ball k10 (the outward one-digit bound),
    with astronomically large exponents replaced by coarser outward bounds."""
    sign = "-" if negative else ""
    if k10 < -MAX_PRINTED_EXPONENT:
        # |v| < 1e-(10^1000): toward zero the bound is 0, away from it 1e-(10^1000)
        return "0" if towards_zero else f"{sign}1e-{MAX_PRINTED_EXPONENT}"
    if k10 > MAX_PRINTED_EXPONENT:
        if towards_zero:
            return f"{sign}1e{MAX_PRINTED_EXPONENT}"
        raise InputError(f"a result beyond 1e{MAX_PRINTED_EXPONENT} in magnitude cannot be printed; "
                         "use less extreme inputs")
    return f"{sign}1e{int(k10.unique_fmpz())}"


def parse_bound(text: str) -> arb:
    """A ball containing the decimal string ``text`` (any exponent size)."""
    try:
        return to_ball(parse_decimal(text))
    except InputError:
        pass
    try:
        b = arb(text)  # arb's own rigorous decimal parser: the ball contains the value
    except Exception:
        raise InputError(f"not a decimal number: {text!r}") from None
    if not b.is_finite():
        raise InputError(f"not a finite decimal number: {text!r}")
    return b


_DISPLAY_LIMIT: ContextVar[int | None] = ContextVar("certdp_display_limit", default=None)


@contextmanager
def display_limit(digits: int | None) -> Iterator[None]:
    """Print enclosures (``str``) with at most ``digits`` significant digits, rounded
    outward (None: no limit).  JSON output (:meth:`Enclosure.to_json`) is not affected."""
    if digits is not None and not 1 <= digits <= 100:
        raise InputError(f"digits must be an integer in [1, 100], got {digits}")
    token = _DISPLAY_LIMIT.set(digits)
    try:
        yield
    finally:
        _DISPLAY_LIMIT.reset(token)


def current_display_limit() -> int | None:
    """The limit set by :func:`display_limit` (None: none)."""
    return _DISPLAY_LIMIT.get()


@dataclass(frozen=True)
class Enclosure:
    """A certified real number: exact bounds ``lo <= truth <= hi``.

    Build one from a ball with :meth:`from_ball`.  ``lo`` and ``hi`` are exact
    dyadic numbers (zero-radius ``arb``).  ``mid`` is a float for display only.
    """

    lo: arb
    hi: arb

    def __post_init__(self) -> None:
        if not (self.lo.is_exact() and self.hi.is_exact()):
            raise ValueError("Enclosure endpoints must be exact")
        if not self.lo <= self.hi:
            raise ValueError(f"empty enclosure [{self.lo}, {self.hi}]")

    # -- construction -----------------------------------------------------
    @classmethod
    def from_ball(cls, x: arb) -> "Enclosure":
        """The tightest enclosure with exact endpoints of the ball ``x``
        (endpoints taken at a precision that holds mid ± rad exactly)."""
        if not x.is_finite():
            raise PrecisionError(f"cannot enclose a non-finite ball {x}")
        with working_precision(exact_bits(x)):
            lo, hi = x.lower(), x.upper()
        obj = object.__new__(cls)  # lower() <= upper() and both exact: skip re-validation
        object.__setattr__(obj, "lo", lo)
        object.__setattr__(obj, "hi", hi)
        return obj

    @classmethod
    def exact(cls, x: object) -> "Enclosure":
        """The enclosure of an exact number (zero width if dyadic)."""
        with working_precision(256):
            return cls.from_ball(_as_ball(x))

    @classmethod
    def sqrt_of(cls, x: object, bits: int = 128) -> "Enclosure":
        """Enclosure of √x for an exact x >= 0 (exact when x is a dyadic square)."""
        with working_precision(bits + 16):
            return cls.from_ball(_as_ball(x).sqrt())

    @classmethod
    def hull(cls, lo: "Enclosure", hi: "Enclosure") -> "Enclosure":
        """The enclosure ``[lo.lo, hi.hi]``."""
        return cls(lo.lo, hi.hi)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Enclosure":
        """Parse ``{"lo": "...", "hi": "..."}`` (decimal strings, read outward)."""
        if not isinstance(obj, Mapping) or set(obj) != {"lo", "hi"}:
            raise InputError(f'an enclosure must be {{"lo": ..., "hi": ...}}, got {obj!r}')
        if not all(isinstance(obj[k], str) for k in ("lo", "hi")):
            raise InputError("enclosure bounds must be decimal strings")
        with working_precision(256):
            lo, hi = parse_bound(obj["lo"]), parse_bound(obj["hi"])
            lo_b, hi_b = lower_bound(lo), upper_bound(hi)
        if not lo_b <= hi_b:
            raise InputError(f"empty enclosure: lo {obj['lo']} > hi {obj['hi']}")
        return cls(lo_b, hi_b)

    # -- queries ----------------------------------------------------------
    @property
    def ball(self) -> arb:
        """The enclosure as an ``arb`` ball (contains [lo, hi])."""
        with working_precision(self._bits()):
            return self.lo.union(self.hi)

    @property
    def width(self) -> float:
        """``hi - lo`` as the smallest float >= it (rounded up: ``inf`` beyond floats; ``hi_exact - lo_exact`` is exact)."""
        with working_precision(self._bits()):
            return _float_toward(upper_bound(self.hi - self.lo), down=False)

    @property
    def mid(self) -> float:
        """Midpoint as a float, for display and plotting only."""
        return float((self.lo + self.hi).mid()) / 2

    def relative_width(self) -> float:
        """(hi - lo) / min|x| as a float (``inf`` if the enclosure contains 0)."""
        if self.lo <= 0 <= self.hi:
            return 0.0 if self.lo == self.hi else math.inf
        small = self.lo if self.lo > 0 else -self.hi
        with working_precision(64):
            return float(((self.hi - self.lo) / small).upper())  # a ball holding the quotient: its upper end

    def _bits(self) -> int:
        bits = 64
        for v in (self.lo, self.hi):
            man, exp = v.man_exp()
            bits = max(bits, int(man).bit_length())
        # exponents may differ: make room for both ends
        e_lo, e_hi = (int(v.man_exp()[1]) for v in (self.lo, self.hi))
        return min(bits + abs(e_lo - e_hi) + 64, MAX_PREC)

    def contains(self, x: object) -> bool:
        """Is the exact number ``x`` in ``[lo, hi]``?  Decided with certainty.

        ``x`` may be an exact number, a decimal string, an mpmath ``mpf``
        (its exact binary value) or an ``arb`` ball (then: is the whole ball
        inside?).  A rational that is not dyadic is re-evaluated at growing
        precision until the comparison is decided.
        """
        def test(_prec: int) -> bool | None:
            b = _as_ball(x)
            if b.is_exact() or isinstance(x, arb):
                return bool(self.lo <= b and b <= self.hi)
            if self.lo <= b and b <= self.hi:
                return True
            if b < self.lo or b > self.hi:
                return False
            return None

        return decide(test, start=128, what=f"whether {x!r} lies in {self}")

    def contains_enclosure(self, other: "Enclosure") -> bool:
        """Is ``other`` a subset of this enclosure?"""
        return bool(self.lo <= other.lo and other.hi <= self.hi)

    def certainly_less_than(self, x: object) -> bool:
        """``hi < x``: every value in the enclosure is below ``x``."""
        return _compare(self.hi, x) < 0

    def certainly_greater_than(self, x: object) -> bool:
        """``lo > x``."""
        return _compare(self.lo, x) > 0

    # -- exact and float ends ----------------------------------------------
    @property
    def lo_exact(self) -> Fraction:
        """The lower end as an exact :class:`~fractions.Fraction` (it is dyadic)."""
        return _dyadic_fraction(self.lo)

    @property
    def hi_exact(self) -> Fraction:
        """The upper end as an exact :class:`~fractions.Fraction`."""
        return _dyadic_fraction(self.hi)

    def lower_float(self) -> float:
        """The largest float ``<= lo`` (rounded outward; ``-inf`` below the float range)."""
        return _float_toward(self.lo, down=True)

    def upper_float(self) -> float:
        """The smallest float ``>= hi`` (rounded outward; ``inf`` above the float range)."""
        return _float_toward(self.hi, down=False)

    def __float__(self) -> float:
        raise TypeError("an Enclosure is an interval, not a float: use lower_float(), upper_float() "
                        "(rounded outward) or mid (display only)")

    # -- three-valued comparisons -------------------------------------------
    # Each returns True or False when the whole enclosure decides it, and None
    # when the enclosure straddles ``x`` (undecided: never a guess).
    def certainly_lt(self, x: object) -> bool | None:
        """True if every value is ``< x``; False if none is; None if undecided."""
        lo_x, hi_x = _ends(x)
        return True if _cmp(self.hi, lo_x) < 0 else False if _cmp(self.lo, hi_x) >= 0 else None

    def certainly_le(self, x: object) -> bool | None:
        """True if every value is ``<= x``; False if none is; None if undecided."""
        lo_x, hi_x = _ends(x)
        return True if _cmp(self.hi, lo_x) <= 0 else False if _cmp(self.lo, hi_x) > 0 else None

    def certainly_gt(self, x: object) -> bool | None:
        """True if every value is ``> x``; False if none is; None if undecided."""
        le = self.certainly_le(x)  # > is decided exactly where <= is, with the opposite answer
        return None if le is None else not le

    def certainly_ge(self, x: object) -> bool | None:
        """True if every value is ``>= x``; False if none is; None if undecided."""
        lt = self.certainly_lt(x)
        return None if lt is None else not lt

    def _decided(self, verdict: bool | None, op: str, other: object) -> bool:
        if verdict is None:
            raise UndecidedComparison(f"{self} {op} {other}: the enclosures overlap (undecided)")
        return verdict

    def __lt__(self, other: object) -> bool:
        return self._decided(self.certainly_lt(other), "<", other)

    def __le__(self, other: object) -> bool:
        return self._decided(self.certainly_le(other), "<=", other)

    def __gt__(self, other: object) -> bool:
        return self._decided(self.certainly_gt(other), ">", other)

    def __ge__(self, other: object) -> bool:
        return self._decided(self.certainly_ge(other), ">=", other)

    # -- certified arithmetic ---------------------------------------------------
    def __add__(self, other: object) -> "Enclosure":
        return Enclosure(*_sum_ends(self, other))

    __radd__ = __add__

    def __neg__(self) -> "Enclosure":
        with working_precision(self._bits()):
            return Enclosure(-self.hi, -self.lo)

    def __sub__(self, other: object) -> "Enclosure":
        return self + (-_as_enclosure(other))

    def __rsub__(self, other: object) -> "Enclosure":
        return _as_enclosure(other) + (-self)

    def __mul__(self, other: object) -> "Enclosure":
        b = _as_enclosure(other)
        bits = self._bits() + b._bits() + 8  # products of exact ends are exact here
        with working_precision(min(bits, MAX_PREC)):
            products = [u * v for u in (self.lo, self.hi) for v in (b.lo, b.hi)]
            return Enclosure(min(lower_bound(p) for p in products), max(upper_bound(p) for p in products))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> "Enclosure":
        d = _as_enclosure(other)
        if d.lo <= 0 <= d.hi:
            raise ZeroDivisionError(f"division by an enclosure containing 0: {d}")
        with working_precision(d._bits() + 64):
            inverse = Enclosure(lower_bound(1 / d.hi), upper_bound(1 / d.lo))
        return self * inverse

    def __rtruediv__(self, other: object) -> "Enclosure":
        return _as_enclosure(other) / self

    def sqrt(self) -> "Enclosure":
        """√x over the enclosure (requires lo >= 0)."""
        if self.lo < 0:
            raise InputError(f"sqrt of an enclosure with negative values: {self}")
        return _monotone(self, lambda v: v.sqrt())

    def exp(self) -> "Enclosure":
        """e^x over the enclosure."""
        return _monotone(self, lambda v: v.exp())

    def log(self) -> "Enclosure":
        """log x over the enclosure (requires lo > 0)."""
        if not self.lo > 0:
            raise InputError(f"log of an enclosure that is not positive: {self}")
        return _monotone(self, lambda v: v.log())

    # -- output -----------------------------------------------------------
    def lo_str(self, digits: int = JSON_DIGITS, strip: bool = True) -> str:
        """Lower end as a decimal string rounded down."""
        return decimal_string(self.lo, digits, "down", strip)

    def hi_str(self, digits: int = JSON_DIGITS, strip: bool = True) -> str:
        """Upper end as a decimal string rounded up."""
        return decimal_string(self.hi, digits, "up", strip)

    def to_json(self, digits: int = JSON_DIGITS) -> dict[str, str]:
        """``{"lo": ..., "hi": ...}`` with outward-rounded decimal strings."""
        return {"lo": self.lo_str(digits), "hi": self.hi_str(digits)}

    def display_digits(self) -> int:
        """Significant digits that show the width of the enclosure (+1), 4..30, and at
        most the limit of :func:`display_limit` (the CLI's ``--digits N``)."""
        rw = self.relative_width()
        if rw == 0:
            auto = 17
        elif not math.isfinite(rw):
            auto = 6
        else:
            auto = int(max(4, math.ceil(-math.log10(rw)) + 1))
        limit = _DISPLAY_LIMIT.get()
        return min(auto, 30) if limit is None else min(auto, limit)

    def _display_ends(self) -> tuple[str, ...]:
        """The printed ends: one string for an exactly printable point, else two."""
        if self.lo == self.hi:
            limit = _DISPLAY_LIMIT.get()
            lo_s, hi_s = (self.lo_str(), self.hi_str()) if limit is None else (self.lo_str(limit), self.hi_str(limit))
            return (lo_s,) if lo_s == hi_s else (lo_s, hi_s)
        d = self.display_digits()
        return self.lo_str(d, strip=False), self.hi_str(d, strip=False)

    def __str__(self) -> str:
        return "[" + ", ".join(self._display_ends()) + "]"

    def __repr__(self) -> str:
        return f"Enclosure{self}"

    def __format__(self, spec: str) -> str:
        """The format mini-language (``f"{e:.6f}"``, ``.3e``, ``.4g``, ``.2%``, sign, grouping; fill/align/width
        for the whole) on each exact end, rounded outward: ``[lo, hi]``, or ``[x]`` when both print alike
        (an exact point).  ``.6`` alone is 6 significant digits; ``""`` is ``str(e)``."""
        m = _FORMAT_SPEC.fullmatch(spec)
        if m is None:
            raise ValueError(f"invalid format spec for an Enclosure: {spec!r}")
        ends = [str(self)[1:-1]] if m["prec"] is None and not m["type"] else dict.fromkeys(
            _format_end(v, down, m, int(m["prec"] or 6)) for v, down in ((self.lo, True), (self.hi, False)))
        return format("[" + ", ".join(ends) + "]", f"{m['fill'] or ''}{m['align'] or ''}{m['width'] or ''}")

    def _repr_html_(self) -> str:
        return f"<code>{self}</code>"

    def _repr_latex_(self) -> str:
        return r"$\left[" + r",\ ".join(_latex(t) for t in self._display_ends()) + r"\right]$"

    def format(self, symbol: str) -> str:
        """``"μ ∈ [1.5701, 1.5703]"``."""
        return f"{symbol} ∈ {self}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Enclosure) and bool(self.lo == other.lo) and bool(self.hi == other.hi)

    def __hash__(self) -> int:
        return hash((self.lo.str(30), self.hi.str(30)))

    def __reduce__(self) -> tuple:
        """Pickle exactly (arb balls do not pickle): endpoints as (mantissa, exponent)."""
        (ml, el), (mh, eh) = self.lo.man_exp(), self.hi.man_exp()
        return (_from_dyadics, (int(ml), int(el), int(mh), int(eh)))


class UndecidedComparison(PrecisionError):
    """``<``/``<=``/``>``/``>=`` on enclosures that overlap: the comparison is
    not decided by what is proved (use ``certainly_lt`` … for three values)."""


def _as_enclosure(x: object) -> "Enclosure":
    return x if isinstance(x, Enclosure) else Enclosure.exact(x)


def _ends(x: object) -> tuple[object, object]:
    """Lower and upper end of an Enclosure, or the exact number twice."""
    return (x.lo, x.hi) if isinstance(x, Enclosure) else (x, x)


def _cmp(v: arb, x: object) -> int:
    """Sign of v − x for exact v and an exact number or exact ball x."""
    if isinstance(x, arb) and x.is_exact():
        return -1 if v < x else (1 if v > x else 0)
    return _compare(v, x)


def _sum_ends(a: "Enclosure", other: object) -> tuple[arb, arb]:
    """[a.lo + b.lo, a.hi + b.hi] rounded outward."""
    b = _as_enclosure(other)
    bits = max(a._bits(), b._bits()) + 64
    with working_precision(bits):
        return lower_bound(a.lo + b.lo), upper_bound(a.hi + b.hi)


def _monotone(enc: "Enclosure", f: Callable[[arb], arb]) -> "Enclosure":
    """[f(lo), f(hi)] for an increasing f, rounded outward."""
    with working_precision(enc._bits() + 64):
        return Enclosure(lower_bound(f(enc.lo)), upper_bound(f(enc.hi)))


#: Largest binary exponent for which an end is turned into a Fraction.
_MAX_FRACTION_EXPONENT = 1 << 20


def _dyadic_fraction(v: arb) -> Fraction:
    man, exp = (int(t) for t in v.man_exp())
    if abs(exp) > _MAX_FRACTION_EXPONENT:
        raise ValueError(f"the end 2^{exp}·{man} is too large or small for a Fraction; use the decimal strings")
    return Fraction(man) * Fraction(2) ** exp


def _float_toward(v: arb, down: bool) -> float:
    """The float nearest ``v`` on the side ``down``/up (outward rounding)."""
    with working_precision(64):
        try:
            f = float(v.mid())
        except OverflowError:
            f = math.inf if v > 0 else -math.inf
    if math.isinf(f):
        if (f > 0) == down:  # beyond the float range on the side we must not cross
            return sys.float_info.max * (1 if f > 0 else -1)
        return f
    fb = arb(f)
    if down and fb > v:
        f = math.nextafter(f, -math.inf)
    elif not down and fb < v:
        f = math.nextafter(f, math.inf)
    return f


_FORMAT_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>^]))?(?P<flags>[-+ ]?#?)(?P<width>\d+)?(?P<group>[,_])?"
                          r"(?:\.(?P<prec>\d{1,4}))?(?P<type>[eEfFgG%]?)", re.DOTALL)


def _format_end(v: arb, down: bool, m: re.Match, p: int) -> str:
    """One end of :meth:`Enclosure.__format__`: the exact ``v`` rounded (``down`` or up) to the
    spec's digits first, so that Decimal's formatter, which prints it, rounds nothing."""
    kind, alt, spec = m["type"].lower(), "#" in m["flags"], m["flags"].rstrip("#") + ("," if m["group"] else "")
    if not kind:  # ".N": N significant digits, as lo_str/hi_str print them
        return decimal_string(v, max(p, 1), "down" if down else "up")
    if kind in ("f", "%"):  # p digits after the point: floor/ceil of v·10^p (·100 for %)
        k = (math.floor if down else math.ceil)(_dyadic_fraction(v) * 10 ** (p + 2 * (kind == "%")))
        return format(Decimal(f"{k}e{-p - 2 * (kind == '%')}"), f"{spec}.{p}{m['type']}").replace(",", m["group"] or ",")
    digits = p + 1 if kind == "e" else max(p, 1)  # significant digits (".0g" is one, as for floats)
    d = Decimal(decimal_string(v, digits + 1, "down" if down else "up", strip=False))  # quantized below
    e10 = d.adjusted()  # the decimal exponent of the end
    with localcontext(prec=digits + 8, rounding=ROUND_FLOOR if down else ROUND_CEILING):
        fixed = kind == "g" and -4 <= e10 < max(p, 1)  # Python's rule for 'g'
        places = max(digits - 1 - e10, 0) if fixed else digits - 1
        d = (d if fixed else d.scaleb(-e10)).quantize(Decimal(f"1e{-places}"))  # outward again: a digit too many
    text = format(d, f"{spec}.{places}f")
    text = text.rstrip("0").rstrip(".") if kind == "g" and not alt and "." in text else text  # 'g': no trailing 0s
    return text.replace(",", m["group"] or ",") + ("" if fixed else f"{'E' if m['type'].isupper() else 'e'}{e10:+03d}")


def _latex(text: str) -> str:
    mant, sep, exp = text.partition("e")
    return rf"{mant} \times 10^{{{int(exp)}}}" if sep else text


def _from_dyadics(ml: int, el: int, mh: int, eh: int) -> Enclosure:
    return Enclosure(exact_ball(ml, el), exact_ball(mh, eh))


def _compare(v: arb, x: object) -> int:
    """Sign of ``v - x`` for an exact ball ``v`` and exact number ``x``; certain."""
    def test(_prec: int) -> int | None:
        b = _as_ball(x)
        if v < b:
            return -1
        if v > b:
            return 1
        if b.is_exact() and v == b:
            return 0
        return None

    return decide(test, start=128, what=f"comparing {v} with {x!r}")
