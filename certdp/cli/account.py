"""``certdp account``: certified δ(ε) or ε(δ) of a heterogeneous composition.

    certdp account --mechanism "gaussian(sigma=5)" --times 50 \\
                   --mechanism "randomized_response(p=0.52)" --times 50 --eps 2 --json
    -> {"delta": {"lo": ..., "hi": ...}}

Each ``--mechanism SPEC`` may be followed by ``--times K`` (default 1).  The
characteristic-function accountant (:mod:`certdp.accountants.phi`) is used.
"""

from __future__ import annotations

import argparse
import re
from fractions import Fraction

from certdp.accountants.pairs import (
    ApproxDPPair,
    GaussianPair,
    LaplacePair,
    RandomizedResponse,
)
from certdp.accountants.phi import PhiAccountant, to_pair
from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.errors import InputError
from certdp.numerics.exact import exact

_SPEC = re.compile(r"^\s*([a-z_]+)\s*\((.*)\)\s*$")


def _minimal_spec(text: str) -> object:
    """Fallback parser ``name(key=value, ...)`` (exact numbers only, no eval)."""
    m = _SPEC.match(text)
    if not m:
        raise InputError(f"cannot parse mechanism spec {text!r}; expected name(key=value, ...)")
    name, body = m.group(1), m.group(2).strip()
    kw: dict[str, Fraction] = {}
    if body:
        for item in body.split(","):
            if "=" not in item:
                raise InputError(f"mechanism spec {text!r}: expected key=value, got {item!r}")
            key, value = (t.strip() for t in item.split("=", 1))
            kw[key] = exact(value, f"{name}: {key}")
    sens = kw.pop("sensitivity", Fraction(1))
    try:
        if name == "gaussian" and set(kw) == {"sigma"}:
            return GaussianPair(kw["sigma"] / sens)
        if name == "gaussian_dp" and set(kw) == {"mu"}:
            return GaussianPair(1 / kw["mu"])
        if name == "laplace" and set(kw) == {"scale"}:
            return LaplacePair(kw["scale"] / sens)
        if name == "randomized_response" and set(kw) == {"p"}:
            return RandomizedResponse(p=kw["p"])
        if name == "pure_dp" and set(kw) == {"eps"}:
            return RandomizedResponse(eps0=kw["eps"])
        if name == "approx_dp" and set(kw) == {"eps", "delta"}:
            return ApproxDPPair(kw["eps"], kw["delta"])
    except ZeroDivisionError:
        raise InputError(f"mechanism spec {text!r}: division by zero") from None
    raise InputError(f"the accountant does not know mechanism spec {text!r}")


def parse_mechanism(text: str) -> object:
    """A dominating pair for the spec ``text`` (catalog parser if available)."""
    try:
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415
    except ImportError:
        return _minimal_spec(text)
    return to_pair(parse_spec(text))


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
        help="certified delta(eps) / eps(delta) of a composition (phi accountant)",
        description="Compose mechanisms (heterogeneous, any order) with the certified "
        "characteristic-function accountant of seed 002 and print an enclosure of "
        "delta(eps) or of the smallest eps with delta(eps) <= delta.",
    )
    p.add_argument("--mechanism", action=_MechanismAction, metavar="SPEC", dest="mechanism",
                   help='e.g. "gaussian(sigma=5)", "laplace(scale=2)", '
                        '"randomized_response(p=0.52)", "pure_dp(eps=0.2)"')
    p.add_argument("--times", action=_TimesAction, metavar="K", dest="times",
                   help="compose the preceding --mechanism K times (default 1)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--eps", help="report delta(eps) (exact number, e.g. 0.5)")
    target.add_argument("--delta", help="report the smallest eps with delta(eps) <= delta")
    p.add_argument("--rel-bits", type=int, default=34,
                   help="relative accuracy target of delta in bits (default 34, about 1e-10)")
    add_json_flag(p)
    p.set_defaults(handler=run, items=None)


def run(args: argparse.Namespace) -> int:
    if not args.items:
        raise InputError("give at least one --mechanism")
    if not 4 <= args.rel_bits <= 200:
        raise InputError(f"--rel-bits must lie in [4, 200], got {args.rel_bits}")
    acc = PhiAccountant(rel_bits=args.rel_bits)
    for spec, k in args.items:
        acc = acc.compose(parse_mechanism(spec), k)
    desc = " + ".join(f"{k} x {spec}" for spec, k in args.items)
    if args.eps is not None:
        d = acc.delta(args.eps)
        emit(args, f"{desc}\ndelta(eps={args.eps}) ∈ {d}", {"delta": d})
    else:
        e = acc.epsilon(args.delta)
        emit(args, f"{desc}\neps(delta={args.delta}) ∈ {e}", {"eps": e})
    return EXIT_OK
