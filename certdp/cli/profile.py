"""``certdp profile SPEC``: certified privacy profile of a mechanism.

* ``--eps E``   → δ(E), a certified enclosure (relative width <= 10^-digits).
* ``--delta D`` → the smallest ε >= 0 with δ(ε) <= D, a certified enclosure
  (exactly 0 when δ(0) <= D).

If no ε reaches D — proved, e.g. ``approx_dp(eps=1, delta=0.1)`` with
D < 0.1, or any Gaussian with D = 0 — the answer is negative: exit code 1 and
a one-line message (with ``--json``: ``{"eps": null, "reason": ...}``).
Compositions without a closed-form profile (e.g. ``compose(laplace(scale=1),
k=10)``, ``dpsgd(noise=1, rate=0.01, steps=100)``) are answered by a certified
accountant (see :mod:`certdp.analyses.dispatch`); the output names it (``"method"`` in
JSON).  Bad specs and values exit 2 with one line.  A mechanism whose profile
is only an upper bound (``clip_reify``, ``profile("...")``, a general
``tradeoff``) gets the lower end 0 and says "upper bound only"
(``"profile_kind"`` in JSON); unproved hypotheses anywhere in the spec are
printed as "assuming (unproved): ..." (``"assuming": [...]`` in JSON).
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit


def _handler(args: argparse.Namespace) -> int:
    from certdp.analyses.dispatch import delta_of, eps_of  # noqa: PLC0415 (lazy: fast start-up)
    from certdp.mechanisms import DeltaUnattainable, parse_spec  # noqa: PLC0415
    from certdp.numerics.ball import digits_to_bits  # noqa: PLC0415

    mech = parse_spec(args.spec)
    bits = digits_to_bits(args.digits, None)
    spec = mech.spec()
    try:
        if args.eps is not None:
            ans = delta_of(mech, args.eps, bits=bits)
            text = f"{spec}\n  δ({args.eps}) ∈ {ans.enclosure}"
            data: dict = {"delta": ans.enclosure}
        else:
            ans = eps_of(mech, args.delta, bits=bits)
            text = f"{spec}\n  smallest ε with δ(ε) <= {args.delta}: ε ∈ {ans.enclosure}"
            data = {"eps": ans.enclosure}
    except DeltaUnattainable as err:
        emit(args, f"{spec}\n  no ε >= 0 has δ(ε) <= {args.delta}: {err}", {"eps": None, "reason": str(err)})
        return EXIT_UNDECIDED
    if not ans.kind.bounds_from_below:
        text += f"\n  {ans.kind.value}: the lower end 0 is all that is known from below"
    text += f"\n  [{ans.method}]"
    data["method"] = ans.method
    data["profile_kind"] = ans.kind.value
    if ans.assumptions:
        text += "".join(f"\n  assuming (unproved): {a}" for a in ans.assumptions)
        data["assuming"] = list(ans.assumptions)
    if args.certificate:
        from certdp.certificates.writer import upper_dp_certificate, write, written_note  # noqa: PLC0415

        from certdp.expr.brackets import bracket  # noqa: PLC0415

        # a closed-form target is stated at its bracket's lower end: the stronger claim the
        # answer's upper end proves (δ(ε_lo) <= hi; ε(δ_lo) <= hi)
        if args.eps is not None:
            doc = upper_dp_certificate(mech, eps=bracket(args.eps, "eps", zero_ok=True)[0], delta_hi=ans.enclosure,
                                       assumptions=ans.assumptions)
        else:
            doc = upper_dp_certificate(mech, delta=bracket(args.delta, "delta")[0], eps_hi=ans.enclosure,
                                       assumptions=ans.assumptions)
        write(doc, args.certificate)
        note, data["certificate"] = written_note(doc, args.certificate, ans.enclosure,
                                                 "delta" if args.eps is not None else "eps")
        text += f"\n  {note}"
    emit(args, text, data)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "profile",
        help="certified δ(ε) or ε(δ) of a mechanism spec",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "spec",
        metavar="SPEC",
        help='mechanism spec, e.g. "subsample(laplace(scale=1/2), rate=0.1)" (see `certdp mechanisms`)',
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--eps", help="ε >= 0 (exact decimal or fraction): print δ(ε)")
    what.add_argument("--delta", help="0 <= δ < 1: print the smallest ε with δ(ε) <= δ")
    p.add_argument("--digits", type=int, default=15, help="accuracy in decimal digits (default 15)")
    p.add_argument("--certificate", metavar="FILE", default=None,
                   help="write a certificate that the mechanism is (ε, δ)-DP at the answer's upper end "
                        "(closed-form profiles and DP-SGD compositions; check with `certdp verify FILE`)")
    add_json_flag(p)
    p.set_defaults(handler=_handler)
