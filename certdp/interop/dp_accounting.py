"""dp_accounting interop: ``DpEvent`` → certdp specs, and a certified
``PrivacyAccountant``.

A dp_accounting user describes a computation as a ``DpEvent``; this module
maps it to certdp mechanisms **exactly** — every float parameter is the
dyadic rational it stores (``Fraction(0.1)`` = 3602879701896397/2^55), since
that is the number dp_accounting itself computes with — and answers
``get_epsilon`` / ``get_delta`` with certdp's certified enclosures through the
one composition route (:func:`certdp.analyses.dispatch.composition_accountant`),
returning the upper end rounded up to a float: a certified upper bound on the
true ε (δ) of the event, under the add-or-remove-one relation.

Supported events: Gaussian, Laplace, Poisson-sampled Gaussian, self-composed
and composed events, no-op.  Anything else (randomized response and the
replace-one relation, sampling without replacement, tree aggregation, …) raises
``UnsupportedEventError`` (dp_accounting's own class when it is installed).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.numerics.exact import fraction_to_str

try:  # the optional extra `interop`
    import dp_accounting as _dpa
except ImportError:  # pragma: no cover - exercised without the extra
    _dpa = None


class UnsupportedEvent(InputError):
    """An event certdp cannot account (also dp_accounting's UnsupportedEventError when installed)."""


if _dpa is not None:
    class UnsupportedEventError(UnsupportedEvent, _dpa.UnsupportedEventError):  # type: ignore[misc]
        """Raised for events certdp does not support (both an InputError and dp_accounting's error)."""
else:  # pragma: no cover
    UnsupportedEventError = UnsupportedEvent  # type: ignore[misc]


def _num(x: Any, what: str) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise UnsupportedEventError(f"{what} must be a number, got {x!r}")
    try:
        q = Fraction(x)
    except (OverflowError, ValueError):
        raise UnsupportedEventError(f"{what} must be finite, got {x!r}") from None
    return fraction_to_str(q)


def _leaf(event: Any) -> str:
    name = type(event).__name__
    if name == "GaussianDpEvent":
        return f"gaussian(sigma={_num(event.noise_multiplier, 'noise_multiplier')})"
    if name == "LaplaceDpEvent":
        return f"laplace(scale={_num(event.noise_multiplier, 'noise_multiplier')})"
    if name == "RandomizedResponseDpEvent":
        # dp_accounting defines it for the replace-one relation only; this accountant is add-or-remove
        raise UnsupportedEventError("RandomizedResponseDpEvent needs the replace-one relation, which this "
                                    "accountant does not offer (use certdp's randomized_response(p=...) directly)")
    if name == "PoissonSampledDpEvent":
        inner = event.event
        if type(inner).__name__ != "GaussianDpEvent":
            raise UnsupportedEventError(f"Poisson sampling of {type(inner).__name__} is not supported yet")
        return (f"subsample(gaussian(sigma={_num(inner.noise_multiplier, 'noise_multiplier')}), "
                f"rate={_num(event.sampling_probability, 'sampling_probability')})")
    raise UnsupportedEventError(f"{name} is not supported by certdp")


def event_to_specs(event: Any, count: int = 1) -> list[tuple[str, int]]:
    """The event as (certdp spec, count) pairs, in order (a composition)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise UnsupportedEventError(f"count must be a non-negative integer, got {count!r}")
    name = type(event).__name__
    if name == "NoOpDpEvent":
        return []
    if name == "SelfComposedDpEvent":
        return event_to_specs(event.event, count * event.count)
    if name == "ComposedDpEvent":
        return [item for e in event.events for item in event_to_specs(e, count)]
    spec = _leaf(event)  # validated even for count 0 (dp_accounting's supports() composes 0 times)
    return [(spec, count)] if count else []


def event_to_spec(event: Any) -> str:
    """One certdp spec for an event that is a single mechanism composed k times."""
    items = event_to_specs(event)
    if len(items) != 1:
        raise UnsupportedEventError("this event is a heterogeneous composition: use event_to_specs")
    spec, k = items[0]
    return spec if k == 1 else f"compose({spec}, k={k})"


_Base: Any = _dpa.PrivacyAccountant if _dpa is not None else object


class CertifiedAccountant(_Base):
    """dp_accounting's ``PrivacyAccountant`` interface with certified answers:
    ``compose(event, count)`` (returns self), ``get_epsilon(target_delta)`` and
    ``get_delta(target_epsilon)`` return floats that are **upper bounds** of the
    true values (the certified enclosure's upper end rounded up); the
    enclosures themselves are ``epsilon_enclosure`` / ``delta_enclosure``."""

    def __init__(self, neighboring_relation: Any = None) -> None:
        if _dpa is None:  # pragma: no cover
            raise InputError("certdp.interop.dp_accounting needs the extra: pip install 'certdp[interop]'")
        rel = neighboring_relation or _dpa.NeighboringRelation.ADD_OR_REMOVE_ONE
        if rel != _dpa.NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise UnsupportedEventError("only the add-or-remove-one relation is supported")
        super().__init__(rel)
        self.items: list[tuple[str, int]] = []

    def _maybe_compose(self, event: Any, count: int, do_compose: bool) -> Any:
        try:
            items = event_to_specs(event, count)
        except InputError as err:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(err))
        if do_compose:
            self.items.extend(items)
        return None

    def _accountant(self) -> Any:
        from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        return composition_accountant([(parse_spec(s), k) for s, k in self.items])[0]

    def epsilon_enclosure(self, target_delta: Any) -> Any:
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        if not self.items:
            return Enclosure.exact(0)
        return self._accountant().epsilon(Fraction(target_delta))

    def delta_enclosure(self, target_epsilon: Any) -> Any:
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        if not self.items:
            return Enclosure.exact(0)
        return self._accountant().delta(Fraction(target_epsilon))

    def get_epsilon(self, target_delta: float) -> float:
        return self.epsilon_enclosure(target_delta).upper_float()

    def get_delta(self, target_epsilon: float) -> float:
        return self.delta_enclosure(target_epsilon).upper_float()
