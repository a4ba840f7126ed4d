"""The outcome of auditing one claim: the verdict words and the :class:`Verdict` record
(shared by :mod:`certdp.audit.verdicts` and the routes it delegates to)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from certdp.numerics.enclosure import Enclosure

CONFIRMED, REFUTED, INCONCLUSIVE, UNSUPPORTED = "CONFIRMED", "REFUTED", "INCONCLUSIVE", "UNSUPPORTED"


@dataclass(frozen=True)
class Verdict:
    """The audit outcome of one claim."""

    id: str
    verdict: str
    enclosure: Enclosure | None
    valid_guarantee: bool | None
    detail: str
    method: str = ""
    printed: str | None = None
    certificate: dict | None = None
    #: unproved hypotheses the verdict rests on
    assumptions: tuple[str, ...] = ()
    #: why a decided claim gets no certificate (with ``want_certificate``), else None
    no_certificate: str | None = None
    #: what ``enclosure`` encloses: "δ(ε=1)" for a dp claim, "μ" for a gdp claim, the
    #: quantity of a value claim (:func:`quantity_label`)
    quantity: str = ""
    #: the capability certdp lacks for this claim (the claim's ``needs``), else None
    needs: str | None = None

    def __post_init__(self) -> None:
        if self.assumptions and self.valid_guarantee is not None:
            # a guarantee resting on an unproved hypothesis is not established
            object.__setattr__(self, "valid_guarantee", None)
        if self.assumptions and "assuming (unproved)" not in self.detail:
            object.__setattr__(self, "detail", self.detail + "; assuming (unproved): " + "; ".join(self.assumptions))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "enclosure": None if self.enclosure is None else self.enclosure.to_json(),
            "valid_guarantee": self.valid_guarantee,
            "detail": self.detail,
            "method": self.method,
            "assumptions": list(self.assumptions),
            "quantity": self.quantity,
            **({} if self.no_certificate is None else {"no_certificate": self.no_certificate}),
            **({} if self.needs is None else {"needs": self.needs}),
        }
