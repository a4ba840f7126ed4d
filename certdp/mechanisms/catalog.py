"""The mechanism catalog: spec name -> class, with descriptions for listings."""

from __future__ import annotations

from certdp.mechanisms.base import Mechanism
from certdp.mechanisms.basic import (
    ApproxDP,
    Gaussian,
    GaussianDP,
    Laplace,
    PureDP,
    RandomizedResponse,
)
from certdp.mechanisms.formula_specs import Icea, Sgd, Tradeoff
from certdp.mechanisms.transforms import ClipReify, Compose, Subsample, dpsgd
from certdp.mechanisms.user import Profile

#: Every mechanism the spec grammar knows, by spec name (listing order).
CATALOG: dict[str, type[Mechanism] | object] = {  # classes, and the dpsgd alias (a factory)
    cls.name: cls
    for cls in (
        Laplace,
        Gaussian,
        GaussianDP,
        RandomizedResponse,
        PureDP,
        ApproxDP,
        Subsample,
        Compose,
        ClipReify,
        Profile,
        Tradeoff,
        Sgd,
        Icea,
        dpsgd,
    )
}


def describe(cls: type[Mechanism]) -> dict[str, object]:
    """Name, one-line description and parameter docs of a catalog class."""
    doc = (cls.__doc__ or "").strip().splitlines()
    description = getattr(cls, "description", "") or (doc[0] if doc else "")
    params = [
        {
            "name": p.name,
            "kind": p.kind,
            "doc": p.doc,
            **({} if p.required else {"default": _fmt(p.default)}),
        }
        for p in getattr(cls, "PARAMS", ())
    ]
    return {"name": cls.name, "description": description, "params": params}


def _fmt(value: object) -> str:
    from certdp.mechanisms.spec import format_value  # noqa: PLC0415

    return format_value(value)


def catalog_listing() -> list[dict[str, object]]:
    """:func:`describe` for every catalog entry, in order."""
    return [describe(cls) for cls in CATALOG.values()]
