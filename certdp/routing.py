"""Which analysis answers a question about a mechanism.

A mechanism with a closed-form privacy profile is evaluated directly
(:mod:`certdp.mechanisms.evaluate`); a composition without one goes to the
certified φ accountant (:mod:`certdp.accountants.phi`, exact for finite
mechanisms).  Every answer names the method that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from certdp.errors import InputError
from certdp.mechanisms.base import Mechanism
from certdp.numerics.enclosure import Enclosure


@dataclass(frozen=True)
class Answer:
    """A certified value and the method that certified it."""

    enclosure: Enclosure
    method: str


def _accountant_for(mech: Mechanism):
    """A φ accountant for ``compose(M, k)`` without closed form, else None."""
    if getattr(mech, "name", None) != "compose" or getattr(mech, "has_closed_form", True):
        return None
    from certdp.accountants.phi import PhiAccountant  # noqa: PLC0415

    return PhiAccountant().compose(mech.mechanism, mech.k)


def delta_of(mech: Mechanism, eps: object) -> Answer:
    """Certified δ_M(ε)."""
    acc = _accountant_for(mech)
    if acc is not None:
        return Answer(acc.delta(eps), "phi accountant (seed 002)")
    from certdp.mechanisms.evaluate import delta_enclosure  # noqa: PLC0415

    return Answer(delta_enclosure(mech, eps), "closed-form privacy profile")


def eps_of(mech: Mechanism, delta: object) -> Answer:
    """Certified smallest ε >= 0 with δ_M(ε) <= δ."""
    acc = _accountant_for(mech)
    if acc is not None:
        return Answer(acc.epsilon(delta), "phi accountant (seed 002)")
    from certdp.mechanisms.evaluate import eps_enclosure  # noqa: PLC0415

    return Answer(eps_enclosure(mech, delta), "closed-form privacy profile")


def exact_gdp_mu(mech: Mechanism) -> Fraction | None:
    """μ when the mechanism is exactly μ-GDP by its definition (gaussian_dp,
    gaussian: μ = Δ/σ; their closed-form compositions are handled by the
    catalog through :meth:`mu_ball`), else None."""
    name = getattr(mech, "name", None)
    params = getattr(mech, "params", {})
    if name == "gaussian_dp":
        return Fraction(params["mu"])
    if name == "gaussian":
        return Fraction(params.get("sensitivity", 1)) / Fraction(params["sigma"])
    return None


def gdp_mu_of(mech: Mechanism, width: object = Fraction(1, 10**6)) -> tuple[Answer, object | None]:
    """Certified optimal GDP parameter (head measurement with its tail statement).

    Returns the answer and the :class:`certdp.gdpt.Measurement` (None when μ is
    exact by definition).
    """
    mu = exact_gdp_mu(mech)
    if mu is not None:
        return Answer(Enclosure.exact(mu), "exact (Gaussian mechanism)"), None
    if _accountant_for(mech) is not None:
        raise InputError(f"{mech.spec()}: GDP measurement of compositions without closed form is not supported yet")
    from certdp.gdpt import measure  # noqa: PLC0415

    m = measure(mech, width=width)
    return Answer(m.mu, "GDPT measurement (seed 000 Thm 4.6, adaptive cells)"), m
