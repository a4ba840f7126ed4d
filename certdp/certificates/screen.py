"""The writer's screen of candidate claims (writer side, not part of the checker).

The writer (:mod:`certdp.certificates.writer`) offers the checker a few roundings of
one answer's upper end and keeps the first the checker proves.  For PLD evidence,
a claim the checker cannot decide at the certificate's precision makes it rebuild
the whole composed PLD at twice that precision; :func:`proved_first` asks the
checker's own re-derivation which claims are proved at the starting precision and
offers those first.  It decides nothing: the writer still checks the document it
returns with the full checker.
"""

from __future__ import annotations

from typing import Any

from certdp.verifier.schema import MalformedCertificate
from certdp.errors import InputError, PrecisionError
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.exact import exact


def proved_first(spec: str, evidence: dict[str, Any], claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The claims reordered: first those the checker's own re-derived upper PLD
    (:func:`certdp.verifier.check_pld.delta_upper`, at the certificate's 128 bits)
    already proves, then the rest in their order.  The checker decides a claim it
    cannot decide at 128 bits by rebuilding the whole PLD at 256 bits; a claim this
    screen proves is decided at 128 bits by the very same computation (cached), so
    the rebuild happens only when no claim passes at 128.  The cost: a tighter claim
    (more digits) that only 256 bits would prove is passed over for a looser one
    that 128 bits prove.  The screen decides nothing by itself — every document is
    still checked by :func:`certdp.verifier.checker.check` before it is returned."""
    from certdp.verifier.check_pld import delta_upper  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    try:
        mech = parse(spec)
        proved = []
        for claim in claims:
            with working_precision(128):
                y = delta_upper(mech, exact(claim["eps"], "eps"), evidence["pld"], 128)
                proved.append(upper_bound(y) <= lower_bound(to_ball(exact(claim["delta"], "delta"))))
    except (InputError, MalformedCertificate, PrecisionError):
        return claims
    return [c for c, ok in zip(claims, proved) if ok] + [c for c, ok in zip(claims, proved) if not ok]
