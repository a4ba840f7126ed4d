"""``certdp sweep``: certified quantities over a grid of mechanisms, into a table.

    certdp sweep GRID.toml --out results.csv [--jobs N | --dask tcp://HOST:PORT | --dask local]

GRID.toml names a spec template, axes of exact numbers and the quantities
(see examples/dpsgd_grid.toml and docs/scale.md); a grid of more than 10^6
points is refused.  Rows are appended to --out as points finish; running the
same command again skips the finished points (a row certdp did not write —
edited, duplicated, outside the grid — is refused); the finished file is
sorted in grid order.  An axis may gain values between runs: the finished
points are reused (a per-point cache keyed by the point and the grid's
settings), only the new ones are computed.  --json prints the summary (the
file, its columns, the counts) as one JSON object.  --budget bounds the whole sweep: when it is spent the
finished rows stay and the same command resumes.  Exit 0 when every point
succeeded, 1 when some point failed (its row says why) or the budget ran out,
2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag

if TYPE_CHECKING:
    from certdp.sweep.runner import Progress


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="certified ε/δ/μ over a grid of mechanisms (processes or a Dask cluster)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("grid", metavar="GRID.toml", help="grid file: spec template, [axes], [[quantity]]")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results file, .csv or .parquet (Parquet needs pyarrow); an existing one is resumed")
    p.add_argument("--dask", metavar="ADDRESS",
                       help="run on the Dask scheduler at ADDRESS (tcp://HOST:PORT), or 'local' for a LocalCluster "
                            "of --jobs workers (default: one per core)")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="worker processes (default 1: in this process); with --dask local, the number of workers")
    p.add_argument("--point-budget", metavar="SECONDS",
                   help="time budget per point; a point that needs more gets an error row")
    p.add_argument("--retry-errors", action="store_true", help="on resume, compute the failed points again")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="progress on stderr even when it is not a terminal (default: only on a terminal)")
    shown.add_argument("--quiet", action="store_true", help="no progress and no summary")
    add_json_flag(p)  # the summary (the table itself is the --out file)
    p.set_defaults(handler=_run, progress_points="")  # its own progress line (ProgressLine), nothing inside a point


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class ProgressLine:
    """points done/total, rate and ETA on stderr: one rewritten line on a
    terminal, otherwise one line per finished point (a log)."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.every = 0.2 if self.tty else 0.0
        self.last = 0.0
        self.shown = False

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        final = p.done == p.total
        if not final and now - self.last < self.every:
            return
        self.last = now
        failed = f", {p.failed} failed" if p.failed else ""
        text = f"[{p.done}/{p.total}] {p.rate:.2f} points/s, ETA {_clock(p.eta)}{failed}"
        if self.tty:
            print("\r" + text.ljust(60), end="", file=sys.stderr, flush=True)
            self.shown = True
        else:
            print(text, file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    from certdp.errors import InputError  # noqa: PLC0415
    from certdp.numerics.exact import exact  # noqa: PLC0415
    from certdp.sweep import SweepAborted, load_grid, run_sweep  # noqa: PLC0415

    grid = load_grid(args.grid)
    point_budget = None
    if args.point_budget is not None:
        point_budget = float(exact(args.point_budget, "--point-budget"))
        if not point_budget > 0:
            raise InputError(f"--point-budget must be > 0, got {args.point_budget!r}")
    show = not args.quiet and (args.progress or sys.stderr.isatty())
    line = ProgressLine() if show else None
    try:
        summary = run_sweep(grid, args.out, jobs=args.jobs, dask=args.dask, point_budget=point_budget,
                            retry_errors=args.retry_errors, on_progress=line)
    except SweepAborted as err:
        print(f"certdp: sweep stopped: {err}", file=sys.stderr)
        return EXIT_UNDECIDED
    finally:
        if line is not None:
            line.end()
    if args.json:  # the inputs answered, the file, the counts (load the table: certdp.sweep.results_frame)
        import json  # noqa: PLC0415

        print(json.dumps({"grid": args.grid, "out": args.out, "columns": list(grid.columns), "points": summary.total,
                          "computed": summary.computed, "resumed": summary.resumed, "failed": summary.failed,
                          "seconds": round(summary.seconds, 3)}))
    elif not args.quiet:
        print(f"{summary.total} points: {summary.computed} computed, {summary.resumed} already in {args.out}, "
              f"{summary.failed} failed ({summary.seconds:.1f} s)")
    return EXIT_OK if summary.failed == 0 else EXIT_UNDECIDED
