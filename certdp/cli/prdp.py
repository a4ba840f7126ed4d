"""``certdp prdp``: approximate vs probabilistic DP (Guingona et al. 2023).

* ``convert``        δ̂ = δ/(1 - e^{ε-ε̂}) (Lemma 2.3 / Zhao et al. Lemma 12), or with
                     ``--delta-hat`` the smallest ε̂ = ε - ln(1 - δ/δ̂).
* ``counterexample`` an (ε, δ)-ADP mechanism that is not (ε̂, δ̂)-PrDP
                     (Thm 3.2; Thm 3.3 with ``--penalty g(x)``; Cor 3.4 (2) with ``--K``).
* ``check``          exact ADP / PrDP verdicts for a finite mechanism in a JSON file.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit
from certdp.errors import InputError

EXIT_EXPLANATION = "exit status: 0 verdict established, 1 negative/undecided, 2 bad input"


def _convert(args: argparse.Namespace) -> int:
    from certdp.analyses.prdp import adp_to_prdp, min_eps_hat  # noqa: PLC0415 (lazy: fast start-up)
    if (args.eps_hat is None) == (args.delta_hat is None):
        raise InputError("give exactly one of --eps-hat (→ δ̂) or --delta-hat (→ smallest ε̂)")
    if args.eps_hat is not None:
        enc = adp_to_prdp(args.eps, args.delta, args.eps_hat)
        human = (
            f"(ε = {args.eps}, δ = {args.delta})-ADP implies (ε̂ = {args.eps_hat}, δ̂)-PrDP with\n"
            f"  δ̂ = δ / (1 − e^(ε−ε̂)) ∈ {enc}   (Guingona et al. 2023 §2, Zhao et al. Lemma 12)"
        )
        emit(args, human, {"delta_hat": enc})
    else:
        enc = min_eps_hat(args.eps, args.delta, args.delta_hat)
        human = (
            f"(ε = {args.eps}, δ = {args.delta})-ADP implies (ε̂, δ̂ = {args.delta_hat})-PrDP for every\n"
            f"  ε̂ ≥ ε − ln(1 − δ/δ̂) ∈ {enc}   (Guingona et al. 2023 Lemma 2.3)"
        )
        emit(args, human, {"eps_hat": enc})
    return EXIT_OK


def _counterexample(args: argparse.Namespace) -> int:
    from certdp.analyses.prdp import corollary_3_4, theorem_3_2, theorem_3_3  # noqa: PLC0415 (lazy: fast start-up)
    if args.penalty is not None and args.K is not None:
        raise InputError("give at most one of --penalty and --K")
    if args.K is not None:
        cx = corollary_3_4(args.K, args.eps, args.eps_hat, args.delta, choice=args.choice)
    elif args.penalty is not None:
        cx = theorem_3_3(args.eps, args.delta, args.eps_hat, args.penalty, choice=args.choice)
    else:
        cx = theorem_3_2(args.eps, args.delta, args.eps_hat, choice=args.choice)
    human = str(cx)
    if args.certificate:
        if not cx.valid:
            raise InputError("the construction did not certify; no certificate written")
        from certdp.certificates.prdp_writer import write_certificate  # noqa: PLC0415

        write_certificate(cx, args.certificate)
        human += f"\n  certificate written to {args.certificate} (check with: certdp verify {args.certificate})"
    emit(args, human, cx.to_json())
    return EXIT_OK if cx.valid else EXIT_UNDECIDED


def _load_table(path: str) -> "FiniteMechanism":  # noqa: F821
    from certdp.analyses.prdp import FiniteMechanism  # noqa: PLC0415 (lazy: fast start-up)
    from certdp.files import parse_json, read_text  # noqa: PLC0415

    data = parse_json(read_text(path, "mechanism table"), f"mechanism table {path!r}")
    if isinstance(data, list):
        data = {"rows": data}
    if not isinstance(data, dict) or "rows" not in data:
        raise InputError(f'{path}: expected {{"rows": [[...], ...]}} or a list of rows')
    unknown = set(data) - {"rows", "inputs", "outputs", "neighbours", "type"}
    if unknown:
        raise InputError(f"{path}: unknown keys {sorted(unknown)}")
    rows = data["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise InputError(f"{path}: rows must be a list of lists")
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            if isinstance(v, float):
                raise InputError(
                    f"{path}: entry [{i}][{j}] = {v!r} is a JSON float; give exact probabilities as strings "
                    f'("0.1", "1/3", "exp(-1)/2")'
                )
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise InputError(f"{path}: entry [{i}][{j}] = {v!r} is not a number string")
    nb = data.get("neighbours")
    if nb is not None:
        if not isinstance(nb, list):
            raise InputError(f"{path}: neighbours must be a list of [i, j] pairs of input indices")
        nb = [tuple(p) if isinstance(p, list) else p for p in nb]
    return FiniteMechanism(rows, inputs=data.get("inputs"), outputs=data.get("outputs"), neighbours=nb)


def _check(args: argparse.Namespace) -> int:
    from certdp.analyses.prdp.exactreal import format_exact  # noqa: PLC0415 (lazy: fast start-up)
    from certdp.analyses.prdp import is_adp, is_prdp  # noqa: PLC0415 (lazy: fast start-up)
    mech = _load_table(args.table)
    adp = is_adp(mech, args.eps, args.delta)
    prdp = is_prdp(mech, args.eps, args.delta)
    data = {
        "eps": format_exact(adp.eps),
        "delta": format_exact(adp.delta),
        "adp": adp.to_json(),
        "prdp": prdp.to_json(),
    }
    human = "\n".join([f"{args.table}: {mech!r}", f"  {adp}", f"  {prdp}"])
    if adp.delta >= 1:  # exact comparison: every mechanism is (ε, δ)-DP and -PrDP for δ >= 1
        data["vacuous"] = True
        human += "\n  (vacuous: with delta >= 1 every mechanism satisfies both definitions)"
    emit(args, human, data)
    return EXIT_OK if (adp.holds and prdp.holds) else EXIT_UNDECIDED


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "prdp",
        help="approximate vs probabilistic DP: conversion, counterexamples, exact checks (Guingona et al. 2023)",
        description="Approximate (ADP) vs probabilistic (PrDP) differential privacy, Guingona et al. 2023. " + EXIT_EXPLANATION,
    )
    sub = p.add_subparsers(dest="prdp_command", metavar="SUBCOMMAND")
    sub.required = True

    c = sub.add_parser("convert", help="(ε, δ)-ADP ⇒ (ε̂, δ̂)-PrDP: δ̂ = δ/(1 − e^(ε−ε̂))")
    c.add_argument("--eps", required=True, help="ADP ε ≥ 0 (exact decimal or a/b)")
    c.add_argument("--delta", required=True, help="ADP δ ≥ 0")
    c.add_argument("--eps-hat", dest="eps_hat", help="PrDP ε̂ > ε: print the enclosure of δ̂")
    c.add_argument("--delta-hat", dest="delta_hat", help="PrDP δ̂ > δ: print the smallest ε̂ (Lemma 2.3)")
    add_json_flag(c)
    c.set_defaults(handler=_convert)

    x = sub.add_parser(
        "counterexample",
        help="a certified (ε, δ)-ADP mechanism that is not (ε̂, δ̂)-PrDP (Thm 3.2 / 3.3 / Cor 3.4)",
        description="Without --penalty: Guingona et al. 2023 Thm 3.2 (δ̂ = δ). With --penalty g(x): Thm 3.3, "
        "δ' ∈ (0, δ) by certified bisection and δ̂ = g(δ'). With --K: Cor 3.4 (2), g(x) = Kx. "
        + EXIT_EXPLANATION,
    )
    x.add_argument("--eps", required=True, help="ADP ε ≥ 0")
    x.add_argument("--delta", required=True, help="ADP δ in (0, 1) (Thm 3.3 / Cor 3.4: upper bound for δ')")
    x.add_argument("--eps-hat", dest="eps_hat", required=True, help="PrDP ε̂ ≥ 0")
    x.add_argument("--penalty", help='penalty g(x), e.g. "x**2" or "10*x" (safe parser; variable x)')
    x.add_argument("--K", help="Corollary 3.4 (2): g(x) = K·x, needs 0 < ε̂ < ln(1 + 1/K)")
    x.add_argument(
        "--choice",
        choices=("wide", "seed"),
        default="wide",
        help="rational q: 'wide' = simplest rational well inside the admissible window (default), "
        "'seed' = within 2^-50 (relative) of the seed's closed-form q*",
    )
    x.add_argument("--certificate", metavar="FILE", help="write an adp_not_prdp certificate to FILE")
    add_json_flag(x)
    x.set_defaults(handler=_counterexample)

    k = sub.add_parser(
        "check",
        help="exact (ε, δ)-ADP and (ε, δ)-PrDP verdicts for a finite mechanism",
        description='TABLE.json: {"rows": [["1/2", "1/2"], ["1/3", "2/3"]], "neighbours": [[0, 1]]} '
        "(entries exact strings or ints, or expressions like \"exp(-1)\"; neighbours default to all pairs; "
        "optional \"inputs\"/\"outputs\" labels). Exit 0 iff both hold. " + EXIT_EXPLANATION,
    )
    k.add_argument("table", metavar="TABLE.json")
    k.add_argument("--eps", required=True, help="ε ≥ 0")
    k.add_argument("--delta", required=True, help="δ ≥ 0")
    add_json_flag(k)
    k.set_defaults(handler=_check)
