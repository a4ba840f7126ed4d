"""The GDP claims (``gdp``, ``not_gdp``): the monotone cell argument, re-derived in balls.

Loaded by :mod:`certdp.verifier.checker` only for certificates of these kinds (issue 36:
what a certificate's reader must trust is what its check loads).  An undecided
comparison is retried at 2x and 4x the stated precision and otherwise fails (never
guessed).

What each GDP claim means and how it is re-derived (Liu et al. 2022 Def 4.1,
Cor 4.1, Thm 4.6; DESIGN.md "Monotone cell argument"):

* cells 0 = a_0 < ... < a_n = eps_max, each with upper(δ_A(a_i)) <= lower(δ_μ(a_{i+1}))
  (or δ_A(a_i) = 0): then δ_A <= δ_μ on [0, eps_max] because δ_A is
  non-increasing and δ_μ is decreasing; or, failing that, the second-order
  (mean value) test of :mod:`certdp.numerics.cells` on the cell.
* tail zero: eps_zero <= eps_max and δ_A(eps_zero) = 0 ⇒ δ_A = 0 beyond: μ-GDP ("gdp").
* residual r: upper(δ_A(eps_max)) <= r ⇒ δ_A(ε) <= δ_μ(ε) + r for all ε >= 0.
* mu_lower with witness ε*: lower(δ_A(ε*)) >= upper(δ_{mu_lower}(ε*)) ⇒
  G(ε*) >= mu_lower, so no μ < mu_lower makes the mechanism μ-GDP.
* not_gdp μ with witness ε*: lower(δ_A(ε*)) > upper(δ_μ(ε*)).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.errors import InputError, PrecisionError, check_budget
from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import MalformedCertificate
from certdp.verifier.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.decide import decide
from certdp.verifier.exact import exact
from certdp.verifier.cells import second_order_holds
from certdp.verifier.gauss import delta_mu_ball, delta_mu_start_prec as _delta_mu_start_prec


class StepFailed(Exception):
    """A certificate step whose inequality does not hold (as far as balls can tell)."""



def _num(text: str, where: str) -> Fraction:
    try:
        return exact(text, where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def _prof(mech: Any, eps: Fraction, prec: int) -> arb:
    with working_precision(prec):
        y = mech.delta_ball(to_ball(eps))
    if not y.is_finite():
        raise PrecisionError(f"profile ball at eps = {eps} is not finite")
    return y


def _dmu(mu: Fraction, eps: Fraction, prec: int) -> arb:
    p = max(prec, _delta_mu_start_prec(prec - 24, mu, eps))
    with working_precision(p):
        return delta_mu_ball(to_ball(mu), to_ball(eps))


def _decide(test, prec: int, what: str) -> None:
    """Run ``test(prec)`` (True = holds) at prec, 2 prec, 4 prec (the checker
    re-evaluates, it does not search); raise StepFailed."""
    try:
        decide(lambda p: True if test(p) else None, start=prec, doublings=2, what=what)
    except PrecisionError:
        raise StepFailed(what) from None


@functools.lru_cache(maxsize=32)
def _functions_for_spec(spec: str) -> Any:
    """(P, P') of a spec's profile (cached: a pure function of the spec), needed only for
    a cell the first-order test leaves undecided: the table's closed forms and their
    slopes in balls (:mod:`certdp.verifier.slopes`, no sympy); for ``profile("...")``
    specs the expression and its sympy derivative (:mod:`certdp.expr.derivative`)."""
    from certdp.verifier.slopes import ball_functions  # noqa: PLC0415  (only for cells left undecided)

    try:
        mech = parse_mechanism({"mechanism": spec})
        fns = ball_functions(mech)
        if fns is not None:
            return fns
        p = mech.profile()
    except InputError:
        return None
    from certdp.expr.derivative import expression_functions  # noqa: PLC0415  (sympy)

    return expression_functions(p)


def check_gdp(doc: Mapping[str, Any], mech: Any) -> None:
    claim, ev, prec = doc["claim"], doc["evidence"], doc["precision"]
    step = known_facts_step(doc, mech)
    if step is not None:
        raise StepFailed(step)
    kind = claim["kind"]
    mu = _num(claim["mu"], "claim.mu")
    if mu <= 0:
        raise StepFailed(f"claim.mu = {claim['mu']} is not positive")
    if kind == "not_gdp":
        e = _num(ev["witness"]["eps"], "evidence.witness.eps")
        if e < 0:
            raise StepFailed("witness eps is negative")
        _decide(
            lambda p: bool(lower_bound(_prof(mech, e, p)) > upper_bound(_dmu(mu, e, p))),
            prec,
            f"witness: delta_A({ev['witness']['eps']}) > delta_mu({claim['mu']}) does not hold",
        )
        return
    eps_max = _num(claim["eps_max"], "claim.eps_max")
    cells = [_num(c, f"evidence.cells[{i}]") for i, c in enumerate(ev["cells"])]
    if cells[0] != 0:
        raise StepFailed("cells: the first breakpoint must be 0")
    if cells[-1] != eps_max:
        raise StepFailed(f"cells: the last breakpoint must equal claim.eps_max = {claim['eps_max']}")
    for i in range(len(cells) - 1):
        if not cells[i] < cells[i + 1]:
            raise StepFailed(f"cells: breakpoints {i} and {i + 1} are not increasing")
    fns = None  # (P, P') for the second-order test, built on first need
    for i in range(len(cells) - 1):
        if i % 64 == 0:
            check_budget("checking the certificate's cells")
        a, b = cells[i], cells[i + 1]

        def cell_ok(p: int, a: Fraction = a, b: Fraction = b) -> bool:
            nonlocal fns
            y = _prof(mech, a, p)
            if y.is_zero() or y <= 0:  # δ_A(a) = 0 <= δ_μ(b) (δ_μ > 0)
                return True
            if y <= _dmu(mu, b, p):  # first order: upper(δ_A(a)) <= lower(δ_μ(b))
                return True
            if fns is None:
                fns = (mech.functions() if getattr(mech, "own_functions", False)
                       else _functions_for_spec(doc["mechanism"])) or False
            if not fns:
                return False
            P, dP = fns
            pb = max(p, _delta_mu_start_prec(p - 24, mu, b))
            with working_precision(pb):
                return second_order_holds(P, dP, to_ball(mu), to_ball(a), to_ball(b), b - a)

        _decide(cell_ok, prec, f"cell {i} [{ev['cells'][i]}, {ev['cells'][i + 1]}]: delta_A(a) <= delta_mu(b) does not hold")
    tail = ev["tail"]
    if tail["kind"] == "zero":
        ez = _num(tail["eps_zero"], "evidence.tail.eps_zero")
        if not 0 <= ez <= eps_max:
            raise StepFailed("tail: eps_zero must lie in [0, eps_max]")
        _decide(
            lambda p: bool(upper_bound(_prof(mech, ez, p)) <= 0),
            prec,
            f"tail: delta_A({tail['eps_zero']}) = 0 does not hold",
        )
    if "residual" in claim:
        r = _num(claim["residual"], "claim.residual")
        _decide(
            lambda p: dyadic_to_fraction(upper_bound(_prof(mech, eps_max, p))) <= r,
            prec,
            f"residual: delta_A(eps_max) <= {claim['residual']} does not hold",
        )
    if "mu_lower" in claim:
        ml = _num(claim["mu_lower"], "claim.mu_lower")
        if "witness" not in ev:
            raise StepFailed("claim.mu_lower needs evidence.witness")
        e = _num(ev["witness"]["eps"], "evidence.witness.eps")
        if e < 0:
            raise StepFailed("witness eps is negative")
        if ml <= 0:
            return  # trivially true: the optimal μ is >= 0
        _decide(
            lambda p: bool(lower_bound(_prof(mech, e, p)) >= upper_bound(_dmu(ml, e, p))),
            prec,
            f"witness: delta_A({ev['witness']['eps']}) >= delta_mu({claim['mu_lower']}) does not hold",
        )
