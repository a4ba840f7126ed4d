"""``certdp profile SPEC``: certified privacy profile of a mechanism.

* ``--eps E``   → δ(E), a certified enclosure (relative width <= 10^-digits).
* ``--delta D`` → the smallest ε >= 0 with δ(ε) <= D, a certified enclosure
  (exactly 0 when δ(0) <= D).

If no ε reaches D — proved, e.g. ``approx_dp(eps=1, delta=0.1)`` with
D < 0.1, or any Gaussian with D = 0 — the answer is negative: exit code 1 and
a one-line message (with ``--json``: ``{"eps": null, "reason": ...}``).
Compositions without a closed-form profile (e.g. ``compose(laplace(scale=1),
k=10)``, ``dpsgd(noise=1, rate=0.01, steps=100)``) are answered by a certified
accountant (see :mod:`certdp.routing`); the output names it (``"method"`` in
JSON).  Bad specs and values exit 2 with one line.  For a user ``profile("...")``
whose monotonicity could not be fully proved, ``--delta`` answers under that
assumption and says so (``"assuming": [...]`` in JSON); ``--eps`` needs no
assumption.
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, EXIT_UNDECIDED, add_json_flag, emit
from certdp.mechanisms import (
    DeltaUnattainable,
    Mechanism,
    Profile,
    delta_enclosure,
    eps_enclosure,
    parse_spec,
)
from certdp.numerics.ball import digits_to_bits
from certdp.routing import accountant_for


def _assumptions(mech: Mechanism) -> list[str]:
    """Unproved profile hypotheses of user profiles anywhere in the spec tree."""
    out: list[str] = []
    if isinstance(mech, Profile):
        out += list(mech.assumptions)
    for value in mech.params.values():
        if isinstance(value, Mechanism):
            out += _assumptions(value)
    return out


def _handler(args: argparse.Namespace) -> int:
    mech = parse_spec(args.spec)
    bits = digits_to_bits(args.digits, None)
    spec = mech.spec()
    found = accountant_for(mech)
    if found is not None:
        acc, method = found
        if args.eps is not None:
            enc = acc.delta(args.eps)
            emit(args, f"{spec}\n  δ({args.eps}) ∈ {enc}\n  [{method}]", {"delta": enc, "method": method})
        else:
            enc = acc.epsilon(args.delta)
            emit(args, f"{spec}\n  smallest ε with δ(ε) <= {args.delta}: ε ∈ {enc}\n  [{method}]",
                 {"eps": enc, "method": method})
        return EXIT_OK
    if args.eps is not None:
        enc = delta_enclosure(mech, args.eps, bits=bits)
        emit(args, f"{spec}\n  δ({args.eps}) ∈ {enc}", {"delta": enc})
        return EXIT_OK
    assumed = _assumptions(mech)
    try:
        enc = eps_enclosure(mech, args.delta, bits=bits)
    except DeltaUnattainable as err:
        emit(args, f"{spec}\n  no ε >= 0 has δ(ε) <= {args.delta}: {err}", {"eps": None, "reason": str(err)})
        return EXIT_UNDECIDED
    text = f"{spec}\n  smallest ε with δ(ε) <= {args.delta}: ε ∈ {enc}"
    data: dict = {"eps": enc}
    if assumed:
        # the bisection uses monotonicity of δ, which was not fully proved
        text += "".join(f"\n  assuming (unproved): {a}" for a in assumed)
        data["assuming"] = assumed
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
    add_json_flag(p)
    p.set_defaults(handler=_handler)
