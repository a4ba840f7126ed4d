"""``certdp tradeoff SPEC --alpha A``: certified β = f(α) of a mechanism's trade-off curve.

f(α) is the smallest type II error of a test of the two neighbouring datasets at
type I error α (symmetric over both neighbouring relations; Dong, Roth & Su 2022).
Exactly Gaussian mechanisms (and compositions of them) use f_μ in closed form;
every other spec the PLD engine holds — any composition — is bounded from the
certified PLDs: the lower end from the upper PLDs (what a privacy guarantee
needs), the upper end from the lower PLDs.  A mechanism known only by an
upper-bound profile gets 1 − α as its upper end (nothing is proved from below).
"""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit


def _handler(args: argparse.Namespace) -> int:
    from certdp.analyses.dispatch import tradeoff_of  # noqa: PLC0415 (lazy: fast start-up)
    from certdp.mechanisms import parse_spec  # noqa: PLC0415

    mech = parse_spec(args.spec)
    ans = tradeoff_of(mech, args.alpha)
    text = f"{mech.spec()}\n  f({args.alpha}) ∈ {ans.enclosure}\n  [{ans.method}]"
    data: dict = {"alpha": args.alpha, "beta": ans.enclosure, "method": ans.method,
                  "profile_kind": ans.kind.value}
    if ans.assumptions:
        text += "".join(f"\n  assuming (unproved): {a}" for a in ans.assumptions)
        data["assuming"] = list(ans.assumptions)
    emit(args, text, data)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tradeoff", help="certified trade-off curve value beta = f(alpha) of a mechanism spec",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help='mechanism spec, e.g. "compose(laplace(scale=5), k=50)"')
    p.add_argument("--alpha", required=True, help="type I error 0 <= alpha <= 1 (exact number, e.g. 0.05)")
    add_json_flag(p)
    p.set_defaults(handler=_handler)
