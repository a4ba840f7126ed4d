"""Parameter declarations for catalog mechanisms (sympy.stats style).

A catalog mechanism declares its parameters once, as a tuple of
:class:`Param`; :class:`CatalogMechanism` binds arguments to them (converting
numbers to exact :class:`~fractions.Fraction`), then calls the subclass's
single ``check`` that validates the values with :class:`InputError`.

Parameter kinds:

* ``"number"``    an exact real number (anything :func:`certdp.numerics.exact.exact` accepts);
* ``"integer"``   an exact integer (``3``, ``"3"``, ``3/1``);
* ``"mechanism"`` a nested :class:`~certdp.mechanisms.base.Mechanism`;
* ``"string"``    a text argument (only ``profile("...")`` has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Mapping

from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import Mechanism
from certdp.numerics.ball import (
    MAX_PREC,
    lower_bound,
    rel_accuracy_bits,
    upper_bound,
)
from certdp.numerics.decide import decide
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact, fraction_to_str

KINDS = ("number", "integer", "mechanism", "string")

#: Magnitudes a non-zero numeric parameter may have.
PARAMETER_RANGE = (Fraction(1, 10**300), Fraction(10**300))

_NO_DEFAULT = object()


@dataclass(frozen=True)
class MorePrivate:
    """A proved monotonicity rule of one parameter (used by calibration).

    On the parameter's values in [lo, hi] (None: unbounded; intersected with the
    parameter's domain), moving the parameter in ``direction`` ("larger" or
    "smaller") never makes the mechanism less private: its trade-off function
    does not decrease, i.e. (Blackwell) the new dominating pairs are a
    post-processing of the old ones, so δ(ε) does not increase at any ε.
    ``reason`` is the proof in one line.  A parameter without a rule (or a value
    outside the rule's range) has no proved direction: calibration then states
    the monotonicity it relies on as an unproved assumption.
    """

    direction: str
    reason: str
    lo: Fraction | None = None
    hi: Fraction | None = None

    def __post_init__(self) -> None:
        if self.direction not in ("larger", "smaller"):  # pragma: no cover - programming error
            raise ValueError(f"unknown direction {self.direction!r}")

    def holds_on(self, lo: Fraction | None, hi: Fraction | None) -> bool:
        """Does the rule hold on all of [lo, hi] (None: unbounded)?"""
        if self.lo is not None and (lo is None or lo < self.lo):
            return False
        return self.hi is None or (hi is not None and hi <= self.hi)

    def describe(self) -> str:
        """``a larger value is more private on [1/2, ∞): reason``."""
        where = "" if self.lo is None and self.hi is None else f" on {interval_text(self.lo, self.hi)}"
        return f"a {self.direction} value is more private{where} ({self.reason})"


def interval_text(lo: Fraction | None, hi: Fraction | None) -> str:
    """``[1/2, ∞)``, ``(-∞, 1/2]``, ``[a, b]``."""
    left = "(-∞" if lo is None else f"[{fraction_to_str(lo)}"
    right = "∞)" if hi is None else f"{fraction_to_str(hi)}]"
    return f"{left}, {right}"


@dataclass(frozen=True)
class Param:
    """One declared parameter: name, kind, one-line doc, optional exact default,
    and the proved monotonicity rules of the mechanism in it (:class:`MorePrivate`,
    at most one per direction; none when no direction is proved)."""

    name: str
    kind: str
    doc: str
    default: Any = _NO_DEFAULT
    more_private: tuple[MorePrivate, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:  # pragma: no cover - programming error
            raise ValueError(f"unknown parameter kind {self.kind!r}")
        directions = [rule.direction for rule in self.more_private]
        if len(set(directions)) != len(directions):  # pragma: no cover - programming error
            raise ValueError(f"parameter {self.name}: at most one monotonicity rule per direction")

    def rule(self, direction: str) -> MorePrivate | None:
        """The declared rule for ``direction``, if any."""
        return next((r for r in self.more_private if r.direction == direction), None)

    @property
    def required(self) -> bool:
        return self.default is _NO_DEFAULT

    def convert(self, value: Any, owner: str) -> Any:
        """The exact value of ``value`` for this parameter, or InputError."""
        what = f"{owner}: parameter {self.name}"
        if self.kind == "mechanism":
            if not isinstance(value, Mechanism):
                raise InputError(f"{what} must be a mechanism, got {value!r}")
            return value
        if self.kind == "string":
            if not isinstance(value, str):
                raise InputError(f"{what} must be a string, got {value!r}")
            return value
        if isinstance(value, Mechanism):
            raise InputError(f"{what} must be a number, got the mechanism {value.spec()}")
        q = exact(value, what)
        if q and not PARAMETER_RANGE[0] <= abs(q) <= PARAMETER_RANGE[1]:
            # the symbolic routes print and simplify their parameters: exp(eps) at
            # eps = 10^4000 takes sympy minutes (no certified answer needs it)
            size = len(str(abs(q.numerator))) - len(str(q.denominator))
            raise InputError(f"{what} (about 1e{size}) is outside the supported magnitudes [1e-300, 1e300]")
        if self.kind == "integer":
            if q.denominator != 1:
                raise InputError(f"{what} must be an integer, got {value}")
            return int(q)
        return q

    def describe(self) -> str:
        """``name (kind[, default=...]): doc`` for listings."""
        extra = "" if self.required else f", default {format_default(self.default)}"
        return f"{self.name} ({self.kind}{extra}): {self.doc}"


def format_default(value: Any) -> str:
    from certdp.mechanisms.format import format_value  # noqa: PLC0415

    return format_value(value)


class CatalogMechanism(Mechanism):
    """Base of the catalog: declared parameters, exact values, one ``check``.

    Construct with positional arguments (in declaration order) and/or keyword
    arguments, as in the spec grammar.  Instances are immutable and compare
    equal iff their name and exact parameters agree.
    """

    #: Declared parameters, in order.
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    #: One-line description for ``certdp mechanisms``.
    description: ClassVar[str] = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        values = bind_arguments(type(self), args, kwargs)
        object.__setattr__(self, "_params", values)
        self.check()

    # -- parameters -------------------------------------------------------
    @property
    def params(self) -> Mapping[str, Any]:
        return dict(self._params)

    def __getattr__(self, name: str) -> Any:
        params = self.__dict__.get("_params")
        if params is not None and name in params:
            return params[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("mechanisms are immutable")

    def check(self) -> None:
        """Validate the parameter values (InputError naming the bad one)."""

    # -- identity ---------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params == self._params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.name, tuple(self._params.items())))

    # -- evaluation helpers -----------------------------------------------
    def delta_point_ball(self, eps: arb) -> arb:
        """δ at a point ball ``eps`` (subclasses implement; radius may be > 0,
        the result must contain δ at every point of the ball)."""
        return super().delta_ball(eps)

    def delta_ball(self, eps: arb) -> arb:
        """Ball containing δ(ε) for all ε in ``eps`` ∩ [0, ∞).

        Catalog profiles are non-increasing, so the range over an interval
        [a, b] lies in [δ(b), δ(a)]: the lower end comes from a lower bound at
        b, the upper end from an upper bound at a (two one-sided chains, so
        nested transforms cost linear, not exponential, time in the depth).
        """
        ends = nonnegative_ends(eps)
        if ends is None:
            return self.delta_point_ball(eps)
        lo, hi = ends
        return self.delta_lower_at(hi).lower().union(self.delta_upper_at(lo).upper())

    def delta_upper_at(self, eps: arb) -> arb:
        """A ball whose upper end bounds δ(ε) from above at the exact point ``eps``
        (default: the two-sided point evaluation)."""
        return self.delta_point_ball(eps)

    def delta_lower_at(self, eps: arb) -> arb:
        """A ball whose lower end bounds δ(ε) from below at the exact point ``eps``."""
        return self.delta_point_ball(eps)

    def eps_for_delta(self, delta: Fraction, bits: int) -> Enclosure | None:
        """Enclosure of the smallest ε >= 0 with δ(ε) <= delta from a closed
        form (or a reduction to an inner mechanism), or None when there is
        none and the generic certified bisection of
        :func:`certdp.mechanisms.profile_values.eps_enclosure` must be used.
        ``bits``: requested accuracy.  Raises :class:`DeltaUnattainable` when
        it is proved that no ε reaches ``delta``.

        Default: the subclass's ``_eps_ball(delta)`` closed form (a ball at
        the current precision), if it defines one.
        """
        closed = getattr(self, "_eps_ball", None)
        if closed is None:
            return None
        return closed_form_enclosure(lambda: closed(delta), bits, f"{self.name}: eps(delta)")


class DeltaUnattainable(InputError):
    """No ε >= 0 has δ(ε) <= the requested δ (a proved fact, not a numerical failure)."""


def closed_form_enclosure(compute: Any, bits: int, what: str) -> Enclosure:
    """Enclosure of ``compute()`` (a ball valid at any precision), raising the
    precision until the relative width is <= 2^-bits, or the absolute radius
    is <= 2^-2·bits (values that are exactly 0, e.g. δ(ε) for ε >= ε₀ of
    pure DP, never get a small relative width).  At the precision cap the
    (sound, wider) ball is returned."""
    cap = min(MAX_PREC, 16 * bits + 1024)

    def test(prec: int) -> arb | None:
        y = compute()
        ok = y.is_finite() and (y.is_exact() or rel_accuracy_bits(y) >= bits or y.rad() * 2 ** (2 * bits) <= 1)
        return y if ok or (prec >= cap and y.is_finite()) else None  # at the cap: the sound, wider ball

    return Enclosure.from_ball(decide(test, start=bits + 32, cap=cap, what=f"{what}: a finite enclosure"))


def bind_arguments(cls: type, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Bind positional/keyword arguments to ``cls.PARAMS`` (exact values)."""
    name = cls.name
    params = cls.PARAMS
    if len(args) > len(params):
        raise InputError(f"{name}: takes at most {len(params)} arguments, got {len(args)}")
    values: dict[str, Any] = {}
    for p, v in zip(params, args):
        values[p.name] = v
    known = {p.name for p in params}
    for key, v in kwargs.items():
        if key not in known:
            raise InputError(
                f"{name}: unknown parameter {key!r} (parameters: {', '.join(p.name for p in params)})"
            )
        if key in values:
            raise InputError(f"{name}: parameter {key!r} given twice")
        values[key] = v
    out: dict[str, Any] = {}
    for p in params:
        if p.name in values:
            out[p.name] = p.convert(values[p.name], name)
        elif p.required:
            raise InputError(f"{name}: missing parameter {p.name!r} ({p.doc})")
        else:
            out[p.name] = p.convert(p.default, name)
    return out


def nonnegative_ends(eps: arb) -> tuple[arb, arb] | None:
    """The exact ends (lo, hi) of ``eps`` ∩ [0, ∞), or None when ``eps`` is an
    exact point (InputError for non-finite or negative balls)."""
    if not eps.is_finite():
        raise InputError(f"eps ball {eps} is not finite")
    if eps.is_exact():
        if eps < 0:
            raise InputError(f"eps must be >= 0, got {eps}")
        return None
    hi = upper_bound(eps)
    if hi < 0:
        raise InputError(f"eps must be >= 0, got the ball {eps}")
    lo = lower_bound(eps)
    return (lo if lo >= 0 else arb(0)), hi


def upper_over(mech: Mechanism, x: arb) -> arb:
    """A ball whose upper end bounds δ_M over the ball ``x`` (ε >= 0): for a
    catalog mechanism (non-increasing profile) the upper chain at lower(x),
    else M's own range evaluation."""
    if isinstance(mech, CatalogMechanism) and type(mech).delta_ball is CatalogMechanism.delta_ball:
        lo = lower_bound(x)
        return mech.delta_upper_at(lo if lo >= 0 else arb(0))
    return mech.delta_ball(x)


def lower_over(mech: Mechanism, x: arb) -> arb:
    """A ball whose lower end bounds δ_M from below over the ball ``x``."""
    if isinstance(mech, CatalogMechanism) and type(mech).delta_ball is CatalogMechanism.delta_ball:
        return mech.delta_lower_at(upper_bound(x))
    return mech.delta_ball(x)


def positive_part(x: arb) -> arb:
    """A ball containing max(y, 0) for every y in the ball ``x`` (tight: exact 0
    when x <= 0 for certain, [0, upper(x)] when x straddles 0)."""
    if x >= 0:
        return x
    if x <= 0:
        return arb(0)
    return arb(0).union(x.upper())


def min_ball(x: arb, y: arb) -> arb:
    """A ball containing min(u, v) for u in x, v in y."""
    if x <= y:
        return x
    if y <= x:
        return y
    return x.min(y)
