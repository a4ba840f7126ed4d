"""``certdp bench NAME``: timing benchmarks (not part of the test suite)."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit


def _run(args: argparse.Namespace) -> int:
    from certdp.bench import BENCHMARKS, summarize

    rows = BENCHMARKS[args.name](repeat=args.repeat)
    summary = summarize(rows)

    def human() -> str:
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
    p.add_argument("--repeat", type=int, default=20, help="timed runs per input (default 20)")
    add_json_flag(p)
    p.set_defaults(handler=_run)
