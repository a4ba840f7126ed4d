"""``certdp demo``: an end-to-end showcase on built-in examples.

1. Gomez et al. 2025 Table 3 ((ε, δ) → μ) with certified enclosures, each printed
   two-decimal value checked against its enclosure.
2. Exact GDP identification of the Liu et al. 2022 SGD example (L = 1/2, with trace).
3. Certified optimal μ of the Liu et al. 2022 Laplace example, written to a
   certificate and re-checked by the independent checker.
4. DP-SGD (σ = 9.4, q = 0.32768, T = 2000, Gomez et al. 2025 §5): certified ε at δ = 1e-5.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.numerics import gdp
from certdp.numerics.exact import printed_interval

#: Gomez et al. 2025 (003_b212dec0ade17b9d.txt), Table 3: μ for common (ε, δ), printed to 2 decimals.
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
    return printed_interval(printed, "nearest")


def seed003_table3() -> list[dict]:
    """Certified μ for every cell of Gomez et al. 2025 Table 3, with the printed value and
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
        "certdp demo — Gomez et al. 2025 Table 3: μ-GDP equivalent to (ε, δ)-DP, certified",
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


def _tour() -> dict:
    """Parts 2–4 of the demo (a few seconds in all)."""
    import json  # noqa: PLC0415
    import os  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian  # noqa: PLC0415
    from certdp.certificates import verify  # noqa: PLC0415
    from certdp.analyses.gdpt import measure  # noqa: PLC0415
    from certdp.certificates.writer import measurement_certificate  # noqa: PLC0415
    from certdp.analyses.limits import identify  # noqa: PLC0415
    from certdp.mechanisms import parse_spec  # noqa: PLC0415

    ident = identify(parse_spec("sgd(A=2, B=1, sigma=2)"))
    lap = measure(parse_spec("laplace(scale=1/2)"), width="1e-6")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "laplace.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(measurement_certificate(lap), fh)
        checked = verify(path)
    acc = PLDAccountant(lower=False).compose(SubsampledGaussian(Fraction(94, 10), Fraction(32768, 100000)), 2000)
    return {
        "identify_sgd": {"verdict": ident.verdict, "L": str(ident.L), "tail_mu": ident.tail_mu, "steps": len(ident.trace)},
        "measure_laplace": {"mu": lap.mu, "statement": lap.statement(), "certificate_valid": checked.valid},
        "dpsgd": {"eps_upper": acc.epsilon("1e-5").hi_str(8)},
    }


def _tour_human(t: dict) -> str:
    i, m, d = t["identify_sgd"], t["measure_laplace"], t["dpsgd"]
    return "\n" + "\n".join([
        "",
        "Exact GDP identification (Liu et al. 2022 §4), sgd(A=2, B=1, sigma=2):",
        f"  verdict {i['verdict']}, L = limsup ε²/(−2 log δ) = {i['L']}, tail μ ∈ {i['tail_mu']}  "
        f"({i['steps']}-step proof trace: `certdp identify \"sgd(A=2, B=1, sigma=2)\"`)",
        "",
        "Certified optimal μ (Liu et al. 2022 Thm 4.6), laplace(scale=1/2):",
        f"  μ ∈ {m['mu']}: {m['statement']}",
        f"  certificate re-checked by the independent checker: {'VALID' if m['certificate_valid'] else 'INVALID'}",
        "",
        "DP-SGD σ = 9.4, q = 0.32768, T = 2000 (Gomez et al. 2025 §5), certified PLD accountant:",
        f"  (ε, 1e-5)-DP with ε ≤ {d['eps_upper']}   (`certdp dpsgd ... --mu` adds the GDP report)",
        "",
        "Next: `certdp audit --builtin seeds` checks 80 published numbers from the seed papers.",
    ])


def _run(args: argparse.Namespace) -> int:
    rows = seed003_table3()
    tour = _tour()
    emit(args, lambda: _human(rows) + _tour_human(tour), {"seed003_table3": rows, **tour})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="showcase on built-in examples", description=__doc__)
    add_json_flag(p)
    p.set_defaults(handler=_run)
