"""Coq terms for the checker's mechanism table: exact rationals and profiles.

Numbers become exact rational literals (``(3 / 10)``), never floats.  A profile
becomes a Coq function ``R -> R`` built from the definitions of
``proofs/coq/CertDP.v`` (the closed forms of :mod:`certdp.verifier.mechs`,
written there a third time).  A mechanism without such a term raises
:class:`Unsupported` with the reason.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.verifier.errors import InputError

#: Largest k of a k-fold pure_dp / randomized_response composition written out as
#: its binomial sum (one term per i < k/2).
MAX_COQ_BINOMIAL_K = 200
#: ... and of randomized_response (whose terms' signs are split case by case, not decided exactly).
MAX_COQ_RR_K = 12


class Unsupported(InputError):
    """A certificate the Coq kernel cannot state yet (the message says why; exit 2, never VALID)."""


class ClaimRefused(Exception):
    """The claim fails before any arithmetic (INVALID with this step)."""


def q(x: Fraction | int) -> str:
    """An exact rational as a Coq real literal."""
    x = Fraction(x)
    if x.denominator == 1:
        return f"({x.numerator})" if x >= 0 else f"(- {-x.numerator})"
    sign = "- " if x < 0 else ""
    return f"({sign}{abs(x.numerator)} / {x.denominator})"


def profile(m: Any) -> str:
    """The Coq term (of type R -> R) of a mechanism's closed-form profile."""
    name = m.name
    if name == "laplace":
        return f"(laplace_delta {q(m.scale)} {q(m.sensitivity)})"
    if name in ("gaussian", "gaussian_dp"):
        return f"(delta_mu {q(m.mu)})"
    if name == "randomized_response":
        return f"(rr_delta {q(max(m.p, 1 - m.p))})"
    if name in ("pure_dp", "approx_dp"):
        return f"(adp_delta {q(m.eps)} {q(m.delta0)})"
    if name == "subsample":
        inner = profile(m.mechanism)
        return inner if m.rate == 1 else f"(subsample {q(m.rate)} {inner})"
    if name == "compose":
        if m.k == 1:
            return profile(m.mechanism)
        mu2 = m.gdp_mu_squared()
        if mu2 is not None:
            return f"(delta_mu (sqrt {q(mu2)}))"
        if m.binomial:
            return _binomial(m)
        raise Unsupported(f"{m.name}: this composition has no closed-form profile the Coq kernel can state")
    raise Unsupported(f"mechanism {name!r} has no profile in the Coq library yet")


def _binomial(m: Any) -> str:
    """k-fold pure_dp / randomized_response: the exact binomial profile (Kairouz, Oh &
    Viswanath 2015 Thm 3.3), written out term by term with exact binomial coefficients."""
    from math import comb  # noqa: PLC0415

    k = m.k
    if k > MAX_COQ_BINOMIAL_K:
        raise Unsupported(f"compose(..., k={k}): the Coq kernel writes binomial sums up to k = {MAX_COQ_BINOMIAL_K}")
    inner = m.mechanism
    terms = []
    if inner.name == "pure_dp":
        e0 = q(inner.eps)
        for i in range((k + 1) // 2):
            terms.append(f"{comb(k, i)} * exp ({i} * {e0}) / (1 + exp {e0}) ^ {k} * "
                         f"Rmax (exp ({k - 2 * i} * {e0}) - exp eps) 0")
    else:
        if k > MAX_COQ_RR_K:  # each max(r^(k-2i) - e^eps, 0) is split in two cases: 2^(k/2) goals
            raise Unsupported(f"compose(randomized_response, k={k}): the Coq kernel writes these binomial sums "
                              f"up to k = {MAX_COQ_RR_K}")
        qq = max(inner.p, 1 - inner.p)
        if qq == Fraction(1, 2):
            return "(fun _ : R => 0)"
        for i in range((k + 1) // 2):
            terms.append(f"{comb(k, i)} * {q(qq)} ^ {i} * {q(1 - qq)} ^ {k - i} * "
                         f"Rmax (({q(qq)} / {q(1 - qq)}) ^ {k - 2 * i} - exp eps) 0")
    return "(fun eps : R => " + " + ".join(terms) + ")"


def gaussian_mu(m: Any) -> tuple[str, Fraction] | None:
    """(Coq term of μ, μ²) when the mechanism's profile is δ_μ itself (gaussian, gaussian_dp,
    a composition of Gaussians), for the library's tail bounds ``delta_mu_tail``; else None."""
    name = m.name
    if name in ("gaussian", "gaussian_dp"):
        return q(m.mu), Fraction(m.mu) ** 2
    if name == "subsample" and m.rate == 1 or name == "compose" and m.k == 1:
        return gaussian_mu(m.mechanism)
    if name == "compose" and m.gdp_mu_squared() is not None:
        mu2 = Fraction(m.gdp_mu_squared())
        return f"(sqrt {q(mu2)})", mu2
    return None


def monotone_lemma(m: Any) -> str:
    """A Coq proof term of ``nonincr PROFILE`` (the library's lemmas), or Unsupported."""
    name = m.name
    if name == "laplace":
        return f"(laplace_nonincr {q(m.scale)} {q(m.sensitivity)} ltac:(lra))"
    if name in ("gaussian", "gaussian_dp"):
        return f"(delta_mu_nonincr {q(m.mu)} ltac:(lra))"
    if name == "randomized_response":
        return f"(rr_nonincr {q(max(m.p, 1 - m.p))} ltac:(lra))"
    if name in ("pure_dp", "approx_dp"):
        return f"(adp_nonincr {q(m.eps)} {q(m.delta0)} ltac:(lra))"
    if name == "subsample":
        inner = monotone_lemma(m.mechanism)
        return inner if m.rate == 1 else f"(subsample_nonincr {q(m.rate)} _ ltac:(lra) {inner})"
    if name == "compose" and m.k == 1:
        return monotone_lemma(m.mechanism)
    if name == "compose" and m.gdp_mu_squared() is not None:
        return f"(delta_mu_nonincr (sqrt {q(m.gdp_mu_squared())}) ltac:(interval))"
    raise Unsupported(f"the Coq library has no monotonicity lemma for {name!r} (needed by the cell argument)")
