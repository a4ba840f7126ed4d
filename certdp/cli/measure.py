"""``certdp measure SPEC``: certified μ of a mechanism (Liu et al. 2022 §4).

Every mechanism goes through the one dispatcher (:func:`certdp.analyses.dispatch.gdp_of`),
so ``measure`` and ``audit`` take the same route and give the same answer:

* exactly Gaussian trade-off curves (gaussian, gaussian_dp, compositions of
  them): μ exactly, strict μ-GDP, certificate kind ``gdp_exact``;
* compositions answered by an accountant (DP-SGD): the GDP report
  "μ-GDP except η" plus the strict tail bound;
* everything else: the certified GDPT measurement (adaptive cells,
  Liu et al. 2022 Thm 4.6), certificate kind ``gdp``/``gdp_head``.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_budget_flag, add_json_flag, emit


def _verdict(ans, width, width_text: str) -> str | None:  # noqa: ANN001 - GDPAnswer, Fraction
    """What must be said before any number: not GDP, a missed width target, or
    unproved hypotheses (exit 1, as ``identify`` does).  None when the answer
    is what was asked for."""
    m = ans.measurement
    if m is not None and m.tail.kind == "limit" and m.tail.L == "oo" and m.profile_kind.bounds_from_below:
        return ("verdict: NOT GDP for any μ (the tail limit is infinite); the μ below only bounds "
                "the head [0, ε_h] and holds with the stated residual")
    if not ans.exact and ans.mu.hi_exact - ans.mu.lo_exact > width:
        return (f"verdict: the width target {width_text} was missed (width {float(ans.mu.hi_exact - ans.mu.lo_exact):.3g}); "
                "the enclosure below is sound but not as narrow as asked")
    if ans.assumptions:
        return "verdict: holds only under unproved hypotheses (listed below)"
    return None


def _run(args: argparse.Namespace) -> int:
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415
    from certdp.analyses.dispatch import gdp_of  # noqa: PLC0415
    from certdp.numerics.exact import exact  # noqa: PLC0415

    mech = parse_spec(args.spec)
    ans = gdp_of(mech, width=args.width, eps_max=args.eps_max, eta_max=args.eta_max)
    if args.certificate:
        from certdp.certificates.writer import gdp_certificate, write  # noqa: PLC0415

        write(gdp_certificate(ans), args.certificate)
    m = ans.measurement
    if m is not None:
        data = m.to_json()
    else:
        data = {
            "mu": ans.mu.to_json(),
            "eps_max": None,
            "residual": None if ans.residual is None else ans.residual.to_json(),
            "tail": {"kind": "exact" if ans.exact else "residual", "L": None},
            "strict_mu_at_least": None if ans.strict_mu_at_least is None else ans.strict_mu_at_least.to_json(),
            "strict_mu_at_most": None if ans.strict_mu_at_most is None else ans.strict_mu_at_most[1].to_json(),
            "tail_mu_at_most": None,
            "evaluations": None,
            "cells": None,
            "profile_kind": ans.kind.value,
            "assumptions": list(ans.assumptions),
        }
    data.setdefault("strict_mu_at_most", None)  # a measurement's μ⁺ is itself strict when its tail is zero
    data["method"] = ans.method
    verdict = _verdict(ans, exact(args.width, "width"), args.width)
    data["verdict"] = verdict

    def human() -> str:
        lines = [f"mechanism: {mech.spec()}"]
        if verdict:
            lines.append(verdict)
        if ans.exact:
            lines.append(f"μ = {ans.mu}   (exact)")
            lines.append(f"statement: {ans.mu.hi_str(12)}-GDP, strict (no residual): the trade-off curve is exactly Gaussian")
        elif m is not None:
            lines += [
                f"μ ∈ {m.mu}   (width {float(m.mu_upper - m.mu_lower):.3g})",
                f"statement: {m.statement()}",
                f"tail: {m.tail.kind}" + (f", L = {m.tail.L}" if m.tail.L is not None else "")
                + (f", L of the upper bound = {m.tail.upper_L}" if m.tail.upper_L is not None else ""),
                f"head [0, {m.eps_max}] in {m.cells} cells; {m.evaluations} profile evaluations",
            ]
        else:
            lines.append(f"μ ∈ {ans.mu}")
            if ans.residual is not None:
                lines.append(f"statement: δ_A(ε) <= δ_μ(ε) + {ans.residual.hi_str(4)} for all ε >= 0 with μ = {ans.mu.hi_str(8)}")
                lines.append("(η, the residual, is the δ left above the last checked point of the profile: "
                             "a smaller η checks further into the tail and can only raise μ)")
            if ans.strict_mu_at_least is not None:
                lines.append(f"strict GDP parameter >= {ans.strict_mu_at_least.lo_str(8)} (tail, Liu et al. 2022 Thm 4.4 / §5.3)")
            if ans.strict_mu_at_most is not None:
                t, bound = ans.strict_mu_at_most
                lines.append(f"strict GDP parameter (η = 0) <= {bound.hi_str(8)}: δ = 0 from ε = {t} on, so the "
                             f"mechanism is ({t}, 0)-DP (Liu et al. 2022 Thm 5.1)")
        lines.append(f"[{ans.method}]")
        if ans.assumptions and m is None:
            lines += [f"assuming (unproved): {a}" for a in ans.assumptions]
        if args.certificate:
            lines.append(f"certificate written to {args.certificate}")
        return "\n".join(lines)

    emit(args, human, data)
    return EXIT_UNDECIDED if verdict else EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "measure",
        help="certified enclosure of the optimal GDP parameter mu",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", help='mechanism spec, e.g. "laplace(scale=1/2)"')
    p.add_argument("--eps-max", dest="eps_max", default=None, help="head bound eps_h (default: automatic from --eta-max)")
    p.add_argument("--width", default="1e-6", help="target width of the mu enclosure (default 1e-6)")
    p.add_argument("--eta-max", dest="eta_max", default=None, help="bound on the residual delta_A(eps_h) used to choose eps_h (default 1e-30)")
    p.add_argument("--certificate", metavar="FILE", default=None, help="write a certificate (check with `certdp verify FILE`)")
    add_budget_flag(p, "600")
    add_json_flag(p)
    p.set_defaults(handler=_run)
