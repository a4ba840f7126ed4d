"""What :func:`certdp.analyses.gdpt.measure` states beyond the head [0, ε_h].

The head cover proves δ_A <= δ_μ⁺ on [0, ε_h]; beyond it (Liu et al. 2022 §4.2):

* ``zero``: δ_A(ε_h) = 0 (certified), so δ_A = 0 on [ε_h, ∞): full μ⁺-GDP;
* ``limit``: exact identification (Liu et al. 2022 Thm 4.4) gives
  L = limsup ε²/(−2 log δ_A) and limsup G = √L.  Since sup G >= limsup G, a √L
  certainly above μ⁺ proves the strict parameter is at least √L; L = ∞ proves
  the mechanism is not GDP at all (Thm 4.3).  Both are lower-end facts: they need
  a profile that bounds the mechanism's from below (exact, or exact for a guarantee);
* ``residual``: always true: δ_A(ε) <= δ_A(ε_h) <= η beyond ε_h, so
  δ_A(ε) <= δ_μ⁺(ε) + η for every ε >= 0.

An **upper-bound-only** profile U >= δ_A gives G_A <= G_U pointwise, hence
limsup G_A <= limsup G_U = √L_U: its identified limit is an upper end on the
mechanism's tail limit (``tail_mu_at_most``), and a finite L_U proves the mechanism
GDP (Thm 4.3).  It says nothing from below: L_U = ∞ or √L_U > μ⁺ state nothing
about the mechanism.  (An explicit strict bound would also need an explicit
ε_t beyond which G_U <= √L_U + something; the limit alone does not give one.)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from certdp.errors import InputError, PrecisionError
from certdp.mechanisms.base import Mechanism
from certdp.numerics.enclosure import Enclosure


@dataclass(frozen=True)
class Tail:
    """What is known beyond ε_h.

    kind: ``"zero"`` (δ_A = 0 from ``eps_zero``: full GDP), ``"limit"`` (the identified
    limit decides the tail: √L certainly exceeds μ⁺, so the strict parameter is at
    least √L, or L = ∞: not GDP) or ``"residual"`` (μ⁺-GDP except the residual η).
    ``L`` is the identified limit of the mechanism's profile as a string (sympy form,
    ``"oo"`` for not GDP); ``upper_L`` that of an upper-bound-only profile, which
    bounds the mechanism's tail limit from above only (module docstring).
    """

    kind: str
    L: str | None = None
    eps_zero: Fraction | None = None
    statement: str = ""
    upper_L: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "L": self.L, "upper_L": self.upper_L}


def identify_tail(mech: Mechanism) -> tuple[str | None, Enclosure | None, tuple[str, ...]]:
    """(L as a string, enclosure of √L, the identification's assumptions) from the exact
    identification of the profile the mechanism gives (L None when undecided)."""
    from certdp.analyses.limits import identify  # noqa: PLC0415

    try:
        ident = identify(mech)
    except (InputError, NotImplementedError, PrecisionError):
        return None, None, ()
    L = getattr(ident, "L", None)
    if L is None:
        return None, None, ()
    return str(L), getattr(ident, "tail_mu", None), tuple(getattr(ident, "assumptions", ()))


@dataclass(frozen=True)
class TailResult:
    tail: Tail
    strict_mu_at_least: Enclosure | None = None
    tail_mu_at_most: Enclosure | None = None
    assumptions: tuple[str, ...] = ()


def tail_of(mech: Mechanism, *, zero: bool, eps_h: Fraction, mu_hi: Fraction, identify: bool = True) -> TailResult:
    """The tail statement of a measurement with head bound μ⁺ = ``mu_hi`` on [0, ε_h]."""
    if zero:
        return TailResult(Tail("zero", None, eps_h, "profile is 0 from eps_max on"))
    L, tail_mu, assumed = identify_tail(mech) if identify else (None, None, ())
    if not mech.profile_kind.bounds_from_below:
        if L is None:
            return TailResult(Tail("residual", None, None, "mu-GDP except the residual"))
        at_most = tail_mu if L != "oo" else None
        return TailResult(Tail("residual", None, None, "mu-GDP except the residual", upper_L=L), None, at_most,
                          assumed if at_most is not None else ())
    if L == "oo":
        return TailResult(Tail("limit", L, None, "not GDP: the tail limit is infinite"), assumptions=assumed)
    if tail_mu is not None and tail_mu.certainly_greater_than(mu_hi):
        return TailResult(Tail("limit", L, None, "tail limit sqrt(L) exceeds the head mu"), tail_mu, None, assumed)
    return TailResult(Tail("residual", L, None, "mu-GDP except the residual"))
