"""``profile("<expression>")``: a mechanism given only by a user's δ(ε).

The expression text is parsed by the safe parser of :mod:`certdp.expr`
(whitelisted grammar, no ``eval``/``sympify``) and checked with
:func:`certdp.expr.validate_profile` against the hypotheses of Liu et al. 2022
Def 4.1 (values in [0, 1], non-increasing, δ(0) < 1).  A profile that is
certainly invalid is rejected with the witness; one whose validity could not
be proved everywhere is accepted and the unproved part is kept in
:attr:`Profile.validation` (callers that need a proof must look at it).

A user's δ(ε) is a *guarantee* the user states, not a profile certdp has
derived: it is treated as an **upper bound** on the mechanism's profile
(:attr:`Profile.own_kind` is UPPER).  It proves (ε, δ)-DP and μ-GDP claims
but never refutes one — a function that is not convex in e^ε is not the
tight profile of any mechanism, and certdp does not check convexity.

The canonical spec keeps the expression text exactly as written.
"""

from __future__ import annotations

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.mechanisms.base import ProfileKind
from certdp.mechanisms.params import CatalogMechanism, Param

#: Longest accepted expression text.
MAX_EXPRESSION_LENGTH = 10_000


class Profile(CatalogMechanism):
    """A mechanism known only through a privacy profile δ(ε) given as text."""

    name = "profile"
    description = 'a user-supplied privacy profile δ(ε) (an upper bound only), e.g. profile("Max(1 - exp(eps/2 - 1), 0)")'
    PARAMS = (Param("expression", "string", "δ(ε) in the variable eps (safe expression syntax)"),)
    #: a stated upper bound on the profile (module docstring)
    own_kind = ProfileKind.UPPER

    def check(self) -> None:
        from certdp.expr import parse_expression  # noqa: PLC0415
        from certdp.expr.profile import validate_profile  # noqa: PLC0415

        text = self.expression
        if len(text) > MAX_EXPRESSION_LENGTH:
            raise InputError(f"profile: expression of {len(text)} characters is too long")
        if not text.strip():
            raise InputError("profile: empty expression")
        expr = parse_expression(text, variables=("eps",))
        object.__setattr__(self, "_expr", expr)
        object.__setattr__(self, "_compiled", None)
        object.__setattr__(self, "validation", validate_profile(expr))

    def profile(self) -> sympy.Expr:
        return self._expr

    def own_assumptions(self) -> tuple[str, ...]:
        """Hypotheses of a privacy profile (Liu et al. 2022 Def 4.1) that
        :func:`~certdp.expr.profile.validate_profile` could not prove, each
        prefixed by the spec; results that rely on monotonicity (ε(δ), the
        GDP cell argument, ranges over intervals of enclosing transforms)
        hold under these assumptions."""
        return tuple(f"{self.spec()}: {u}" for u in self.validation.unproved)

    def delta_ball(self, eps: arb) -> arb:
        """Certified range of δ over the ball ``eps`` by the expression
        evaluator (no monotonicity assumed)."""
        from certdp.expr import compile_ball  # noqa: PLC0415
        from certdp.expr.symbols import EPS  # noqa: PLC0415

        if self._compiled is None:
            object.__setattr__(self, "_compiled", compile_ball(self._expr, (EPS,)))
        if eps < 0:
            raise InputError(f"eps must be >= 0, got {eps}")
        if not eps >= 0:  # straddles 0: the profile lives on [0, ∞)
            eps = arb(0).union(eps.upper())
        return self._compiled(eps)
