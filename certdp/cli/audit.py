"""``certdp audit``: certified verdicts for the claims in a TOML claims file."""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag
from certdp.errors import InputError


def _one(args: tuple) -> object:
    from certdp.audit import audit_claim

    claim, want_cert = args
    return audit_claim(claim, want_cert)


def _table(verdicts: list) -> str:
    rows = [("id", "verdict", "enclosure", "printed", "valid guarantee")]
    for v in verdicts:
        valid = {True: "yes", False: "NO", None: "-"}[v.valid_guarantee]
        shown = v.verdict + (" (assuming)" if v.assumptions else "")
        rows.append((v.id, shown, "-" if v.enclosure is None else str(v.enclosure), v.printed or "-", valid))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    details = [f"  {v.id}: {v.detail}" + (f"  [{v.method}]" if v.method else "") for v in verdicts
               if v.verdict != "CONFIRMED" or v.assumptions]
    counts = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    return "\n".join(out + ([""] + ["not confirmed, or confirmed only under unproved assumptions:"] + details if details else []) + ["", summary])


def _run(args: argparse.Namespace) -> int:
    from certdp.audit import builtin_path, load_claims

    if (args.file is None) == (args.builtin is None):
        raise InputError("give a claims FILE or --builtin NAME (not both)")
    claims = load_claims(builtin_path(args.builtin) if args.builtin else args.file)
    if args.jobs < 1:
        raise InputError(f"--jobs must be >= 1, got {args.jobs}")
    want = args.certificates is not None
    work = [(c, want) for c in claims]
    show_progress = sys.stderr.isatty() and not args.json
    verdicts = []
    if args.jobs == 1:
        for i, w in enumerate(work):
            if show_progress:
                print(f"\r[{i + 1}/{len(work)}] {w[0].id}".ljust(70), end="", file=sys.stderr, flush=True)
            verdicts.append(_one(w))
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for i, v in enumerate(pool.map(_one, work)):
                if show_progress:
                    print(f"\r[{i + 1}/{len(work)}] {v.id}".ljust(70), end="", file=sys.stderr, flush=True)
                verdicts.append(v)
    if show_progress:
        print(file=sys.stderr)
    if want:
        os.makedirs(args.certificates, exist_ok=True)
        for v in verdicts:
            if v.certificate is not None:
                with open(os.path.join(args.certificates, f"{v.id}.json"), "w", encoding="utf-8") as fh:
                    json.dump(v.certificate, fh, indent=1)
    if args.json:
        print(json.dumps({"claims": [v.to_json() for v in verdicts]}))
    else:
        print(_table(verdicts))
    decided = all(v.verdict in ("CONFIRMED", "REFUTED") for v in verdicts)
    return EXIT_OK if decided else EXIT_UNDECIDED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit published privacy claims (TOML claims file)", description=__doc__
                       + " Exit 0 when every claim is decided, 1 if any is INCONCLUSIVE or UNSUPPORTED, 2 on a malformed file.")
    p.add_argument("file", nargs="?", help="claims file (TOML)")
    p.add_argument("--builtin", metavar="NAME", help="a bundled claims file, e.g. 'seeds'")
    p.add_argument("--certificates", metavar="DIR", help="write certificates (where a kind has one) to DIR")
    p.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    add_json_flag(p)
    p.set_defaults(handler=_run)


