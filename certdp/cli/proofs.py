"""``certdp proofs``: run the machine-checked facts in ``proofs/`` and print a table."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit


def _run(args: argparse.Namespace) -> int:
    from proofs import run_all

    results = run_all()

    def human() -> str:
        width = max(len(r.name) for r in results)
        lines = []
        for r in results:
            lines.append(f"{r.name:<{width}}  {r.verdict:<9}  {r.statement}")
            if args.verbose:
                lines += [f"    [{'ok' if s.ok else 'FAIL'}] ({s.method}) {s.claim}" for s in r.steps]
            lines += [f"    correction: {c}" for c in r.corrections]
        return "\n".join(lines)

    data = {"proofs": [{"name": r.name, "verdict": r.verdict, "statement": r.statement, "source": r.source,
                        "steps": [{"claim": s.claim, "method": s.method, "ok": s.ok} for s in r.steps],
                        "corrections": list(r.corrections)} for r in results]}
    emit(args, human, data)
    return EXIT_OK if all(r.ok for r in results) else EXIT_UNDECIDED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("proofs", help="run the machine-checked facts (proofs/)", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true", help="show every step")
    add_json_flag(p)
    p.set_defaults(handler=_run)
