"""``certdp plot gdpt|profile|tradeoff SPEC -o FILE``: GDPT or profile against δ_μ
curves (like Liu et al. 2022 Fig. 1–2), or the trade-off curve f against f_μ (like
Gomez et al. 2025 Fig. 1).  Needs matplotlib (``pip install 'certdp[plot]'``).

Each curve is drawn as a band between the float-rounded ends of its
certified enclosures (for an upper-bound profile the band starts at 0): the
picture shows what is proved, not a point estimate.
"""

from __future__ import annotations

import argparse
import math
import os
from fractions import Fraction

from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.errors import InputError


#: Most grid intervals a plot draws (each point is a certified evaluation).
MAX_POINTS = 10_000

#: File types matplotlib writes without extra libraries.
_FORMATS = {"png", "pdf", "svg", "eps", "ps"}


def _matplotlib():
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'certdp[plot]'") from None
    return plt


def _lo(enc) -> float:
    """A float ≤ the enclosure's lower end (display; rounded outward)."""
    return math.nextafter(float(enc.lo.lower()), -math.inf)


def _hi(enc) -> float:
    """A float ≥ the enclosure's upper end (display; rounded outward)."""
    return math.nextafter(float(enc.hi.upper()), math.inf)


def _lows(encs: list, floor: float | None) -> list[float]:
    """Lower band edges; on a log axis, values below the axis floor (e.g. δ = 0)
    are drawn at the floor."""
    return [max(_lo(e), floor) if floor is not None else _lo(e) for e in encs]


def _log_floor(encs: list) -> float:
    """Bottom of a log δ axis: a decade below the smallest positive upper end
    that is at least 1e-300 (exact zeros are drawn on the floor)."""
    highs = [h for h in (_hi(e) for e in encs) if h >= 1e-300]
    return min(highs) / 10 if highs else 1e-300


def _grid(eps_max: Fraction, n: int) -> list[Fraction]:
    return [eps_max * i / n for i in range(n + 1)]


def _run(args: argparse.Namespace) -> int:
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415
    from certdp.numerics.exact import exact  # noqa: PLC0415

    ext = os.path.splitext(args.output)[1].lower().lstrip(".")
    if ext not in _FORMATS:
        raise InputError(f"--output: unsupported file type {ext or '(none)'!r}; use one of "
                         + ", ".join(sorted(_FORMATS)))
    if not 1 <= args.points <= MAX_POINTS:
        raise InputError(f"--points must be an integer in [1, {MAX_POINTS}], got {args.points}")
    plt = _matplotlib()
    mech = parse_spec(args.spec)
    eps_max = exact(args.eps_max, "eps_max")
    if eps_max <= 0:
        raise InputError(f"eps_max must be positive, got {args.eps_max}")
    mus = [exact(m, "mu") for m in args.mu.split(",")] if args.mu else [Fraction(1), Fraction(2), Fraction(4)]
    if args.what == "tradeoff":
        return _tradeoff(args, plt, mech, mus if args.mu else None)
    xs = _grid(eps_max, args.points)
    fx = [float(x) for x in xs]
    fig, ax = plt.subplots(figsize=(6, 4))
    if args.what == "gdpt":
        from certdp.analyses.dispatch import gdpt_values  # noqa: PLC0415

        encs = gdpt_values(mech, xs)
        label = f"GDPT of {mech.spec()}"
        for i, m in enumerate(mus):
            ax.axhline(float(m), linestyle="--", linewidth=0.8, color=f"C{i + 1}", label=f"μ = {float(m):g}")
        ax.set_ylabel("G(ε) = μ_GDP(ε, δ_A(ε))")
    else:
        from certdp.analyses.dispatch import profile_values  # noqa: PLC0415
        from certdp.numerics.gdp import delta_mu  # noqa: PLC0415

        encs = profile_values(mech, xs)
        label = f"δ_A of {mech.spec()}"
        refs = [[delta_mu(m, x) for x in xs] for m in mus]
        floor = _log_floor([e for row in [encs, *refs] for e in row]) if args.log else None
        for i, (m, ref) in enumerate(zip(mus, refs)):
            ax.fill_between(fx, _lows(ref, floor), [_hi(r) for r in ref], color=f"C{i + 1}", alpha=0.4,
                            linewidth=0.8, label=f"δ_μ, μ = {float(m):g}")
        ax.set_ylabel("δ(ε)")
        if args.log:
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor)
    ax.fill_between(fx, _lows(encs, floor if args.what == "profile" else None), [_hi(e) for e in encs],
                    color="C0", alpha=0.6, linewidth=1.0, edgecolor="C0", label=_wrap(label))
    ax.set_xlabel("ε")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output)
    _report(args, "eps", xs, encs, label)
    return EXIT_OK


def _wrap(text: str, width: int = 60) -> str:
    """A legend label or title on lines of at most ``width`` characters (a long spec,
    e.g. a compose_all, would otherwise squeeze the axes to a sliver)."""
    import textwrap  # noqa: PLC0415

    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or text


def _report(args: argparse.Namespace, axis: str, xs: list[Fraction], encs: list, label: str) -> None:
    """``wrote FILE``, or with --json the certified band that was drawn."""
    emit(args, f"wrote {args.output}",
         {"output": args.output, "plot": args.what, "spec": args.spec, "curve": label,
          "band": [{axis: str(x), "enclosure": e} for x, e in zip(xs, encs)]})


def _tradeoff(args: argparse.Namespace, plt, mech, mus: list[Fraction] | None) -> int:  # noqa: ANN001
    """The certified band of f (lower curve from the upper PLDs, upper from the lower)
    against f_μ for the reference μ values (default: the μ of ``certdp measure``)."""
    from certdp.analyses.dispatch import gdp_of, tradeoff_values  # noqa: PLC0415
    from certdp.numerics.gdp import tradeoff_mu  # noqa: PLC0415

    alphas = [Fraction(i, args.points) for i in range(args.points + 1)]
    encs, method = tradeoff_values(mech, alphas)
    if mus is None:
        mus = [gdp_of(mech).mu.hi_exact]
    fx = [float(a) for a in alphas]
    fig, ax = plt.subplots(figsize=(5, 5))
    for i, m in enumerate(mus):
        ref = [tradeoff_mu(m, a, digits=12) for a in alphas]
        ax.fill_between(fx, [_lo(r) for r in ref], [_hi(r) for r in ref], color=f"C{i + 1}", alpha=0.5,
                        linewidth=0.8, label=f"f_μ, μ = {float(m):.6g}")
    ax.fill_between(fx, [max(_lo(e), 0.0) for e in encs], [_hi(e) for e in encs], color="C0", alpha=0.6,
                    linewidth=1.0, edgecolor="C0", label=_wrap(f"f of {mech.spec()} (certified band)"))
    ax.plot([0, 1], [1, 0], color="grey", linewidth=0.5, linestyle=":")
    ax.set_xlabel("type I error α")
    ax.set_ylabel("type II error β = f(α)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(_wrap(method, 100), fontsize=6)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output)
    _report(args, "alpha", alphas, encs, f"f of {mech.spec()} ({method})")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plot",
        help="plot a GDPT, privacy profile or trade-off curve (certified bands; needs matplotlib)",
        description="Plot the GDPT G(eps) or the profile delta_A(eps) with mu-GDP reference curves "
        "(Liu et al. 2022 Fig. 1-2). Requires the optional 'plot' extra (matplotlib).",
    )
    p.add_argument("what", choices=["gdpt", "profile", "tradeoff"])
    p.add_argument("spec", help="mechanism spec")
    p.add_argument("-o", "--output", required=True,
                   help="output file; its extension picks the format: " + ", ".join(f".{f}" for f in sorted(_FORMATS)))
    p.add_argument("--eps-max", dest="eps_max", default="5", help="right end of the eps axis (default 5)")
    p.add_argument("--points", type=int, default=100, help="number of grid intervals (default 100)")
    p.add_argument("--mu", default=None, help="comma-separated reference mu values (default 1,2,4)")
    p.add_argument("--log", action="store_true", help="log scale for the profile plot")
    add_json_flag(p)
    p.set_defaults(handler=_run)
