"""Which way a calibrated parameter is more private, and where that is proved.

Calibration's words "optimal" and "no positive grid value meets the target"
rest on monotonicity: δ_M(ε) must not decrease as the parameter moves towards
less privacy.  That is *proved* only by the catalog's declared rules
(:class:`certdp.mechanisms.params.MorePrivate` on a ``Param``: Gaussian σ
larger, Laplace scale larger, rates, step counts, guarantees' ε and δ smaller,
randomized response p smaller on [1/2, ∞) and larger on (−∞, 1/2], ...), and
only when every use of the parameter in the spec

* is a whole argument value (``sigma=x``, not ``sigma=-x``),
* of a catalog parameter whose rule for the searched direction holds on the
  range the claim covers, and
* sits inside transforms that keep the privacy order
  (``Mechanism.keeps_privacy_order``: subsampling, composition).

Anything else (a user formula's σ, ``profile("...")``, clip-and-reify, a value
outside a rule's range) leaves the monotonicity an assumption, which the answer
states (:meth:`Order.assumption`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from certdp.errors import InputError
from certdp.mechanisms.params import MorePrivate, interval_text
from certdp.mechanisms.spec import lookup, tokenize

Direction = Literal["larger", "smaller"]


def opposite(direction: Direction) -> Direction:
    return "smaller" if direction == "larger" else "larger"


@dataclass(frozen=True)
class Use:
    """One use of the parameter in the spec: the mechanism taking it, the declared
    parameter it is (None: not a whole argument value of a declared parameter), its
    rules, and whether every enclosing mechanism keeps the privacy order."""

    mechanism: str
    key: str | None
    rules: tuple[MorePrivate, ...]
    order_kept: bool
    integer: bool

    def rule(self, direction: Direction) -> MorePrivate | None:
        if self.key is None or not self.order_kept:
            return None
        return next((r for r in self.rules if r.direction == direction), None)

    def where(self) -> str:
        return f"{self.mechanism} {self.key}" if self.key else self.mechanism


@dataclass(frozen=True)
class Order:
    """The proved monotonicity of the spec's δ(ε) in one parameter, per direction."""

    param: str
    uses: tuple[Use, ...]

    @property
    def integer(self) -> bool:
        """Is the parameter an integer parameter somewhere (then only integer grid values are valid)?"""
        return any(u.integer for u in self.uses)

    def proved_range(self, direction: Direction) -> tuple[Fraction | None, Fraction | None] | None:
        """The interval on which moving the parameter in ``direction`` is proved never to
        increase δ(ε) (None: nowhere): the intersection of every use's rule range."""
        lo: Fraction | None = None
        hi: Fraction | None = None
        for u in self.uses:
            r = u.rule(direction)
            if r is None:
                return None
            if r.lo is not None:
                lo = r.lo if lo is None else max(lo, r.lo)
            if r.hi is not None:
                hi = r.hi if hi is None else min(hi, r.hi)
        if lo is not None and hi is not None and lo > hi:
            return None
        return lo, hi

    def proved_on(self, direction: Direction, lo: Fraction | None, hi: Fraction | None) -> bool:
        """Is the monotonicity in ``direction`` proved on all of [lo, hi]?"""
        rng = self.proved_range(direction)
        return rng is not None and MorePrivate(direction, "", *rng).holds_on(lo, hi)

    def implied(self, at: Fraction) -> Direction | None:
        """The direction the rules prove at the value ``at`` (None: none, or both)."""
        found = [d for d in ("larger", "smaller") if self.proved_on(d, at, at)]  # type: ignore[arg-type]
        return found[0] if len(found) == 1 else None  # type: ignore[return-value]

    def rules(self, direction: Direction) -> list[str]:
        """``gaussian sigma: a larger value is more private (reason)`` for each use with a rule."""
        return [f"{u.where()}: {r.describe()}" for u in self.uses if (r := u.rule(direction)) is not None]

    def check_direction(self, direction: Direction) -> None:
        """InputError when the opposite direction is proved on the parameter's whole range
        (a stated direction that contradicts a proof is refused, never searched)."""
        if self.proved_range(opposite(direction)) == (None, None):
            rule = "; ".join(self.rules(opposite(direction)))
            raise InputError(f"--more-private {direction} contradicts what is proved for {self.param}: {rule}")

    def assumption(self, direction: Direction, lo: Fraction | None, hi: Fraction | None) -> str:
        """The unproved hypothesis a claim over [lo, hi] rests on, with why it is not proved."""
        why = []
        for u in self.uses:
            r = u.rule(direction)
            if u.key is None:
                why.append(f"{self.param} is not a whole argument value of {u.mechanism}")
            elif not u.order_kept:
                why.append(f"{u.where()} sits inside a mechanism not known to keep the privacy order")
            elif r is None:
                why.append(f"no rule proves a {direction} {u.where()} more private")
            elif not r.holds_on(lo, hi):
                why.append(f"{u.where()}: proved only on {interval_text(r.lo, r.hi)}")
        against = self.proved_range(opposite(direction))
        if against is not None:
            why.append(f"a {opposite(direction)} {self.param} is proved more private on {interval_text(*against)}")
        return (f"assumes δ(ε) is monotone in {self.param} on {interval_text(lo, hi)}, a {direction} {self.param} "
                f"being more private: not proved ({'; '.join(why)})")


def template(spec: str, param: str) -> tuple[list[tuple[str, str]], Order]:
    """(the spec's tokens as (kind, text), the :class:`Order` of ``param`` in it)."""
    toks = [(t.kind, t.text) for t in tokenize(spec)]
    at = [i for i, (kind, text) in enumerate(toks) if kind == "name" and text == param]
    if not at:
        raise InputError(f"the spec does not use the parameter {param!r}")
    if any(i + 1 < len(toks) and toks[i + 1][1] in ("(", "=") for i in at):
        raise InputError(f"{param!r} names a mechanism or a keyword in the spec; choose another name")
    return toks, Order(param, tuple(_uses(toks, param)))


def _uses(toks: list[tuple[str, str]], param: str) -> list[Use]:
    """Walk the tokens with a stack of (mechanism name, argument index, keyword) frames."""
    stack: list[list] = []
    out: list[Use] = []
    for i, (kind, text) in enumerate(toks):
        nxt = toks[i + 1][1] if i + 1 < len(toks) else ""
        if kind == "name" and nxt == "(":
            stack.append([text, 0, None])
        elif kind == "name" and nxt == "=" and stack:
            stack[-1][2] = text
        elif kind == "punct" and text == "," and stack:
            stack[-1][1] += 1
            stack[-1][2] = None
        elif kind == "punct" and text == ")" and stack:
            stack.pop()
        elif kind == "name" and text == param and stack:
            out.append(_use(stack, toks[i - 1][1] in ("=", "(", ",") and nxt in (",", ")")))
    return out


def _use(stack: list[list], whole: bool) -> Use:
    name, index, keyword = stack[-1]
    declared = getattr(lookup(name), "PARAMS", ())
    param = next((p for p in declared if p.name == keyword), None) if keyword else (
        declared[index] if index < len(declared) else None)
    kept = all(getattr(lookup(outer), "keeps_privacy_order", False) for outer, _, _ in stack[:-1])
    if param is None or not whole:
        return Use(name, None, (), kept, param is not None and param.kind == "integer")
    return Use(name, param.name, param.more_private, kept, param.kind == "integer")
