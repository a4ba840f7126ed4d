"""One point of a sweep: parse its spec, ask the router for each quantity.

:func:`compute_point` is what a worker process (local or on a Dask cluster)
runs.  Its arguments and result are short strings, so shipping a point costs
a few hundred bytes.  Every number comes from the one router
(:mod:`certdp.analyses.dispatch`: ``eps_of``, ``delta_of``, ``gdp_of``) as an
:class:`~certdp.numerics.enclosure.Enclosure` and is written with its ends
rounded outward (:meth:`Enclosure.lo_str` / :meth:`Enclosure.hi_str`, the
digits of the CLI's JSON output), so a row is still a certified enclosure.

A failing point never raises: its row carries the error (one line) and any
quantities certified before the failure — except when the *sweep's* budget
(:class:`Deadline`) runs out: then the point is not finished, it raises
:class:`~certdp.errors.BudgetExceeded` and gets no row (a resume computes it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from certdp.analyses.dispatch import delta_of, eps_of, gdp_of
from certdp.errors import BudgetExceeded, budget, check_budget, remaining_budget
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.exact import exact
from certdp.sweep.grid import Quantity


@dataclass(frozen=True)
class Deadline:
    """The sweep's time budget as a wall-clock instant (``time.time()``), handed
    to every point: a worker process does not see the command's ``--budget``.
    (On a Dask cluster each worker reads it on its own clock.)"""

    at: float
    option: str

    @classmethod
    def of_current_budget(cls) -> Deadline | None:
        """The innermost budget in force here (None: unlimited)."""
        found = remaining_budget()
        return None if found is None else cls(time.time() + found[0], found[1])

    def left(self) -> float:
        return self.at - time.time()

    def exceeded(self) -> BudgetExceeded:
        return BudgetExceeded(f"the sweep needs more than its budget (raise it with {self.option} SECONDS)")


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _quantities(spec: str, quantities: tuple[Quantity, ...], row: dict[str, str],
                routes: list[str], assumptions: list[str]) -> None:
    mech = None if all(q.kind == "calibrate" for q in quantities) else parse_spec(spec)
    for q in quantities:
        if q.kind == "calibrate":
            method, assumed = _calibrate(spec, q, row)
        elif q.kind == "mu":
            width, residual = q.param("width"), q.param("residual")
            g = gdp_of(mech, residual=None if residual is None else exact(residual),
                       **({} if width is None else {"width": exact(width)}))
            lo, hi, res = q.columns
            row[lo], row[hi] = g.mu.lo_str(), g.mu.hi_str()
            row[res] = "0" if g.residual is None else g.residual.hi_str()
            method, assumed = g.method, g.assumptions
        else:
            a = (eps_of(mech, exact(q.param("delta"))) if q.kind == "eps"
                 else delta_of(mech, exact(q.param("eps"))))
            lo, hi = q.columns
            row[lo], row[hi] = a.enclosure.lo_str(), a.enclosure.hi_str()
            method, assumed = a.method, a.assumptions
        if method not in routes:
            routes.append(method)
        assumptions.extend(x for x in assumed if x not in assumptions)


def _calibrate(spec: str, q: Quantity, row: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """The calibrate columns of one point (:func:`certdp.analyses.calibrate.calibrate`); the route."""
    from certdp.analyses.calibrate import calibrate  # noqa: PLC0415
    from certdp.numerics.exact import fraction_to_str  # noqa: PLC0415

    options = {k: exact(q.param(k)) for k in ("resolution",) if q.param(k) is not None}
    if q.param("more_private") is not None:
        options["more_private"] = q.param("more_private")  # type: ignore[assignment]
    c = calibrate(spec, q.param("param"), eps=exact(q.param("eps")), delta=exact(q.param("delta")), **options)  # type: ignore[arg-type]
    value, optimal, d_lo, d_hi = q.columns
    row[value] = "" if c.value is None else fraction_to_str(c.value)
    row[optimal] = "true" if c.optimal else "none exists" if c.none_exists else "false"
    if c.best is not None:
        row[d_lo], row[d_hi] = c.best.answer.enclosure.lo_str(), c.best.answer.enclosure.hi_str()
    return f"calibrate {q.param('param')} ({c.direction} values more private)", c.assumptions


def compute_point(spec: str, quantities: tuple[Quantity, ...], point_budget: float | None = None,
                  deadline: Deadline | None = None) -> dict[str, str]:
    """The result columns (quantities, assumptions, route, seconds, error) of one
    point; BudgetExceeded when the sweep's ``deadline`` passes first."""
    t0 = time.perf_counter()
    row = {c: "" for q in quantities for c in q.columns}
    routes: list[str] = []
    assumptions: list[str] = []
    error = ""
    left = None if deadline is None else deadline.left()
    if left is not None and left <= 0:
        raise deadline.exceeded()  # type: ignore[union-attr]
    with budget(left, "--budget" if deadline is None else deadline.option):
        try:
            with budget(point_budget, "--point-budget"):
                _quantities(spec, quantities, row, routes, assumptions)
        except BudgetExceeded as err:
            check_budget("the sweep")  # the sweep's budget is spent, not the point's: no row, the point is not done
            error = _one_line(err)     # the point's own budget (or an accountant's size cap)
        except Exception as err:  # noqa: BLE001 - one bad point never stops the sweep; the row says why
            error = _one_line(err)
    row["assumptions"] = "; ".join(assumptions)
    row["route"] = " | ".join(routes)
    row["seconds"] = f"{time.perf_counter() - t0:.3f}"
    row["error"] = error
    return row
