"""``certdp calibrate``: a certified parameter value meeting an (ε, δ) target,
optimal on the grid when monotonicity is proved.

    certdp calibrate "dpsgd(noise=x, rate=0.01, steps=1000)" --param x --eps 1 --delta 1e-5 --resolution 0.001

Prints a grid value whose certified δ(ε) meets the target (narrowed to the
default width, 1 % of δ), with the certified fact that the next grid value
towards less privacy does not (on the PLD route its δ comes from the coarsest
grid that decides it, so its enclosure may be wider).  It is called the
smallest (noise-like parameters) or largest (rates, step counts) value, i.e.
optimal at the stated resolution, only when δ(ε) is proved monotone in the
parameter there: by the catalog's rules (gaussian sigma, laplace scale larger;
rate, k, steps, pure_dp/approx_dp eps and delta, gaussian_dp mu smaller;
randomized_response p smaller on [1/2, 1) and larger on (0, 1/2]; inside
subsample/compose).  Otherwise the answer carries the monotonicity it assumes
(text and --json "assumptions"), and a search that finds nothing says "no
value found on the scanned grid" instead of "none exists".

Exit status: 0 a value found and proved optimal; 1 a value found whose
optimality is not proved (neighbour undecided or monotonicity assumed), or
no value found (proved or not: the text says which); 2 bad input, including
a --more-private that contradicts a rule proved on the parameter's whole range.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit

EXIT_NOT_PROVED = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="certified parameter value (noise, rate, steps) for an (ε, δ) target; "
                       "optimal when monotonicity is proved",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help="mechanism spec naming the free parameter, e.g. \"dpsgd(noise=x, rate=0.01, steps=1000)\"")
    p.add_argument("--param", required=True, help="the free parameter's name in SPEC (e.g. x)")
    p.add_argument("--eps", required=True, help="target ε (exact)")
    p.add_argument("--delta", required=True, help="target δ (exact)")
    p.add_argument("--resolution", default="1/1000", help="grid step of the parameter (default 1/1000)")
    p.add_argument("--start", default="1", help="where the search starts (default 1)")
    p.add_argument("--more-private", choices=("larger", "smaller"), default=None,
                   help="which way is more private (default: what the catalog's rules prove at --start; "
                        "required where no rule applies, and then assumed, not proved)")
    add_json_flag(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from certdp.analyses.calibrate import calibrate  # noqa: PLC0415

    c = calibrate(args.spec, args.param, eps=args.eps, delta=args.delta, resolution=args.resolution,
                  more_private=args.more_private, start=args.start)
    target = f"(ε = {args.eps}, δ = {args.delta})"

    def line(f, rel: str) -> str:
        return (f"  at {c.param} = {f.value}: δ({args.eps}) ∈ {f.answer.enclosure} {rel}  "
                f"[certified: {f.answer.method}]")

    def human() -> str:
        if c.best is None:
            lo, hi = c.scanned
            if c.none_exists:
                lines = [f"no positive grid value of {c.param} on {args.resolution}·Z meets {target}: proved"]
            else:
                lines = [f"no value found on the scanned grid: {c.param} from {lo} to {hi} "
                         f"({args.resolution}·Z) misses or is undecided against {target}"
                         + ("" if c.exhausted else "; the scan stopped before the end of the parameter's domain")]
            f = c.missed
            lines.append(line(f, "> " + args.delta) if f.meets is False else
                         line(f, "is undecided against the target"))
        else:
            if c.optimal:
                which = "smallest" if c.direction == "larger" else "largest"
                head = f"the {which} value on the grid {args.resolution}·Z meeting {target}"
            else:
                head = f"a value on the grid {args.resolution}·Z meeting {target} (optimality NOT proved)"
            lines = [f"{c.param} = {c.best.value} ({float(c.best.value):.10g}): {head}",
                     line(c.best, "<= " + args.delta)]
            if c.neighbour is None:
                lines.append("  no further grid value exists in the parameter's domain"
                             + (": optimal" if c.optimal else ""))
            elif c.neighbour.meets is False:
                lines.append(line(c.neighbour, "> " + args.delta))
                if c.optimal:
                    lines.append("  so the value is optimal at this resolution")
            else:
                lines.append(line(c.neighbour, "is undecided against the target: the value is safe, its "
                                  "optimality is NOT proved"))
        if c.monotone:
            lines.extend(f"  monotone (proved): {r}" for r in c.order.rules(c.direction))
        lines.extend(f"  assumption: {a}" for a in c.assumptions)
        return "\n".join(lines)

    emit(args, human, c.to_json())
    return EXIT_OK if c.optimal else EXIT_NOT_PROVED
