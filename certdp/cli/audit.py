"""``certdp audit``: certified verdicts for the claims in a TOML claims file."""

from __future__ import annotations

import argparse
import json
import os

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, parse_seconds
from certdp.errors import InputError
from certdp.progress import report


def _one(args: tuple) -> object:
    """One claim under its own budget: a claim that needs more becomes INCONCLUSIVE
    with the reason (audit_claim turns the BudgetExceeded into that verdict), and the
    audit goes on with the next claim.  In this process the budget is nested in the
    command's --budget, so once that is spent every remaining claim stops at once."""
    from certdp.audit import audit_claim
    from certdp.errors import budget  # noqa: PLC0415

    claim, want_cert, (seconds, option) = args
    with budget(seconds, option):
        return audit_claim(claim, want_cert)


def _claim_budget(seconds: float) -> tuple[float, str]:
    """A claim's budget: --claim-budget, or what is left of --budget if less (worker
    processes do not see this process's budget, so it is handed to each claim)."""
    from certdp.errors import remaining_budget  # noqa: PLC0415

    left = remaining_budget()
    return (seconds, "--claim-budget") if left is None or left[0] >= seconds else left


def _table(verdicts: list) -> str:
    # which quantity the enclosure column shows, per claim (δ at the claim's ε, μ, a value's quantity)
    rows = [("id", "verdict", "quantity", "certified enclosure", "printed", "valid guarantee")]
    for v in verdicts:
        valid = {True: "yes", False: "NO", None: "-"}[v.valid_guarantee]
        shown = v.verdict + (" (assuming)" if v.assumptions else "")
        rows.append((v.id, shown, v.quantity or "-", "-" if v.enclosure is None else str(v.enclosure), v.printed or "-",
                     valid))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    details = [f"  {v.id}: {v.detail}" + (f"  [{v.method}]" if v.method else "") for v in verdicts
               if v.verdict != "CONFIRMED" or v.assumptions]
    counts = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    return "\n".join(out + ([""] + ["not confirmed, or confirmed only under unproved assumptions:"] + details if details else []) + ["", summary])


#: Longest claim-derived part of a certificate file name.
MAX_NAME = 80


def certificate_filename(claim_id: str) -> str:
    """A safe file name for a claim's certificate: the id's characters from
    [A-Za-z0-9._-] (others become '_', no leading dots, at most MAX_NAME),
    plus a short hash of the exact id so distinct ids never collide.  Never a
    path: no separators, no '..', no NUL."""
    import hashlib  # noqa: PLC0415
    import re  # noqa: PLC0415

    stem = re.sub(r"[^A-Za-z0-9._-]", "_", claim_id).lstrip(".")[:MAX_NAME] or "claim"
    digest = hashlib.sha256(claim_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem}-{digest}.json"


def _printable(text: str) -> str:
    return text.encode("unicode_escape").decode("ascii")[:60]


def _prepare_dir(path: str) -> str:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as err:
        raise InputError(f"--certificates {path!r}: cannot create the directory ({err.strerror})") from None
    if not os.path.isdir(path) or not os.access(path, os.W_OK):
        raise InputError(f"--certificates {path!r}: not a writable directory")
    return os.path.realpath(path)


def _write_certificate(out_dir: str, claim_id: str, doc: dict) -> None:
    target = os.path.realpath(os.path.join(out_dir, certificate_filename(claim_id)))
    if os.path.dirname(target) != out_dir:  # pragma: no cover - excluded by certificate_filename
        raise InputError(f"refusing to write outside {out_dir!r}: {target!r}")
    try:
        with open(target, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
    except OSError as err:
        raise InputError(f"cannot write certificate {target!r}: {err.strerror}") from None


def _certificate_summary(verdicts: list) -> str:
    """How many decided claims got a certificate, and why the others did not."""
    decided = [v for v in verdicts if v.verdict in ("CONFIRMED", "REFUTED")]
    lines = [f"certificates: {sum(v.certificate is not None for v in decided)} of {len(decided)} decided claims"]
    for v in decided:
        if v.certificate is None:
            lines.append(f"  no certificate for {_printable(v.id)}: {v.no_certificate or 'not supported'}")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    from certdp.audit import builtin_path, load_claims

    if (args.file is None) == (args.builtin is None):
        raise InputError("give a claims FILE or --builtin NAME (not both)")
    claims = load_claims(builtin_path(args.builtin) if args.builtin is not None else args.file)
    want = args.certificates is not None
    if want:
        out_dir = _prepare_dir(args.certificates)
    seconds = parse_seconds(args.claim_budget, "--claim-budget")
    work = [(c, want) for c in claims]
    found: dict[int, object] = {}

    def done(i: int, v: object) -> None:
        # progress on stderr (--progress/--quiet); budgets are enforced per claim (see _one)
        report("auditing claims", len(found) + 1, len(work))
        if want and v.certificate is not None:
            _write_certificate(out_dir, v.id, v.certificate)  # as soon as the claim is decided
        found[i] = v

    def lost(i: int, err: BaseException) -> None:
        raise InputError(f"claim {_printable(work[i][0].id)}: the worker computing it failed ({type(err).__name__}: {err})")

    # the sweep's executors: in-process, a process pool, or a Dask cluster
    from certdp.sweep import executor, run_tasks, window_for  # noqa: PLC0415

    with executor(args.jobs, args.dask) as (ex, workers):
        # each claim's budget is fixed when it is handed out (the generator is consumed lazily)
        run_tasks(_one, ((i, ((*w, _claim_budget(seconds)),)) for i, w in enumerate(work)), done, lost, ex,
                  window_for(workers, args.dask is not None))
    verdicts = [found[i] for i in range(len(work))]  # in file order, whatever order they finished in
    if args.json:
        print(json.dumps({"claims": [v.to_json() for v in verdicts]}))
    else:
        print(_table(verdicts))
        if want:
            print(_certificate_summary(verdicts))
    # the README's one rule: 0 when every verdict is positive (each claim CONFIRMED); 1 for a
    # negative (REFUTED) or undecided one (INCONCLUSIVE, UNSUPPORTED), so a CI job fails on it
    return EXIT_OK if all(v.verdict == "CONFIRMED" for v in verdicts) else EXIT_UNDECIDED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit published privacy claims (TOML claims file)", description=__doc__
                       + " Exit 0 when every claim is CONFIRMED, 1 if any is REFUTED, INCONCLUSIVE or UNSUPPORTED "
                       "(a negative or undecided verdict), 2 on a malformed file.")
    p.add_argument("file", nargs="?", help="claims file (TOML)")
    p.add_argument("--builtin", metavar="NAME", help="a bundled claims file: 'seeds' (the seed papers) or 'literature' (published DP-SGD claims, docs/audits/literature.md)")
    p.add_argument("--certificates", metavar="DIR",
                   help="write a certificate per decided claim to DIR as <safe id>-<hash>.json, as soon as it is decided")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="parallel worker processes (default 1: in this process); with --dask local, the number of workers")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="audit on the Dask scheduler at ADDRESS (tcp://HOST:PORT), or 'local' for a LocalCluster")
    p.add_argument("--claim-budget", metavar="SECONDS", default="300",
                   help="time budget per claim (default 300): a claim that needs more is INCONCLUSIVE with the "
                        "reason and the audit goes on; --budget bounds the whole audit the same way")
    add_json_flag(p)
    # --progress off a terminal: one line per claim decided, not the work inside a claim
    p.set_defaults(handler=_run, progress_points="auditing claims")


