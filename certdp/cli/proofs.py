"""``certdp proofs``: run the machine-checked facts in ``proofs/`` and print a table.

The facts live in the repository's ``proofs/`` folder, next to the ``certdp``
package of a source checkout (an editable install included); the wheel does not
install them as a top-level package.  Without a checkout the command says so."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit


def _checkout_proofs():  # noqa: ANN202 - the proofs package of the source checkout
    import importlib.util  # noqa: PLC0415
    import pathlib  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from certdp.errors import InputError  # noqa: PLC0415

    root = pathlib.Path(__file__).resolve().parents[2]  # certdp/cli/proofs.py -> the checkout's root
    if importlib.util.find_spec("proofs") is None:
        if not (root / "proofs" / "__init__.py").is_file():
            raise InputError("certdp proofs runs the machine-checked facts of a source checkout (the proofs/ folder "
                             "is not installed with the package): clone the repository and run it there")
        sys.path.insert(0, str(root))
    import proofs  # noqa: PLC0415

    return proofs


def _run(args: argparse.Namespace) -> int:
    run_all = _checkout_proofs().run_all

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
