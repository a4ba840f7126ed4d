"""``certdp bench NAME``: timing benchmarks (not part of the test suite)."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit


def _run(args: argparse.Namespace) -> int:
    from certdp.bench import BENCHMARKS, summarize

    if args.repeat is None:
        args.repeat = 20 if args.name == "gdp" else 1
    if args.repeat < 1:
        from certdp.errors import InputError  # noqa: PLC0415

        raise InputError(f"--repeat must be >= 1, got {args.repeat}")
    rows = BENCHMARKS[args.name](repeat=args.repeat)
    summary = summarize([r for r in rows if r.get("seconds") is not None])

    def human() -> str:
        if any("result" in r for r in rows):  # comparison benchmark: one row per tool
            lines = [f"certdp bench {args.name}  (best of {args.repeat} run(s), each tool in its own process)"]
            w = max(len(r["function"]) for r in rows)
            for r in rows:
                if r["seconds"] is None:
                    lines.append(f"  {r['function']:<{w}} {r['result']}")
                    continue
                ratio = (f"  time ×{r['time_vs_certdp_two_sided']:.2f}, memory ×{r['memory_vs_certdp_two_sided']:.2f}"
                         " vs certdp two-sided" if "time_vs_certdp_two_sided" in r and
                         not r["function"].endswith("certdp two-sided") else "")
                lines.append(f"  {r['function']:<{w}} {r['seconds']:8.2f} s  {r['peak_mb']:7.0f} MB  {r['result']}{ratio}")
            return "\n".join(lines)
        lines = [f"certdp bench {args.name}  (median of {args.repeat} runs per input)"]
        for r in rows:
            lines.append(f"  {r['function']:<20} {r['args']:<28} {r['seconds'] * 1e6:10.1f} µs")
        lines.append("median over inputs:")
        for k, v in summary.items():
            lines.append(f"  {k:<20} {v * 1e6:10.1f} µs")
        return "\n".join(lines)

    emit(args, human, {"rows": rows, "median_seconds": summary})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    from certdp.bench import BENCHMARKS

    p = sub.add_parser("bench", help="run a timing benchmark", description=__doc__)
    p.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed runs per input (default 20 for gdp, 1 otherwise)")
    add_json_flag(p)
    p.set_defaults(handler=_run)
