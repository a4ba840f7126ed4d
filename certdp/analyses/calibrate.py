"""Calibration: a value of one mechanism parameter on a grid meeting an (ε, δ)
target, and — when monotonicity is proved — the optimal one.

``calibrate("dpsgd(noise=x, rate=0.01, steps=1000)", "x", eps=1, delta=1e-5,
resolution=1/1000)`` walks the grid resolution·{1, 2, ...} from ``start``
and bisects to a pair of adjacent grid values: one whose *certified* guarantee
meets the target (δ_M(ε) <= δ proved from above), next to one towards less
privacy that does not (δ_M(ε) > δ proved from below).  Every reported value
is certified; only the words depend on monotonicity:

* "optimal" (the smallest noise-like / largest rate-like value meeting the
  target) and "no positive grid value meets the target" need δ_M(ε) to be
  monotone in the parameter on the range the claim covers.  That is proved by
  the catalog's per-parameter rules (:mod:`certdp.analyses.calibrate_order`:
  Gaussian σ and Laplace scale larger, rates, step counts and guarantees
  smaller, randomized response p smaller on [1/2, ∞) only, ...);
* otherwise (a user formula's σ, a value outside a rule's range) the answer
  says "a value meeting the target" / "no value found on the scanned grid" and
  carries the assumption it would need (:attr:`Calibration.assumptions`, in
  the text and the JSON).  A stated direction contradicting a rule proved on
  the parameter's whole range is refused.

Calibration writes no certificate.  Every value comes from the one dispatcher: first
coarse PLD looks (:func:`certdp.analyses.dispatch.screen_delta`, certified on any grid,
:data:`SCREEN_COARSEN`), then :func:`certdp.analyses.dispatch.delta_of`; when a grid value is undecided
(the target falls inside its enclosure) the dispatcher is asked again for a
narrower answer (finer PLD grid, more bits), up to :data:`MAX_REFINE` times;
then the result says so instead of guessing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from certdp.analyses.calibrate_order import Direction, Order, template
from certdp.analyses.dispatch import Answer, delta_of, screen_delta
from certdp.errors import CertdpError, InputError, check_budget
from certdp.mechanisms.params import interval_text
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import check_open_unit, check_nonnegative, check_positive, fraction_to_str

#: How often an undecided grid value is re-asked with a narrower answer.
MAX_REFINE = 3
#: The walk stops (and says so) after steps this large (in grid steps).
MAX_STEP = 2**62
#: A grid value is first looked at on PLD grids 2^c times coarser than the default, for c
#: in SCREEN_COARSEN in turn (:func:`certdp.analyses.dispatch.screen_delta`: h·8 costs
#: ~1/10, h·2 ~1/4 of the default answer at σ 1.2, q 0.01, T 1000); only values these looks
#: leave undecided get the default, narrowed answer (a look that left two values in a row
#: undecided is skipped from then on, and so is every look but the finest when the float
#: guide puts the value's δ within half that look's latest enclosure width of the target).
#: Any grid is certified, so this only saves work: far from the target (the walk's first
#: steps, most of the bisection) a coarse enclosure already decides.  Only the reported
#: optimum is re-evaluated with the default answer (reusing its looks on the grids the
#: narrowing passes through), so that its enclosure has the default width (1 % of δ); the
#: neighbour that misses and a most private value that misses keep the enclosure of the
#: coarsest look that decided them (certified, wider).  Measured (σ for ε 1, δ 1e-5,
#: q 0.01, T 1000; the 60-epoch MNIST case, resolution 0.001): see docs/bench.md.
SCREEN_COARSEN = (3, 1, 0, -1)
#: The search is guided by floats (which values to evaluate, never what they prove): the
#: log of each evaluated value's δ enclosure middle, interpolated linearly in the grid index.
#: The walk steps to the guide's crossing of the target when it lies ahead, at most
#: GUIDE_REACH times the last step where δ is proved monotone over the jump and at most
#: twice it elsewhere (else it doubles its step, as without a guide); the
#: bracket is cut at the guide's crossing (regula falsi), and by halves after
#: GUIDED_SLOW_STEPS guided cuts in a row that did not halve it.  A wrong guide costs
#: evaluations, never soundness: every bracket end is a certified fact.
GUIDE_REACH = 64
GUIDED_SLOW_STEPS = 3


@dataclass(frozen=True)
class GridFact:
    """The certified δ_M(ε) at one grid value and what it proves."""

    value: Fraction
    answer: Answer
    meets: bool | None  # True: δ <= target proved; False: δ > target proved; None: undecided

    def to_json(self) -> dict:
        return {"value": fraction_to_str(self.value), "delta": self.answer.enclosure.to_json(), "method": self.answer.method,
                "meets_target": self.meets}


@dataclass(frozen=True)
class Calibration:
    """What the grid search certified, and what its words rest on.

    ``best`` meets the target (None: no scanned value did); ``neighbour`` is the
    next grid value towards less privacy (None: none is valid); ``missed`` is,
    when nothing was found, the most private value scanned (it misses or is
    undecided); ``scanned`` the range of grid values evaluated; ``exhausted``
    whether the walk towards more privacy reached the end of the parameter's
    domain (else it stopped after :data:`MAX_STEP` grid steps).  ``order`` holds
    the proved monotonicity rules (:mod:`certdp.analyses.calibrate_order`).
    """

    spec: str
    param: str
    direction: Direction
    eps: Fraction
    delta: Fraction
    resolution: Fraction
    best: GridFact | None
    neighbour: GridFact | None
    order: Order
    scanned: tuple[Fraction, Fraction]
    missed: GridFact | None = None
    exhausted: bool = True

    @property
    def value(self) -> Fraction | None:
        """The certified value meeting the target (None when none was found)."""
        return None if self.best is None else self.best.value

    @property
    def found(self) -> bool:
        return self.best is not None

    @property
    def claim_range(self) -> tuple[Fraction | None, Fraction | None]:
        """The parameter range whose monotonicity the claim ("optimal" or "none exists")
        needs: from the value that misses (the neighbour, else the best value, else the
        most private value scanned) to the end of the less private side."""
        anchor = (self.neighbour or self.best or self.missed).value  # type: ignore[union-attr]
        return (None, anchor) if self.direction == "larger" else (anchor, None)

    @property
    def monotone(self) -> bool:
        """Is δ(ε) proved monotone in the parameter on :attr:`claim_range`?"""
        return self.order.proved_on(self.direction, *self.claim_range)

    @property
    def optimal(self) -> bool:
        """Proved: the value meets the target and every grid value towards less privacy
        misses it (the neighbour misses, or there is none, and δ is proved monotone)."""
        return (self.best is not None and (self.neighbour is None or self.neighbour.meets is False)
                and self.monotone)

    @property
    def none_exists(self) -> bool:
        """Proved: no positive grid value meets the target (the most private valid
        value misses, and δ is proved monotone on the rest)."""
        return (self.best is None and self.exhausted and self.missed is not None and self.missed.meets is False
                and self.monotone)

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The unproved hypotheses of the answer: the monotonicity its words would need
        (when not proved), then the mechanisms' own (recursive, from the dispatcher)."""
        out = [] if self.monotone else [self.order.assumption(self.direction, *self.claim_range)]
        for f in (self.best, self.neighbour, self.missed):
            for a in (() if f is None else f.answer.assumptions):
                if a not in out:
                    out.append(a)
        return tuple(out)

    def to_json(self) -> dict:
        def fact(f: GridFact | None) -> dict | None:
            return None if f is None else f.to_json()

        proved = self.order.proved_range(self.direction)
        return {"param": self.param, "value": None if self.value is None else fraction_to_str(self.value),
                "found": self.found, "more_private": self.direction,
                "resolution": fraction_to_str(self.resolution), "target": {"eps": fraction_to_str(self.eps),
                "delta": fraction_to_str(self.delta)}, "optimal": self.optimal, "none_exists": self.none_exists,
                "monotone": {"proved": self.monotone, "needed_on": interval_text(*self.claim_range),
                             "proved_on": None if proved is None else interval_text(*proved),
                             "rules": self.order.rules(self.direction)},
                "assumptions": list(self.assumptions),
                "scanned": {"from": fraction_to_str(self.scanned[0]), "to": fraction_to_str(self.scanned[1]),
                            "domain_end_reached": self.exhausted},
                "best": fact(self.best), "neighbour": fact(self.neighbour), "missed": fact(self.missed)}


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
    """A certified grid value of ``param`` in ``spec`` meeting the target (ε, δ), optimal
    when monotonicity is proved; see the module doc."""
    e, d = check_nonnegative(eps, "eps"), check_open_unit(delta, "delta")
    res = check_positive(resolution, "resolution")
    toks, order = template(spec, param)
    if order.integer and res.denominator != 1:
        raise InputError(f"{param} is an integer parameter: the resolution must be a whole number, got {resolution}")
    k0 = max(1, round(check_positive(start, "start") / res))
    if more_private is not None and more_private not in ("larger", "smaller"):
        raise InputError(f"more_private must be 'larger' or 'smaller', got {more_private!r}")
    direction = more_private or order.implied(k0 * res)
    if direction is None:
        raise InputError(f"no rule proves which way {param} is more private at {fraction_to_str(k0 * res)}; give the "
                         "direction (--more-private / more_private: 'larger' or 'smaller'); the answer then states "
                         "the monotonicity it assumes")
    order.check_direction(direction)
    cache: dict[int, GridFact] = {}
    target = to_ball(d)
    log_target = math.log(float(d)) if float(d) > 0 else None

    screened: set[int] = set()  # grid values decided by a coarse look only
    misses: dict[int, int] = {}  # coarsening → how many values in a row it left undecided
    looks: dict[int, dict[int, Enclosure]] = {}  # k → its looks' enclosures by grid refinement (reused)
    spread: dict[int, float] = {}  # coarsening → log(hi/lo) of its latest look (a float guide)

    def decide(ans: Answer) -> bool | None:
        enc = ans.enclosure
        return True if enc.hi <= target else (False if enc.lo > target else None)

    def full(k: int) -> GridFact:
        value = k * res
        mech = parse_spec(_spec_at(toks, param, value))
        for refine in range(MAX_REFINE + 1):
            ans = delta_of(mech, e, refine=refine, known=looks.get(k) if refine == 0 else None)
            meets = decide(ans)
            if meets is not None:
                break
        return GridFact(value, ans, meets)

    def fact(k: int) -> GridFact:
        if k not in cache:
            check_budget(f"calibrating {param}", len(cache), None)
            value = k * res
            look = None
            guess = predicted(k)
            for i, c in enumerate(SCREEN_COARSEN):
                if misses.get(c, 0) >= 2:
                    continue  # this grid decided none of the last two values: too coarse here
                if (guess is not None and c in spread and i < len(SCREEN_COARSEN) - 1
                        and abs(guess - log_target) < spread[c] / 2):  # type: ignore[operator]
                    continue  # the guide puts the value inside this grid's usual enclosure
                try:
                    look = screen_delta(parse_spec(_spec_at(toks, param, value)), e, c, looks.setdefault(k, {}))
                except CertdpError:
                    look = None  # (an InputError too: the default answer then says why)
                if look is None:
                    break
                lo, hi = float(look.enclosure.lo_exact), float(look.enclosure.hi_exact)
                spread[c] = math.log(hi / lo) if lo > 0 else math.inf
                misses[c] = 0 if decide(look) is not None else misses.get(c, 0) + 1
                if decide(look) is not None:
                    break
            if look is not None and decide(look) is not None:
                cache[k] = GridFact(value, look, decide(look))
                screened.add(k)
            else:
                cache[k] = full(k)
        return cache[k]

    def estimate(k: int) -> float | None:
        """log δ at an evaluated grid value, a float guide (the geometric middle of its
        certified enclosure); None without a positive lower end."""
        enc = cache[k].answer.enclosure
        lo, hi = float(enc.lo_exact), float(enc.hi_exact)
        return (math.log(lo) + math.log(hi)) / 2 if lo > 0 and log_target is not None else None

    def line(a: int, b: int) -> tuple[float, float] | None:
        """(log δ at a, its slope per grid step) through the guides at a and b."""
        ea, eb = estimate(a), estimate(b)
        return None if ea is None or eb is None or a == b or ea == eb else (ea, (eb - ea) / (b - a))

    def predicted(k: int) -> float | None:
        """log δ at k interpolated (or extrapolated) from the two nearest evaluated values."""
        near = sorted(cache, key=lambda j: abs(j - k))[:2]
        fit = line(*near) if len(near) == 2 else None
        return None if fit is None else fit[0] + fit[1] * (k - near[0])

    def crossing(a: int, b: int) -> float | None:
        """Where the line through the guides at a and b reaches log δ = log target."""
        fit = line(a, b)
        x = None if fit is None else a + (log_target - fit[0]) / fit[1]  # type: ignore[operator]
        return x if x is not None and math.isfinite(x) else None  # (a nearly flat guide: no crossing)

    def reported(k: int | None) -> GridFact | None:
        """fact(k), with the default answer when only the coarse look decided it (and
        the default answer decides the same way: both are certified, so they cannot
        contradict each other; an undecided default answer keeps the coarse one)."""
        if k is None:
            return None
        if k in screened:
            screened.discard(k)
            again = full(k)
            if again.meets == cache[k].meets:
                cache[k] = again
        return cache[k]

    # index k stands for the value k·resolution; "up" moves towards more privacy
    up = 1 if direction == "larger" else -1

    def valid(k: int) -> bool:
        if k < 1:
            return False
        try:
            parse_spec(_spec_at(toks, param, k * res))
        except InputError:
            return False  # outside the parameter's domain (a rate above 1, a fractional count)
        return True

    def walk_step(here: int, last: int | None, step: int) -> int:
        """The walk's next step: doubling, or — when the guides of the last two values
        put the target's crossing ahead — a step to it: within GUIDE_REACH·step where δ is
        proved monotone between here and there, else no longer than the doubling (outside
        a proved range δ may turn, and a long jump could pass over every meeting value)."""
        x = None if last is None else crossing(last, here)
        ahead = -up if cache[here].meets else up
        if x is None or (x - here) * ahead <= 0:
            return step * 2
        dist = max(1, round(abs(x - here)))
        if dist > 2 * step:
            there = here + ahead * min(dist, GUIDE_REACH * step)
            a, b = sorted((here * res, there * res))
            dist = min(dist, GUIDE_REACH * step if order.proved_on(direction, a, b) else 2 * step)
        return dist

    if not valid(k0):
        raise InputError(f"{param} = {fraction_to_str(k0 * res)} is not a valid value in the spec")
    good = bad = None
    exhausted = True
    if fact(k0).meets:
        good, step, last = k0, 1, None  # walk towards less privacy until the target is missed
        while bad is None and step:
            cand = good - up * step
            if not valid(cand):
                step //= 2
            elif fact(cand).meets:
                good, last, step = cand, good, walk_step(cand, good, step)
            else:
                bad = cand
    else:
        bad, step, last = k0, 1, None  # walk towards more privacy until the target is met
        while good is None:
            cand = bad + up * step
            if not valid(cand):
                if step == 1:
                    break  # bad is the most private valid grid value
                step //= 2
                continue
            if fact(cand).meets:
                good = cand
            else:
                bad, last, step = cand, bad, walk_step(cand, bad, step)
            if step > MAX_STEP:
                exhausted = False
                break
    slow = 0  # guided steps in a row that did not halve the bracket
    while good is not None and bad is not None and abs(good - bad) > 1:  # bisection on the integer grid
        lo_k, hi_k = min(good, bad), max(good, bad)
        x = crossing(good, bad) if slow < GUIDED_SLOW_STEPS else None
        mid = (good + bad) // 2 if x is None else min(max(round(x), lo_k + 1), hi_k - 1)
        before = hi_k - lo_k
        if fact(mid).meets:
            good = mid
        else:
            bad = mid
        slow = 0 if x is None or 2 * abs(good - bad) <= before else slow + 1
    scanned = (min(cache) * res, max(cache) * res)
    if good is None:
        return Calibration(spec, param, direction, e, d, res, None, None, order, scanned, cache[bad], exhausted)
    return Calibration(spec, param, direction, e, d, res, reported(good), None if bad is None else cache[bad], order, scanned)
