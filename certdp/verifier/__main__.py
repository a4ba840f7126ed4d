"""``python -m certdp.verifier FILE [--kernel flint|mpmath] [--json]``: the checker on its
own, without the ``certdp`` command line (same answers and exit codes as ``certdp
verify``: 0 VALID, 1 INVALID or valid only under unproved assumptions, 2 malformed
or unreadable)."""

from __future__ import annotations

import argparse
import json
import sys

from certdp.verifier.errors import InputError
from certdp.verifier.checker import KERNELS, verify
from certdp.verifier.schema import MalformedCertificate


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m certdp.verifier", description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="certificate JSON file (at most 16 MiB)")
    p.add_argument("--kernel", choices=(*KERNELS, "coq"), default="flint")
    p.add_argument("--coq-out", metavar="FILE.v", default=None, help="with --kernel coq: keep the Coq script")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    try:
        if args.coq_out is not None and args.kernel != "coq":
            raise InputError("--coq-out needs --kernel coq")
        if args.kernel == "coq":
            from certdp.verifier.coq.run import verify as verify_with_coq  # noqa: PLC0415

            res = verify_with_coq(args.file, args.coq_out)
        else:
            res = verify(args.file, args.kernel)
    except (MalformedCertificate, InputError) as err:
        print(f"python -m certdp.verifier: error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(res.to_json()) if args.json else str(res))
    return 0 if res.unconditional else 1


if __name__ == "__main__":
    sys.exit(main())
