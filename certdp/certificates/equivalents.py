"""Catalog mechanisms the checker's table does not name, written as an equivalent
mechanism it does: the certificate states its claim about the equivalent (its
``mechanism`` field names it), whose privacy profile is the same function.  The
equivalence is a theorem the checker does not re-derive (its closure stays as it is),
so the writer applies only the ones below, each an identity of trade-off curves.

* ``tree_aggregation(noise=σ, steps=T, sensitivity=Δ)`` (single-epoch DP-FTRL, Kairouz
  et al. 2021 App. D): a record moves the d = ⌈log₂(T + 1)⌉ nodes of its root-to-leaf
  path by at most Δ each, every node with independent N(0, σ²) noise, so the release has
  the trade-off curve G_μ, μ² = dΔ²/σ², of ``compose(gaussian(sigma=σ, sensitivity=Δ), k=d)``
  (Dong, Roth & Su 2022 Cor 3.3: the d-fold Gaussian is exactly that GDP).
"""

from __future__ import annotations

from typing import Any


def checker_form(mech: Any) -> tuple[Any, tuple[str, ...]]:
    """(an equivalent mechanism the checker's table names, the equivalences used)."""
    from certdp.mechanisms.basic import Gaussian  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose, ComposeAll  # noqa: PLC0415
    from certdp.mechanisms.tree import TreeAggregation  # noqa: PLC0415

    if isinstance(mech, TreeAggregation):
        g = Gaussian(sigma=mech.noise, sensitivity=mech.sensitivity)
        out = g if mech.depth == 1 else Compose(g, k=mech.depth)
        return out, (f"{mech.spec()} has the trade-off curve of {out.spec()} (single-epoch tree aggregation, "
                     f"Kairouz et al. 2021 App. D: a record moves the {mech.depth} nodes of its path)",)
    if isinstance(mech, Compose):
        inner, notes = checker_form(mech.mechanism)
        if not notes:
            return mech, ()
        if isinstance(inner, Compose):
            return Compose(inner.mechanism, k=int(inner.k) * int(mech.k)), notes
        return Compose(inner, k=mech.k), notes
    if isinstance(mech, ComposeAll):
        parts = [checker_form(m) for m in mech.mechanisms]
        notes = tuple(n for _, ns in parts for n in ns)
        return (ComposeAll(*[m for m, _ in parts]), notes) if notes else (mech, ())
    return mech, ()


def checker_items(items: list[tuple[Any, int]]) -> tuple[list[tuple[Any, int]], tuple[str, ...]]:
    """:func:`checker_form` of each (mechanism, count) item."""
    out, notes = [], []
    for m, k in items:
        m2, ns = checker_form(m)
        out.append((m2, k))
        notes += [n for n in ns if n not in notes]
    return out, tuple(notes)
