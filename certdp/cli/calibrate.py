"""``certdp calibrate``: the optimal value of one parameter on a grid.

    certdp calibrate "dpsgd(noise=x, rate=0.01, steps=1000)" --param x --eps 1 --delta 1e-5 --resolution 0.001

Prints the smallest (noise-like parameters) or largest (rates, step counts)
grid value whose certified δ(ε) meets the target, with the certified proof that
the next grid value does not: optimal at the stated resolution.  Exit 0 when
optimality is proved, 1 when the neighbour stays undecided (the value is still
safe).
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit

EXIT_NOT_PROVED = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="optimal parameter value (noise, rate, steps) for an (ε, δ) target",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help="mechanism spec naming the free parameter, e.g. \"dpsgd(noise=x, rate=0.01, steps=1000)\"")
    p.add_argument("--param", required=True, help="the free parameter's name in SPEC (e.g. x)")
    p.add_argument("--eps", required=True, help="target ε (exact)")
    p.add_argument("--delta", required=True, help="target δ (exact)")
    p.add_argument("--resolution", default="1/1000", help="grid step of the parameter (default 1/1000)")
    p.add_argument("--start", default="1", help="where the search starts (default 1)")
    p.add_argument("--more-private", choices=("larger", "smaller"), default=None,
                   help="which way is more private (default: from the keyword: noise/sigma/scale larger, "
                        "rate/steps/k smaller)")
    add_json_flag(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from certdp.analyses.calibrate import calibrate  # noqa: PLC0415

    c = calibrate(args.spec, args.param, eps=args.eps, delta=args.delta, resolution=args.resolution,
                  more_private=args.more_private, start=args.start)

    def human() -> str:
        which = "smallest" if c.direction == "larger" else "largest"
        lines = [f"{c.param} = {c.best.value} ({float(c.best.value):.10g}): the {which} value on the grid "
                 f"{args.resolution}·Z meeting (ε = {args.eps}, δ = {args.delta})",
                 f"  at {c.param} = {c.best.value}: δ({args.eps}) ∈ {c.best.answer.enclosure} <= {args.delta}  "
                 f"[certified: {c.best.answer.method}]"]
        if c.neighbour is None:
            lines.append("  no further grid value exists in the parameter's domain: optimal")
        elif c.neighbour.meets is False:
            lines.append(f"  at {c.param} = {c.neighbour.value}: δ({args.eps}) ∈ {c.neighbour.answer.enclosure} "
                         f"> {args.delta}  [certified: {c.neighbour.answer.method}]")
            lines.append("  so the value is optimal at this resolution")
        else:
            lines.append(f"  at {c.param} = {c.neighbour.value}: δ({args.eps}) ∈ {c.neighbour.answer.enclosure} "
                         "is undecided against the target: the value is safe, its optimality is NOT proved")
        return "\n".join(lines)

    emit(args, human, c.to_json())
    return EXIT_OK if c.optimal else EXIT_NOT_PROVED
