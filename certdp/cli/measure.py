"""``certdp measure SPEC``: certified μ enclosure of a mechanism (seed 000 §4)."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit


def _run(args: argparse.Namespace) -> int:
    from certdp.gdpt import DEFAULT_ETA_MAX, measure  # noqa: PLC0415
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    mech = parse_spec(args.spec)
    from certdp.routing import accountant_for  # noqa: PLC0415

    if accountant_for(mech) is not None:
        return _run_accountant(args, mech)
    res = measure(
        mech,
        eps_max=args.eps_max,
        width=args.width,
        eta_max=args.eta_max if args.eta_max is not None else DEFAULT_ETA_MAX,
    )
    if args.certificate:
        from certdp.certificates.writer import write  # noqa: PLC0415

        write(res.certificate(), args.certificate)

    def human() -> str:
        lines = [
            f"mechanism: {res.spec}",
            f"μ ∈ {res.mu}   (width {float(res.mu_upper - res.mu_lower):.3g})",
            f"statement: {res.statement()}",
            f"tail: {res.tail.kind}" + (f", L = {res.tail.L}" if res.tail.L is not None else ""),
            f"head [0, {res.eps_max}] in {res.cells} cells; {res.evaluations} profile evaluations",
        ]
        if args.certificate:
            lines.append(f"certificate written to {args.certificate}")
        return "\n".join(lines)

    emit(args, human, res.to_json())
    return EXIT_OK


def _run_accountant(args: argparse.Namespace, mech: object) -> int:
    """Compositions without a closed-form profile (DP-SGD): the GDP report of
    the certified PLD accountant — "μ-GDP except η" plus the strict tail bound."""
    from certdp.errors import InputError  # noqa: PLC0415
    from certdp.routing import gdp_of  # noqa: PLC0415

    if args.certificate:
        raise InputError("certificates for accountant-based GDP reports are not supported yet")
    ans = gdp_of(mech)
    data = {
        "mu": ans.mu.to_json(),
        "eps_max": None,
        "residual": None if ans.residual is None else ans.residual.to_json(),
        "tail": {"kind": "residual", "L": None},
        "strict_mu_at_least": None if ans.strict_mu_at_least is None else ans.strict_mu_at_least.to_json(),
        "evaluations": None,
        "cells": None,
        "method": ans.method,
    }

    def human() -> str:
        lines = [f"mechanism: {mech.spec()}", f"μ ∈ {ans.mu}   [{ans.method}]"]
        if ans.residual is not None:
            lines.append(f"statement: δ_A(ε) <= δ_μ(ε) + {ans.residual.hi_str(4)} for all ε >= 0 with μ = {ans.mu.hi_str(8)}")
        if ans.strict_mu_at_least is not None:
            lines.append(f"strict GDP parameter >= {ans.strict_mu_at_least.lo_str(8)} (tail, seed 000 Thm 4.4 / §5.3)")
        return "\n".join(lines)

    emit(args, human, data)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "measure",
        help="certified enclosure of the optimal GDP parameter mu",
        description="Enclose sup_eps G(eps), the optimal mu-GDP parameter (seed 000 Cor 4.1), "
        "by the monotone cell argument on [0, eps_max], and state the tail beyond eps_max.",
    )
    p.add_argument("spec", help='mechanism spec, e.g. "laplace(scale=1/2)"')
    p.add_argument("--eps-max", dest="eps_max", default=None, help="head bound eps_h (default: automatic from --eta-max)")
    p.add_argument("--width", default="1e-6", help="target width of the mu enclosure (default 1e-6)")
    p.add_argument("--eta-max", dest="eta_max", default=None, help="bound on the residual delta_A(eps_h) used to choose eps_h (default 1e-30)")
    p.add_argument("--certificate", metavar="FILE", default=None, help="write a certificate (check with `certdp verify FILE`)")
    add_json_flag(p)
    p.set_defaults(handler=_run)
