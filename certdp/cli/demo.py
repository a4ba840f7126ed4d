"""``certdp demo``: an end-to-end showcase on built-in examples.

Currently: reproduces seed 003 Table 3 ((ε, δ) → μ) with certified enclosures
and checks each printed two-decimal value against its enclosure.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.numerics import gdp
from certdp.numerics.exact import parse_decimal

#: Seed 003 (003_b212dec0ade17b9d.txt), Table 3: μ for common (ε, δ), printed to 2 decimals.
SEED003_TABLE3 = {
    "deltas": ["1e-5", "1e-6", "1e-9"],
    "rows": {
        "0.1": ["0.03", "0.03", "0.02"],
        "0.5": ["0.14", "0.12", "0.09"],
        "1.0": ["0.27", "0.24", "0.18"],
        "2.0": ["0.50", "0.45", "0.35"],
        "4.0": ["0.92", "0.84", "0.67"],
        "6.0": ["1.31", "1.20", "0.97"],
        "8.0": ["1.67", "1.53", "1.26"],
        "10.0": ["2.00", "1.85", "1.54"],
    },
}


def rounding_interval(printed: str) -> tuple[Fraction, Fraction]:
    """The interval of reals that round to ``printed`` (round-to-nearest at its last digit)."""
    value = parse_decimal(printed)
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    half = Fraction(1, 2 * 10**decimals)
    return value - half, value + half


def seed003_table3() -> list[dict]:
    """Certified μ for every cell of seed 003 Table 3, with the printed value and
    whether the certified enclosure lies within the printed value's rounding
    interval (``agrees``)."""
    rows = []
    for eps, printed_row in SEED003_TABLE3["rows"].items():
        for delta, printed in zip(SEED003_TABLE3["deltas"], printed_row):
            mu = gdp.mu_from_eps_delta(eps, delta)
            lo, hi = rounding_interval(printed)
            agrees = mu.certainly_greater_than(lo) and mu.certainly_less_than(hi)
            rows.append({"eps": eps, "delta": delta, "mu": mu, "printed": printed, "agrees": agrees})
    return rows


def _human(rows: list[dict]) -> str:
    lines = [
        "certdp demo — seed 003 Table 3: μ-GDP equivalent to (ε, δ)-DP, certified",
        "",
        f"{'ε':>5} {'δ':>6}  {'certified μ enclosure':<36} printed  agrees",
    ]
    for r in rows:
        lines.append(
            f"{r['eps']:>5} {r['delta']:>6}  {str(r['mu']):<36} {r['printed']:>7}  {'yes' if r['agrees'] else 'NO'}"
        )
    n_bad = sum(not r["agrees"] for r in rows)
    lines.append("")
    lines.append(
        f"{len(rows) - n_bad} of {len(rows)} printed values agree with the certified μ "
        f"at their printed precision" + ("." if n_bad == 0 else f"; {n_bad} do not (see rows marked NO).")
    )
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    rows = seed003_table3()
    emit(args, lambda: _human(rows), {"seed003_table3": rows})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="showcase on built-in examples", description=__doc__)
    add_json_flag(p)
    p.set_defaults(handler=_run)
