"""What a certificate must say about what is *known* of its mechanism.

Shared by every checker path (GDP kinds, dp/not_dp): the unproved hypotheses
(:attr:`Mech.assumptions`, recursive) and the profile kind are recomputed from
the mechanism spec by the checker's own table (:mod:`certdp.verifier.mechs`),
never read from the document.
"""

from __future__ import annotations

from typing import Any, Mapping

from certdp.verifier.schema import MalformedCertificate
from certdp.verifier.errors import InputError

#: Catalog entries the checker refuses in profile-based claims: ``tradeoff`` needs
#: symbolic solving; ``sgd``/``icea`` only alone in a GDP claim (``naive_ok``) or a
#: switch-point value, whose evidence brackets the switch point of their refined profile.
NOT_CHECKABLE = ("tradeoff", "sgd", "icea")


def parse_mechanism(doc: Mapping[str, Any], naive_ok: bool = False) -> Any:
    """The certificate's mechanism, parsed by the spec grammar (no eval) into the
    checker's table; MalformedCertificate on any problem.  ``naive_ok``: a bare
    ``sgd(...)``/``icea(...)`` is accepted too (a GDP claim on its refined profile,
    whose switch point the evidence brackets: :mod:`certdp.verifier.switch`)."""
    from certdp.verifier.mechs import NaiveFamily, parse  # noqa: PLC0415

    if not isinstance(doc.get("mechanism"), str):
        raise MalformedCertificate("mechanism must be a spec string")
    try:
        return parse(doc["mechanism"], exclude=NOT_CHECKABLE)
    except InputError as err:
        if naive_ok:
            try:
                mech = parse(doc["mechanism"], exclude=("tradeoff",))
            except InputError:
                mech = None
            if isinstance(mech, NaiveFamily):
                return mech
        raise MalformedCertificate(f"mechanism: {err}") from None


def known_facts_step(doc: Mapping[str, Any], mech: Any) -> str | None:
    """The first failing step about what is *known* of the mechanism, or None.

    * the claim must state exactly the unproved hypotheses of every
      sub-mechanism (recomputed here from the spec, never trusted);
    * a negative claim (``not_dp``, ``not_gdp``, a μ lower bound) needs a
      profile that bounds from below (not an upper bound only).
    """
    stated = assumptions_of(doc)
    needed = tuple(mech.assumptions)
    if set(stated) != set(needed):
        missing = [a for a in needed if a not in stated]
        if missing:
            return "claim rests on unproved hypotheses it does not state: " + "; ".join(missing)
        return "claim.assumptions lists hypotheses the mechanism does not have"
    kind = doc["claim"]["kind"]
    negative = kind.startswith("not_") or "mu_lower" in doc["claim"]
    if negative and not mech.profile_kind.bounds_from_below:
        return (f"a lower bound needs an exact profile, but the profile of {doc['mechanism']} is "
                f"{mech.profile_kind.value}")
    return None


def assumptions_of(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The claim's ``assumptions`` (list of strings; MalformedCertificate otherwise)."""
    value = doc["claim"].get("assumptions", [])
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise MalformedCertificate("claim.assumptions must be a list of strings")
    return tuple(value)
