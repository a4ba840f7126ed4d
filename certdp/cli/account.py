"""``certdp account``: certified δ(ε) or ε(δ) of a heterogeneous composition.

    certdp account --mechanism "gaussian(sigma=5)" --times 50 \\
                   --mechanism "randomized_response(p=0.52)" --times 50 --eps 2 --json
    -> {"delta": {"lo": ..., "hi": ...}}

Each ``--mechanism SPEC`` may be followed by ``--times K`` (default 1).  By
default the tight certified route is used (PLD accountant for subsampled
Gaussians, else the characteristic-function accountant); ``--accountant
pld|phi`` forces one, ``--accountant rdp`` gives the Rényi-DP upper bound
(:mod:`certdp.analyses.accountants.rdp`) with its order and conversion.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.errors import InputError

class _MechanismAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        items = list(getattr(namespace, "items", None) or [])
        items.append([values, 1])
        namespace.items = items


class _TimesAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        items = getattr(namespace, "items", None)
        if not items:
            parser.error("--times must follow a --mechanism")
        try:
            k = int(values)
        except ValueError:
            parser.error(f"--times expects a positive integer, got {values!r}")
        if k < 1:
            parser.error(f"--times expects a positive integer, got {values!r}")
        items[-1][1] = k


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "account",
        help="certified delta(eps) / eps(delta) of a composition (PLD engine or phi accountant)",
        description="Compose mechanisms (heterogeneous, any order) with a certified accountant "
        "(the router takes the exact routes first: Gaussian compositions and finite mechanisms on "
        "the characteristic-function accountant of Zhu, Dong & Wang 2022, everything else on the "
        "certified PLD engine) and print an enclosure of delta(eps) or of the smallest eps with "
        "delta(eps) <= delta; the output names the route.",
    )
    p.add_argument("--mechanism", action=_MechanismAction, metavar="SPEC", dest="mechanism",
                   help='any catalog spec (certdp mechanisms lists them), e.g. "gaussian(sigma=5)", '
                        '"laplace(scale=2)", "subsample(gaussian(sigma=1), rate=0.01)" (a DP-SGD step), '
                        '"subset(laplace(scale=1), rate=1/100)", "pure_dp(eps=0.1)", "profile(\"...\")"')
    p.add_argument("--times", action=_TimesAction, metavar="K", dest="times",
                   help="compose the preceding --mechanism K times (default 1)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--eps", help="report delta(eps) (exact number, e.g. 0.5)")
    target.add_argument("--delta", help="report the smallest eps with delta(eps) <= delta")
    p.add_argument("--accountant", choices=("auto", "pld", "phi", "rdp"), default="auto",
                   help="auto: the router's certified route (named in the output); "
                        "pld / phi: that accountant; "
                        "rdp: the Renyi-DP accountant (an upper bound only, names order and conversion)")
    p.add_argument("--conversion", choices=("improved", "classic"), default=None,
                   help="rdp only: the RDP-to-(eps, delta) conversion (default: the better of the two)")
    p.add_argument("--certificate", metavar="FILE", default=None,
                   help="write a certificate of the answer's upper end (check with `certdp verify FILE`); "
                        "one --mechanism only")
    p.add_argument("--width", default=None, metavar="W",
                   help="with --delta: refine until the eps enclosure is at most W wide (exact number; "
                        "auto route only; upper-bound-only routes cannot narrow)")
    p.add_argument("--rel-bits", type=int, default=34,
                   help="relative accuracy target of delta in bits (default 34, about 1e-10)")
    add_json_flag(p)
    p.set_defaults(handler=run, items=None)


def run(args: argparse.Namespace) -> int:
    if not args.items:
        raise InputError("give at least one --mechanism")
    if not 4 <= args.rel_bits <= 200:
        raise InputError(f"--rel-bits must lie in [4, 200], got {args.rel_bits}")
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415
    from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415

    mechs = [(parse_spec(spec), k) for spec, k in args.items]
    if args.accountant == "rdp":
        return _run_rdp(args, mechs)
    if args.conversion is not None:
        raise InputError("--conversion applies to --accountant rdp only")
    if args.width is not None and (args.delta is None or args.accountant != "auto"):
        raise InputError("--width applies to --delta answers of the auto route")
    if args.delta is not None and args.accountant == "auto":  # refined to --width, or to the default width
        from certdp.analyses.dispatch import narrowed_epsilon  # noqa: PLC0415

        e, method = narrowed_epsilon(mechs, args.delta, args.width, rel_bits=args.rel_bits)
        desc = " + ".join(f"{k} x {spec}" for spec, k in args.items) + f"  [{method}]"
        _emit(args, f"{desc}\neps(delta={args.delta}) ∈ {e}", "eps", e, mechs)
        return EXIT_OK
    if args.eps is not None and args.accountant == "auto":  # refined to the default relative width
        from certdp.analyses.dispatch import narrowed_delta  # noqa: PLC0415

        d, method = narrowed_delta(mechs, args.eps, rel_bits=args.rel_bits)
        desc = " + ".join(f"{k} x {spec}" for spec, k in args.items) + f"  [{method}]"
        _emit(args, f"{desc}\ndelta(eps={args.eps}) ∈ {d}", "delta", d, mechs)
        return EXIT_OK
    if args.accountant == "pld":
        from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

        acc = PLDAccountant().compose_all(mechs)
        method = acc.method
    elif args.accountant == "phi":
        from certdp.analyses.accountants.phi import PhiAccountant, to_pair  # noqa: PLC0415

        acc = PhiAccountant(rel_bits=args.rel_bits).compose_all((to_pair(m), k) for m, k in mechs)
        method = "phi accountant"
    else:
        acc, method = composition_accountant(mechs, rel_bits=args.rel_bits)
    desc = " + ".join(f"{k} x {spec}" for spec, k in args.items) + f"  [{method}]"
    if args.eps is not None:
        d = acc.delta(args.eps)
        _emit(args, f"{desc}\ndelta(eps={args.eps}) ∈ {d}", "delta", d, mechs)
    else:
        e = acc.epsilon(args.delta)
        _emit(args, f"{desc}\neps(delta={args.delta}) ∈ {e}", "eps", e, mechs)
    return EXIT_OK


def _assumptions(mechs: list) -> tuple[str, ...]:
    """Every unproved hypothesis of the composed mechanisms (each once, in order): an
    answer holds only under them, so they are printed with it and listed in the JSON."""
    return tuple(dict.fromkeys(a for m, _ in mechs for a in m.assumptions))


def _assuming(assumptions: tuple[str, ...]) -> str:
    return "".join(f"\nassuming (unproved): {a}" for a in assumptions)


def _emit(args: argparse.Namespace, text: str, key: str, answer: object, mechs: list) -> None:
    """Print the answer with its unproved hypotheses, and the certificate written for it
    (text and JSON record)."""
    note, record = _certify(args, answer)
    assumptions = _assumptions(mechs)
    emit(args, text + _assuming(assumptions) + note,
         {key: answer, "assumptions": list(assumptions), **({"certificate": record} if record else {})})


def _certify(args: argparse.Namespace, answer: object) -> tuple[str, dict]:
    """Write --certificate FILE for the answer's upper end (one mechanism with any count,
    or a heterogeneous composition: ``compose_all``); the text to print."""
    if not args.certificate:
        return "", {}
    from certdp.certificates.writer import composition_certificate, upper_dp_certificate, write, written_note  # noqa: PLC0415
    from certdp.expr.brackets import bracket  # noqa: PLC0415
    from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

    # a closed-form target is stated at its bracket's lower end (the stronger claim, see profile)
    target = ({"eps": bracket(args.eps, "eps", zero_ok=True)[0], "delta_hi": answer} if args.eps is not None
              else {"delta": bracket(args.delta, "delta")[0], "eps_hi": answer})
    if len(args.items) > 1:
        doc = composition_certificate([(parse_spec(spec), k) for spec, k in args.items], **target)
    else:
        spec, k = args.items[0]
        doc = upper_dp_certificate(parse_spec(spec if k == 1 else f"compose({spec}, k={k})"), **target)
    write(doc, args.certificate)
    text, record = written_note(doc, args.certificate, answer, "delta" if args.eps is not None else "eps")
    return "\n" + text, record


def _run_rdp(args: argparse.Namespace, mechs: list) -> int:
    from certdp.analyses.accountants.rdp import RDPAccountant  # noqa: PLC0415

    acc = RDPAccountant().compose_all(mechs)
    bound = (acc.delta_bound(args.eps, args.conversion) if args.eps is not None
             else acc.epsilon_bound(args.delta, args.conversion))
    desc = " + ".join(f"{k} x {spec}" for spec, k in args.items) + f"  [{bound.method}]"
    what = f"delta(eps={args.eps})" if args.eps is not None else f"eps(delta={args.delta})"
    key = "delta" if args.eps is not None else "eps"
    assumptions = _assumptions(mechs)
    emit(args, f"{desc}\n{what} <= {bound.enclosure.hi_str(8)}   (certified upper bound; enclosure {bound.enclosure})"
         + _assuming(assumptions),
         {key: bound.enclosure, "assumptions": list(assumptions), "accountant": "rdp", "order": str(bound.order), "conversion": bound.conversion,
          "upper_bound_only": True})
    return EXIT_OK
