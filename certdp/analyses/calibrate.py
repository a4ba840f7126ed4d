"""Calibration: the optimal value of one mechanism parameter on a grid.

``calibrate("dpsgd(noise=x, rate=0.01, steps=1000)", "x", eps=1, delta=1e-5,
resolution=1/1000)`` returns the smallest x on the grid resolution·Z whose
*certified* guarantee meets the target (δ_M(ε) <= δ proved from above), with
the certified proof that the next grid value towards less privacy does not
(δ_M(ε) > δ proved from below) — so the answer is optimal at the stated
resolution, not just safe.

Monotonicity: more noise (noise, sigma, scale) and less sampling or fewer
steps (rate, steps, k) are post-processings that cannot increase δ_M(ε)
(data-processing inequality; composition of an extra step), so "meets the
target" is monotone in the parameter and a grid bisection finds the boundary.
Every value comes from the one dispatcher
(:func:`certdp.analyses.dispatch.delta_of`); when a grid value is undecided
(the target falls inside its enclosure) the dispatcher is asked again for a
narrower answer (finer PLD grid, more bits), up to :data:`MAX_REFINE` times;
then the result says so instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from certdp.analyses.dispatch import Answer, delta_of
from certdp.errors import InputError, check_budget
from certdp.mechanisms.spec import parse_spec, tokenize
from certdp.numerics.ball import to_ball
from certdp.numerics.exact import check_open_unit, check_nonnegative, check_positive, fraction_to_str

#: Parameters for which a larger value is more private, and a smaller one.
LARGER_IS_MORE_PRIVATE = frozenset({"noise", "sigma", "scale"})
SMALLER_IS_MORE_PRIVATE = frozenset({"rate", "steps", "k", "eps", "mu", "delta"})
#: How often an undecided grid value is re-asked with a narrower answer.
MAX_REFINE = 3

Direction = Literal["larger", "smaller"]


@dataclass(frozen=True)
class GridFact:
    """The certified δ_M(ε) at one grid value and what it proves."""

    value: Fraction
    answer: Answer
    meets: bool | None  # True: δ <= target proved; False: δ > target proved; None: undecided


@dataclass(frozen=True)
class Calibration:
    """The calibrated parameter and the two facts that make it optimal."""

    spec: str
    param: str
    direction: Direction
    eps: Fraction
    delta: Fraction
    resolution: Fraction
    best: GridFact  # meets the target
    neighbour: GridFact | None  # the next grid value towards less privacy (None: none exists)

    @property
    def value(self) -> Fraction:
        return self.best.value

    @property
    def optimal(self) -> bool:
        """The neighbour is proved to miss the target (or there is no neighbour)."""
        return self.neighbour is None or self.neighbour.meets is False

    def to_json(self) -> dict:
        def fact(f: GridFact | None) -> dict | None:
            if f is None:
                return None
            return {"value": fraction_to_str(f.value), "delta": f.answer.enclosure, "method": f.answer.method,
                    "meets_target": f.meets}
        return {"param": self.param, "value": fraction_to_str(self.value), "more_private": self.direction,
                "resolution": fraction_to_str(self.resolution), "target": {"eps": fraction_to_str(self.eps),
                "delta": fraction_to_str(self.delta)}, "optimal": self.optimal,
                "best": fact(self.best), "neighbour": fact(self.neighbour)}


def _template(spec: str, param: str) -> tuple[list[tuple[str, str]], Direction | None]:
    """(tokens as (kind, text), the direction implied by the keyword that names ``param``)."""
    toks = [(t.kind, t.text) for t in tokenize(spec)]
    uses = [i for i, (kind, text) in enumerate(toks) if kind == "name" and text == param]
    if not uses:
        raise InputError(f"the spec does not use the parameter {param!r}")
    if any(i + 1 < len(toks) and toks[i + 1][1] in ("(", "=") for i in uses):
        raise InputError(f"{param!r} names a mechanism or a keyword in the spec; choose another name")
    keys = {toks[i - 2][1] for i in uses if i >= 2 and toks[i - 1][1] == "="}
    direction: Direction | None = None
    if keys and keys <= LARGER_IS_MORE_PRIVATE:
        direction = "larger"
    elif keys and keys <= SMALLER_IS_MORE_PRIVATE:
        direction = "smaller"
    return toks, direction


def _spec_at(toks: list[tuple[str, str]], param: str, value: Fraction) -> str:
    out = []
    for kind, text in toks:
        if kind == "name" and text == param:
            text = fraction_to_str(value)
        out.append(text if kind != "end" else "")
        if text == ",":
            out.append(" ")
    return "".join(out)


def calibrate(spec: str, param: str, *, eps: object, delta: object, resolution: object = Fraction(1, 1000),
              more_private: Direction | None = None, start: object = 1) -> Calibration:
    """The optimal grid value of ``param`` in ``spec`` for the target (ε, δ); see the module doc."""
    e, d = check_nonnegative(eps, "eps"), check_open_unit(delta, "delta")
    res = check_positive(resolution, "resolution")
    toks, implied = _template(spec, param)
    direction = more_private or implied
    if direction not in ("larger", "smaller"):
        raise InputError(f"cannot tell whether a larger {param} is more private; give more_private "
                         "('larger' for noise-like, 'smaller' for rate/steps-like parameters)")
    cache: dict[int, GridFact] = {}
    target = to_ball(d)

    def fact(k: int) -> GridFact:
        if k not in cache:
            check_budget(f"calibrating {param}", len(cache), None)
            value = k * res
            mech = parse_spec(_spec_at(toks, param, value))
            for refine in range(MAX_REFINE + 1):
                ans = delta_of(mech, e, refine=refine)
                enc = ans.enclosure
                meets = True if enc.hi <= target else (False if enc.lo > target else None)
                if meets is not None:
                    break
            cache[k] = GridFact(value, ans, meets)
        return cache[k]

    # index k stands for the value k·resolution; "up" moves towards more privacy
    up = 1 if direction == "larger" else -1
    k0 = max(1, round(check_positive(start, "start") / res))

    def valid(k: int) -> bool:
        if k < 1:
            return False
        try:
            parse_spec(_spec_at(toks, param, k * res))
        except InputError:
            return False  # outside the parameter's domain (a rate above 1, a fractional count)
        return True

    if not valid(k0):
        raise InputError(f"{param} = {fraction_to_str(k0 * res)} is not a valid value in the spec")
    good = bad = None
    if fact(k0).meets:
        good, step = k0, 1  # walk towards less privacy until the target is missed
        while bad is None and step:
            cand = good - up * step
            if not valid(cand):
                step //= 2
            elif fact(cand).meets:
                good, step = cand, step * 2
            else:
                bad = cand
    else:
        bad, step = k0, 1  # walk towards more privacy until the target is met
        while good is None:
            cand = bad + up * step
            if not valid(cand):
                if step == 1:
                    raise InputError(f"no valid grid value of {param} meets the target")
                step //= 2
                continue
            if fact(cand).meets:
                good = cand
            else:
                bad, step = cand, step * 2
            if step > 2**62:
                raise InputError(f"no grid value of {param} meets the target")
    while bad is not None and abs(good - bad) > 1:  # bisection on the integer grid
        mid = (good + bad) // 2
        if fact(mid).meets:
            good = mid
        else:
            bad = mid
    return Calibration(spec, param, direction, e, d, res, fact(good), None if bad is None else fact(bad))
