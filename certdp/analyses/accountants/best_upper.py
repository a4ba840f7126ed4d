"""The smaller of several certified UPPER bounds, for compositions only an upper bound
is known for.

A composition holding a zCDP guarantee (``zcdp``) or a part answered through its Rényi
curve only (``truncated_subsample``) has no two-sided answer.  Two valid upper bounds
are at hand: the RDP accountant (ρ-zCDP is (α, αρ)-RDP for every α > 1, Bun & Steinke
2016 Def 1.1; RDP composes by adding the curves, Mironov 2017 Prop 1) and, when every
part has a pair in it, the PLD engine with the zCDP part as the pair of its upper
profile (Canonne, Kamath & Steinke 2020 Prop 12).  Each is an upper bound on the true
ε (δ), so their minimum is one too; the answer is [0, min] and names the route that
gave it.
"""

from __future__ import annotations

from typing import Any, Callable

from flint import arb

from certdp.errors import InputError
from certdp.numerics.enclosure import Enclosure


class BestUpper:
    """The accountant interface (``delta``, ``epsilon``) over named upper-bound routes:
    every route is asked and the smallest upper end is returned as [0, hi]
    (``two_sided`` False: a finer grid would not give a lower end)."""

    two_sided = False

    def __init__(self, routes: list[tuple[str, Any]]) -> None:
        if not routes:
            raise InputError("no certified accountant holds this composition")
        self.routes = routes
        self.last = routes[0][0]  # the route of the last answer

    @property
    def method(self) -> str:
        return "best upper bound of: " + "; ".join(n for n, _ in self.routes)

    def _best(self, ask: Callable[[Any], Enclosure]) -> Enclosure:
        """The smallest upper end among the routes that answer (a route that fails, e.g. a
        grid beyond its budget, is skipped while another answers: each alone is sound)."""
        best: tuple[str, arb] | None = None
        failed: InputError | None = None
        for name, acc in self.routes:
            try:
                hi = ask(acc).hi
            except InputError as err:
                failed = failed or err
                continue
            if best is None or hi < best[1]:
                best = (name, hi)
        if best is None:
            assert failed is not None
            raise failed
        self.last = best[0]
        return Enclosure(arb(0), best[1])

    def delta(self, eps: object) -> Enclosure:
        return self._best(lambda a: a.delta(eps))

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        return self._best(lambda a: a.epsilon(delta))


def best_upper(items: list[tuple[Any, int]], pld_ok: bool) -> BestUpper:
    """The RDP accountant (when it holds every part) and, when ``pld_ok``, the PLD engine,
    over ``items``; InputError naming the parts neither holds."""
    from certdp.analyses.accountants import rdp  # noqa: PLC0415

    routes: list[tuple[str, Any]] = []
    if all(rdp.supports(m) for m, _ in items):
        acc = rdp.RDPAccountant()
        for m, k in items:
            acc = acc.compose(m, k)
        routes.append(("RDP accountant (each part's certified Rényi curve, zCDP as (α, αρ)-RDP; best order, "
                       "improved or classic conversion)", acc))
    if pld_ok:
        from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

        pld = PLDAccountant().compose_all(items)
        routes.append((pld.method, pld))
    if not routes:
        bad = [m.spec() for m, _ in items if not rdp.supports(m)]
        raise InputError(f"no certified accountant composes {', '.join(bad)} with a zCDP or RDP-only part "
                         "(the RDP accountant does not hold it)")
    return BestUpper(routes)
