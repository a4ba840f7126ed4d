"""``certdp gdp``: certified Gaussian-DP conversions (Liu et al. 2022 Thm 3.2, Gomez et al. 2025 Table 3)."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit, parse_list
from certdp.errors import InputError
from certdp.numerics import gdp
from certdp.numerics.exact import exact

#: the kernel function behind each API name (rational inputs: no sympy, fast start-up)
_KERNEL = {"delta_mu": gdp.delta_mu, "mu_gdp": gdp.mu_from_eps_delta, "eps_gdp": gdp.eps_from_mu_delta,
           "mu_pure_dp": gdp.mu_from_pure_dp}


def _call(name: str, *values: object, **options: object):  # noqa: ANN202 - an Enclosure
    """``certdp.api.<name>`` — which takes closed forms (``log(2)``) through monotone
    brackets — or, when every number is a plain rational, its kernel function directly."""
    try:
        for v in (*values, *(o for o in options.values() if isinstance(o, str))):
            exact(v)
    except InputError:
        from certdp.api import delta_mu, eps_gdp, mu_gdp, mu_pure_dp  # noqa: PLC0415 (closed forms: the parser)

        api = {"delta_mu": delta_mu, "mu_gdp": mu_gdp, "eps_gdp": eps_gdp, "mu_pure_dp": mu_pure_dp}
        return api[name](*values, **options)
    return _KERNEL[name](*values, **options)


def _table_rows(eps_list: list[str], delta_list: list[str]) -> list[dict]:
    rows = []
    for e in eps_list:
        for d in delta_list:
            rows.append({"eps": e, "delta": d, "mu": _call("mu_gdp", e, d)})
    return rows


def _format_table(eps_list: list[str], delta_list: list[str], rows: list[dict]) -> str:
    by_key = {(r["eps"], r["delta"]): r["mu"] for r in rows}
    from certdp.numerics.enclosure import current_display_limit, display_limit  # noqa: PLC0415

    with display_limit(current_display_limit() or 8):  # a table: 8 digits unless --digits N
        cells = {k: str(v) for k, v in by_key.items()}  # the one enclosure style
    width = max(len(c) for c in cells.values())
    head = "ε \\ δ".ljust(8) + "  ".join(d.rjust(width) for d in delta_list)
    lines = ["μ-GDP equivalent to (ε, δ)-DP at each (ε, δ): certified enclosures of μ_GDP(ε, δ)", head]
    for e in eps_list:
        lines.append(e.ljust(8) + "  ".join(cells[(e, d)].rjust(width) for d in delta_list))
    return "\n".join(lines)


def _delta(args: argparse.Namespace) -> int:
    enc = _call("delta_mu", args.mu, args.eps, digits=args.digits)
    emit(args, f"δ_μ(ε) for μ = {args.mu}, ε = {args.eps}:\n  δ ∈ {enc}", {"delta": enc})
    return EXIT_OK


def _mu(args: argparse.Namespace) -> int:
    enc = _call("mu_gdp", args.eps, args.delta, width=args.width)
    emit(
        args,
        f"μ_GDP(ε = {args.eps}, δ = {args.delta}) — μ-GDP implies (ε, δ)-DP iff μ ≤ μ_GDP:\n  μ ∈ {enc}",
        {"mu": enc},
    )
    return EXIT_OK


def _eps(args: argparse.Namespace) -> int:
    enc = _call("eps_gdp", args.mu, args.delta, width=args.width)
    emit(args, f"smallest ε with δ_μ(ε) ≤ δ for μ = {args.mu}, δ = {args.delta}:\n  ε ∈ {enc}", {"eps": enc})
    return EXIT_OK


def _from_pure(args: argparse.Namespace) -> int:
    enc = _call("mu_pure_dp", args.eps, digits=args.digits)
    emit(args, f"every {args.eps}-DP mechanism is μ-GDP with μ = −2Φ⁻¹(1/(1+e^ε)):\n  μ ∈ {enc}", {"mu": enc})
    return EXIT_OK


def _table(args: argparse.Namespace) -> int:
    eps_list = parse_list(args.eps, "--eps")
    delta_list = parse_list(args.delta, "--delta")
    from certdp.expr.constants import exact_real  # noqa: PLC0415

    for e in eps_list:
        exact_real(e, "--eps")
    for d in delta_list:
        exact_real(d, "--delta")
    rows = _table_rows(eps_list, delta_list)
    emit(args, lambda: _format_table(eps_list, delta_list, rows), {"table": rows})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gdp", help="certified Gaussian-DP conversions", description=__doc__)
    gsub = p.add_subparsers(dest="gdp_command", metavar="SUBCOMMAND")
    gsub.required = True

    d = gsub.add_parser("delta", help="δ_μ(ε) = Φ(−ε/μ+μ/2) − e^ε Φ(−ε/μ−μ/2)")
    d.add_argument("--mu", required=True, help="μ > 0 (exact decimal, e.g. 1 or 0.5)")
    d.add_argument("--eps", required=True, help="ε ≥ 0")
    d.add_argument("--digits", type=int, default=15, help="relative width ≤ 10^-digits (default 15)")
    add_json_flag(d)
    d.set_defaults(handler=_delta)

    m = gsub.add_parser("mu", help="μ_GDP(ε, δ): the μ with δ_μ(ε) = δ")
    m.add_argument("--eps", required=True, help="ε ≥ 0")
    m.add_argument("--delta", required=True, help="0 < δ < 1")
    m.add_argument("--width", default="1e-12", help="absolute width of the enclosure (default 1e-12)")
    add_json_flag(m)
    m.set_defaults(handler=_mu)

    e = gsub.add_parser("eps", help="smallest ε with δ_μ(ε) ≤ δ")
    e.add_argument("--mu", required=True, help="μ > 0")
    e.add_argument("--delta", required=True, help="0 < δ < 1")
    e.add_argument("--width", default="1e-12", help="absolute width of the enclosure (default 1e-12)")
    add_json_flag(e)
    e.set_defaults(handler=_eps)

    f = gsub.add_parser("from-pure-dp", help="μ = −2Φ⁻¹(1/(1+e^ε)) for an ε-DP mechanism")
    f.add_argument("--eps", required=True, help="ε ≥ 0")
    f.add_argument("--digits", type=int, default=15, help="relative width ≤ 10^-digits (default 15)")
    add_json_flag(f)
    f.set_defaults(handler=_from_pure)

    t = gsub.add_parser("table", help="(ε, δ) → μ table (Gomez et al. 2025 Table 3, any grid)")
    t.add_argument("--eps", default="0.1,0.5,1,2,4,6,8,10", help="comma-separated ε values")
    t.add_argument("--delta", default="1e-5,1e-6,1e-9", help="comma-separated δ values")
    add_json_flag(t)
    t.set_defaults(handler=_table)
