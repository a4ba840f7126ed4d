"""The switch-point evidence of GDP certificates of ``sgd(...)`` / ``icea(...)`` (issue 36):
the bracket of the catalog's certified switch point, which the checker re-proves
(:mod:`certdp.verifier.switch`) before it bounds the refined profile from it."""

from __future__ import annotations

from typing import Any

from certdp.errors import InputError
from certdp.numerics.ball import dyadic_to_fraction
from certdp.numerics.exact import fraction_to_str


def switch_evidence(spec: str) -> dict[str, Any] | None:
    """``{"bracket": [r0, r1], "tail": T}`` of a bare sgd/icea spec's switch point
    (the catalog's certified search), None for every other spec."""
    from certdp.verifier.mechs import NaiveFamily, parse  # noqa: PLC0415

    try:
        if not isinstance(parse(spec, exclude=("tradeoff",)), NaiveFamily):
            return None
    except InputError:
        return None
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    sp = parse_spec(spec).switch_point()
    return {"bracket": [fraction_to_str(dyadic_to_fraction(sp.eps.lo)), fraction_to_str(dyadic_to_fraction(sp.eps.hi))],
            "tail": str(sp.tail)}


def checked(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` if the independent checker finds it VALID, else InputError (nothing written)."""
    from certdp.verifier.checker import check  # noqa: PLC0415

    result = check(doc)
    if not result.valid:
        raise InputError(f"the independent checker rejects the certificate of {doc['mechanism']} "
                         f"({result.failed_step}); no certificate written")
    return doc
