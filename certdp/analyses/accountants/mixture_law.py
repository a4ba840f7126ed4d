"""The loss law of a *labelled* mixture of pairs, for the PLD engine.

A labelled mixture outputs (i, Y) with i drawn with weight w_i and Y from the i-th pair,
the same i under both neighbours; its privacy loss is the i-th pair's loss, so its loss
law is the weighted sum of the components' laws (atoms, continuous tails, masses at ±∞),
and its hockey-stick divergence is Σ w_i H_i.  Forgetting the label is a post-processing,
so the labelled mixture dominates the unlabelled one.

Used for the Gaussian on a truncated Poisson sample (``truncated_subsample``,
:mod:`certdp.mechanisms.truncated`): weight 1 − t on the Poisson-subsampled Gaussian of
sensitivity 1, t on that of sensitivity 2, t = P(Bin(n, q) >= B) enclosed in balls, in
each direction (add, remove) separately.  The mixture is an upper bound of the mechanism
only, so the source is one-sided (``two_sided`` False: no lower discretisation; the
engine reports [0, hi]).  Weights are balls: a tail or mass is enclosed for every weight
in them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.analyses.accountants.loss_laws import Atom, GaussianLaw, Loss, LossLaw, Relation, Side, SubsampledLaw


@dataclass(frozen=True, eq=False)
class MixtureLaw(LossLaw):
    """Σ w_i · law_i (weights are balls summing to 1)."""

    parts: tuple[tuple[arb, LossLaw], ...]

    def atoms(self) -> tuple[Atom, ...]:
        return tuple(Atom(t.loss, w * t.p, w * t.q) for w, law in self.parts for t in law.atoms())

    def p_inf(self) -> arb:
        return sum((w * law.p_inf() for w, law in self.parts), arb(0))

    def q_minf(self) -> arb:
        return sum((w * law.q_minf() for w, law in self.parts), arb(0))

    def has_continuous(self) -> bool:
        return any(law.has_continuous() for _, law in self.parts)

    def cont_tail(self, w: Loss | None, side: Side) -> arb:
        return sum((wt * law.cont_tail(w, side) for wt, law in self.parts if law.has_continuous()), arb(0))

    def range_f(self, tail: float) -> tuple[float, float]:
        ends = [law.range_f(tail) for _, law in self.parts]
        return min(a for a, _ in ends), max(b for _, b in ends)


class MixtureSource:
    """A one-step source for the PLD engine (the interface of
    :class:`certdp.analyses.accountants.discretise.LawSource`) whose law in each direction
    is a labelled mixture built by ``build(relation)``; upper discretisation only."""

    base = None
    rate = Fraction(1)
    profile_of = None
    anchor = None
    lattice = None
    adapts_to_grid = False

    def __init__(self, build: Callable[[Relation], LossLaw], label: str, discretise: Callable[..., Any],
                 two_sided: bool = False, path: str = "labelled mixture, upper bound only") -> None:
        #: a lower discretisation is valid (the law is the mechanism's own, not a dominating one)
        self.two_sided = two_sided
        #: the engine's name for this path in an answer's method line
        self.path = path
        self._build = build
        self._discretise = discretise  # discretise.one_step (passed in: no import cycle)
        self.label = label
        self._laws: dict[str, LossLaw] = {}

    def law(self, relation: Relation, h: Fraction, tail: float) -> LossLaw:
        if relation not in self._laws:
            self._laws[relation] = self._build(relation)
        return self._laws[relation]

    def range_f(self, tail: float) -> tuple[float, float]:
        lo, hi = 0.0, 0.0
        for rel in ("add", "remove"):
            a, b = self.law(rel, Fraction(1), tail).range_f(tail)  # type: ignore[arg-type]
            lo, hi = min(lo, a), max(hi, b)
        return lo, hi

    def one_step(self, relation: Relation, kind: Any, h: Fraction, bits: int, tail: float, max_points: int) -> Any:
        from certdp.errors import InputError  # noqa: PLC0415

        if kind == "lower" and not self.two_sided:
            raise InputError("a labelled mixture that dominates the mechanism has no lower discretisation")
        return self._discretise(self.law(relation, h, tail), h, bits, kind, tail, max_points)


def truncated_source(mech: Any, discretise: Callable[..., Any]) -> MixtureSource:
    """The labelled mixture of ``truncated_subsample`` (module doc): weight 1 − t on the
    Poisson-subsampled Gaussian of noise σ (sensitivity 1), t on that of noise σ/2;
    ``discretise`` is the engine's one-step discretisation of a loss law."""
    from certdp.mechanisms.truncated import truncation_probability  # noqa: PLC0415
    from certdp.numerics.ball import working_precision  # noqa: PLC0415

    sigma, q = Fraction(mech.noise), Fraction(mech.rate)
    with working_precision(256):
        t = truncation_probability(int(mech.size), q, int(mech.batch))

    def component(s: Fraction, relation: Relation) -> LossLaw:
        base = GaussianLaw(1 / (2 * s * s))
        return base if q == 1 else SubsampledLaw(base, q, relation)

    def build(relation: Relation) -> MixtureLaw:
        one = component(sigma, relation)
        if t == 0:
            return MixtureLaw(((arb(1), one),))
        return MixtureLaw(((1 - t, one), (t, component(sigma / 2, relation))))

    return MixtureSource(build, mech.spec(), discretise)
