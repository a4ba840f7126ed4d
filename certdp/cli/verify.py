"""``certdp verify FILE``: independent re-check of a certificate (docs/certificates.md)."""

from __future__ import annotations

import argparse
import json
import sys

from certdp.errors import InputError
from certdp.cli.common import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNDECIDED, add_budget_flag, add_json_flag, emit


def _run(args: argparse.Namespace) -> int:
    from certdp.verifier.checker import verify  # noqa: PLC0415
    from certdp.verifier.schema import MalformedCertificate  # noqa: PLC0415

    try:
        if args.coq_out is not None and args.kernel != "coq":
            raise InputError("--coq-out needs --kernel coq")
        if args.kernel == "coq":
            from certdp.verifier.coq.run import verify as verify_with_coq  # noqa: PLC0415

            res = verify_with_coq(args.file, args.coq_out)
        else:
            res = verify(args.file, args.kernel)
    except MalformedCertificate as err:
        if args.json:
            print(json.dumps({"valid": False, "claim": None, "failed_step": None, "error": f"malformed: {err}"}))
        else:
            print(f"certdp: error: malformed certificate: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT

    def human() -> str:
        c = res.claim
        head = ", ".join(f"{k} = {v}" for k, v in c.items() if k not in ("kind", "mechanism", "assumptions"))
        about = f"for {c['mechanism']}" if c['mechanism'] is not None else "(no mechanism)"
        return f"{res}\nclaim: {c['kind']} {about} ({head})"

    emit(args, human, res.to_json())
    # a claim valid only under unproved hypotheses is not an unconditional yes
    return EXIT_OK if res.unconditional else EXIT_UNDECIDED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check a certificate: VALID or INVALID with the first failing step",
        description="Re-derive every inequality of a certdp certificate with the independent "
        "checker. Exit 0 VALID, 1 INVALID or valid only under unproved assumptions "
        "(which are printed), 2 malformed.",
    )
    p.add_argument("file", help="certificate JSON file (at most 16 MiB)")
    p.add_argument("--kernel", choices=("flint", "mpmath", "coq"), default="flint",
                   help="interval kernel: flint (python-flint balls, default), mpmath (mpmath.iv, an "
                        "independent second kernel for the closed-form kinds) or coq (the claim as a Coq "
                        "theorem checked by coqc with the Interval and Coquelicot libraries)")
    p.add_argument("--coq-out", metavar="FILE.v", default=None,
                   help="with --kernel coq: keep the generated Coq proof script in FILE.v")
    add_budget_flag(p, "600")
    add_json_flag(p)
    p.set_defaults(handler=_run)
