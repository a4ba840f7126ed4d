"""The structured result every proof module's ``check()`` returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    """One verified step: what was shown and how."""

    claim: str
    method: str  # "symbolic" (sympy, exact) or "certified" (ball arithmetic)
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class ProofResult:
    """Outcome of one proof module.

    ``verdict`` is "proved" when every step holds, "refuted" when a step that
    is meant to fail (a seed's printed statement shown wrong) fails as
    expected and the correction holds, "skipped" when a tool it needs is missing
    (coqc; a failure under CERTDP_REQUIRE_COQ=1), and "failed" otherwise.
    """

    name: str
    statement: str
    source: str
    verdict: str
    steps: tuple[Step, ...] = field(default_factory=tuple)
    corrections: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.verdict in ("proved", "corrected", "skipped")


def conclude(name: str, statement: str, source: str, steps: list[Step], corrections: list[str]) -> ProofResult:
    verdict = "failed" if not all(s.ok for s in steps) else ("corrected" if corrections else "proved")
    return ProofResult(name, statement, source, verdict, tuple(steps), tuple(corrections))
