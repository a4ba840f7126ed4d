"""dp_accounting's sampling events as certdp specs (issue 35): Poisson sampling under both
relations, sampling without replacement and with replacement under replace-one.

==============================================  =================================================
``PoissonSampledDpEvent(q, E)``, add-or-remove  ``subsample(M, rate=q)``, E a Gaussian, Laplace,
                                                discrete Laplace, zCDP, Poisson-sampled step, or a
                                                composition of Gaussians (one draw shared by the
                                                steps: exactly one Gaussian) or of discrete
                                                Laplaces (a finite product law), ``compose`` /
                                                ``compose_all`` inside the sampling
``PoissonSampledDpEvent(q, E)``, replace-one    ``subsample_replace(M, rate=q)``, E a Gaussian or a
                                                Laplace (the pair (1−q)N(0,σ²) + qN(1,σ²) against
                                                (1−q)N(0,σ²) + qN(−1,σ²), as dp_accounting's
                                                REPLACE adjacency: an assumption), or a discrete
                                                Laplace (a proved upper bound)
``SampledWithoutReplacementDpEvent(n, b, E)``   ``subset_replace(M, batch=b, n=n)`` (replace-one
                                                only, as dp_accounting), M the replace-one spec of
                                                E (sensitivity 2): Balle, Barthe & Gaboardi 2018
                                                Thm 9, an upper bound
``SampledWithReplacementDpEvent(n, b, E)``      ``sample_wr(gaussian(sigma=σ), batch=b, n=n)``
                                                (replace-one only, E a Gaussian): the copies of
                                                the replaced record revealed, an upper bound
==============================================  =================================================

Anything else inside a sampling event is refused with a one-line reason.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from certdp.numerics.exact import fraction_to_str

#: the event classes this module converts
SAMPLED_EVENTS = ("PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent", "SampledWithReplacementDpEvent")


def _steps(event: Any) -> set[str] | None:
    """The step classes of a (self-)composition (None if it holds anything but steps)."""
    name = type(event).__name__
    if name == "SelfComposedDpEvent":
        return _steps(event.event)
    if name == "ComposedDpEvent":
        parts = [_steps(e) for e in event.events]
        return None if not parts or any(p is None for p in parts) else set().union(*parts)  # type: ignore[arg-type]
    return {name}


def _gaussians_only(event: Any) -> bool:
    """Is the event a Gaussian step or a (self-)composition of Gaussian steps only?"""
    return _steps(event) == {"GaussianDpEvent"}


def _one_law(event: Any) -> bool:
    """A composition the engine holds inside one Poisson draw: Gaussian steps only (exactly one
    Gaussian) or discrete Laplace steps only (a finite product law)."""
    return _steps(event) in ({"GaussianDpEvent"}, {"DiscreteLaplaceDpEvent"})


def _inner_spec(walk: Any, event: Any, non_private: Any) -> Any:
    """The spec of the event inside a sampling event (a step, or a composition of Gaussians as
    ``compose``/``compose_all``); ``None`` / the walk's non-private marker pass through."""
    name = type(event).__name__
    if name in ("SelfComposedDpEvent", "ComposedDpEvent"):
        sub = type(walk)(walk.relation)
        sub.visit(event, 1)
        if sub.non_private:
            return non_private
        parts = [f"compose({s}, k={k})" if k != 1 else s for s, k in sub.items if k]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else f"compose_all({', '.join(parts)})"
    return walk._step(event)


def sampled_spec(walk: Any, event: Any, *, replace: bool, fraction: Callable[[Any, str], Fraction],
                 count: Callable[[Any, str], int], error: type[Exception], non_private: Any) -> Any:
    """The spec of one sampling event (see the module table), for ``walk`` (the caller's event walk:
    ``_step``, ``_checked``, ``visit``, ``items``) under replace-one when ``replace``; the caller's
    exact converters ``fraction``/``count``, its ``error`` class and its ``non_private`` marker."""
    _NON_PRIVATE, UnsupportedEventError, _count, _fraction = non_private, error, count, fraction
    name = type(event).__name__
    inner = event.event
    iname = type(inner).__name__
    if name == "PoissonSampledDpEvent":
        rate = _fraction(event.sampling_probability, "PoissonSampledDpEvent.sampling_probability")
        if not 0 <= rate <= 1:
            raise UnsupportedEventError(f"PoissonSampledDpEvent.sampling_probability must lie in [0, 1], "
                                        f"got {event.sampling_probability!r}")
        if replace:
            if iname not in ("GaussianDpEvent", "LaplaceDpEvent", "DiscreteLaplaceDpEvent", "NoOpDpEvent"):
                raise UnsupportedEventError(
                    f"Poisson sampling under replace-one of {iname} is not supported: certdp's pairs for it "
                    "(a mixture against a mixture) are the Gaussian's, the Laplace's and the discrete Laplace's")
            if iname == "NoOpDpEvent" or rate == 0:
                return None
            if iname == "DiscreteLaplaceDpEvent":  # a proved upper bound (mechanisms.sampling), sensitivity Δ
                a = _fraction(inner.noise_parameter, "DiscreteLaplaceDpEvent.noise_parameter")
                sens = _count(inner.sensitivity, "DiscreteLaplaceDpEvent.sensitivity")
                if a < 0 or sens == 0:
                    raise UnsupportedEventError("DiscreteLaplaceDpEvent needs noise_parameter >= 0 and sensitivity >= 1")
                if a == 0:
                    return _NON_PRIVATE
                return walk._checked(f"subsample_replace(discrete_laplace(scale={fraction_to_str(1 / a)}, "
                                     f"sensitivity={sens}), rate={fraction_to_str(rate)})", event)
            noise = _fraction(inner.noise_multiplier, f"{iname}.noise_multiplier")
            if noise == 0:
                return _NON_PRIVATE
            arg = "gaussian(sigma=" if iname == "GaussianDpEvent" else "laplace(scale="
            return walk._checked(f"subsample_replace({arg}{fraction_to_str(noise)}), rate={fraction_to_str(rate)})",
                                 event)
        allowed = ("GaussianDpEvent", "LaplaceDpEvent", "DiscreteLaplaceDpEvent", "PoissonSampledDpEvent",
                   "NoOpDpEvent", "ZCDpEvent")
        if iname not in allowed and not _one_law(inner):
            raise UnsupportedEventError(
                f"Poisson sampling of {iname} is not supported (certdp's engine holds Poisson sampling of one "
                "Gaussian, Laplace, discrete Laplace or zCDP step, or of a composition of Gaussians or of discrete "
                "Laplaces; a composition of other steps sampled once is not a composition of sampled steps)")
        inner_spec = _inner_spec(walk, inner, _NON_PRIVATE)
        if rate == 0 or inner_spec is None:  # dp_accounting: nothing is released about anyone
            return None
        if inner_spec is _NON_PRIVATE:  # as dp_accounting: ε = ∞ (an upper bound, δ(ε) >= q)
            return _NON_PRIVATE
        return walk._checked(f"subsample({inner_spec}, rate={fraction_to_str(rate)})", event)
    # fixed-size batches: dp_accounting defines them for REPLACE_ONE (its RdpAccountant refuses the rest)
    n = _count(event.source_dataset_size, f"{name}.source_dataset_size")
    b = _count(event.sample_size, f"{name}.sample_size")
    if not replace:
        raise UnsupportedEventError(
            f"{name} is defined for replace-one neighbours (a fixed batch of a dataset of fixed size): "
            "use CertifiedAccountant(NeighboringRelation.REPLACE_ONE)")
    if b > n:
        raise UnsupportedEventError(f"{name} needs sample_size <= source_dataset_size, got {b} > {n}")
    if name == "SampledWithoutReplacementDpEvent":
        if not (_gaussians_only(inner) or iname in ("LaplaceDpEvent", "DiscreteLaplaceDpEvent",
                                                    "RandomizedResponseDpEvent", "ZCDpEvent", "NoOpDpEvent")):
            raise UnsupportedEventError(f"sampling without replacement of {iname} is not supported (certdp bounds "
                                        "it for one step whose replace-one profile it knows)")
        inner_spec = _inner_spec(walk, inner, _NON_PRIVATE)
        if b == 0 or inner_spec is None:
            return None
        if inner_spec is _NON_PRIVATE:
            return _NON_PRIVATE
        return walk._checked(f"subset_replace({inner_spec}, batch={b}, n={n})", event)
    if iname not in ("GaussianDpEvent", "NoOpDpEvent"):
        raise UnsupportedEventError(f"sampling with replacement of {iname} is not supported (certdp bounds it "
                                    "for one Gaussian step)")
    if iname == "NoOpDpEvent" or b == 0:
        return None
    noise = _fraction(inner.noise_multiplier, "GaussianDpEvent.noise_multiplier")
    if noise == 0:
        return _NON_PRIVATE
    return walk._checked(f"sample_wr(gaussian(sigma={fraction_to_str(noise)}), batch={b}, n={n})", event)


__all__ = ["SAMPLED_EVENTS", "sampled_spec"]
