"""The two GDP cell tests and the cell bisection, in balls: the checker's own (issue 36),
loaded only by the checks that prove an inequality on an interval of ε (GDP cells,
switch points, optima).  Mathematics: Liu et al. 2022 Thm 4.6 (the monotone cell
argument); the second-order (mean value) test of DESIGN.md.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from flint import arb, ctx

from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import dyadic_to_fraction, to_ball
from certdp.verifier.gauss import MILLS_SERIES_FROM, Phi_ball, delta_mu_ball, mills_ratio_series_ball, phi_ball


def delta_mu_slope_ball(mu: arb, eps: arb) -> arb:
    """Ball containing δ_μ'(ε) = −e^ε Φ(−ε/μ − μ/2) for all ε in the ball."""
    A = -eps / mu + mu / 2
    if A.upper() <= -MILLS_SERIES_FROM:
        # e^ε φ(A − μ) = φ(A):  −δ_μ' = φ(A) R(μ − A)
        return -(phi_ball(A) * mills_ratio_series_ball(mu - A))
    return -(eps.exp() * Phi_ball(A - mu))


def second_order_holds(
    P: Callable[[arb], arb],
    dP: Callable[[arb], arb],
    mu: arb,
    a: arb,
    b: arb,
    width: Fraction | arb,
    f_a: arb | None = None,
) -> bool:
    """The second-order cell test at the current precision (True: proved).

    ``a``, ``b`` are balls containing the cell ends, ``width`` an upper bound of b − a.
    """
    if f_a is None:
        f_a = delta_mu_ball(mu, a) - P(a)
    if not f_a >= 0:
        return False
    cell = a.union(b)
    if not cell >= 0:
        cell = arb(0).union(cell.upper())
    D = delta_mu_slope_ball(mu, cell) - dP(cell)
    if not D.is_finite():
        return False
    if D >= 0:
        return True
    w = width if isinstance(width, arb) else arb(width.numerator) / width.denominator
    d_lo = D.lower()
    if d_lo >= 0:
        return True
    return bool(f_a + d_lo * w >= 0)


MIN_CELL_SLACK = 12  #: bits of precision a failing cell may come within before it is stuck


def _unresolvable(lo: arb, hi: arb) -> bool:
    w = hi - lo
    scale = abs(lo).max(abs(hi)).max(arb(1))
    return bool(w <= scale * arb(2) ** (MIN_CELL_SLACK - ctx.prec))


class CellBudgetExceeded(PrecisionError):
    """A cell proof needed more cells than allowed: at this precision the claim is
    not proved (finer arithmetic rarely helps; a wrong claim ends here)."""


def prove_on_cells(a: arb, b: arb, ok: Callable[[arb], bool], max_cells: int = 20000) -> None:
    """Prove ``ok(cell)`` on a partition of [a, b] (exact balls), bisecting a cell
    (at its exact dyadic midpoint) whenever ``ok`` fails on it; an ``ok`` that raises
    InputError/ValueError/ZeroDivisionError counts as failed.  PrecisionError after
    ``max_cells`` cells (:class:`CellBudgetExceeded`) or when a cell cannot be split.  Shared by the optimum
    proofs of :mod:`certdp.mechanisms.formula` and their checker.
    A failing cell below 2^-(prec - MIN_CELL_SLACK)·max(1, |x|) is not split (at a jump
    every such cell fails alike and would fill the budget)."""
    stack = [(a, b)]
    n = 0
    while stack:
        lo, hi = stack.pop()
        n += 1
        if n > max_cells:
            raise CellBudgetExceeded(f"cell proof on [{a}, {b}] did not finish in {max_cells} cells")
        try:
            good = ok(lo.union(hi))
        except (InputError, ValueError, ZeroDivisionError):
            good = False
        if good:
            continue
        if _unresolvable(lo, hi):
            raise CellBudgetExceeded(f"cell proof on [{a}, {b}] stuck at [{lo}, {hi}], below the working "
                                     f"precision (a jump of the function may lie there)")
        m = to_ball((dyadic_to_fraction(lo.mid()) + dyadic_to_fraction(hi.mid())) / 2)
        if not (m > lo and m < hi):
            raise PrecisionError(f"cell proof stuck at [{lo}, {hi}]")
        stack.append((lo, m))
        stack.append((m, hi))
