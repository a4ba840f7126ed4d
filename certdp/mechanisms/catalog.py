"""The mechanism catalog: spec name -> class, with descriptions for listings."""

from __future__ import annotations

from certdp.mechanisms.base import Mechanism
from certdp.mechanisms.basic import (
    ApproxDP,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    GaussianDP,
    Laplace,
    PureDP,
    RandomizedResponse,
    RandomizedResponseK,
)
from certdp.mechanisms.sampling import SampleWR, SubsampleReplace, SubsetReplace
from certdp.mechanisms.transforms import ClipReify, Compose, ComposeAll, Subsample, SubsetSample, dpsgd
from certdp.mechanisms.gaussian_mixture import GaussianMixture
from certdp.mechanisms.tree import TreeAggregation
from certdp.mechanisms.truncated import TruncatedSubsample
from certdp.mechanisms.user import Profile
from certdp.mechanisms.zcdp import ZCDP

#: Every mechanism the spec grammar knows, by spec name (listing order).
CATALOG: dict[str, type[Mechanism] | object] = {  # classes, and the dpsgd alias (a factory)
    (cls if isinstance(cls, str) else cls.name): cls
    for cls in (
        Laplace,
        Gaussian,
        GaussianDP,
        RandomizedResponse,
        PureDP,
        ApproxDP,
        Subsample,
        SubsetSample,
        Compose,
        ComposeAll,
        ClipReify,
        Profile,
        DiscreteLaplace,
        DiscreteGaussian,
        RandomizedResponseK,
        ZCDP,
        TreeAggregation,
        TruncatedSubsample,
        SubsampleReplace,
        SubsetReplace,
        SampleWR,
        GaussianMixture,
        "tradeoff",
        "sgd",
        "icea",
        dpsgd,
    )
}


#: Entries whose class lives in a module loaded on first use (search code the
#: certificate checker must not load): name -> (module, class name).
LAZY: dict[str, tuple[str, str]] = {
    "tradeoff": ("certdp.mechanisms.formula_specs", "Tradeoff"),
    "sgd": ("certdp.mechanisms.formula_specs", "Sgd"),
    "icea": ("certdp.mechanisms.formula_specs", "Icea"),
}


def entry(name: str) -> type[Mechanism] | object:
    """The catalog class (or factory) named ``name``, loading lazy entries (KeyError if unknown)."""
    value = CATALOG[name]
    if isinstance(value, str):
        import importlib  # noqa: PLC0415

        module, attr = LAZY[value]
        value = getattr(importlib.import_module(module), attr)
        CATALOG[name] = value
    return value


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
    from certdp.mechanisms.format import format_value  # noqa: PLC0415

    return format_value(value)


def catalog_listing() -> list[dict[str, object]]:
    """:func:`describe` for every catalog entry, in order."""
    return [describe(entry(name)) for name in CATALOG]
