"""dp_accounting interop: ``DpEvent`` → certdp specs, and a certified
``PrivacyAccountant``.

A dp_accounting user describes a computation as a ``DpEvent``; this module
maps it to certdp mechanisms **exactly** — every float parameter is the
dyadic rational it stores (``Fraction(0.1)`` = 3602879701896397/2^55), since
that is the number dp_accounting itself computes with — and answers
``get_epsilon`` / ``get_delta`` with certdp's certified enclosures through the
one composition route (:func:`certdp.analyses.dispatch.composition_accountant`,
the route of ``certdp account``: the characteristic-function accountant of
Zhu, Dong & Wang, *Optimal accounting of differential privacy via
characteristic function*, AISTATS 2022, for Gaussian compositions and finite
mechanisms such as randomized response, the certified PLD engine for the rest,
e.g. Poisson-sampled Gaussians and Laplaces), returning the upper end
rounded up to a float: a certified upper bound on the true ε (δ) of the event.

Events (dp_accounting 0.6 names; recognised by class name, so converting an
event needs no import of dp_accounting).  Under ``ADD_OR_REMOVE_ONE`` (the default):

================================  ==============================================
``GaussianDpEvent(σ)``            ``gaussian(sigma=σ)``
``LaplaceDpEvent(b)``             ``laplace(scale=b)``
``PoissonSampledDpEvent(q, E)``   ``subsample(M, rate=q)`` (both directions, add
                                  and remove, in the engine): see
                                  :mod:`certdp.interop.sampled_events`
``SelfComposedDpEvent(E, k)``     ``compose(E, k=k)``
``ComposedDpEvent([...])``        the list of its parts (``event_to_specs``)
``DiscreteLaplaceDpEvent(a, Δ)``  ``discrete_laplace(scale=1/a, sensitivity=Δ)``
                                  (also inside ``PoissonSampledDpEvent``)
``ZCDpEvent(ρ)``                  ``zcdp(rho=ρ)``: an UPPER bound (Canonne, Kamath &
                                  Steinke 2020 Prop 12); parts add up to one ρ;
                                  mixed with others: the better of RDP and PLD
``TruncatedSubsampledGaussian``   ``truncated_subsample(noise, rate, batch, size)``:
``DpEvent(n, q, B, σ)``           an UPPER bound (a labelled mixture of sampled
                                  Gaussians; RDP and PLD, the better)
``MixtureOfGaussiansDpEvent``     ``gaussian_mixture(sigma, sensitivities, probs)``:
                                  an exact PLD (both orders)
``NoOpDpEvent``                   nothing
================================  ==============================================

Under ``REPLACE_SPECIAL`` (a record replaced by a zero record): the events above with the
same pairs (sensitivity 1), and ``SingleEpochTreeAggregationDpEvent(σ, T)`` →
``tree_aggregation(noise=σ, steps=max T)`` (exactly Gaussian, μ² = ⌈log₂(T+1)⌉/σ²).

Answers are refined as ``certdp account`` refines them (its default width); ``width=``
(constructor or ``epsilon_enclosure``) asks for a narrower ε.

Under ``REPLACE_ONE`` (``CertifiedAccountant(NeighboringRelation.REPLACE_ONE)``),
events whose replace-one pair is mapped exactly, and their compositions:

==========================================  ====================================
``GaussianDpEvent(σ)``                      ``gaussian(sigma=σ, sensitivity=2)``
``LaplaceDpEvent(b)``                       ``laplace(scale=b, sensitivity=2)``
``DiscreteLaplaceDpEvent(a, Δ)``            ``discrete_laplace(scale=1/a, sensitivity=2Δ)``
``RandomizedResponseDpEvent(p, 2)``         ``randomized_response(p=1 − p/2)``
``RandomizedResponseDpEvent(p, k)``, k>=3   ``randomized_response_k(p=1 − p + p/k, k=k)``
``RandomizedResponseDpEvent(p, 1)``         nothing (one bucket)
``ZCDpEvent(ρ)``                            ``zcdp(rho=ρ)`` (upper bound)
``PoissonSampledDpEvent(q, E)``             ``subsample_replace(M, rate=q)``, E Gaussian / Laplace
``SampledWithoutReplacementDpEvent``        ``subset_replace(M, batch=b, n=n)`` (upper bound)
``SampledWithReplacementDpEvent``           ``sample_wr(gaussian(sigma=σ), batch=b, n=n)`` (upper bound)
``SingleEpochTreeAggregationDpEvent(σ, T)`` ``tree_aggregation(noise=σ, steps=T, sensitivity=2)``
``NoOpDpEvent``, ``NonPrivateDpEvent``      as above
==========================================  ====================================

Sensitivity 2 under replace-one is dp_accounting's own definition (dp_event.py: values of
norm <= C, noise_multiplier = s/C, so replacing one value moves the sum by up to 2C) and
the convention of its ``PLDAccountant`` for the Gaussian (which refuses the Laplace there);
its ``RdpAccountant`` uses sensitivity 1 for both, which that definition makes optimistic.

As in dp_accounting's own accountants, ``NonPrivateDpEvent``, a noise
multiplier 0 and a randomized response with noise 0 make the accountant answer
ε = ∞ (δ = 1), and a sampling probability 0 (or ρ = 0) is a no-op.  Everything else raises
:class:`UnsupportedEventError` (a :class:`certdp.errors.InputError` and, when
dp_accounting is installed, also dp_accounting's ``UnsupportedEventError``) with
a one-line reason: randomized response under add-or-remove-one or REPLACE_SPECIAL,
tree aggregation under add-or-remove-one (dp_accounting defines it under
REPLACE_SPECIAL only), truncated sampling and mixtures of Gaussians under replace-one
(a mixture against a mixture: no pair in the engine), the sampling events
:mod:`certdp.interop.sampled_events` does not convert (its docstring), (ξ, ρ)-zCDP
with ξ > 0, repeat-and-select and dp_accounting's ``UnsupportedDpEvent``.  (dp_accounting 0.6 has no
``EpsilonDeltaDpEvent``; an (ε, δ)-DP guarantee is certdp's
``approx_dp(eps=..., delta=...)``.)
"""

from __future__ import annotations

import enum
import warnings
import math
import numbers
import operator
from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.interop.sampled_events import SAMPLED_EVENTS, sampled_spec
from certdp.numerics.exact import fraction_to_str

try:  # the optional extra `interop`; the converters below work without it
    import dp_accounting as _dpa
except ImportError:  # pragma: no cover - exercised without the extra (tests/interop/test_without_extra.py)
    _dpa = None


class UnsupportedEvent(InputError):
    """An event certdp cannot account (also dp_accounting's UnsupportedEventError when installed)."""


if _dpa is not None:
    class UnsupportedEventError(UnsupportedEvent, _dpa.UnsupportedEventError):  # type: ignore[misc]
        """Raised for events certdp does not support (both an InputError and dp_accounting's error)."""
else:  # pragma: no cover
    UnsupportedEventError = UnsupportedEvent  # type: ignore[misc]


def _fraction(x: Any, what: str) -> Fraction:
    """The exact value of a parameter (a float is the dyadic rational it stores)."""
    if isinstance(x, bool):
        raise UnsupportedEventError(f"{what} must be a number, got {x!r}")
    try:
        if isinstance(x, numbers.Rational):  # int, Fraction, numpy integers
            return Fraction(x.numerator, x.denominator)
        ratio = getattr(x, "as_integer_ratio", None)  # float, numpy floating types
        if ratio is None:
            raise UnsupportedEventError(f"{what} must be a number, got {x!r}")
        return Fraction(*ratio())
    except (OverflowError, ValueError):
        raise UnsupportedEventError(f"{what} must be finite, got {x!r}") from None


def _count(x: Any, what: str) -> int:
    try:
        k = operator.index(x)  # int, numpy integers
    except TypeError:
        raise UnsupportedEventError(f"{what} must be a non-negative integer, got {x!r}") from None
    if isinstance(x, bool) or k < 0:
        raise UnsupportedEventError(f"{what} must be a non-negative integer, got {x!r}")
    return k


class Relation(enum.Enum):
    """The neighbouring relations this module accounts (dp_accounting's ``NeighboringRelation``
    is parsed into one of these once, at the boundary: :func:`parse_relation`)."""

    ADD_OR_REMOVE_ONE = "add-or-remove-one"
    REPLACE_ONE = "replace-one"
    #: a record replaced by a special (zero) record (Kairouz et al. 2021 Def 1.1): for every
    #: event accepted under it, the pair of add-or-remove-one (a zero record adds nothing)
    REPLACE_SPECIAL = "replace-special"


def parse_relation(rel: Any) -> Relation:
    """dp_accounting's ``NeighboringRelation`` (None: add-or-remove-one) as a :class:`Relation`;
    ``REPLACE_SPECIAL`` and anything else is refused."""
    if rel is None or isinstance(rel, Relation):
        return rel or Relation.ADD_OR_REMOVE_ONE
    if _dpa is not None:
        if rel == _dpa.NeighboringRelation.ADD_OR_REMOVE_ONE:
            return Relation.ADD_OR_REMOVE_ONE
        if rel == _dpa.NeighboringRelation.REPLACE_ONE:
            return Relation.REPLACE_ONE
        if rel == _dpa.NeighboringRelation.REPLACE_SPECIAL:
            return Relation.REPLACE_SPECIAL
    raise UnsupportedEventError(f"neighbouring relation {rel} is not supported "
                                "(certdp accounts ADD_OR_REMOVE_ONE, REPLACE_ONE and REPLACE_SPECIAL)")


#: event classes refused under every relation, with the one-line reason
_REFUSED = {
    "RepeatAndSelectDpEvent": "repeat-and-select has only an RDP analysis in dp_accounting, none in certdp",
    "UnsupportedDpEvent": "dp_accounting's own marker for an event no accountant supports",
}

#: one mechanism step that is not private at all (dp_accounting: ε = ∞)
_NON_PRIVATE = "non-private"


class _Walk:
    """The (spec, count) items of an event, in order, and whether a non-private
    part (ε = ∞) occurred.  Items with count 0 are kept, so that ``supports``
    (which composes 0 times) still validates and routes every part.

    Under ``Relation.REPLACE_ONE`` only events whose replace-one pair is mapped
    exactly are accepted (the Gaussian and Laplace at sensitivity 2, randomized
    response, zCDP); under add-or-remove-one, randomized response (which
    dp_accounting leaves undefined there) is refused."""

    def __init__(self, relation: Relation = Relation.ADD_OR_REMOVE_ONE) -> None:
        self.relation = relation
        self.items: list[tuple[str, int]] = []
        self.non_private = False

    def visit(self, event: Any, count: int) -> None:
        name = type(event).__name__
        if name == "NonPrivateDpEvent":
            self.non_private = True
            return
        if name == "SelfComposedDpEvent":
            self.visit(event.event, count * _count(event.count, "SelfComposedDpEvent.count"))
            return
        if name == "ComposedDpEvent":
            for part in event.events:
                self.visit(part, count)
            return
        spec = self._step(event)
        if spec is _NON_PRIVATE:
            self.non_private = True
        elif spec is not None:
            self.items.append((spec, count))

    def _step(self, event: Any) -> str | None:
        """The certdp spec of one mechanism step (validated), None for a step that releases
        nothing, ``_NON_PRIVATE`` for ε = ∞; raises for anything else."""
        name = type(event).__name__
        if name == "NoOpDpEvent":
            return None
        if name == "RandomizedResponseDpEvent":
            return self._randomized_response(event)
        if name == "ZCDpEvent":
            return self._zcdp(event)
        if name in ("GaussianDpEvent", "LaplaceDpEvent"):
            noise = _fraction(event.noise_multiplier, f"{name}.noise_multiplier")
            if noise == 0:  # dp_accounting: not private
                return _NON_PRIVATE
            kind, arg = ("gaussian", "sigma") if name == "GaussianDpEvent" else ("laplace", "scale")
            # dp_event.py: each value has norm <= C and noise_multiplier = s/C, so replacing one
            # value moves the sum by up to 2C: sensitivity 2 (dp_accounting's PLDAccountant for
            # the Gaussian; its RdpAccountant uses 1, optimistic by the event's own definition)
            sens = "" if self.relation is not Relation.REPLACE_ONE else ", sensitivity=2"
            return self._checked(f"{kind}({arg}={fraction_to_str(noise)}{sens})", event)
        if name == "DiscreteLaplaceDpEvent":
            return self._discrete_laplace(event)
        if name == "SingleEpochTreeAggregationDpEvent":
            return self._tree_aggregation(event)
        if name == "TruncatedSubsampledGaussianDpEvent":
            return self._truncated(event)
        if name == "MixtureOfGaussiansDpEvent":
            return self._mixture(event)
        if name in SAMPLED_EVENTS:  # Poisson, without and with replacement: certdp.interop.sampled_events
            return sampled_spec(self, event, replace=self.relation is Relation.REPLACE_ONE, fraction=_fraction,
                                count=_count, error=UnsupportedEventError, non_private=_NON_PRIVATE)
        if name in _REFUSED:
            raise UnsupportedEventError(f"{name} is not supported by certdp: {_REFUSED[name]}")
        raise UnsupportedEventError(f"{name} is not supported by certdp (an event class it does not know)")

    def _discrete_laplace(self, event: Any) -> str | None:
        """dp_accounting's pmf e^{−a|x|}·tanh(a/2) on the integers, integer sensitivity Δ, is
        certdp's ``discrete_laplace(scale=1/a, sensitivity=Δ)``; under REPLACE_ONE the
        sensitivity doubles (2Δ), as for the Gaussian and Laplace (dp_event.py: values with
        ||v||_1 <= C, sensitivity C).  a = 0 is not private."""
        a = _fraction(event.noise_parameter, "DiscreteLaplaceDpEvent.noise_parameter")
        sens = _count(event.sensitivity, "DiscreteLaplaceDpEvent.sensitivity")
        if a < 0 or sens == 0:
            raise UnsupportedEventError(f"DiscreteLaplaceDpEvent needs noise_parameter >= 0 and sensitivity >= 1, "
                                        f"got {event.noise_parameter!r}, {event.sensitivity!r}")
        if a == 0:
            return _NON_PRIVATE
        if self.relation is Relation.REPLACE_ONE:
            sens *= 2
        return self._checked(f"discrete_laplace(scale={fraction_to_str(1 / a)}, sensitivity={sens})", event)

    def _tree_aggregation(self, event: Any) -> str | None:
        """``tree_aggregation(noise=σ, steps=T)``, T the largest of ``step_counts`` (a record
        sits in one leaf of one tree: depth ⌈log₂(T + 1)⌉, Kairouz et al. 2021 App. D),
        exactly μ-GDP with μ² = Δ²·depth/σ².  dp_accounting defines the event under
        REPLACE_SPECIAL (a record replaced by a zero record: Δ = 1); under REPLACE_ONE a
        node moves by up to 2C (Δ = 2, the convention of the Gaussian event).  Under
        ADD_OR_REMOVE_ONE a removed record shifts the stream, which dp_accounting leaves
        undefined: refused.  σ = 0 is not private; no steps (all counts 0) release nothing."""
        if self.relation is Relation.ADD_OR_REMOVE_ONE:
            raise UnsupportedEventError(
                "SingleEpochTreeAggregationDpEvent is defined by dp_accounting for REPLACE_SPECIAL only "
                "(a record replaced by a zero record in its slot): use CertifiedAccountant("
                "NeighboringRelation.REPLACE_SPECIAL) or REPLACE_ONE")
        counts = event.step_counts
        if isinstance(counts, (list, tuple)):
            if not counts:
                raise UnsupportedEventError("SingleEpochTreeAggregationDpEvent.step_counts must not be empty")
            steps = max(_count(c, "SingleEpochTreeAggregationDpEvent.step_counts") for c in counts)
        else:
            steps = _count(counts, "SingleEpochTreeAggregationDpEvent.step_counts")
        noise = _fraction(event.noise_multiplier, "SingleEpochTreeAggregationDpEvent.noise_multiplier")
        if noise < 0:
            raise UnsupportedEventError(f"SingleEpochTreeAggregationDpEvent needs noise_multiplier >= 0, "
                                        f"got {event.noise_multiplier!r}")
        if steps == 0:
            return None
        if noise == 0:
            return _NON_PRIVATE
        sens = ", sensitivity=2" if self.relation is Relation.REPLACE_ONE else ""
        return self._checked(f"tree_aggregation(noise={fraction_to_str(noise)}, steps={steps}{sens})", event)

    def _truncated(self, event: Any) -> str | None:
        """``truncated_subsample(noise=σ, rate=q, batch=B, size=n)``: an upper bound through
        its Rényi curve (a labelled mixture of sensitivity-1 and -2 Poisson-subsampled
        Gaussians, weight P(Bin(n, q) >= B) on the latter; dp_accounting mixes the same two
        PLDs with n − 1 in place of n).  Add-or-remove-one and REPLACE_SPECIAL; under
        REPLACE_ONE both outputs are mixtures, for which certdp has no curve: refused.
        q = 0, B = 0 or n = 0 release nothing; σ = 0 is not private."""
        if self.relation is Relation.REPLACE_ONE:
            raise UnsupportedEventError(
                "TruncatedSubsampledGaussianDpEvent under REPLACE_ONE is not supported: a truncated Poisson "
                "sample under replace-one is a mixture against a mixture, for which certdp has no curve")
        what = "TruncatedSubsampledGaussianDpEvent"
        n = _count(event.dataset_size, f"{what}.dataset_size")
        b = _count(event.truncated_batch_size, f"{what}.truncated_batch_size")
        q = _fraction(event.sampling_probability, f"{what}.sampling_probability")
        noise = _fraction(event.noise_multiplier, f"{what}.noise_multiplier")
        if not 0 <= q <= 1 or noise < 0:
            raise UnsupportedEventError(f"{what} needs 0 <= sampling_probability <= 1 and noise_multiplier >= 0, "
                                        f"got {event.sampling_probability!r}, {event.noise_multiplier!r}")
        if q == 0 or b == 0 or n == 0:  # dp_accounting: a no-op
            return None
        if noise == 0:
            return _NON_PRIVATE
        return self._checked(f"truncated_subsample(noise={fraction_to_str(noise)}, rate={fraction_to_str(q)}, "
                             f"batch={b}, size={n})", event)

    def _mixture(self, event: Any) -> str | None:
        """``gaussian_mixture(sigma=σ, sensitivities="c_1, ...", probs="p_1, ...")``: N(0, σ²)
        against Σ p_i N(c_i, σ²), both orders, an exact PLD.  dp_accounting defines it under
        ADD_OR_REMOVE_ONE and REPLACE_SPECIAL; REPLACE_ONE (a mixture against a mixture) is
        refused.  The float probabilities are taken exactly and divided by their sum when it
        is within 1e-9 of 1 (floats such as 0.99 + 0.01 rarely sum to exactly 1); otherwise
        refused.  Sensitivities all 0 release nothing; σ = 0 is not private."""
        what = "MixtureOfGaussiansDpEvent"
        if self.relation is Relation.REPLACE_ONE:
            raise UnsupportedEventError(f"{what} under REPLACE_ONE is not supported: dp_accounting defines it "
                                        "under ADD_OR_REMOVE_ONE and REPLACE_SPECIAL only")
        sigma = _fraction(event.standard_deviation, f"{what}.standard_deviation")
        cs = [_fraction(c, f"{what}.sensitivities") for c in event.sensitivities]
        ps = [_fraction(p, f"{what}.sampling_probs") for p in event.sampling_probs]
        total = sum(ps, Fraction(0))
        if (not cs or len(cs) != len(ps) or sigma < 0 or any(c < 0 for c in cs) or any(p < 0 for p in ps)
                or abs(total - 1) > Fraction(1, 10**9)):
            raise UnsupportedEventError(f"{what} needs standard_deviation >= 0, sensitivities >= 0 and as many "
                                        "probabilities >= 0 summing to 1")
        kept = [(c, p / total) for c, p in zip(cs, ps) if p > 0]
        if all(c == 0 for c, _ in kept):  # dp_accounting: nothing is released
            return None
        if sigma == 0:
            return _NON_PRIVATE
        merged: dict[Fraction, Fraction] = {}
        for c, p in kept:
            merged[c] = merged.get(c, Fraction(0)) + p
        cl = ", ".join(fraction_to_str(c) for c in merged)
        pl = ", ".join(fraction_to_str(p) for p in merged.values())
        return self._checked(f'gaussian_mixture(sigma={fraction_to_str(sigma)}, sensitivities="{cl}", probs="{pl}")',
                             event)

    def _randomized_response(self, event: Any) -> str | None:
        """dp_accounting's k-ary randomized response under REPLACE_ONE: the true bucket with
        probability 1 − p + p/k, each other with p/k.  For k = 2 its pair on neighbours x ≠ x'
        is exactly certdp's binary ``randomized_response(p=1 − p/2)`` ((1 − p/2, p/2) against
        (p/2, 1 − p/2)); for k >= 3 it is ``randomized_response_k(p=1 − p + p/k, k=k)`` (the
        same pair plus a zero-loss atom of mass (k − 2)p/k); k = 1 releases nothing; p = 0 is
        not private."""
        if self.relation is not Relation.REPLACE_ONE:
            raise UnsupportedEventError(
                "RandomizedResponseDpEvent is defined by dp_accounting for the replace-one relation only: "
                "use CertifiedAccountant(NeighboringRelation.REPLACE_ONE)")
        k = _count(event.num_buckets, "RandomizedResponseDpEvent.num_buckets")
        p = _fraction(event.noise_parameter, "RandomizedResponseDpEvent.noise_parameter")
        if not 0 <= p <= 1 or k == 0:
            raise UnsupportedEventError(f"RandomizedResponseDpEvent needs 0 <= noise_parameter <= 1 and "
                                        f"num_buckets >= 1, got {event.noise_parameter!r}, {event.num_buckets!r}")
        if k == 1:  # dp_accounting: a no-op, even for p = 0
            return None
        if p == 0:
            return _NON_PRIVATE
        truth = 1 - p + p / k
        if k == 2:
            return self._checked(f"randomized_response(p={fraction_to_str(truth)})", event)
        return self._checked(f"randomized_response_k(p={fraction_to_str(truth)}, k={k})", event)

    def _zcdp(self, event: Any) -> str | None:
        """``zcdp(rho=ρ)``: an upper-bound profile (Canonne, Kamath & Steinke 2020 Prop 12),
        under either relation (the guarantee is stated for the relation in use); ρ = 0 releases
        nothing.  (ξ, ρ)-zCDP with ξ > 0 is refused."""
        rho = _fraction(event.rho, "ZCDpEvent.rho")
        xi = _fraction(getattr(event, "xi", 0), "ZCDpEvent.xi")
        if rho < 0 or xi < 0:
            raise UnsupportedEventError(f"ZCDpEvent needs rho >= 0 and xi >= 0, got {event.rho!r}, {xi}")
        if xi != 0:
            raise UnsupportedEventError("ZCDpEvent with xi > 0 ((xi, rho)-zCDP) is not supported: certdp converts "
                                        "rho-zCDP (xi = 0) only")
        if rho == 0:
            return None
        return self._checked(f"zcdp(rho={fraction_to_str(rho)})", event)

    @staticmethod
    def _checked(spec: str, event: Any) -> str:
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        try:
            parse_spec(spec)  # parameters are validated here, not at the first get_epsilon
        except InputError as err:
            raise UnsupportedEventError(f"{type(event).__name__}: {err}") from None
        return spec


def _walk(event: Any, count: int = 1, relation: Relation = Relation.ADD_OR_REMOVE_ONE) -> _Walk:
    w = _Walk(relation)
    w.visit(event, _count(count, "count"))
    return w


def _merged(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Identical specs added up (composition is commutative), first appearance order."""
    out: dict[str, int] = {}
    for spec, k in items:
        out[spec] = out.get(spec, 0) + k
    return list(out.items())


def event_to_specs(event: Any, count: int = 1, neighboring_relation: Any = None) -> list[tuple[str, int]]:
    """The event composed ``count`` times as (certdp spec, count) pairs, in order
    (a heterogeneous composition); parts composed 0 times are left out.
    ``neighboring_relation``: dp_accounting's ``NeighboringRelation`` (default add-or-remove-one).

    Raises :class:`UnsupportedEventError` for an unsupported or non-private event
    (a non-private event has no certdp spec; :class:`CertifiedAccountant` answers ε = ∞ for it).
    """
    w = _walk(event, count, parse_relation(neighboring_relation))
    if w.non_private:
        raise UnsupportedEventError(f"{type(event).__name__} contains a non-private part (ε = ∞): no certdp spec")
    return [(spec, k) for spec, k in w.items if k]


def event_to_spec(event: Any, neighboring_relation: Any = None) -> str:
    """One certdp spec for an event that is a single mechanism composed k times
    (``"gaussian(sigma=2)"``, ``"compose(subsample(gaussian(sigma=1), rate=1/8), k=100)"``);
    identical parts of a ``ComposedDpEvent`` are added up.  A heterogeneous
    composition has no single spec in certdp's grammar: use :func:`event_to_specs`."""
    items = _merged(event_to_specs(event, neighboring_relation=neighboring_relation))
    if not items:
        raise UnsupportedEventError(f"{type(event).__name__} releases nothing: there is no mechanism spec for it")
    if len(items) > 1:
        raise UnsupportedEventError("this event is a heterogeneous composition of "
                                    f"{', '.join(s for s, _ in items)}: use event_to_specs")
    spec, k = items[0]
    return spec if k == 1 else f"compose({spec}, k={k})"


def _width(x: Any) -> Fraction:
    """An exact width > 0 for ε enclosures (a float is the rational it stores)."""
    from certdp.analyses.accountants.base import check_width  # noqa: PLC0415

    return check_width(_target(x, "width"))


def _target(x: Any, what: str) -> Fraction:
    """An exact target (δ or ε): a float is the rational it stores; no NaN / ∞ / negatives."""
    if isinstance(x, float) and not math.isfinite(x):
        raise InputError(f"{what} must be finite, got {x!r}")
    if isinstance(x, str):
        from certdp.numerics.exact import exact  # noqa: PLC0415

        q = exact(x, what)
    else:
        try:
            q = _fraction(x, what)
        except UnsupportedEvent as err:
            raise InputError(str(err)) from None
    if q < 0:
        raise InputError(f"{what} must be >= 0, got {x!r}")
    return q


_Base: Any = _dpa.PrivacyAccountant if _dpa is not None else object


class CertifiedAccountant(_Base):
    """dp_accounting's ``PrivacyAccountant`` interface with certified answers.

    ``compose(event, count)`` (returns self), ``supports(event)``,
    ``get_epsilon(target_delta)`` and ``get_delta(target_epsilon)`` return floats
    that are **upper bounds** of the true values: the upper end of certdp's
    certified enclosure rounded up to a float.  The enclosures themselves are
    ``epsilon_enclosure`` / ``delta_enclosure``; ``items`` are the certdp specs
    composed so far (identical ones added up).  A part no certified accountant
    can hold together with the earlier ones is refused at ``compose`` time
    (``supports`` is False), not at the first query.

    Conventions of dp_accounting kept: a non-private event gives ε = ∞ and
    δ = 1; nothing composed gives 0.  ``get_epsilon`` with ``target_delta`` >= 1
    is 0; ``target_delta`` = 0 is refused (certdp does not compute ε at δ = 0).

    ``neighboring_relation``: ``ADD_OR_REMOVE_ONE`` (default) or ``REPLACE_ONE``;
    under the latter the Gaussian and Laplace (sensitivity 2), k-bucket randomized
    response, zCDP and the sampling events (:mod:`certdp.interop.sampled_events`) are
    accepted, see the module docstring.  A composition with a
    ``ZCDpEvent`` is an upper bound only: its enclosures have lower end 0.
    """

    def __init__(self, neighboring_relation: Any = None, *, width: Any = None) -> None:
        if _dpa is None:  # pragma: no cover
            raise InputError("CertifiedAccountant needs dp_accounting: pip install 'certdp[interop]' "
                             "(event_to_spec / event_to_specs work without it)")
        rel = neighboring_relation or _dpa.NeighboringRelation.ADD_OR_REMOVE_ONE
        self.relation = parse_relation(rel)  # REPLACE_ONE: see _Walk
        #: the width ε enclosures are refined to (None: the CLI's default width, ``default_width``)
        self.width = None if width is None else _width(width)
        super().__init__(rel)
        self.items: list[tuple[str, int]] = []
        self.non_private = False
        self._answers: dict[tuple, Any] = {}  # the last refined answer (get_epsilon after epsilon_enclosure)

    @staticmethod
    def _route(items: list[tuple[str, int]]) -> Any:
        """certdp's composition accountant for ``items`` (cheap: nothing is computed yet)."""
        from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        return composition_accountant([(parse_spec(s), max(k, 1)) for s, k in items])[0]

    def _maybe_compose(self, event: Any, count: int, do_compose: bool) -> Any:
        try:
            w = _walk(event, count, self.relation)
            merged = _merged(self.items + w.items)
            if w.items:
                self._route(merged)  # refuses mixes no certified accountant holds
        except InputError as err:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(err))
        if do_compose:
            self.non_private = self.non_private or w.non_private
            new = [(s, k) for s, k in merged if k]
            if new != self.items:
                self.items, self._answers = new, {}
        return None

    def compose(self, event: Any, count: int = 1) -> "CertifiedAccountant":
        """dp_accounting's ``compose`` (returns self); a refused event raises this module's
        :class:`UnsupportedEventError` (a dp_accounting ``UnsupportedEventError`` and a
        certdp ``InputError``) and leaves the accountant unchanged."""
        before = set(self.assumptions)
        try:
            out = super().compose(event, count)
        except _dpa.UnsupportedEventError as err:
            if isinstance(err, UnsupportedEventError):
                raise
            raise UnsupportedEventError(str(err)) from None
        for a in self.assumptions:
            if a not in before:
                warnings.warn(f"certdp: answers now assume (unproved): {a}", UserWarning, stacklevel=2)
        return out

    def _mechanisms(self) -> list[tuple[Any, int]]:
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        return [(parse_spec(s), k) for s, k in self.items]

    @property
    def assumptions(self) -> tuple[str, ...]:
        """The unproved hypotheses every answer of this accountant rests on (each once),
        e.g. the worst-case pair of a Poisson-sampled Gaussian under REPLACE_ONE; empty
        when the answers are proved outright.  ``compose`` also warns (``UserWarning``)
        when an event brings a new one, since ``get_epsilon`` returns a bare float."""
        return tuple(dict.fromkeys(a for m, _ in self._mechanisms() for a in m.assumptions))

    def epsilon_enclosure(self, target_delta: Any, width: Any = None) -> Any:
        """Certified enclosure of ε(δ) = min{ε >= 0 : δ(ε) <= target_delta}, 0 < target_delta < 1,
        refined as ``certdp account --delta`` refines it: to ``width`` (an exact number, e.g.
        ``"1e-4"``), else the accountant's ``width``, else the CLI's default width (at most 1 %
        of ε and at most max(0.02, 0.1 % of ε)).  Upper-bound-only routes (zCDP) cannot narrow."""
        from certdp.analyses.dispatch import narrowed_epsilon  # noqa: PLC0415
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        d = _target(target_delta, "target_delta")
        if self.non_private:
            raise InputError("the composition contains a non-private event: ε = ∞")
        if d == 0:
            raise InputError("target_delta must be > 0 (certdp does not compute ε at δ = 0)")
        if not self.items or d >= 1:
            return Enclosure.exact(0)
        w = self.width if width is None else _width(width)
        key = ("eps", d, w, tuple(self.items))
        if key not in self._answers:
            self._answers = {key: narrowed_epsilon(self._mechanisms(), d, w)[0]}  # the last answer only
        return self._answers[key]

    def delta_enclosure(self, target_epsilon: Any) -> Any:
        """Certified enclosure of δ(ε) at ``target_epsilon`` >= 0, refined as ``certdp account
        --eps`` refines it (the PLD grid halved while wider than 1 % of its upper end)."""
        from certdp.analyses.dispatch import narrowed_delta  # noqa: PLC0415
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        e = _target(target_epsilon, "target_epsilon")
        if self.non_private:
            return Enclosure.exact(1)
        if not self.items:
            return Enclosure.exact(0)
        key = ("delta", e, None, tuple(self.items))
        if key not in self._answers:
            self._answers = {key: narrowed_delta(self._mechanisms(), e)[0]}
        return self._answers[key]

    def get_epsilon(self, target_delta: float) -> float:
        """A certified upper bound on ε at ``target_delta`` (a float, rounded up)."""
        if self.non_private:
            _target(target_delta, "target_delta")
            return math.inf
        return self.epsilon_enclosure(target_delta).upper_float()

    def get_delta(self, target_epsilon: float) -> float:
        """A certified upper bound on δ at ``target_epsilon`` (a float, rounded up)."""
        return self.delta_enclosure(target_epsilon).upper_float()
