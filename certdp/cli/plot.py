"""``certdp plot gdpt|profile SPEC -o FILE``: GDPT or profile against δ_μ curves
(like seed 000 Fig. 1–2).  Needs matplotlib (``pip install 'certdp[plot]'``).

Plotted values are midpoints of certified enclosures (display only).
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from certdp.cli.common import EXIT_OK
from certdp.errors import InputError


def _matplotlib():
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'certdp[plot]'") from None
    return plt


def _grid(eps_max: Fraction, n: int) -> list[Fraction]:
    return [eps_max * i / n for i in range(n + 1)]


def _run(args: argparse.Namespace) -> int:
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415
    from certdp.numerics.exact import exact  # noqa: PLC0415

    plt = _matplotlib()
    mech = parse_spec(args.spec)
    eps_max = exact(args.eps_max, "eps_max")
    if eps_max <= 0:
        raise InputError(f"eps_max must be positive, got {args.eps_max}")
    mus = [exact(m, "mu") for m in args.mu.split(",")] if args.mu else [Fraction(1), Fraction(2), Fraction(4)]
    xs = _grid(eps_max, args.points)
    fig, ax = plt.subplots(figsize=(6, 4))
    if args.what == "gdpt":
        from certdp.analyses.gdpt import gdpt  # noqa: PLC0415

        ys = [gdpt(mech, x, width="1e-9").mid for x in xs]
        ax.plot([float(x) for x in xs], ys, label=f"GDPT of {mech.spec()}")
        for i, m in enumerate(mus):
            ax.axhline(float(m), linestyle="--", linewidth=0.8, color=f"C{i + 1}", label=f"μ = {float(m):g}")
        ax.set_ylabel("G(ε) = μ_GDP(ε, δ_A(ε))")
    else:
        from certdp.analyses.gdpt import profile_ball  # noqa: PLC0415
        from certdp.numerics.gdp import delta_mu  # noqa: PLC0415

        ys = [float(profile_ball(mech, x).mid()) for x in xs]
        ax.plot([float(x) for x in xs], ys, label=f"δ_A of {mech.spec()}")
        for m in mus:
            ax.plot([float(x) for x in xs], [delta_mu(m, x).mid for x in xs], "--", linewidth=0.8, label=f"δ_μ, μ = {float(m):g}")
        ax.set_ylabel("δ(ε)")
        if args.log:
            ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="plot a GDPT or privacy profile against delta_mu curves (needs matplotlib)",
        description="Plot the GDPT G(eps) or the profile delta_A(eps) with mu-GDP reference curves "
        "(seed 000 Fig. 1-2). Requires the optional 'plot' extra (matplotlib).",
    )
    p.add_argument("what", choices=["gdpt", "profile"])
    p.add_argument("spec", help="mechanism spec")
    p.add_argument("-o", "--output", required=True, help="output file (.png or .pdf)")
    p.add_argument("--eps-max", dest="eps_max", default="5", help="right end of the eps axis (default 5)")
    p.add_argument("--points", type=int, default=100, help="number of grid intervals (default 100)")
    p.add_argument("--mu", default=None, help="comma-separated reference mu values (default 1,2,4)")
    p.add_argument("--log", action="store_true", help="log scale for the profile plot")
    p.set_defaults(handler=_run)
